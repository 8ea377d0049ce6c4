package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/actionrun"
)

type actionStep = actionrun.Step

// loadAction reads action.yml strictly (a misspelt key fails here rather
// than on GitHub).
func loadAction(t *testing.T) *actionrun.Action {
	t.Helper()
	a, err := actionrun.Load("../../action.yml")
	if err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// pendingFlags are flags of `apicheck check` that action.yml uses and that
// another change is adding. Once a flag exists the test fails until its
// entry is removed here, so the allowance cannot outlive its reason.
var pendingFlags = map[string]string{}

func TestActionYAML(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	if got := a.Inputs["base"].Default; got != "${{ github.event.pull_request.base.sha || github.event.merge_group.base_sha || github.event.before }}" {
		t.Errorf("base default = %q", got)
	}
	for _, in := range []string{"base", "version", "fail-on", "args", "upload-sarif", "comment", "github-token"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %q missing", in)
		}
	}
	// No default names a release that may not exist: empty builds the
	// action's own source.
	if v := a.Inputs["version"].Default; v != "" {
		t.Errorf("version default %q: want empty (build from the action's checkout)", v)
	}
	if v := a.Inputs["upload-sarif"].Default; v != "false" {
		t.Errorf("upload-sarif default %q: want false (SARIF is optional)", v)
	}
	if v := a.Inputs["comment"].Default; v != "false" {
		t.Errorf("comment default %q: want false (a comment needs pull-requests: write)", v)
	}
	if v := a.Inputs["github-token"].Default; v != "${{ github.token }}" {
		t.Errorf("github-token default %q: want the job's token", v)
	}
	if got := a.Outputs["exit-code"].Value; got != "${{ steps.check.outputs.exit-code }}" {
		t.Errorf("exit-code output = %q", got)
	}

	var install, check, fail int = -1, -1, -1
	for i, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q: a run step of a composite action needs shell", s.Name)
		}
		// Inputs reach scripts through env only: ${{ }} inside a script is
		// a script injection.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: run script uses a ${{ }} expression; pass it through env", s.Name)
		}
		switch {
		case s.ID == "install":
			install = i
			if s.Env["VERSION"] != "${{ inputs.version }}" || s.Env["ACTION_PATH"] != "${{ github.action_path }}" {
				t.Errorf("install step: env %v", s.Env)
			}
			for _, want := range []string{
				`export GOCACHE="$CACHE_DIR/build" GOMODCACHE="$CACHE_DIR/mod" GOFLAGS="-mod=readonly -modcacherw" GOWORK=off`,
				`(cd "$ACTION_PATH" && go build -ldflags "$ldflags" -o "$bin_dir/apicheck" ./cmd/apicheck)`,
				`(cd "$bin_dir" && GOBIN="$bin_dir" go install "github.com/apicheck/apicheck/cmd/apicheck@${VERSION}")`,
				`echo "path=$bin_dir/apicheck" >> "$GITHUB_OUTPUT"`,
			} {
				if !strings.Contains(s.Run, want) {
					t.Errorf("install step lacks %s", want)
				}
			}
		case s.ID == "check":
			check = i
		case strings.Contains(s.If, "steps.check.outputs.exit-code"):
			fail = i
		}
	}
	if install < 0 || check < 0 || fail < 0 || !(install < check && check < fail) || fail != len(a.Runs.Steps)-1 {
		t.Fatalf("want install < check < fail (last) steps, got %d %d %d of %d", install, check, fail, len(a.Runs.Steps))
	}

	// Every flag of the apicheck command line exists on the check command.
	line := commandLine(a.Runs.Steps[check].Run, `"${APICHECK:-apicheck}" check`)
	if line == "" {
		t.Fatalf("no `apicheck check` command line in the check step")
	}
	flags := newCheckCmd().Flags()
	used := map[string]bool{}
	for _, tok := range strings.Fields(line)[2:] {
		if !strings.HasPrefix(tok, "-") {
			continue
		}
		name := strings.TrimLeft(tok, "-")
		name, _, _ = strings.Cut(name, "=")
		used[name] = true
		var ok bool
		if strings.HasPrefix(tok, "--") {
			ok = flags.Lookup(name) != nil
		} else {
			ok = len(name) == 1 && flags.ShorthandLookup(name) != nil
		}
		switch {
		case ok && pendingFlags[name] != "":
			t.Errorf("flag --%s now exists on check: remove it from pendingFlags", name)
		case !ok && pendingFlags[name] != "":
			t.Logf("flag --%s is not on check yet: %s", name, pendingFlags[name])
		case !ok:
			t.Errorf("action.yml uses %s, which the check command does not define", tok)
		}
	}
	for _, want := range []string{"base", "fail-on", "report", "format"} {
		if !used[want] {
			t.Errorf("the command line does not pass --%s: %s", want, line)
		}
	}
	if !strings.Contains(line, `--report "sarif=$sarif" --report "markdown=$markdown"`) {
		t.Errorf("the command line does not write both reports: %s", line)
	}
	if !strings.Contains(line, "--format github") {
		t.Errorf("the command line does not annotate (--format github): %s", line)
	}
	if got := a.Runs.Steps[check].Env["APICHECK"]; got != "${{ steps.release.outputs.path || steps.install.outputs.path }}" {
		t.Errorf("check step runs %q, want the verified release binary, else the installed one", got)
	}
}

