package main_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var binary string

// TestMain builds the real binary once; the tests run it as a user would,
// each run with a home and user cache directory of its own (see run), and
// the package fails if a run wrote to the user directories of the test
// process (hermetic.Setup).
func TestMain(m *testing.M) {
	flag.Parse()
	done := hermetic.Setup()
	dir, err := os.MkdirTemp("", "apicheck-e2e")
	if err != nil {
		panic(err)
	}
	// The binary's caches go to the temporary directory, not the user's.
	os.Setenv("APICHECK_CACHE_DIR", filepath.Join(dir, "cache"))
	binary = filepath.Join(dir, "apicheck")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	args := []string{"build", "-ldflags", "-X github.com/apicheck/apicheck/internal/cli.Version=v0.0.0-test", "-o", binary}
	if runtime.GOOS == "linux" {
		// The crashes of TestCrashesExit3; without APICHECK_CRASHTEST in
		// its environment the binary behaves as a release build.
		args = append(args, "-tags", "apicheck_crashtest")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building apicheck: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(done(code))
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runWithin(t, 0, dir, env, args...)
}

// runWithin is run that kills apicheck's process group after limit (0:
// no limit) and fails the test.
func runWithin(t *testing.T, limit time.Duration, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	if limit > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		cmd = exec.CommandContext(ctx, binary, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its worker too
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		defer func() {
			if ctx.Err() != nil {
				t.Fatalf("apicheck %v did not finish within %v", args, limit)
			}
		}()
	}
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), hermetic.UserDirs(t)...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running apicheck: %v", err)
	}
	return result{stdout.String(), stderr.String(), code}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/apicheck -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got); refresh with go test ./cmd/apicheck -update:\n%s", name, d)
	}
}

func example(t *testing.T) *gitfixture.Fixture {
	return gitfixture.FromFile(t, filepath.Join("..", "..", "examples", "shoot-api.txtar"))
}

func TestCheckExampleGolden(t *testing.T) {
	t.Parallel()
	fx := example(t)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", format)
			if r.code != 1 {
				t.Fatalf("exit code %d, want 1 (findings); stderr: %s", r.code, r.stderr)
			}
			golden(t, "example."+format, r.stdout)
			again := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", format)
			if again.stdout != r.stdout {
				t.Errorf("output is not deterministic")
			}
		})
	}
}

