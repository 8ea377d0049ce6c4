// Package git reads revisions of a repository straight from git's object
// store, without checking anything out.
//
// Every operation here is read-only: nothing is ever written under .git, and
// neither the working tree nor the index is modified. git runs with a fixed
// environment and configuration that neither the caller's environment nor
// the (untrusted) repository can change: see exec.go.
package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrNotRepo is returned (wrapped) by Open when dir is not inside a git
// work tree or a bare repository.
var ErrNotRepo = errors.New("not a git repository")

// ErrNoWorkTree is wrapped by the error of Snapshot(WorktreeRef) in a bare
// repository. That error is also an *UnknownRefError, so callers that map
// unknown refs to a usage error (exit 2) do the same for it.
var ErrNoWorkTree = errors.New("the repository has no working tree")

// WorktreeRef is the ref name that means "the working tree" (uncommitted +
// untracked non-ignored files).
const WorktreeRef = "WORKTREE"

// Repo is a repository found by Open or OpenContext.
type Repo struct {
	// Root is the absolute top-level directory of the work tree; for a
	// bare repository, its git directory.
	Root string
	// Bare is set for a bare repository: commits can be read, the working
	// tree cannot (Snapshot(WorktreeRef) fails with ErrNoWorkTree).
	Bare bool

	ctx       context.Context // kills every git process when done
	safeDirs  []string        // safe.directory values passed on with -c (see Open)
	fileLimit int64           // ReadFiles limit; 0 means MaxFileSize (tests lower it)

	// shallow is rev-parse --is-shallow-repository as read by Open
	// ("true", "false"; "" when not read).
	shallow string

	// commits memoizes ResolveCommit for full shas, which name the same
	// commit for the life of the repository.
	commits sync.Map // sha -> sha

	// objects is the cat-file reader the open commit snapshots share,
	// objUsers how many hold it (see acquireObjects).
	objMu    sync.Mutex
	objects  *ObjectReader
	objUsers int

	// trees memoizes parsed tree objects (oid -> []TreeEntry): the
	// revisions a run lists share most of their directories.
	trees sync.Map

	// sums are the selections' summaries of trees (select.go), kept in
	// the tree memo file when the repository has one; selMu serialises
	// the walks that compute them.
	sums  treeSums
	selMu sync.Mutex
	// raw keeps the tree objects the walks read (oid -> content), for
	// the walks of later selections; rawBytes counts their bytes.
	raw      sync.Map
	rawBytes atomic.Int64
	// readLog, when set, records what the object readers are asked
	// (LogReads).
	readLog atomic.Pointer[ReadLog]
	// plainBatch is set once git refused cat-file --batch-command (a git
	// older than 2.36): object readers run --batch.
	plainBatch atomic.Bool
	// treeReads counts the trees the selections' walks read from git
	// (tests).
	treeReads atomic.Int64

	driversOnce sync.Once // driverOverrides
	drivers     []string
	driversErr  error
}

// UnknownRefError is returned when a ref does not name a commit.
type UnknownRefError struct {
	// Ref is the ref as given by the caller.
	Ref string
	// Detail says why, in words (never empty).
	Detail string
	// Err is the underlying cause, if any (ErrNoWorkTree).
	Err error
	// Hints say what may help (see Repo.RefHints), one per line.
	Hints []string
}

func (e *UnknownRefError) Error() string {
	if errors.Is(e.Err, ErrNoWorkTree) {
		return "no working tree: " + e.Detail
	}
	msg := fmt.Sprintf("unknown revision %q: %s", e.Ref, e.Detail)
	for _, h := range e.Hints {
		msg += "\nhint: " + h
	}
	return msg
}

func (e *UnknownRefError) Unwrap() error { return e.Err }

// Open finds the repository containing dir: the work tree around it
// (git rev-parse --show-toplevel), or the bare repository it is in. The
// error wraps ErrNotRepo, with dir named, when dir is in neither (this
// includes the .git directory of a work tree).
//
// Open is OpenContext with context.Background().
func Open(dir string) (*Repo, error) {
	return OpenContext(context.Background(), dir)
}