// commandLine returns the script line starting with prefix, with
// backslash continuations joined.
func commandLine(script, prefix string) string {
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, prefix+" ") {
			continue
		}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		return l
	}
	return ""
}

// TestActionScripts runs the action's scripts with bash: they must be
// valid, the check step must record the exit code of a failing apicheck
// and succeed itself (so the reports get published), and the last step
// must then fail with that code.
func TestActionScripts(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	a := loadAction(t)
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if out, err := exec.Command(bash, "-n", "-c", s.Run).CombinedOutput(); err != nil {
			t.Errorf("step %q: bash -n: %v\n%s", s.Name, err, out)
		}
	}
	checkStep, failStep := actionSteps(t, a)

	// A stand-in apicheck: records its arguments, writes the reports the
	// --report flags ask for and exits 1 (findings).
	env := newActionEnv(t, `printf '%s\n' "$@" > "$APICHECK_ARGS"
for a in "$@"; do
  case "$a" in sarif=*) echo '{}' > "${a#sarif=}" ;; markdown=*) echo '# apicheck' > "${a#markdown=}" ;; esac
done
exit 1`)
	env.run(t, bash, checkStep, "ARGS=--config my.yaml --head HEAD", "FAIL_ON=warning", "TRUSTED_CONFIG=head")
	out := env.outputs(t)
	if out["exit-code"] != "1" {
		t.Errorf("exit-code output = %q, want 1", out["exit-code"])
	}
	for _, k := range []string{"sarif", "markdown"} {
		p := out[k]
		if !strings.HasPrefix(p, env.runnerTemp+string(filepath.Separator)) {
			t.Errorf("%s output %q is not under RUNNER_TEMP %s", k, p, env.runnerTemp)
		}
	}
	if filepath.Dir(out["sarif"]) != filepath.Dir(out["markdown"]) {
		t.Errorf("reports in different directories: %q %q", out["sarif"], out["markdown"])
	}
	if s := env.summary(t); s != "# apicheck\n" {
		t.Errorf("step summary = %q", s)
	}
	args, _ := os.ReadFile(env.argsFile)
	dir := filepath.Dir(out["sarif"])
	wantArgs := "check\n--base\n\n--trusted-config\nhead\n--fail-on\nwarning\n--format\ngithub\n--report\nsarif=" + filepath.Join(dir, "apicheck.sarif") +
		"\n--report\nmarkdown=" + filepath.Join(dir, "apicheck.md") + "\n--config\nmy.yaml\n--head\nHEAD\n"
	if string(args) != wantArgs {
		t.Errorf("apicheck arguments = %q, want %q", args, wantArgs)
	}

	fail := exec.Command(bash, "-c", failStep.Run)
	fail.Env = append(os.Environ(), "CODE=1")
	o, err := fail.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("fail step: err = %v, want exit code 1\n%s", err, o)
	}
	if !strings.Contains(string(o), "::error::") {
		t.Errorf("fail step prints no error annotation: %s", o)
	}
}