// The check needs no module downloads: with an empty module cache and the
// proxy off it reports the same findings.
func TestCheckOfflineEmptyModuleCache(t *testing.T) {
	t.Parallel()
	fx := example(t)
	args := []string{"check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "json"}
	online := run(t, fx.Dir, nil, args...)
	offline := run(t, fx.Dir, []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOMODCACHE=" + t.TempDir()}, args...)
	if offline.code != online.code || offline.stdout != online.stdout {
		t.Errorf("offline run differs: code %d vs %d\n%s", offline.code, online.code, offline.stderr)
	}
}

// On one core the check reports the same (base's and head's scans wait
// on one another: they must run side by side whatever GOMAXPROCS is).
func TestCheckOneCore(t *testing.T) {
	t.Parallel()
	fx := example(t)
	args := []string{"check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "json"}
	want := run(t, fx.Dir, nil, args...)
	got := runWithin(t, 60*time.Second, fx.Dir, []string{"GOMAXPROCS=1"}, args...)
	if got.code != want.code || got.stdout != want.stdout {
		t.Errorf("on one core: code %d vs %d\n%s", got.code, want.code, got.stderr)
	}
}

func TestCheckWorktreeDefaultBase(t *testing.T) {
	t.Parallel()
	fx := example(t)
	// Upstream at base; HEAD is head; the working tree adds a fix on top.
	fx.SetRef("origin/main", "base")
	r := run(t, fx.Dir, nil, "check", "--format", "json")
	if r.code != 1 || !strings.Contains(r.stdout, `"ref": "WORKTREE"`) || !strings.Contains(r.stdout, "NEW_FIELD_NOT_POINTER") || !strings.Contains(r.stdout, "merge-base of HEAD and origin/main") {
		t.Fatalf("default base/worktree run: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	status := fx.Git("status", "--porcelain")
	if status != "" {
		t.Errorf("apicheck changed the working tree or index: %q", status)
	}
	// Without an upstream the error says to pass --base.
	fx.Git("update-ref", "-d", "refs/remotes/origin/main")
	r = run(t, fx.Dir, nil, "check")
	if r.code != 2 || !strings.Contains(r.stderr, "--base") {
		t.Errorf("no upstream: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestExitCodesAndBadInput(t *testing.T) {
	t.Parallel()
	fx := example(t)
	base, head := fx.Commits["base"], fx.Commits["head"]
	cases := []struct {
		name     string
		dir      string
		args     []string
		code     int
		stderrIn string
	}{
		{"findings below fail-on none", fx.Dir, []string{"check", "--base", base, "--head", head, "--fail-on", "none"}, 0, ""},
		{"no change is clean", fx.Dir, []string{"check", "--base", head, "--head", head}, 0, ""},
		{"unknown ref", fx.Dir, []string{"check", "--base", "no-such-ref", "--head", head}, 2, "no-such-ref"},
		{"not a repository", t.TempDir(), []string{"check", "--base", "HEAD"}, 2, "not a git repository"},
		{"bad fail-on", fx.Dir, []string{"check", "--base", base, "--fail-on", "fatal"}, 2, "--fail-on"},
		{"bad format", fx.Dir, []string{"check", "--base", base, "--format", "xml"}, 2, "--format"},
		{"unknown flag", fx.Dir, []string{"check", "--bogus"}, 2, "bogus"},
		{"unwritable output", fx.Dir, []string{"check", "--base", base, "--head", head, "--output", "/nonexistent-dir/report.txt"}, 2, "--output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, c.dir, nil, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderrIn) {
				t.Errorf("exit %d (want %d), stderr %q (want it to mention %q)", r.code, c.code, r.stderr, c.stderrIn)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("panicked: %s", r.stderr)
			}
		})
	}
}

func TestUnparsableFileIsAScanFailure(t *testing.T) {
	t.Parallel()
	fx := example(t)
	fx.WriteWorktree(map[string]string{"pkg/apis/core/v1beta1/broken.go": "package v1beta1\n\ntype Broken struct {\n"})
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"])
	if r.code != 3 || !strings.Contains(r.stderr, "pkg/apis/core/v1beta1/broken.go:") {
		t.Fatalf("exit %d, stderr %q: want 3 and the file:line", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("a failed scan must not print a partial report: %q", r.stdout)
	}
}

func TestOutputFileIsWrittenWhole(t *testing.T) {
	t.Parallel()
	fx := example(t)
	out := filepath.Join(t.TempDir(), "report.json")
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "json", "--output", out)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), `"findings"`) {
		t.Fatalf("report file: %v %q", err, data)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestDumpAndVersion(t *testing.T) {
	t.Parallel()
	fx := example(t)
	r := run(t, fx.Dir, nil, "dump", "--rev", fx.Commits["head"])
	if r.code != 0 || !strings.Contains(r.stdout, `"ShootSpec"`) || !strings.Contains(r.stdout, `"autoUpdate"`) {
		t.Fatalf("dump: code %d, %s", r.code, r.stderr)
	}
	r = run(t, fx.Dir, nil, "version")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "apicheck v0.0.0-test" {
		t.Fatalf("version: %q", r.stdout)
	}
}

// audit reports violations that already exist (check ratchets them away).
func TestAuditReportsExistingViolations(t *testing.T) {
	t.Parallel()
	fx := gitfixture.FromTxtar(t, []byte(`
-- base/go.mod --
module example.com/m

go 1.22

require github.com/gardener/gardener v1.149.0
-- base/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Spec is old and has problems since long ago.
type Spec struct {
	// +optional
	A *string `+"`json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`"+`
	// +optional
	B *string `+"`json:\"b,omitempty\" protobuf:\"bytes,1,opt,name=b\"`"+`
	// Gone is tombstoned to show why 7 is reserved protobuf tag.
	// Gone *string `+"`json:\"gone,omitempty\" protobuf:\"bytes,2,opt,name=gone\"`"+`
}
-- head/pkg/apis/core/v1beta1/other.go --
package v1beta1

// Other is unrelated.
type Other struct{}
`))
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "json")
	if r.code != 0 || strings.Contains(r.stdout, "PROTO_NUMBER_DUPLICATE") {
		t.Fatalf("check must ratchet old violations away: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, fx.Dir, nil, "audit", "--rev", fx.Commits["head"], "--format", "json")
	if r.code != 1 {
		t.Fatalf("audit: code %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{`"rule": "PROTO_NUMBER_DUPLICATE"`, `"rule": "TOMBSTONE_MALFORMED"`, `"ref": "(none: audit of one revision)"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("audit output lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "NEW_FIELD") || strings.Contains(r.stdout, "UNCLASSIFIED") {
		t.Errorf("audit runs only the single-revision invariants:\n%s", r.stdout)
	}
}

// audit --history finds a protobuf number that a live field carries but
// a different field carried at an earlier release, and prints the
// tombstone the removal never got, declaration from that release
// included; plain audit does not read release tags.
func TestAuditHistoryFindsReleasedReuse(t *testing.T) {
	t.Parallel()
	fx := gitfixture.FromTxtar(t, []byte(`
-- r1@v1.1.0/pkg/apis/core/v1beta1/generated.proto --
syntax = "proto2";
-- r1@v1.1.0/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Spec is the spec.
type Spec struct {
	// +optional
	A *string `+"`json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`"+`
	// +optional
	Legacy map[string]int32 `+"`json:\"legacy,omitempty\" protobuf:\"bytes,3,rep,name=legacy\"`"+`
}
-- r2@v1.2.0/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Spec is the spec.
type Spec struct {
	// +optional
	A *string `+"`json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`"+`
}
-- r3@v1.3.0/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Spec is the spec.
type Spec struct {
	// +optional
	A *string `+"`json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`"+`
	// +optional
	Replicas *int32 `+"`json:\"replicas,omitempty\" protobuf:\"varint,3,opt,name=replicas\"`"+`
}
-- head/README.md --
after the release
`))
	r := run(t, fx.Dir, nil, "audit", "--rev", fx.Commits["head"])
	if r.code != 0 || strings.Contains(r.stdout, "PROTO_NUMBER_PREVIOUSLY_USED") || strings.Contains(r.stdout, "release used") {
		t.Fatalf("audit without --history reads no release: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, fx.Dir, nil, "audit", "--rev", fx.Commits["head"], "--history")
	if r.code != 1 {
		t.Fatalf("audit --history: code %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"release used: v1.3.0",
		"pkg/apis/core/v1beta1/types.go:9:2: error PROTO_NUMBER_PREVIOUSLY_USED Spec.Replicas carries protobuf number 3, " +
			"which Spec.Legacy carried at release v1.1.0 (removed without a tombstone); Replicas carries it since release v1.3.0",
		"If Replicas moves to number 4, reserve 3 with the tombstone Legacy never got:",
		"// Legacy is tombstoned to show why 3 is reserved protobuf tag.",
		"// Legacy map[string]int32 `json:\"legacy,omitempty\" protobuf:\"bytes,3,rep,name=legacy\"`",
		"1 error, 0 warnings, 0 infos",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("audit --history output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// SIGINT during a run: exit 3 with a message, no report file, no
// temporary file next to it, and no git process left behind (the working
// tree read blocks on a FIFO .gitignore, so git is running when the
// signal arrives).
func TestInterruptLeavesNothingBehind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	fx := example(t)
	fx.Git("checkout", "-q", fx.Commits["head"])
	dir := fx.Path("untracked")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".gitignore"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	outDir := t.TempDir()
	cmd := exec.Command(binary, "check", "--base", fx.Commits["base"], "--output", filepath.Join(outDir, "report.json"), "--format", "json")
	cmd.Dir = fx.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 3 {
			t.Errorf("exit: %v, want code 3; stderr %q", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("apicheck did not stop after SIGINT; stderr %q", stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q does not say it was interrupted", stderr.String())
	}
	if es, _ := os.ReadDir(outDir); len(es) != 0 {
		t.Errorf("left in the output directory: %v", es)
	}
	// No git process is still working on the fixture.
	procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
	for _, p := range procs {
		if target, err := os.Readlink(p); err == nil && strings.HasPrefix(target, fx.Dir) {
			comm, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "comm"))
			t.Errorf("process %s (%s) still runs in the fixture", filepath.Dir(p), strings.TrimSpace(string(comm)))
		}
	}
}

// TestVersionFromBuildInfo: a binary built from a clone without -ldflags
// (`go install ./cmd/apicheck`, `go build`) reports the version the go
// command stamps from the repository: a pseudo-version with the commit
// (or the tag at HEAD), never "dev".
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "HEAD").Output()
	if err != nil {
		t.Skip("not built from a git clone (a source archive): the go command has no VCS information to stamp")
	}
	rev := strings.TrimSpace(string(out))
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		// The go command recognises a repository only by a .git
		// directory: in a linked worktree (.git is a file) it stamps no
		// VCS information at all (golang/go#58218), so there is nothing
		// to test here.
		t.Skip("a linked git worktree: the go command stamps no VCS information (golang/go#58218)")
	}
	bin := filepath.Join(t.TempDir(), "apicheck")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/apicheck")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), hermetic.UserDirs(t)...)
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(got)), "apicheck ")
	tags, _ := exec.Command("git", "-C", root, "tag", "--points-at", "HEAD").Output()
	if !strings.Contains(v, rev[:12]) && (len(tags) == 0 || !strings.Contains(string(tags), strings.TrimSuffix(v, "+dirty"))) {
		t.Errorf("apicheck version = %q, want a version naming commit %s (or its tag %q)", v, rev[:12], strings.TrimSpace(string(tags)))
	}
	if !strings.HasPrefix(v, "v") {
		t.Errorf("apicheck version = %q, want a module version", v)
	}
}
