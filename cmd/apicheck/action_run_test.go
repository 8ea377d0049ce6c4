package main_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/actionrun"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// fakeGo stands in for the go command in the action's install step: it
// records its directory and arguments, and "builds" or "installs" the
// binary TestMain built, so the test needs no second build of apicheck.
// scripts/action-test.sh runs the same steps with the real go build.
const fakeGo = `#!/bin/sh
if [ "$1" = env ]; then
  printf 'go1.26.8\nlinux\namd64\n'
  exit 0
fi
printf '%s|%s|GOFLAGS=%s GOWORK=%s CGO_ENABLED=%s GOBIN=%s GOCACHE=%s\n' "$PWD" "$*" "$GOFLAGS" "$GOWORK" "$CGO_ENABLED" "$GOBIN" "$GOCACHE" >> "$FAKE_GO_LOG"
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
case "$1" in
  build) cp "$FAKE_GO_BINARY" "$out" ;;
  install) cp "$FAKE_GO_BINARY" "$GOBIN/apicheck" ;;
  *) echo "fake go: unexpected: $*" >&2; exit 1 ;;
esac
`

// actionJob is one run of action.yml by actionrun, as a runner would run
// it for a pull request of the example repository.
type actionJob struct {
	inputs     map[string]string
	event      string // github.event_name (default pull_request)
	actionRef  string // github.action_ref (default main)
	releases   string // the releases, <tag>/<files> (default: none); never GitHub's
	headRepo   string // the pull request's head repository (default: the repository)
	actor      string
	readOnly   bool     // the token cannot upload SARIF
	before     string   // a push event's github.event.before
	env        []string // more variables of the job's environment
	runnerTemp string

	mu      sync.Mutex
	uploads []map[string]string
	setupGo []map[string]string
	caches  []string // "restore KEY DIR" and "save KEY DIR", in order
	goLog   string
	log     string // the job log
}

const actionRepository = "gardener/gardenlike"

