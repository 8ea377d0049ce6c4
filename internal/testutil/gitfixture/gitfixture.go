// Package gitfixture turns txtar archives into real git repositories for
// tests.
//
// An archive describes a history as a sequence of steps. Each file name is
// "<step>/<path>"; steps are taken in order of first appearance, and each
// step's tree is the previous step's tree overlaid with that step's files. A
// file whose content is exactly "(deleted)" (with or without a final
// newline) removes that path. Every step is committed with the step name as
// message, a fixed identity and dates one minute apart from
// 2024-01-01T00:00:00Z, so shas are the same on every run, except the step
// named "worktree", which must come last and is only written to disk.
//
// A step name may carry lightweight tags after "@": "rel1@v1.1.0" commits
// step "rel1" and tags it v1.1.0 ("rel1@v1.1.0@v1.1.1" for several). An
// entry named just "<step>/" (no path, empty content) declares a step with
// no file changes; it is committed as an empty commit.
//
// Example:
//
//	-- base/go.mod --
//	module example.com/m
//	-- base/api/types.go --
//	package api
//	-- head@v1.1.0/api/types.go --
//	(deleted)
//	-- worktree/api/new.go --
//	package api
//
// git runs with a hermetic environment: HOME is an empty temporary
// directory, no system or global configuration is read, and the identity is
// fixed, so fixtures behave the same on a developer's machine and in CI.
package gitfixture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/txtarrepo"
)

// WorktreeStep is the step name that is written to disk but not committed.
const WorktreeStep = txtarrepo.WorktreeStep

// Identity used for every commit.
const (
	UserName  = "apicheck test"
	UserEmail = "test@apicheck.invalid"
)

// epoch is the date of the first commit; each commit is one minute later.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Fixture is a real git repo in t.TempDir().
type Fixture struct {
	Dir     string            // repo root (symlinks resolved)
	Commits map[string]string // step name -> commit sha ("worktree" has none)
	Steps   []string          // step names in order

	t    testing.TB
	home string // HOME for git
	n    int    // commits made so far, for the dates
}

// New makes an empty repo (git init -b main, local user.name/email set,
// commit.gpgsign=false).
func New(t testing.TB) *Fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("gitfixture: git is not installed: %v", err)
	}
	base := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(base); err == nil {
		base = resolved
	}
	f := &Fixture{
		Dir:     filepath.Join(base, "repo"),
		Commits: map[string]string{},
		t:       t,
		home:    filepath.Join(base, "home"),
	}
	for _, d := range []string{f.Dir, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("gitfixture: %v", err)
		}
	}
	f.Git("init", "-q", "-b", "main")
	f.Git("config", "user.name", UserName)
	f.Git("config", "user.email", UserEmail)
	f.Git("config", "commit.gpgsign", "false")
	f.Git("config", "tag.gpgsign", "false")
	f.Git("config", "core.autocrlf", "false")
	return f
}

// FromTxtar builds a repo from an archive (see the package documentation).
func FromTxtar(t testing.TB, archive []byte) *Fixture {
	t.Helper()
	steps, err := txtarrepo.Parse(archive)
	if err != nil {
		t.Fatalf("gitfixture: %v", err)
	}
	f := New(t)
	for _, s := range steps {
		if s.Name == WorktreeStep {
			f.WriteWorktree(s.Files)
			continue
		}
		f.Commit(s.Name, s.Files)
		for _, tag := range s.Tags {
			f.Tag(tag, s.Name)
		}
	}
	return f
}

// FromFile reads a txtar file (typically under testdata/) and calls FromTxtar.
func FromFile(t testing.TB, path string) *Fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("gitfixture: %v", err)
	}
	return FromTxtar(t, data)
}

