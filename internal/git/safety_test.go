package git_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// The tests in this file and safety_unix_test.go cover what the package
// promises for untrusted and unusual repositories (see exec.go). They
// build their repositories with gitfixture (Init, ImportTrees), in two
// or three git processes.

func openRepo(t *testing.T, dir string) *git.Repo {
	t.Helper()
	r, err := git.Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return r
}

func openSnapshot(t *testing.T, r *git.Repo, ref string) git.Snapshot {
	t.Helper()
	s, err := r.Snapshot(ref)
	if err != nil {
		t.Fatalf("Snapshot(%q): %v", ref, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func contents(t *testing.T, s git.Snapshot, paths ...string) map[string]string {
	t.Helper()
	files, err := s.ReadFiles(paths)
	if err != nil {
		t.Fatalf("ReadFiles(%s, %q): %v", s.Ref(), paths, err)
	}
	out := map[string]string{}
	for p, b := range files {
		out[p] = string(b)
	}
	return out
}

// TestCallerEnvironmentIgnored: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_OBJECT_DIRECTORY and configuration passed through the environment
// cannot redirect git or make it run anything.
func TestCallerEnvironmentIgnored(t *testing.T) {
	other := gitfixture.Init(t) // empty: HEAD resolves to nothing there
	f := gitfixture.Init(t)
	shas := f.ImportTrees([]map[string]string{{"mine.go": "package mine\n"}}, nil)
	f.CheckoutFiles()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	evil := filepath.Join(dir, "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho \"$0 $*\" >> '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"GIT_DIR":               filepath.Join(other.Dir, ".git"),
		"GIT_WORK_TREE":         other.Dir,
		"GIT_INDEX_FILE":        filepath.Join(dir, "index"),
		"GIT_OBJECT_DIRECTORY":  filepath.Join(dir, "objects"),
		"GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='" + evil + "'",
		"GIT_CONFIG_COUNT":      "1",
		"GIT_CONFIG_KEY_0":      "core.fsmonitor",
		"GIT_CONFIG_VALUE_0":    evil,
		"GIT_EXEC_PATH":         dir,
		"GIT_PAGER":             evil,
		"PAGER":                 evil,
		"GIT_TRACE":             filepath.Join(dir, "trace"),
		"HOME":                  dir,
	} {
		t.Setenv(k, v)
	}
	r := openRepo(t, f.Dir)
	if r.Root != f.Dir {
		t.Errorf("Root = %s, want %s", r.Root, f.Dir)
	}
	if s := openSnapshot(t, r, "HEAD"); s.Commit() != shas[0] || !reflect.DeepEqual(s.Files(), []string{"mine.go"}) {
		t.Errorf("HEAD = %s %q, want %s [mine.go]", s.Commit(), s.Files(), shas[0])
	}
	if got := contents(t, openSnapshot(t, r, git.WorktreeRef), "mine.go"); got["mine.go"] != "package mine\n" {
		t.Errorf("working tree = %q", got)
	}
	for _, p := range []string{marker, filepath.Join(dir, "trace"), filepath.Join(dir, "index")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: the caller's environment reached git", p)
		}
	}
}

// TestBareRepository: commits are read; the working tree is a clear error
// that callers map to a usage error (it is an *UnknownRefError).
func TestBareRepository(t *testing.T) {
	t.Parallel()
	f := gitfixture.Init(t, "--bare")
	shas := f.ImportTrees([]map[string]string{{"api/v1/types.go": "package v1\n"}}, nil)
	// Any directory inside the repository will do.
	r := openRepo(t, filepath.Join(f.Dir, "refs"))
	if !r.Bare || r.Root != f.Dir {
		t.Errorf("Open = Root %s, Bare %v; want %s, true", r.Root, r.Bare, f.Dir)
	}
	s := openSnapshot(t, r, "main")
	if s.Commit() != shas[0] || contents(t, s, "api/v1/types.go")["api/v1/types.go"] != "package v1\n" {
		t.Errorf("main in a bare repository: %s", s.Commit())
	}
	_, err := r.Snapshot(git.WorktreeRef)
	var ue *git.UnknownRefError
	if !errors.As(err, &ue) || !errors.Is(err, git.ErrNoWorkTree) || !strings.Contains(err.Error(), "bare repository") ||
		!strings.HasPrefix(err.Error(), "no working tree: ") {
		t.Errorf("Snapshot(WORKTREE) in a bare repository: error = %v", err)
	}
}

// TestLinkedWorktree: a `git worktree add` work tree is a repository of
// its own for apicheck: its files, its HEAD.
func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	f := gitfixture.Init(t)
	shas := f.ImportTrees([]map[string]string{{"a.go": "package a\n"}, {"a.go": "package a // 2\n", "b.go": "package a\n"}}, nil)
	wt := filepath.Join(filepath.Dir(f.Dir), "linked")
	f.Git("worktree", "add", "-q", "--detach", wt, shas[0])
	r := openRepo(t, wt)
	if r.Root != wt || r.Bare {
		t.Fatalf("Root = %s, Bare %v; want %s", r.Root, r.Bare, wt)
	}
	s := openSnapshot(t, r, git.WorktreeRef)
	if s.Commit() != shas[0] || !reflect.DeepEqual(s.Files(), []string{"a.go"}) {
		t.Errorf("linked work tree: commit %s files %q; want %s [a.go]", s.Commit(), s.Files(), shas[0])
	}
	if got := contents(t, s, "a.go"); got["a.go"] != "package a\n" {
		t.Errorf("linked work tree: %q", got)
	}
}

// TestSHA256Repository: 64-digit object ids throughout.
func TestSHA256Repository(t *testing.T) {
	t.Parallel()
	f := gitfixture.Init(t, "--object-format=sha256")
	shas := f.ImportTrees([]map[string]string{{
		"api/v1/types.go": "package v1\n",
		"link":            "link:api",
		"vendor/sub":      "gitlink:" + strings.Repeat("ab", 32),
	}}, map[string]int{"refs/tags/v1.0.0": 0})
	r := openRepo(t, f.Dir)
	s := openSnapshot(t, r, "v1.0.0")
	if len(s.Commit()) != 64 || s.Commit() != shas[0] {
		t.Errorf("Commit() = %q, want the 64-digit %s", s.Commit(), shas[0])
	}
	if got := contents(t, s, "api/v1/types.go", "link"); got["api/v1/types.go"] != "package v1\n" || got["link"] != "api" {
		t.Errorf("contents = %q", got)
	}
	if got := git.Submodules(s); !reflect.DeepEqual(got, []string{"vendor/sub"}) {
		t.Errorf("Submodules = %q", got)
	}
	rs, err := r.ReleaseTags(nil)
	if err != nil || len(rs.Tags) != 1 || rs.Tags[0].Commit != shas[0] {
		t.Fatalf("ReleaseTags = %+v, %v; want v1.0.0 at %s", rs, err, shas[0])
	}
	if before, err := rs.Before("HEAD"); err != nil || len(before) != 1 || before[0].Name != "v1.0.0" || before[0].Commit != shas[0] {
		t.Errorf("Before(HEAD) = %+v, %v; want v1.0.0", before, err)
	}
}

// partialClone clones a one-commit repository with --filter=filter and
// returns the clone, the commit and the state of its .git.
func partialClone(t *testing.T, filter string) (clone, sha string, before map[string]string) {
	t.Helper()
	src := gitfixture.Init(t)
	shas := src.ImportTrees([]map[string]string{{"api/v1/types.go": "package v1\n", "README": "hi\n"}}, nil)
	src.AppendConfig("[uploadpack]\n\tallowFilter = true\n")
	clone = filepath.Join(filepath.Dir(src.Dir), "clone")
	src.Git("clone", "-q", "--filter="+filter, "--no-checkout", "file://"+src.Dir, clone)
	return clone, shas[0], gitfixture.TreeState(t, filepath.Join(clone, ".git"))
}

// TestPartialClone: a blob a blob:none clone lacks is a clear error naming
// the file and the fetch that brings it; nothing is fetched and nothing
// under .git changes.
func TestPartialClone(t *testing.T) {
	t.Parallel()
	clone, sha, before := partialClone(t, "blob:none")

	r := openRepo(t, clone)
	s := openSnapshot(t, r, "origin/main")
	if !reflect.DeepEqual(s.Files(), []string{"README", "api/v1/types.go"}) {
		t.Errorf("Files = %q (trees are in the clone)", s.Files())
	}
	_, err := s.ReadFiles([]string{"api/v1/types.go"})
	var me *git.MissingObjectError
	if !errors.As(err, &me) || !me.Partial || me.Path != "api/v1/types.go" || me.Remote != "origin" || me.Commit != sha {
		t.Fatalf("ReadFiles in a partial clone: error = %#v (%v)", err, err)
	}
	for _, want := range []string{"api/v1/types.go", me.OID, "partial clone", "git fetch --refetch --no-filter origin " + sha, "clone without --filter"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := s.ReadFiles([]string{"README"}); err == nil {
		t.Error("the reader answered after git gave up")
	}
	if after := gitfixture.TreeState(t, filepath.Join(clone, ".git")); !reflect.DeepEqual(before, after) {
		t.Errorf(".git of the partial clone changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestPartialCloneWithoutTrees: a tree:0 clone has the commits but not
// their trees; listing a revision is a clear error that names the fetch
// that brings them, and nothing is fetched.
func TestPartialCloneWithoutTrees(t *testing.T) {
	t.Parallel()
	clone, sha, before := partialClone(t, "tree:0")

	r := openRepo(t, clone)
	_, err := r.Snapshot("origin/main")
	var me *git.MissingObjectError
	if !errors.As(err, &me) || !me.Partial || me.Remote != "origin" || me.Commit != sha || me.OID == "" {
		t.Fatalf("Snapshot in a tree:0 clone: error = %#v (%v)", err, err)
	}
	for _, want := range []string{me.OID, "partial clone", "git fetch --refetch --no-filter origin " + sha} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if after := gitfixture.TreeState(t, filepath.Join(clone, ".git")); !reflect.DeepEqual(before, after) {
		t.Errorf(".git of the partial clone changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestOpenRefusesForeignWorkTree: core.worktree cannot point apicheck at
// another directory tree.
func TestOpenRefusesForeignWorkTree(t *testing.T) {
	t.Parallel()
	f := gitfixture.Init(t)
	f.AppendConfig("[core]\n\tworktree = " + t.TempDir() + "\n")
	if _, err := git.Open(f.Dir); err == nil || !strings.Contains(err.Error(), "core.worktree") {
		t.Errorf("Open with core.worktree elsewhere: error = %v", err)
	}
}