func (j *actionJob) run(t *testing.T, fx *gitfixture.Fixture) *actionrun.Result {
	t.Helper()
	a, err := actionrun.Load(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	actionDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	goLog := filepath.Join(dir, "go.log")
	j.runnerTemp = filepath.Join(dir, "runner-temp")
	headRepo, actor, event, actionRef, releases := j.headRepo, j.actor, j.event, j.actionRef, j.releases
	if headRepo == "" {
		headRepo = actionRepository
	}
	if actor == "" {
		actor = "contributor"
	}
	if event == "" {
		event = "pull_request"
	}
	if actionRef == "" {
		actionRef = "main"
	}
	if releases == "" {
		releases = filepath.Join(dir, "no-releases")
	}
	payload := map[string]any{"repository": map[string]any{"full_name": actionRepository, "default_branch": "main"}}
	switch event {
	case "pull_request", "pull_request_target":
		payload["pull_request"] = map[string]any{
			"number": 7,
			"base":   map[string]any{"sha": fx.Commits["base"]},
			"head":   map[string]any{"sha": fx.Commits["head"], "repo": map[string]any{"full_name": headRepo}},
		}
	case "merge_group":
		payload["merge_group"] = map[string]any{"base_sha": fx.Commits["base"], "head_sha": fx.Commits["head"]}
	case "push":
		payload["before"], payload["after"] = j.before, fx.Commits["head"]
	}
	env := append(os.Environ(), hermetic.UserDirs(t)...)
	env = append(env,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKE_GO_BINARY="+binary, "FAKE_GO_LOG="+goLog,
		"APICHECK_RELEASE_BASE_URL="+releases,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	env = append(env, j.env...)
	var log strings.Builder
	res, err := actionrun.Run(a, actionrun.Config{
		ActionDir:  actionDir,
		Workspace:  fx.Dir,
		RunnerTemp: j.runnerTemp,
		Inputs:     j.inputs,
		GitHub: map[string]any{
			"event_name":        event,
			"repository":        actionRepository,
			"actor":             actor,
			"action_ref":        actionRef,
			"action_repository": "apicheck/apicheck",
			"server_url":        "https://github.com",
			"sha":               fx.Commits["head"],
			"token":             "job-token",
			"event":             payload,
		},
		Env: env,
		Log: &log,
		Uses: func(s *actionrun.Step, with map[string]string) (map[string]string, error) {
			j.mu.Lock()
			defer j.mu.Unlock()
			switch {
			case strings.HasPrefix(s.Uses, "actions/setup-go@"):
				j.setupGo = append(j.setupGo, with)
				return map[string]string{"go-version": "1.26.8", "cache-hit": "true"}, nil
			case strings.HasPrefix(s.Uses, "actions/cache/restore@"), strings.HasPrefix(s.Uses, "actions/cache/save@"):
				op := strings.TrimPrefix(strings.SplitN(s.Uses, "@", 2)[0], "actions/cache/")
				j.caches = append(j.caches, op+" "+with["key"]+" "+with["path"])
				if op == "restore" {
					return map[string]string{"cache-hit": "false"}, nil
				}
				return nil, nil
			case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
				j.uploads = append(j.uploads, with)
				if j.readOnly {
					return nil, errors.New("Resource not accessible by integration")
				}
				if fi, err := os.Lstat(with["sarif_file"]); err != nil || !fi.Mode().IsRegular() {
					return nil, errors.New("no SARIF file at " + with["sarif_file"])
				}
				return map[string]string{"sarif-id": "1"}, nil
			}
			return nil, errors.New("unexpected action " + s.Uses)
		},
	})
	if err != nil {
		t.Fatalf("running action.yml: %v\n%s", err, log.String())
	}
	b, _ := os.ReadFile(goLog)
	j.goLog = string(b)
	j.log = log.String()
	t.Logf("job log:\n%s", j.log)
	return res
}

// fakeRelease writes release tag of this machine's platform into
// dir/<tag>, as `make release` lays it out: the archive holding binary
// (which reports v0.0.0-test as its version) and the checksum file. With
// tamper the archive does not match its checksum.
func fakeRelease(t *testing.T, dir, tag string, tamper bool) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake release is a tar.gz")
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "apicheck", Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	asset := fmt.Sprintf("apicheck_%s_%s_%s.tar.gz", tag, runtime.GOOS, runtime.GOARCH)
	sum := sha256.Sum256(buf.Bytes())
	if tamper {
		buf.WriteByte(0)
	}
	rel := filepath.Join(dir, tag)
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, asset), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := hex.EncodeToString(sum[:]) + "  " + asset + "\n"
	if err := os.WriteFile(filepath.Join(rel, "apicheck_"+tag+"_checksums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
}

// annotationsAtHead checks that every finding annotation names a file of
// the checkout and a line that file has.
func annotationsAtHead(t *testing.T, fx *gitfixture.Fixture, res *actionrun.Result) (rules map[string]bool) {
	t.Helper()
	rules = map[string]bool{}
	for _, a := range res.Annotations {
		if a.Step != "Run apicheck" {
			continue
		}
		// One annotation per field: its title lists the rules.
		for _, id := range strings.Split(a.Props["title"], ", ") {
			rules[id] = true
		}
		data, err := os.ReadFile(filepath.Join(fx.Dir, filepath.FromSlash(a.Props["file"])))
		if err != nil {
			t.Errorf("annotation %+v: %v", a, err)
			continue
		}
		lines := strings.Count(string(data), "\n")
		if !strings.HasSuffix(string(data), "\n") {
			lines++
		}
		if n, err := strconv.Atoi(a.Props["line"]); err != nil || n < 1 || n > lines {
			t.Errorf("annotation %+v: line outside the file's %d lines", a, lines)
		}
	}
	return rules
}

func TestActionRunsLikeTheRunner(t *testing.T) {
	t.Parallel()
	fx := example(t)

	t.Run("findings fail the job last, SARIF uploaded", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"upload-sarif": "true"}}
		res := j.run(t, fx)
		if !res.Failed {
			t.Fatal("the job did not fail on error findings")
		}
		last := res.Steps[len(res.Steps)-1]
		if last.Step.Name != "Fail on findings" || last.Outcome != "failure" || last.ExitCode != 1 {
			t.Errorf("last step %q: %s, exit %d; want Fail on findings failing with 1", last.Step.Name, last.Outcome, last.ExitCode)
		}
		for _, s := range res.Steps[:len(res.Steps)-1] {
			if s.Conclusion == "failure" {
				t.Errorf("step %q failed before the last one", s.Step.Label())
			}
		}
		// Inline annotations from --format github on stdout.
		rules := annotationsAtHead(t, fx, res)
		if !rules["NEW_FIELD_NOT_POINTER"] || len(res.Annotated("error")) < 2 {
			t.Errorf("annotations: %+v", res.Annotations)
		}
		// The Markdown report is the job summary, the outputs name the
		// reports under RUNNER_TEMP.
		if !strings.HasPrefix(res.Summary, "<!-- apicheck -->\n### apicheck: ") || !strings.Contains(res.Summary, "NEW_FIELD_NOT_POINTER") {
			t.Errorf("summary: %.200q", res.Summary)
		}
		if res.Outputs["exit-code"] != "1" {
			t.Errorf("exit-code output %q", res.Outputs["exit-code"])
		}
		for _, k := range []string{"sarif", "markdown"} {
			p := res.Outputs[k]
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() || !strings.HasPrefix(p, j.runnerTemp+string(filepath.Separator)) {
				t.Errorf("output %s = %q: want a regular file under RUNNER_TEMP (%v)", k, p, err)
			}
		}
		if md, _ := os.ReadFile(res.Outputs["markdown"]); string(md) != res.Summary {
			t.Errorf("the summary is not the Markdown report")
		}
		if len(j.uploads) != 1 || j.uploads[0]["sarif_file"] != res.Outputs["sarif"] || j.uploads[0]["category"] != "apicheck" {
			t.Errorf("uploads: %v", j.uploads)
		}
		if s := res.Step("Explain a failed SARIF upload"); s.Outcome != "skipped" {
			t.Errorf("upload-failure notice step: %s", s.Outcome)
		}
		// setup-go reads its Go version from the action's go.mod and does
		// not cache (it would hash files in the workspace only); apicheck's
		// build has its own cache under RUNNER_TEMP, restored before the
		// build and saved after it.
		action, _ := filepath.Abs(filepath.Join("..", ".."))
		if len(j.setupGo) != 1 || j.setupGo[0]["go-version-file"] != filepath.Join(action, "go.mod") || j.setupGo[0]["go-version"] != "" ||
			j.setupGo[0]["cache"] != "false" {
			t.Errorf("setup-go with: %v", j.setupGo)
		}
		cacheDir := filepath.Join(j.runnerTemp, "apicheck-go")
		if len(j.caches) != 2 || !strings.HasPrefix(j.caches[0], "restore apicheck-build-") || !strings.HasSuffix(j.caches[0], " "+cacheDir) ||
			j.caches[1] != "save"+strings.TrimPrefix(j.caches[0], "restore") {
			t.Errorf("build cache: %q", j.caches)
		}
		// apicheck is built from the action's checkout, with its own cache.
		want := action + "|build -ldflags -X github.com/apicheck/apicheck/internal/cli.Version=main -o " + j.runnerTemp + "/apicheck-bin."
		if !strings.HasPrefix(j.goLog, want) || !strings.Contains(j.goLog, "/apicheck ./cmd/apicheck|GOFLAGS=-mod=readonly -modcacherw GOWORK=off CGO_ENABLED=0 GOBIN= GOCACHE="+cacheDir+"/build\n") {
			t.Errorf("go ran as %q, want %q...", j.goLog, want)
		}
	})

	t.Run("fork: upload skipped with a notice, findings below fail-on pass", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"upload-sarif": "true", "fail-on": "none"}, headRepo: "someone/gardenlike"}
		res := j.run(t, fx)
		if res.Failed || res.Outputs["exit-code"] != "0" {
			t.Fatalf("job failed %v, exit-code %q; want success with fail-on none", res.Failed, res.Outputs["exit-code"])
		}
		if len(j.uploads) != 0 || res.Step("Upload SARIF").Outcome != "skipped" {
			t.Errorf("uploaded from a fork: %v", j.uploads)
		}
		if !hasNotice(res, "SARIF upload skipped: a pull request from a fork gets a read-only token") {
			t.Errorf("no notice: %+v", res.Annotated("notice"))
		}
		if len(res.Annotated("error")) == 0 || !strings.Contains(res.Summary, "NEW_FIELD_NOT_POINTER") {
			t.Errorf("findings are still annotated and summarized")
		}
	})

	t.Run("dependabot: upload skipped with a notice", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"upload-sarif": "true", "fail-on": "none"}, actor: "dependabot[bot]"}
		res := j.run(t, fx)
		if res.Failed || len(j.uploads) != 0 || !hasNotice(res, "SARIF upload skipped: Dependabot's pull requests get a read-only token") {
			t.Errorf("failed %v, uploads %v, notices %+v", res.Failed, j.uploads, res.Annotated("notice"))
		}
	})

	t.Run("read-only token: a failed upload is a notice", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"upload-sarif": "true", "fail-on": "none"}, readOnly: true}
		res := j.run(t, fx)
		up := res.Step("Upload SARIF")
		if len(j.uploads) != 1 || up.Outcome != "failure" || up.Conclusion != "success" {
			t.Errorf("upload step %s/%s, uploads %v", up.Outcome, up.Conclusion, j.uploads)
		}
		if res.Failed {
			t.Errorf("a failed SARIF upload failed the job")
		}
		if !hasNotice(res, "SARIF upload to code scanning failed; the job does not fail for it") {
			t.Errorf("notices: %+v", res.Annotated("notice"))
		}
	})

	t.Run("clean change", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"base": fx.Commits["head"]}}
		res := j.run(t, fx)
		if res.Failed || res.Outputs["exit-code"] != "0" || len(res.Annotated("error")) != 0 {
			t.Errorf("failed %v, exit-code %q, errors %+v", res.Failed, res.Outputs["exit-code"], res.Annotated("error"))
		}
		if !strings.Contains(res.Summary, "No API compatibility findings") {
			t.Errorf("summary %q", res.Summary)
		}
		if s := res.Step("Fail on findings"); s.Outcome != "skipped" {
			t.Errorf("fail step: %s", s.Outcome)
		}
		if s := res.Step("Decide on the SARIF upload"); s.Outcome != "skipped" {
			t.Errorf("SARIF decision without upload-sarif: %s", s.Outcome)
		}
	})

	t.Run("usage error: exit 2, nothing published", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"args": "--config does-not-exist.yaml", "trusted-config": "head", "upload-sarif": "true"}}
		res := j.run(t, fx)
		last := res.Steps[len(res.Steps)-1]
		if !res.Failed || last.ExitCode != 2 || res.Outputs["exit-code"] != "2" {
			t.Errorf("failed %v, last step exit %d, exit-code %q; want the last step to fail with 2", res.Failed, last.ExitCode, res.Outputs["exit-code"])
		}
		if res.Outputs["sarif"] != "" || res.Outputs["markdown"] != "" || res.Summary != "" || len(j.uploads) != 0 {
			t.Errorf("published after a usage error: %v, summary %q, uploads %v", res.Outputs, res.Summary, j.uploads)
		}
		if !hasError(res, "apicheck: usage or configuration error") {
			t.Errorf("errors: %+v", res.Annotated("error"))
		}
	})

	// The critical attack of issue #15, through the whole job: the pull
	// request commits apicheck.md and apicheck.sarif as symlinks to
	// .git/config (where actions/checkout keeps the job token) and breaks
	// the build so that apicheck exits 3. The job fails with 3; nothing is
	// published, uploaded or annotated from the checkout.
	t.Run("hostile checkout: symlinked reports, exit 3, nothing published", func(t *testing.T) {
		t.Parallel()
		hx := example(t)
		const token = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
		hx.Git("config", "http.https://github.com/.extraheader", token)
		for _, name := range []string{"apicheck.md", "apicheck.sarif"} {
			if err := os.Symlink(".git/config", filepath.Join(hx.Dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		hx.Git("checkout", "-q", hx.Commits["head"])
		hx.WriteWorktree(map[string]string{"pkg/apis/core/v1beta1/broken.go": "package v1beta1\n\ntype Broken struct {\n"})
		j := &actionJob{inputs: map[string]string{"upload-sarif": "true"}}
		res := j.run(t, hx)
		last := res.Steps[len(res.Steps)-1]
		if !res.Failed || last.Step.Name != "Fail on findings" || last.ExitCode != 3 || res.Outputs["exit-code"] != "3" {
			t.Errorf("failed %v, last step %q exit %d, exit-code %q; want Fail on findings failing with 3",
				res.Failed, last.Step.Name, last.ExitCode, res.Outputs["exit-code"])
		}
		if res.Outputs["sarif"] != "" || res.Outputs["markdown"] != "" || res.Summary != "" || len(j.uploads) != 0 {
			t.Errorf("published after exit 3: outputs %v, summary %q, uploads %v", res.Outputs, res.Summary, j.uploads)
		}
		if s := res.Step("Decide on the SARIF upload"); s.Outcome != "success" {
			t.Errorf("SARIF decision: %s", s.Outcome)
		}
		if s := res.Step("Upload SARIF"); s.Outcome != "skipped" {
			t.Errorf("SARIF upload: %s", s.Outcome)
		}
		var all strings.Builder
		for _, a := range res.Annotations {
			all.WriteString(a.Message)
		}
		for _, s := range res.Steps {
			all.WriteString(s.Output)
		}
		if strings.Contains(all.String()+res.Summary, "c2VjcmV0LXRva2Vu") {
			t.Errorf("the token reached the job's output or annotations")
		}
		if !strings.Contains(res.Step("Run apicheck").Output, "broken.go") {
			t.Errorf("the check step does not name the broken file:\n%s", res.Step("Run apicheck").Output)
		}
		for _, name := range []string{"apicheck.md", "apicheck.sarif"} {
			if fi, err := os.Lstat(filepath.Join(hx.Dir, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s in the checkout was touched: %v", name, err)
			}
		}
	})

	t.Run("version input: go install of that version", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"version": "v1.2.3", "fail-on": "none"}}
		res := j.run(t, fx)
		if res.Failed {
			t.Fatal("job failed")
		}
		// go install runs in the new, empty bin directory: never in the
		// pull request's checkout.
		if !strings.HasPrefix(j.goLog, j.runnerTemp+"/apicheck-bin.") ||
			!strings.Contains(j.goLog, "|install github.com/apicheck/apicheck/cmd/apicheck@v1.2.3|GOFLAGS=-mod=readonly -modcacherw GOWORK=off CGO_ENABLED=0 GOBIN="+j.runnerTemp+"/apicheck-bin.") {
			t.Errorf("go ran as %q", j.goLog)
		}
		// v1.2.3 has no release (here): go install is the fallback.
		if !strings.Contains(j.log, "apicheck: no release v1.2.3 (") || !strings.Contains(j.log, "): installing it with go install\n") {
			t.Errorf("the log does not say why go install ran:\n%s", j.log)
		}
	})
}

