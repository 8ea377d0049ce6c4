// Package git reads revisions of a repository straight from git's object
// store, without checking anything out.
//
// Every operation here is read-only: nothing is ever written under .git, and
// neither the working tree nor the index is modified. git is always run with
// GIT_OPTIONAL_LOCKS=0 (so that even commands such as "git status" would not
// refresh the index), LC_ALL=C (so that messages are stable) and
// GIT_TERMINAL_PROMPT=0 (so that nothing ever waits for a password).
package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotRepo is returned (wrapped) by Open when dir is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// WorktreeRef is the ref name that means "the working tree" (uncommitted +
// untracked non-ignored files).
const WorktreeRef = "WORKTREE"

// Repo is a git work tree found by Open.
type Repo struct {
	// Root is the absolute top-level directory of the work tree.
	Root string
}

// UnknownRefError is returned when a ref does not name a commit.
type UnknownRefError struct {
	// Ref is the ref as given by the caller.
	Ref string
	// Detail says why, in words (never empty).
	Detail string
}

func (e *UnknownRefError) Error() string {
	return fmt.Sprintf("unknown revision %q: %s", e.Ref, e.Detail)
}

// gitEnv returns the environment every git process runs with.
//
// Variables that would point git at another repository, work tree or index
// than the one that Open found are dropped: when the tool runs inside a git
// hook, for example, GIT_DIR and GIT_INDEX_FILE are set (sometimes to
// relative paths) and would silently redirect every command.
func gitEnv() []string {
	drop := map[string]bool{
		"GIT_DIR":               true,
		"GIT_WORK_TREE":         true,
		"GIT_INDEX_FILE":        true,
		"GIT_COMMON_DIR":        true,
		"GIT_PREFIX":            true,
		"GIT_NAMESPACE":         true,
		"GIT_OPTIONAL_LOCKS":    true,
		"GIT_TERMINAL_PROMPT":   true,
		"GIT_LITERAL_PATHSPECS": true,
		"GIT_GLOB_PATHSPECS":    true,
		"GIT_NOGLOB_PATHSPECS":  true,
		"GIT_ICASE_PATHSPECS":   true,
		"LC_ALL":                true,
		"LANG":                  true,
		"LANGUAGE":              true,
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
		"LANG=C",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// gitCommand builds (but does not start) a git command running in dir.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	return cmd
}

// execError is a git process that ran and failed.
type execError struct {
	args   []string
	code   int
	stderr string
}

func (e *execError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// cleanStderr turns git's stderr into one readable line: hints dropped,
// lines joined with "; ".
func cleanStderr(b []byte) string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

// startError explains why git could not even be started.
func startError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return errors.New("git executable not found in PATH: apicheck needs git installed")
	}
	return fmt.Errorf("cannot run git: %w", err)
}

// runIn runs git in dir and returns its stdout. A failing git gives an
// *execError carrying the exit code and cleaned stderr.
func runIn(dir string, args ...string) ([]byte, error) {
	cmd := gitCommand(dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &execError{args: args, code: ee.ExitCode(), stderr: cleanStderr(stderr.Bytes())}
		}
		return nil, startError(err)
	}
	return stdout.Bytes(), nil
}

// exitCode returns the exit code of a failed git run, or -1 if err is not
// such a failure (e.g. git could not be started).
func exitCode(err error) int {
	var ee *execError
	if errors.As(err, &ee) {
		return ee.code
	}
	return -1
}

func (r *Repo) run(args ...string) ([]byte, error) {
	return runIn(r.Root, args...)
}

// runLine runs git and returns its stdout with surrounding white space trimmed.
func (r *Repo) runLine(args ...string) (string, error) {
	out, err := r.run(args...)
	return strings.TrimSpace(string(out)), err
}

// Open finds the repository containing dir (git rev-parse --show-toplevel).
// The error wraps ErrNotRepo, with dir named, when dir is not inside a git
// work tree (this includes a bare repository or the .git directory itself).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("open repository: directory %s does not exist", abs)
		}
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open repository: %s is not a directory", abs)
	}
	out, err := runIn(abs, "rev-parse", "--show-toplevel")
	if err != nil {
		var ee *execError
		if !errors.As(err, &ee) {
			return nil, err
		}
		if strings.Contains(ee.stderr, "not a git repository") {
			return nil, fmt.Errorf("%s: %w (nor is any parent directory)", abs, ErrNotRepo)
		}
		if strings.Contains(ee.stderr, "must be run in a work tree") {
			return nil, fmt.Errorf("%s: %w work tree (it is inside a bare repository or a .git directory)", abs, ErrNotRepo)
		}
		// e.g. "detected dubious ownership": git's own words say what to do.
		return nil, fmt.Errorf("open repository %s: %s", abs, ee.stderr)
	}
	root := strings.TrimSpace(string(out))
	if root == "" {
		return nil, fmt.Errorf("%s: %w (not inside a git work tree)", abs, ErrNotRepo)
	}
	return &Repo{Root: filepath.Clean(filepath.FromSlash(root))}, nil
}