// Commit overlays files on the previous step's tree (a content of
// "(deleted)" removes the path), commits with step as message, records the
// step and returns the commit sha.
func (f *Fixture) Commit(step string, files map[string]string) string {
	f.t.Helper()
	if step == "" || step == WorktreeStep || strings.ContainsAny(step, "@/") {
		f.t.Fatalf("gitfixture: cannot commit step %q (must be non-empty, not %q, without '@' or '/')", step, WorktreeStep)
	}
	if _, dup := f.Commits[step]; dup {
		f.t.Fatalf("gitfixture: step %q committed twice", step)
	}
	if slices.Contains(f.Steps, WorktreeStep) {
		f.t.Fatalf("gitfixture: cannot commit step %q after the %q step", step, WorktreeStep)
	}
	touched := f.overlay(step, files)
	if len(touched) > 0 {
		// update-index takes the NUL-separated paths literally (no
		// pathspec globbing, no quadratic matching, no argument limits),
		// stages deletions (--remove) and ignores .gitignore, so files the
		// archive lists are committed even if the fixture ignores them.
		var list bytes.Buffer
		for _, p := range touched {
			list.WriteString(p)
			list.WriteByte(0)
		}
		f.run(&list, "update-index", "--add", "--remove", "-z", "--stdin")
	}
	date := fmt.Sprintf("@%d +0000", epoch.Add(time.Duration(f.n)*time.Minute).Unix())
	f.n++
	f.runEnv(nil, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date},
		"commit", "-q", "--allow-empty", "--no-verify", "-m", step)
	sha := f.Git("rev-parse", "HEAD")
	f.Commits[step] = sha
	f.Steps = append(f.Steps, step)
	return sha
}

// Tag creates a lightweight tag at a step's commit.
func (f *Fixture) Tag(name, step string) {
	f.t.Helper()
	f.Git("tag", name, f.commitOf(step))
}

// SetRef runs `git update-ref refs/remotes/<name> <sha of step>`, e.g.
// SetRef("origin/main", "base") to simulate an upstream.
func (f *Fixture) SetRef(name, step string) {
	f.t.Helper()
	f.Git("update-ref", "refs/remotes/"+name, f.commitOf(step))
}

// WriteWorktree overlays files on disk without committing ("(deleted)"
// removes a file from disk). It records the step "worktree" once.
func (f *Fixture) WriteWorktree(files map[string]string) {
	f.t.Helper()
	f.overlay(WorktreeStep, files)
	if !slices.Contains(f.Steps, WorktreeStep) {
		f.Steps = append(f.Steps, WorktreeStep)
	}
}

// Git runs git in the repo and returns stdout with trailing white space
// trimmed, failing the test on error. Leading white space is kept: it is
// significant in, e.g., `git status --porcelain`.
func (f *Fixture) Git(args ...string) string {
	f.t.Helper()
	return strings.TrimRight(f.run(nil, args...), " \t\r\n")
}

// GitStdin is Git with stdin fed from a string, for plumbing such as
// `update-index --index-info` or `hash-object -w --stdin`.
func (f *Fixture) GitStdin(stdin string, args ...string) string {
	f.t.Helper()
	return strings.TrimRight(f.run(bytes.NewBufferString(stdin), args...), " \t\r\n")
}

// Path returns the absolute path of a repo-relative slash path.
func (f *Fixture) Path(rel string) string {
	return filepath.Join(f.Dir, filepath.FromSlash(rel))
}

// commitOf returns the sha of a committed step.
func (f *Fixture) commitOf(step string) string {
	f.t.Helper()
	sha, ok := f.Commits[step]
	if !ok {
		f.t.Fatalf("gitfixture: no committed step %q (have %v)", step, f.Steps)
	}
	return sha
}

// overlay writes files to the work tree and returns the touched paths,
// sorted.
func (f *Fixture) overlay(step string, files map[string]string) []string {
	f.t.Helper()
	paths, err := txtarrepo.Overlay(f.Dir, files)
	if err != nil {
		f.t.Fatalf("gitfixture: step %q: %v", step, err)
	}
	return paths
}

// env is the hermetic environment git runs with.
func (f *Fixture) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" ||
			k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" || k == "EMAIL" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+f.home,
		"XDG_CONFIG_HOME="+filepath.Join(f.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME="+UserName,
		"GIT_AUTHOR_EMAIL="+UserEmail,
		"GIT_COMMITTER_NAME="+UserName,
		"GIT_COMMITTER_EMAIL="+UserEmail,
		"GIT_TERMINAL_PROMPT=0",
		// So that even "git status" never refreshes the index: tests check
		// that the code under test leaves .git/index alone.
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
	)
}

func (f *Fixture) run(stdin *bytes.Buffer, args ...string) string {
	f.t.Helper()
	return f.runEnv(stdin, nil, args...)
}

func (f *Fixture) runEnv(stdin *bytes.Buffer, extraEnv []string, args ...string) string {
	f.t.Helper()
	full := append([]string{"-c", "init.defaultBranch=main", "-c", "core.quotepath=off"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = f.Dir
	cmd.Env = append(f.env(), extraEnv...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		f.t.Fatalf("gitfixture: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