// TestActionRelease: at a release tag (the action's ref or the version
// input) the action runs the release's binary when it matches the
// release's checksum file, refuses it when it does not, and builds from
// source when the tag has no release. Releases are directories here
// (APICHECK_RELEASE_BASE_URL): nothing is downloaded.
func TestActionRelease(t *testing.T) {
	t.Parallel()
	fx := example(t)
	releases := t.TempDir()
	fakeRelease(t, releases, "v0.0.0-test", false)
	fakeRelease(t, filepath.Join(releases, "tampered"), "v0.0.0-test", true)

	usesRelease := func(t *testing.T, j *actionJob, res *actionrun.Result) {
		t.Helper()
		if s := res.Step("release"); s.Outcome != "success" {
			t.Fatalf("release step: %s\n%s", s.Outcome, s.Output)
		}
		for _, name := range []string{"Set up Go", "cache-key", "cache", "install", "Save the build cache"} {
			if s := res.Step(name); s.Outcome != "skipped" {
				t.Errorf("step %s ran (%s) although the release was used", name, s.Outcome)
			}
		}
		if len(j.setupGo) != 0 || len(j.caches) != 0 || j.goLog != "" {
			t.Errorf("Go was set up or ran: setup-go %v, caches %v, go %q", j.setupGo, j.caches, j.goLog)
		}
		asset := fmt.Sprintf("apicheck_v0.0.0-test_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
		for _, line := range []string{
			"apicheck: " + asset + " of release v0.0.0-test matches its SHA-256 in apicheck_v0.0.0-test_checksums.txt (",
			"\napicheck v0.0.0-test\n",
			"apicheck: using the binary of release v0.0.0-test (" + releases + "/v0.0.0-test/" + asset + ")\n",
		} {
			if !strings.Contains(j.log, line) {
				t.Errorf("the job log lacks %q", line)
			}
		}
		if res.Outputs["exit-code"] != "1" || !strings.Contains(res.Summary, "NEW_FIELD_NOT_POINTER") {
			t.Errorf("exit-code %q, summary %.100q: the release's apicheck did not check the change", res.Outputs["exit-code"], res.Summary)
		}
		if !strings.HasPrefix(res.Step("release").Outputs["path"], j.runnerTemp+string(filepath.Separator)) {
			t.Errorf("the binary is not under RUNNER_TEMP: %v", res.Step("release").Outputs)
		}
	}

	t.Run("the action's ref is a release tag: its verified binary, no Go", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{actionRef: "v0.0.0-test", releases: releases}
		usesRelease(t, j, j.run(t, fx))
	})

	t.Run("the version input is a release tag: its verified binary", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"version": "v0.0.0-test"}, releases: releases}
		usesRelease(t, j, j.run(t, fx))
	})

	t.Run("the release's file URL works as its directory does", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{actionRef: "v0.0.0-test", releases: "file://" + releases}
		res := j.run(t, fx)
		if s := res.Step("install"); s.Outcome != "skipped" || res.Outputs["exit-code"] != "1" {
			t.Errorf("install %s, exit-code %q; want the release's binary", s.Outcome, res.Outputs["exit-code"])
		}
	})

	t.Run("checksum mismatch: refused, nothing runs", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{actionRef: "v0.0.0-test", releases: filepath.Join(releases, "tampered"), inputs: map[string]string{"upload-sarif": "true"}}
		res := j.run(t, fx)
		rel := res.Step("release")
		if !res.Failed || rel.Outcome != "failure" || rel.ExitCode == 0 {
			t.Fatalf("job failed %v, release step %s exit %d; want the release step to fail", res.Failed, rel.Outcome, rel.ExitCode)
		}
		for _, name := range []string{"install", "check", "Upload SARIF", "Fail on findings"} {
			if s := res.Step(name); s.Outcome != "skipped" {
				t.Errorf("step %s ran (%s) after the refused download", name, s.Outcome)
			}
		}
		if j.goLog != "" || res.Outputs["exit-code"] != "" || res.Summary != "" || rel.Outputs["path"] != "" {
			t.Errorf("something ran: go %q, outputs %v, summary %q, release outputs %v", j.goLog, res.Outputs, res.Summary, rel.Outputs)
		}
		if !hasError(res, "of release v0.0.0-test does not match its checksum (SHA-256 ") || !hasError(res, "refusing to run it") {
			t.Errorf("errors: %+v", res.Annotated("error"))
		}
	})

	t.Run("a release tag without a release: built from source", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{actionRef: "v0.0.1", releases: releases}
		res := j.run(t, fx)
		if s := res.Step("install"); s.Outcome != "success" || res.Outputs["exit-code"] != "1" {
			t.Fatalf("install %s, exit-code %q", s.Outcome, res.Outputs["exit-code"])
		}
		if !strings.Contains(j.goLog, "|build -ldflags -X github.com/apicheck/apicheck/internal/cli.Version=v0.0.1 -o ") {
			t.Errorf("go ran as %q; want a build from source", j.goLog)
		}
		for _, line := range []string{
			"apicheck: no release v0.0.1 (" + releases + "/v0.0.1/apicheck_v0.0.1_checksums.txt does not exist): building apicheck from the action's source\n",
			"apicheck: building apicheck from the action's source (",
		} {
			if !strings.Contains(j.log, line) {
				t.Errorf("the job log lacks %q", line)
			}
		}
	})

	t.Run("a branch: built from source, no release looked for", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{actionRef: "main", releases: releases}
		res := j.run(t, fx)
		if s := res.Step("install"); s.Outcome != "success" || !strings.Contains(j.goLog, "|build ") {
			t.Errorf("install %s, go %q", s.Outcome, j.goLog)
		}
		if !strings.Contains(j.log, `apicheck: the action's ref "main" is not a release tag (vX.Y.Z): building apicheck from the action's source`) {
			t.Errorf("the job log does not say why apicheck was built:\n%s", j.log)
		}
	})
}