// ResolveCommit resolves ref (branch, tag, sha, HEAD~1, origin/main ...) to a
// full commit sha. An unknown ref, or one that does not name a commit, gives
// an *UnknownRefError.
func (r *Repo) ResolveCommit(ref string) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", &UnknownRefError{Ref: ref, Detail: "empty revision"}
	}
	if ref == WorktreeRef {
		return "", &UnknownRefError{Ref: ref, Detail: "the working tree is not a commit"}
	}
	out, err := r.run("rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	sha := strings.TrimSpace(string(out))
	if err != nil || sha == "" {
		if err != nil && exitCode(err) < 0 {
			return "", err
		}
		detail := "no branch, tag or commit of that name in " + r.Root
		var ee *execError
		if errors.As(err, &ee) && ee.stderr != "" {
			// e.g. "expected commit type, but the object dereferences to tree type"
			detail = strings.TrimPrefix(ee.stderr, "error: ")
		} else if head, herr := r.HeadCommit(); herr == nil && head == "" {
			detail = "the repository has no commits yet"
		}
		return "", &UnknownRefError{Ref: ref, Detail: detail}
	}
	return sha, nil
}

// HeadCommit returns HEAD's sha, or "" if the repository has no commits yet.
func (r *Repo) HeadCommit() (string, error) {
	out, err := r.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil // unborn branch
		}
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// IsShallow reports `git rev-parse --is-shallow-repository`.
func (r *Repo) IsShallow() (bool, error) {
	s, err := r.runLine("rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, err
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("git rev-parse --is-shallow-repository: unexpected output %q", s)
}

// MergeBase returns `git merge-base a b`. When there is none the error says
// so and, in a shallow clone, suggests `git fetch --unshallow`.
func (r *Repo) MergeBase(a, b string) (string, error) {
	ca, err := r.ResolveCommit(a)
	if err != nil {
		return "", err
	}
	cb, err := r.ResolveCommit(b)
	if err != nil {
		return "", err
	}
	return r.mergeBase(ca, cb, a, b)
}

// mergeBase computes the merge base of commits ca and cb; la and lb are the
// names to use for them in errors.
func (r *Repo) mergeBase(ca, cb, la, lb string) (string, error) {
	sha, err := r.runLine("merge-base", ca, cb)
	if err == nil && sha != "" {
		return sha, nil
	}
	if err != nil && exitCode(err) != 1 {
		return "", fmt.Errorf("merge base of %s and %s: %w", la, lb, err)
	}
	msg := fmt.Sprintf("%s and %s have no common ancestor (no merge base)", la, lb)
	if shallow, serr := r.IsShallow(); serr == nil && shallow {
		msg += "; this is a shallow clone, which may lack the merge base: run `git fetch --unshallow` (or fetch more history) and retry"
	}
	return "", errors.New(msg)
}

// defaultBaseCandidates are the upstream refs DefaultBase tries, in order.
var defaultBaseCandidates = []string{"origin/HEAD", "origin/main", "origin/master"}

// DefaultBase picks the comparison base when the user gave none: the
// merge-base of HEAD and the first of origin/HEAD, origin/main, origin/master
// that exists. It returns the upstream ref name used (e.g. "origin/main")
// and the merge-base sha.
func (r *Repo) DefaultBase() (ref, sha string, err error) {
	var upstream string
	for _, cand := range defaultBaseCandidates {
		// Spell the full ref so that a local branch or tag that happens to be
		// called "origin/main" cannot shadow the remote-tracking one.
		out, err := r.run("rev-parse", "--verify", "--quiet", "refs/remotes/"+cand+"^{commit}")
		if err != nil {
			if exitCode(err) < 0 {
				return "", "", err
			}
			continue
		}
		if s := strings.TrimSpace(string(out)); s != "" {
			ref, upstream = cand, s
			break
		}
	}
	if ref == "" {
		return "", "", errors.New("no upstream default branch (origin/HEAD, origin/main, origin/master) found; pass --base REF")
	}
	head, err := r.HeadCommit()
	if err != nil {
		return "", "", err
	}
	if head == "" {
		return "", "", fmt.Errorf("HEAD has no commits yet, so there is no merge base with %s; pass --base REF", ref)
	}
	sha, err = r.mergeBase(head, upstream, "HEAD", ref)
	if err != nil {
		return "", "", err
	}
	return ref, sha, nil
}
