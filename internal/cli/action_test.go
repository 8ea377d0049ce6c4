package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// action mirrors the parts of action.yml the tests look at; decoding is
// strict so that a misspelt key fails here rather than on GitHub.
type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
}

func loadAction(t *testing.T) *action {
	t.Helper()
	f, err := os.Open("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var a action
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

// pendingFlags are flags of `apicheck check` that action.yml uses and that
// another change is adding. Once a flag exists the test fails until its
// entry is removed here, so the allowance cannot outlive its reason.
var pendingFlags = map[string]string{}

func TestActionYAML(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	if got := a.Inputs["base"].Default; got != "${{ github.event.pull_request.base.sha }}" {
		t.Errorf("base default = %q", got)
	}
	for _, in := range []string{"base", "version", "fail-on", "args"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %q missing", in)
		}
	}
	if v := a.Inputs["version"].Default; !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("version default %q is not a pinned release version", v)
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
		case strings.Contains(s.Run, "go install github.com/apicheck/apicheck/cmd/apicheck@") ||
			strings.Contains(s.Run, `go install "github.com/apicheck/apicheck/cmd/apicheck@${VERSION}"`):
			install = i
			if s.Env["VERSION"] != "${{ inputs.version }}" {
				t.Errorf("install step: VERSION = %q", s.Env["VERSION"])
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
	line := commandLine(a.Runs.Steps[check].Run, "apicheck check")
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
	for _, want := range []string{"base", "fail-on", "report"} {
		if !used[want] {
			t.Errorf("the command line does not pass --%s: %s", want, line)
		}
	}
	if !strings.Contains(line, `--report "sarif=$SARIF" --report "markdown=$MARKDOWN"`) {
		t.Errorf("the command line does not write both reports: %s", line)
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
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	a := loadAction(t)
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if out, err := exec.Command(bash, "-n", "-c", s.Run).CombinedOutput(); err != nil {
			t.Errorf("step %q: bash -n: %v\n%s", s.Name, err, out)
		}
	}
	var checkStep, failStep actionStep
	for _, s := range a.Runs.Steps {
		if s.ID == "check" {
			checkStep = s
		}
		if strings.Contains(s.If, "steps.check.outputs.exit-code") {
			failStep = s
		}
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	work := filepath.Join(dir, "work")
	for _, d := range []string{bin, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A stand-in apicheck: records its arguments, writes the reports the
	// --report flags ask for and exits 1 (findings).
	fake := `#!/bin/sh
printf '%s\n' "$@" > "$APICHECK_ARGS"
for a in "$@"; do
  case "$a" in sarif=*) echo '{}' > "${a#sarif=}" ;; markdown=*) echo '# apicheck' > "${a#markdown=}" ;; esac
done
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "apicheck"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(dir, "output")
	summary := filepath.Join(dir, "summary")
	argsFile := filepath.Join(dir, "args")
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", checkStep.Run) // as GitHub runs shell: bash
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"BASE=", "FAIL_ON=warning", "ARGS=--config my.yaml --head HEAD",
		"SARIF=apicheck.sarif", "MARKDOWN=apicheck.md",
		"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary, "APICHECK_ARGS="+argsFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("check step failed (it must capture the exit code and succeed): %v\n%s", err, out)
	}
	got, _ := os.ReadFile(output)
	want := "exit-code=1\nsarif=" + filepath.Join(work, "apicheck.sarif") + "\nmarkdown=" + filepath.Join(work, "apicheck.md") + "\n"
	if string(got) != want {
		t.Errorf("GITHUB_OUTPUT = %q, want %q", got, want)
	}
	if s, _ := os.ReadFile(summary); string(s) != "# apicheck\n" {
		t.Errorf("step summary = %q", s)
	}
	args, _ := os.ReadFile(argsFile)
	wantArgs := "check\n--base\n\n--fail-on\nwarning\n--format\ntext\n--report\nsarif=apicheck.sarif\n--report\nmarkdown=apicheck.md\n--config\nmy.yaml\n--head\nHEAD\n"
	if string(args) != wantArgs {
		t.Errorf("apicheck arguments = %q, want %q", args, wantArgs)
	}

	fail := exec.Command(bash, "-c", failStep.Run)
	fail.Env = append(os.Environ(), "CODE=1")
	out, err := fail.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("fail step: err = %v, want exit code 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "::error::") {
		t.Errorf("fail step prints no error annotation: %s", out)
	}
}