// TestActionTrustedConfig: trusted-config auto reads the base revision's
// .apicheck.yaml on pull request and merge queue events and head's on any
// other; base and head are honoured on every event.
func TestActionTrustedConfig(t *testing.T) {
	t.Parallel()
	fx := example(t)
	const baseNote = "configuration read from the base revision (--trusted-config base)"
	for _, c := range []struct {
		event, input, want string
	}{
		{"pull_request", "", "base"},
		{"pull_request_target", "", "base"},
		{"merge_group", "", "base"},
		{"push", "", "head"},
		{"workflow_dispatch", "auto", "head"},
		{"pull_request", "head", "head"},
		{"push", "base", "base"},
	} {
		name := c.input
		if name == "" {
			name = "default"
		}
		t.Run(c.event+" "+name, func(t *testing.T) {
			t.Parallel()
			inputs := map[string]string{"base": fx.Commits["base"]}
			if c.input != "" {
				inputs["trusted-config"] = c.input
			}
			j := &actionJob{event: c.event, inputs: inputs}
			res := j.run(t, fx)
			if res.Outputs["exit-code"] != "1" {
				t.Fatalf("exit-code %q, want 1", res.Outputs["exit-code"])
			}
			mode := c.input
			if mode == "" {
				mode = "auto"
			}
			line := fmt.Sprintf("apicheck: --trusted-config %s (trusted-config: %s, event: %s)\n", c.want, mode, c.event)
			if !strings.Contains(j.log, line) {
				t.Errorf("the job log lacks %q", line)
			}
			if got := strings.Contains(res.Summary, baseNote); got != (c.want == "base") {
				t.Errorf("the report says %q: %v; want %v", baseNote, got, c.want == "base")
			}
		})
	}

	t.Run("an unknown value: exit 2", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"trusted-config": "pr"}}
		res := j.run(t, fx)
		if !res.Failed || res.Outputs["exit-code"] != "2" || res.Summary != "" {
			t.Errorf("failed %v, exit-code %q, summary %q", res.Failed, res.Outputs["exit-code"], res.Summary)
		}
		if !hasError(res, `apicheck: trusted-config is "pr"; want auto, base or head`) {
			t.Errorf("errors: %+v", res.Annotated("error"))
		}
	})

	t.Run("--config in args on a pull request: exit 2 with the way out", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"args": "--fail-on warning --config=hack/apicheck.yaml"}}
		res := j.run(t, fx)
		if !res.Failed || res.Outputs["exit-code"] != "2" || res.Summary != "" {
			t.Errorf("failed %v, exit-code %q, summary %q", res.Failed, res.Outputs["exit-code"], res.Summary)
		}
		if !hasError(res, "--config in args cannot be combined with that: set trusted-config: head to use the --config file") {
			t.Errorf("errors: %+v", res.Annotated("error"))
		}
	})

	t.Run("--trusted-config in args wins", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{inputs: map[string]string{"args": "--trusted-config head"}}
		res := j.run(t, fx)
		if res.Outputs["exit-code"] != "1" || strings.Contains(res.Summary, baseNote) {
			t.Errorf("exit-code %q, base note in the report %v", res.Outputs["exit-code"], strings.Contains(res.Summary, baseNote))
		}
		if !strings.Contains(j.log, "apicheck: --trusted-config as args give it (trusted-config: auto is not used)\n") {
			t.Errorf("the job log does not say where --trusted-config came from:\n%s", j.log)
		}
	})
}