// TestActionPublishesNothingFromTheCheckout is the regression test for a
// pull request that commits apicheck.md and apicheck.sarif as symlinks to
// the job token (the checkout action keeps it in .git/config) and makes
// apicheck fail: the check step must publish neither the linked file nor
// anything else from the checked-out tree, whatever apicheck does.
func TestActionPublishesNothingFromTheCheckout(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	checkStep, _ := actionSteps(t, loadAction(t))
	const secret = "extraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
	cases := []struct {
		name     string
		script   string // the stand-in apicheck
		wantCode string
		publish  bool
	}{
		{"scan failure writes nothing", `exit 3`, "3", false},
		{"usage error with reports", writeReports + "\nexit 2", "2", false},
		{"killed after writing", writeReports + "\nkill -9 $$", "137", false},
		{"report paths made symlinks", `for a in "$@"; do
  case "$a" in sarif=*|markdown=*) ln -s "$SECRET_FILE" "${a#*=}" ;; esac
done
exit 1`, "1", false},
		{"findings", writeReports + "\nexit 1", "1", true},
		{"clean", writeReports + "\nexit 0", "0", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newActionEnv(t, c.script)
			// The hostile checkout: a git repository whose .git/config holds
			// the token, report names that link to it, and a Go file that
			// does not parse.
			runGit(t, env.work, "init", "-q")
			cfg := filepath.Join(env.work, ".git", "config")
			appendFile(t, cfg, "[http \"https://github.com/\"]\n\t"+secret+"\n")
			for _, name := range []string{"apicheck.md", "apicheck.sarif"} {
				if err := os.Symlink(".git/config", filepath.Join(env.work, name)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(env.work, "broken.go"), []byte("package x\nfunc {"), 0o644); err != nil {
				t.Fatal(err)
			}
			env.run(t, bash, checkStep, "SECRET_FILE="+cfg)
			out := env.outputs(t)
			if out["exit-code"] != c.wantCode {
				t.Errorf("exit-code = %q, want %s", out["exit-code"], c.wantCode)
			}
			summary := env.summary(t)
			if strings.Contains(summary, "AUTHORIZATION") || strings.Contains(env.rawOutputs(t), "AUTHORIZATION") {
				t.Fatalf("the token was published: summary %q outputs %q", summary, env.rawOutputs(t))
			}
			for _, k := range []string{"sarif", "markdown"} {
				p, ok := out[k]
				if !c.publish {
					if ok {
						t.Errorf("%s output %q set for exit code %s", k, p, c.wantCode)
					}
					continue
				}
				if !strings.HasPrefix(p, env.runnerTemp+string(filepath.Separator)) {
					t.Errorf("%s output %q is not under RUNNER_TEMP", k, p)
				}
				if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s output %q is not a regular file: %v", k, p, err)
				}
			}
			if c.publish && summary != "# apicheck\n" {
				t.Errorf("summary = %q, want the report", summary)
			}
			if !c.publish && summary != "" {
				t.Errorf("summary = %q, want nothing", summary)
			}
		})
	}
}

// TestActionWithoutRunnerTemp: with no RUNNER_TEMP the step refuses to
// guess a directory (a shared /tmp or the checkout) and records exit 3.
func TestActionWithoutRunnerTemp(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	checkStep, _ := actionSteps(t, loadAction(t))
	env := newActionEnv(t, writeReports+"\nexit 0")
	env.runnerTemp = ""
	env.run(t, bash, checkStep)
	if got := env.outputs(t)["exit-code"]; got != "3" {
		t.Errorf("exit-code = %q, want 3", got)
	}
	if _, err := os.Stat(env.argsFile); err == nil {
		t.Errorf("apicheck ran without a report directory")
	}
}