// OpenContext is Open with a context that bounds every git process of the
// repository, of its snapshots and of its object readers: when ctx is done
// they are killed (on Unix with their whole process group) and the
// operation in progress fails with an error wrapping ctx.Err(). Pass a
// context that signal.NotifyContext cancels on SIGINT and SIGTERM.
//
// git refuses a repository owned by another user unless safe.directory
// allows it. apicheck reads no global git configuration except that one
// setting: the safe.directory values of the user's global and system
// configuration are passed on with -c when git refuses the repository.
func OpenContext(ctx context.Context, dir string) (*Repo, error) {
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
	r := &Repo{Root: abs, ctx: ctx}
	// One git for the work tree and for whether the clone is shallow,
	// which the release history asks later (IsShallow).
	args := []string{"rev-parse", "--show-toplevel", "--is-shallow-repository"}
	out, err := r.run(args...)
	if err != nil && strings.Contains(stderrOf(err), "dubious ownership") {
		if dirs := userSafeDirectories(r.context(), os.Environ()); len(dirs) > 0 {
			r.safeDirs = dirs
			out, err = r.run(args...)
		}
	}
	if err != nil {
		var ee *execError
		if !errors.As(err, &ee) {
			return nil, err
		}
		switch {
		case strings.Contains(ee.stderr, "not a git repository"):
			return nil, fmt.Errorf("%s: %w (nor is any parent directory)", abs, ErrNotRepo)
		case strings.Contains(ee.stderr, "must be run in a work tree"):
			return r.openBare(abs)
		case strings.Contains(ee.stderr, "dubious ownership"):
			return nil, fmt.Errorf("open repository %s: %s (apicheck honours safe.directory from your global and system git configuration only)", abs, ee.stderr)
		}
		return nil, fmt.Errorf("open repository %s: %s", abs, ee.stderr)
	}
	root, shallow, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	switch shallow {
	case "true", "false":
		r.shallow = shallow
	}
	if root == "" {
		return nil, fmt.Errorf("%s: %w (not inside a git work tree)", abs, ErrNotRepo)
	}
	root = filepath.Clean(filepath.FromSlash(root))
	// The work tree must be the directory holding .git: a core.worktree in
	// the repository's configuration must not point apicheck at, say, "/".
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return nil, fmt.Errorf("open repository %s: git places its work tree at %s, which has no .git: a work tree apart from its repository (core.worktree) is not supported", abs, root)
	}
	r.Root = root
	return r, nil
}

// openBare opens the bare repository around abs; any other repository
// without a work tree (the inside of a .git directory) is ErrNotRepo.
func (r *Repo) openBare(abs string) (*Repo, error) {
	out, err := r.run("rev-parse", "--is-bare-repository", "--absolute-git-dir", "--is-shallow-repository")
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", abs, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "true" {
		return nil, fmt.Errorf("%s: %w work tree (it is inside a .git directory)", abs, ErrNotRepo)
	}
	switch lines[2] {
	case "true", "false":
		r.shallow = lines[2]
	}
	r.Root = filepath.Clean(filepath.FromSlash(lines[1]))
	r.Bare = true
	return r, nil
}

// stderrOf returns the stderr of a failed git run, or "".
func stderrOf(err error) string {
	var ee *execError
	if errors.As(err, &ee) {
		return ee.stderr
	}
	return ""
}

// userSafeDirectories returns the safe.directory values of the user's
// global and system git configuration, in order; nothing else of those
// files is used. The caller's GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and
// GIT_CONFIG_NOSYSTEM say where they are, as for git itself; no
// repository's configuration is read (GIT_DIR names no repository).
func userSafeDirectories(ctx context.Context, environ []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "HOME", "XDG_CONFIG_HOME":
			env = append(env, kv)
			continue
		}
		if !droppedEnv(k) {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_DIR="+os.DevNull, "LC_ALL=C")
	q := &Repo{Root: os.TempDir(), ctx: ctx}
	cmd := q.command(nil, "config", "--show-scope", "-z", "--get-all", "safe.directory")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var dirs []string
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == "global" || f[i] == "system" {
			dirs = append(dirs, f[i+1])
		}
	}
	return dirs
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
	full := isFullSHA(ref)
	if full {
		if sha, ok := r.commits.Load(ref); ok {
			return sha.(string), nil
		}
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
	if isFullSHA(sha) {
		// A commit's sha resolves to itself: the release history asks
		// for base and head again by sha.
		r.commits.Store(sha, sha)
	}
	return sha, nil
}

// isFullSHA reports a full lower-case SHA-1 or SHA-256 object name.
func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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
	if r.shallow != "" {
		return r.shallow == "true", nil
	}
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