func hasNotice(res *actionrun.Result, text string) bool { return hasAnnotation(res, "notice", text) }
func hasError(res *actionrun.Result, text string) bool  { return hasAnnotation(res, "error", text) }

func hasAnnotation(res *actionrun.Result, level, text string) bool {
	for _, a := range res.Annotated(level) {
		if strings.Contains(a.Message, text) {
			return true
		}
	}
	return false
}

// TestActionBase: the default base is the pull request's base, the merge
// queue's base or the commit before the push; a push that creates a
// branch is compared with the merge-base of HEAD and the default branch;
// a base that is head's own commit compares nothing, and the report (the
// job summary) says so in its heading.
func TestActionBase(t *testing.T) {
	t.Parallel()
	fx := example(t)
	short := func(sha string) string { return sha[:12] }

	t.Run("push: the commit before the push", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{event: "push", before: fx.Commits["base"]}
		res := j.run(t, fx)
		if res.Outputs["exit-code"] != "1" || !strings.Contains(res.Summary, "Compared `"+short(fx.Commits["base"])+"` with `WORKTREE (") {
			t.Errorf("exit-code %q, summary %.300q; want the findings against the commit before the push", res.Outputs["exit-code"], res.Summary)
		}
	})

	t.Run("merge queue: the queue's base", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{event: "merge_group"}
		res := j.run(t, fx)
		if res.Outputs["exit-code"] != "1" || !strings.Contains(res.Summary, "Compared `"+short(fx.Commits["base"])+"` with `WORKTREE (") {
			t.Errorf("exit-code %q, summary %.300q; want the findings against the merge queue's base", res.Outputs["exit-code"], res.Summary)
		}
	})

	t.Run("push creating a branch: the merge-base with the default branch", func(t *testing.T) {
		t.Parallel()
		bx := example(t)
		bx.Git("update-ref", "refs/remotes/origin/main", bx.Commits["base"])
		j := &actionJob{event: "push", before: strings.Repeat("0", 40)}
		res := j.run(t, bx)
		if res.Outputs["exit-code"] != "1" || !strings.Contains(res.Summary, "Compared `"+short(bx.Commits["base"])+"` with `WORKTREE (") {
			t.Errorf("exit-code %q, summary %.300q; want the findings against the merge-base with main", res.Outputs["exit-code"], res.Summary)
		}
		if want := "apicheck: the push created the branch (no commit before it): comparing with the merge-base of HEAD and origin/main, " + bx.Commits["base"] + "\n"; !strings.Contains(j.log, want) {
			t.Errorf("the job log lacks %q", want)
		}
	})

	t.Run("base and head the same commit: the report says so", func(t *testing.T) {
		t.Parallel()
		j := &actionJob{event: "push", before: fx.Commits["head"]}
		res := j.run(t, fx)
		want := "comparing " + short(fx.Commits["head"]) + " with the working tree at that commit: only its uncommitted changes are checked"
		if res.Outputs["exit-code"] != "0" || !strings.HasPrefix(res.Summary, "<!-- apicheck -->\n### apicheck: "+want) {
			t.Errorf("exit-code %q, summary %.300q; want a heading %q", res.Outputs["exit-code"], res.Summary, want)
		}
		if !hasNotice(res, want) {
			t.Errorf("no notice %q: %+v", want, res.Annotated("notice"))
		}
	})
}