// TestActionCacheOff: apicheck runs with its caches off, whatever
// APICHECK_CACHE_DIR the job sets: what an earlier step of the job (the
// pull request's code) wrote into a cache directory cannot answer for the
// revisions judged.
func TestActionCacheOff(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	checkStep, _ := actionSteps(t, loadAction(t))
	env := newActionEnv(t, `printf '%s\n' "$APICHECK_CACHE_DIR" > "$APICHECK_ARGS"
exit 0`)
	env.run(t, bash, checkStep, "APICHECK_CACHE_DIR="+t.TempDir())
	data, err := os.ReadFile(env.argsFile)
	if err != nil {
		t.Fatalf("apicheck did not run: %v", err)
	}
	if got := strings.TrimSpace(string(data)); got != "-" {
		t.Errorf("APICHECK_CACHE_DIR = %q, want - (off)", got)
	}
	if out := env.outputs(t)["exit-code"]; out != "0" {
		t.Errorf("exit-code = %q, want 0", out)
	}
}

const writeReports = `printf '%s\n' "$@" > "$APICHECK_ARGS"
for a in "$@"; do
  case "$a" in sarif=*) echo '{}' > "${a#sarif=}" ;; markdown=*) echo '# apicheck' > "${a#markdown=}" ;; esac
done`

func lookBash(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	return bash
}

func actionSteps(t *testing.T, a *actionrun.Action) (check, fail *actionStep) {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == "check" {
			check = s
		}
		if strings.Contains(s.If, "steps.check.outputs.exit-code") {
			fail = s
		}
	}
	if check == nil || fail == nil {
		t.Fatal("action.yml has no check step or no fail step")
	}
	return check, fail
}

// actionEnv is a runner's view of one job: a checkout, RUNNER_TEMP, the
// output and summary files, and a stand-in apicheck on PATH.
type actionEnv struct {
	work, runnerTemp, bin      string
	output, summaryF, argsFile string
}