// ghStub stands in for the GitHub CLI (APICHECK_GH): it logs each call
// with the token it got, answers the listing of the pull request's
// comments with $GH_EXISTING and keeps the bodies it is sent; nothing
// reaches the network.
const ghStub = `#!/bin/sh
printf '%s|GH_TOKEN=%s\n' "$*" "$GH_TOKEN" >> "$GH_DIR/log"
body=""
for a in "$@"; do case "$a" in body=@*) body="${a#body=@}" ;; esac; done
case "$*" in
  "api user "*) echo "HTTP 403: Resource not accessible by integration" >&2; exit 1 ;;
  "api --paginate "*) if [ -n "${GH_EXISTING:-}" ]; then echo "$GH_EXISTING"; fi ;;
  "api --method PATCH "*) cp "$body" "$GH_DIR/patched" ;;
  "api --method POST "*) cp "$body" "$GH_DIR/posted"; echo "https://github.com/gardener/gardenlike/pull/7#issuecomment-1" ;;
  *) echo "gh stub: unexpected: $*" >&2; exit 1 ;;
esac
`

// TestActionComment: with comment: true the action posts the Markdown
// report as the pull request's comment, or updates the one an earlier run
// posted (the one starting with the marker); a fork's pull request gets
// a read-only token, so the report is in the job summary only, which
// says why.
func TestActionComment(t *testing.T) {
	t.Parallel()
	fx := example(t)
	stub := func(t *testing.T, existing string) (dir string, env []string) {
		dir = t.TempDir()
		gh := filepath.Join(dir, "gh")
		if err := os.WriteFile(gh, []byte(ghStub), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir, []string{"APICHECK_GH=" + gh, "GH_DIR=" + dir, "GH_EXISTING=" + existing}
	}
	read := func(dir, name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}

	t.Run("no earlier comment: the report is posted", func(t *testing.T) {
		t.Parallel()
		dir, env := stub(t, "")
		j := &actionJob{inputs: map[string]string{"comment": "true"}, env: env}
		res := j.run(t, fx)
		if s := res.Step("comment"); s.Outcome != "success" || !res.Failed || res.Outputs["exit-code"] != "1" {
			t.Errorf("comment step %s, job failed %v, exit-code %q; want a comment and the job failing on the findings", s.Outcome, res.Failed, res.Outputs["exit-code"])
		}
		md, _ := os.ReadFile(res.Outputs["markdown"])
		if posted := read(dir, "posted"); posted == "" || posted != string(md) || !strings.HasPrefix(posted, "<!-- apicheck -->\n") {
			t.Errorf("posted %.200q, want the Markdown report", posted)
		}
		log := read(dir, "log")
		if !strings.Contains(log, "api --method POST repos/gardener/gardenlike/issues/7/comments -F body=@"+res.Outputs["markdown"]+" --jq .html_url|GH_TOKEN=job-token\n") ||
			read(dir, "patched") != "" {
			t.Errorf("gh calls:\n%s", log)
		}
		if !strings.Contains(j.log, "apicheck: commented on pull request #7: https://github.com/gardener/gardenlike/pull/7#issuecomment-1\n") {
			t.Errorf("the job log does not say where the comment is")
		}
	})

	t.Run("the marker's comment exists: it is updated", func(t *testing.T) {
		t.Parallel()
		dir, env := stub(t, "4711")
		j := &actionJob{inputs: map[string]string{"comment": "true", "github-token": "pat"}, env: env}
		res := j.run(t, fx)
		md, _ := os.ReadFile(res.Outputs["markdown"])
		if patched := read(dir, "patched"); patched != string(md) || read(dir, "posted") != "" {
			t.Errorf("patched %.100q, posted %.100q; want the comment updated", patched, read(dir, "posted"))
		}
		log := read(dir, "log")
		for _, want := range []string{
			`api --paginate repos/gardener/gardenlike/issues/7/comments --jq .[] | select(.user.login == "github-actions[bot]" and (.body | startswith("<!-- apicheck -->"))) | .id|GH_TOKEN=pat` + "\n",
			"api --method PATCH repos/gardener/gardenlike/issues/comments/4711 -F body=@" + res.Outputs["markdown"] + " --silent|GH_TOKEN=pat\n",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("gh calls lack %q:\n%s", want, log)
			}
		}
	})

	t.Run("fork: the job summary says why there is no comment", func(t *testing.T) {
		t.Parallel()
		dir, env := stub(t, "")
		j := &actionJob{inputs: map[string]string{"comment": "true"}, headRepo: "someone/gardenlike", env: env}
		res := j.run(t, fx)
		if log := read(dir, "log"); log != "" {
			t.Errorf("gh ran for a fork:\n%s", log)
		}
		const why = "a pull request from a fork gets a read-only token, which cannot write comments"
		if !strings.HasPrefix(res.Summary, "<!-- apicheck -->\n### apicheck: ") || !strings.Contains(res.Summary, "**apicheck did not comment on the pull request:** "+why) {
			t.Errorf("summary %q: want the report and why there is no comment", res.Summary)
		}
		if !hasNotice(res, why) || res.Step("comment").Outcome != "success" {
			t.Errorf("notices %+v, comment step %s", res.Annotated("notice"), res.Step("comment").Outcome)
		}
	})
}