func newActionEnv(t *testing.T, script string) *actionEnv {
	t.Helper()
	dir := t.TempDir()
	e := &actionEnv{
		work:       filepath.Join(dir, "work"),
		runnerTemp: filepath.Join(dir, "runner-temp"),
		bin:        filepath.Join(dir, "bin"),
		output:     filepath.Join(dir, "github-output"),
		summaryF:   filepath.Join(dir, "summary"),
		argsFile:   filepath.Join(dir, "args"),
	}
	for _, d := range []string{e.work, e.runnerTemp, e.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.bin, "apicheck"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs a step's script as GitHub runs `shell: bash`.
func (e *actionEnv) run(t *testing.T, bash string, s *actionStep, env ...string) {
	t.Helper()
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(),
		"PATH="+e.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"BASE=", "FAIL_ON=error", "ARGS=", "TRUSTED_CONFIG=auto", "EVENT_NAME=pull_request",
		"RUNNER_TEMP="+e.runnerTemp,
		"GITHUB_OUTPUT="+e.output, "GITHUB_STEP_SUMMARY="+e.summaryF, "APICHECK_ARGS="+e.argsFile,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Env = append(cmd.Env, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("check step failed (it must capture the exit code and succeed): %v\n%s", err, out)
	}
}

// runOutput runs a step's script like run and returns what it printed.
func (e *actionEnv) runOutput(t *testing.T, bash string, s *actionStep, env ...string) string {
	t.Helper()
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(),
		"PATH="+e.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"BASE=", "FAIL_ON=error", "ARGS=", "TRUSTED_CONFIG=auto", "EVENT_NAME=pull_request",
		"RUNNER_TEMP="+e.runnerTemp,
		"GITHUB_OUTPUT="+e.output, "GITHUB_STEP_SUMMARY="+e.summaryF, "APICHECK_ARGS="+e.argsFile,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the step failed (it must not fail the job): %v\n%s", err, out)
	}
	return string(out)
}

func (e *actionEnv) rawOutputs(t *testing.T) string {
	b, err := os.ReadFile(e.output)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func (e *actionEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(e.rawOutputs(t), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			if _, dup := m[k]; dup {
				t.Errorf("output %s set twice", k)
			}
			m[k] = v
		}
	}
	return m
}

func (e *actionEnv) summary(t *testing.T) string {
	b, err := os.ReadFile(e.summaryF)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestActionSARIFDecision runs the step that decides on the SARIF
// upload: pull requests from forks and from Dependabot, whose token is
// read-only, skip it with a notice; a run that published no SARIF has
// nothing to upload; pushes and same-repository pull requests upload.
// The upload step itself may fail without failing the job.
func TestActionSARIFDecision(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	a := loadAction(t)
	var decide, upload *actionStep
	for _, s := range a.Runs.Steps {
		switch s.ID {
		case "sarif":
			decide = s
		case "upload":
			upload = s
		}
	}
	if decide == nil || upload == nil {
		t.Fatal("no sarif decision or upload step")
	}
	if decide.If != "inputs.upload-sarif == 'true'" || upload.If != "steps.sarif.outputs.upload == 'true'" || !upload.ContinueOnError {
		t.Errorf("decision if %q, upload if %q, continue-on-error %v", decide.If, upload.If, upload.ContinueOnError)
	}
	for k, want := range map[string]string{
		"SARIF": "${{ steps.check.outputs.sarif }}", "HEAD_REPO": "${{ github.event.pull_request.head.repo.full_name }}",
		"REPOSITORY": "${{ github.repository }}", "ACTOR": "${{ github.actor }}",
	} {
		if decide.Env[k] != want {
			t.Errorf("decision env %s = %q, want %q", k, decide.Env[k], want)
		}
	}
	for _, c := range []struct {
		name, sarif, headRepo, actor string
		upload                       string
		notice                       string
	}{
		{"same repository", "/tmp/x.sarif", "o/r", "alice", "true", ""},
		{"push (no pull request)", "/tmp/x.sarif", "", "alice", "true", ""},
		{"fork", "/tmp/x.sarif", "fork/r", "alice", "false", "a pull request from a fork"},
		{"dependabot", "/tmp/x.sarif", "o/r", "dependabot[bot]", "false", "Dependabot"},
		{"nothing to upload", "", "fork/r", "alice", "false", ""},
	} {
		env := newActionEnv(t, "exit 0")
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", decide.Run)
		cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+env.output, "SARIF="+c.sarif, "HEAD_REPO="+c.headRepo,
			"REPOSITORY=o/r", "ACTOR="+c.actor)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: the decision step failed: %v\n%s", c.name, err, out)
			continue
		}
		if got := env.outputs(t)["upload"]; got != c.upload {
			t.Errorf("%s: upload=%q, want %q", c.name, got, c.upload)
		}
		notice := strings.HasPrefix(string(out), "::notice title=apicheck::SARIF upload skipped: ")
		if c.notice == "" && len(out) > 0 || c.notice != "" && (!notice || !strings.Contains(string(out), c.notice)) {
			t.Errorf("%s: output %q, want notice %q", c.name, out, c.notice)
		}
	}
}