// TestMarkdownSuggestionsOnePerLine: in the example's report every line
// has at most one suggested change (GitHub applies one per line), and the
// new field Replicas, which is no pointer, not optional and has no
// omitempty, gets one suggestion with all three fixes: what apicheck fix
// writes.
func TestMarkdownSuggestionsOnePerLine(t *testing.T) {
	t.Parallel()
	fx := example(t)
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "markdown")
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr: %s", r.code, r.stderr)
	}
	re := regexp.MustCompile("(?s)- Suggested change, `([^`]+)` lines? (\\d+)(?:–(\\d+))? [^\n]*:\n\n  ```suggestion\n(.*?)  ```\n")
	lines := map[string]int{}
	var replicas []string
	for _, m := range re.FindAllStringSubmatch(r.stdout, -1) {
		start, _ := strconv.Atoi(m[2])
		end := start
		if m[3] != "" {
			end, _ = strconv.Atoi(m[3])
		}
		for l := start; l <= end; l++ {
			key := fmt.Sprintf("%s:%d", m[1], l)
			if lines[key]++; lines[key] > 1 {
				t.Errorf("two suggested changes for %s", key)
			}
		}
		if strings.Contains(m[4], "Replicas") {
			replicas = append(replicas, m[4])
		}
	}
	want := "  \t// +optional\n  \tReplicas *int32 `json:\"replicas,omitempty\" protobuf:\"varint,6,opt,name=replicas\"`\n"
	if len(replicas) != 1 || replicas[0] != want {
		t.Errorf("suggestions for Replicas %q, want one: %q\n%s", replicas, want, r.stdout)
	}
}