// TestActionBaseDefault: the base input's default is the pull request's
// base on pull request events, the merge queue's base on merge_group
// events and the commit before the push on push events; other events
// leave it empty (apicheck chooses).
func TestActionBaseDefault(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	for _, c := range []struct {
		name    string
		payload map[string]any
		want    string
	}{
		{"pull_request", map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": "b1"}}, "before": "p0"}, "b1"},
		{"merge_group", map[string]any{"merge_group": map[string]any{"base_sha": "q1", "head_sha": "q2"}}, "q1"},
		{"push", map[string]any{"before": "p0", "after": "p1"}, "p0"},
		{"push creating a branch", map[string]any{"before": strings.Repeat("0", 40), "after": "p1"}, strings.Repeat("0", 40)},
		{"workflow_dispatch", map[string]any{}, ""},
	} {
		ctx := &actionrun.Context{Values: map[string]any{"github": map[string]any{"event": c.payload}}}
		got, err := actionrun.Interpolate(a.Inputs["base"].Default, ctx)
		if err != nil || got != c.want {
			t.Errorf("%s: base = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// TestActionNewBranchBase: a push that creates a branch has no commit
// before it (all zeros); the check step compares with the merge-base of
// HEAD and the default branch, and warns when the clone has none.
func TestActionNewBranchBase(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	checkStep, _ := actionSteps(t, loadAction(t))
	zeros := strings.Repeat("0", 40)
	commit := func(dir, msg string) string {
		runGit(t, dir, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", msg)
		out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		name          string
		defaultBranch string
		remote        bool // the clone has origin/main
		wantBase      func(fork string) string
		wantLog       string
	}{
		{"merge-base with the default branch", "main", true, func(fork string) string { return fork },
			"apicheck: the push created the branch (no commit before it): comparing with the merge-base of HEAD and origin/main, "},
		{"no default branch in the clone", "main", false, func(string) string { return "" },
			"::warning title=apicheck::The push created the branch (no commit before it), and no merge-base of HEAD and the default branch (main) is in the clone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newActionEnv(t, writeReports+"\nexit 0")
			runGit(t, env.work, "init", "-q", "-b", "main")
			fork := commit(env.work, "on main")
			runGit(t, env.work, "checkout", "-q", "-b", "feature")
			commit(env.work, "on feature")
			if c.remote {
				runGit(t, env.work, "update-ref", "refs/remotes/origin/main", fork)
			}
			out := env.runOutput(t, bash, checkStep, "BASE="+zeros, "EVENT_NAME=push", "DEFAULT_BRANCH="+c.defaultBranch)
			args, _ := os.ReadFile(env.argsFile)
			if want := "check\n--base\n" + c.wantBase(fork) + "\n"; !strings.HasPrefix(string(args), want) {
				t.Errorf("apicheck arguments %q, want them to start with %q", args, want)
			}
			if !strings.Contains(out, c.wantLog) {
				t.Errorf("the step's output lacks %q:\n%s", c.wantLog, out)
			}
		})
	}
}

// ghStub stands in for the GitHub CLI in the comment step: it logs each
// call (arguments, GH_TOKEN) to $GH_LOG, answers the comment listing with
// $GH_EXISTING (the ids of earlier apicheck comments), keeps the bodies
// it is sent under $GH_DIR, and fails every call with $GH_FAIL set.
const ghStub = `#!/bin/sh
printf '%s|GH_TOKEN=%s\n' "$*" "$GH_TOKEN" >> "$GH_LOG"
if [ -n "${GH_FAIL:-}" ]; then echo "$GH_FAIL" >&2; exit 1; fi
body=""
for a in "$@"; do case "$a" in body=@*) body="${a#body=@}" ;; esac; done
case "$*" in
  "api user "*) echo "HTTP 403: Resource not accessible by integration" >&2; exit 1 ;;
  "api --paginate "*) if [ -n "${GH_EXISTING:-}" ]; then printf '%s\n' $GH_EXISTING; fi ;;
  "api --method PATCH "*) cp "$body" "$GH_DIR/patched" ;;
  "api --method POST "*) cp "$body" "$GH_DIR/posted"; echo "https://github.com/o/r/pull/7#issuecomment-99" ;;
  *) echo "gh stub: unexpected: $*" >&2; exit 1 ;;
esac
`

// TestActionCommentStep runs the comment step with a stand-in for gh:
// it updates the comment an earlier run wrote (found by the marker), else
// posts one; on a fork's pull request, which gets a read-only token, and
// when GitHub refuses, it writes no comment and says why in a notice and
// in the job summary; never does it fail the job. Nothing reaches the
// network.
func TestActionCommentStep(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	var step *actionStep
	for _, s := range loadAction(t).Runs.Steps {
		if s.ID == "comment" {
			step = s
		}
	}
	if step == nil {
		t.Fatal("action.yml has no comment step")
	}
	if step.If != "inputs.comment == 'true' && steps.check.outputs.markdown != ''" || step.Env["GH_TOKEN"] != "${{ inputs.github-token }}" ||
		step.Env["MARKDOWN"] != "${{ steps.check.outputs.markdown }}" || step.Env["PR_NUMBER"] != "${{ github.event.pull_request.number }}" {
		t.Errorf("comment step: if %q, env %v", step.If, step.Env)
	}
	const report = "<!-- apicheck -->\n### apicheck: 1 error, 0 warnings, 0 infos\n"
	for _, c := range []struct {
		name            string
		env             []string
		wantCalls       []string // prefixes of the gh calls, in order
		posted, patched bool
		notice          string // in the output and the summary
	}{
		{"no earlier comment: posted", nil,
			[]string{"api user ", "api --paginate repos/o/r/issues/7/comments --jq .[] | select(.user.login == \"github-actions[bot]\" and (.body | startswith(\"<!-- apicheck -->\"))) | .id|GH_TOKEN=tok",
				"api --method POST repos/o/r/issues/7/comments -F body=@"}, true, false, ""},
		{"the marker's comment: updated", []string{"GH_EXISTING=4711 4712"},
			[]string{"api user ", "api --paginate ", "api --method PATCH repos/o/r/issues/comments/4711 -F body=@"}, false, true, ""},
		{"fork: the summary says why", []string{"HEAD_REPO=someone/r"}, nil, false, false,
			"a pull request from a fork gets a read-only token, which cannot write comments"},
		{"Dependabot: the summary says why", []string{"ACTOR=dependabot[bot]"}, nil, false, false,
			"Dependabot's pull requests get a read-only token"},
		{"refused: the summary says why", []string{"GH_FAIL=HTTP 403: Resource not accessible by integration"},
			[]string{"api user ", "api --paginate "}, false, false,
			"reading the pull request's comments failed (HTTP 403: Resource not accessible by integration); the job needs permissions: pull-requests: write."},
		{"a push: no pull request", []string{"PR_NUMBER=", "EVENT_NAME=push"}, nil, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newActionEnv(t, "exit 0")
			dir := t.TempDir()
			gh := filepath.Join(dir, "gh")
			if err := os.WriteFile(gh, []byte(ghStub), 0o755); err != nil {
				t.Fatal(err)
			}
			md := filepath.Join(env.runnerTemp, "apicheck.md")
			if err := os.WriteFile(md, []byte(report), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(env.summaryF, []byte(report), 0o644); err != nil {
				t.Fatal(err)
			}
			ghLog := filepath.Join(dir, "gh.log")
			vars := append([]string{"APICHECK_GH=" + gh, "GH_LOG=" + ghLog, "GH_DIR=" + dir, "MARKDOWN=" + md, "GH_TOKEN=tok",
				"SERVER_URL=https://github.com", "REPOSITORY=o/r", "EVENT_NAME=pull_request", "PR_NUMBER=7", "HEAD_REPO=o/r", "ACTOR=alice"}, c.env...)
			out := env.runOutput(t, bash, step, vars...)
			logged, _ := os.ReadFile(ghLog)
			calls := strings.Split(strings.TrimSuffix(string(logged), "\n"), "\n")
			if len(logged) == 0 {
				calls = nil
			}
			if len(calls) != len(c.wantCalls) {
				t.Fatalf("gh calls:\n%s\nwant %d:\n%s\noutput:\n%s", logged, len(c.wantCalls), strings.Join(c.wantCalls, "\n"), out)
			}
			for i, w := range c.wantCalls {
				if !strings.HasPrefix(calls[i], w) || !strings.HasSuffix(calls[i], "|GH_TOKEN=tok") {
					t.Errorf("gh call %d: %q, want %q...|GH_TOKEN=tok", i, calls[i], w)
				}
			}
			for name, want := range map[string]bool{"posted": c.posted, "patched": c.patched} {
				body, err := os.ReadFile(filepath.Join(dir, name))
				if want && string(body) != report || !want && err == nil {
					t.Errorf("%s: %q, %v; want it %v", name, body, err, want)
				}
			}
			summary := env.summary(t)
			if c.notice == "" {
				if strings.Contains(out, "::notice") || summary != report {
					t.Errorf("a notice, or a summary changed:\n%s\nsummary:\n%s", out, summary)
				}
				return
			}
			if !strings.Contains(out, "::notice title=apicheck::No pull request comment: "+c.notice) {
				t.Errorf("no notice %q:\n%s", c.notice, out)
			}
			if !strings.HasPrefix(summary, report) || !strings.Contains(summary, "**apicheck did not comment on the pull request:** "+c.notice) {
				t.Errorf("the summary does not say why:\n%s", summary)
			}
		})
	}
}
