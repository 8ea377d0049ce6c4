package gitfixture

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const threeSteps = `A comment is ignored.
-- base/go.mod --
module example.com/m
-- base/api/types.go --
package api

type T struct{}
-- base/api/old.go --
package api
-- base/.gitignore --
*.log
-- base/keep.log --
ignored by .gitignore, committed anyway
-- mid@v1.0.0@v1.0.1/api/old.go --
(deleted)
-- mid/api/types.go --
package api

type T struct{ X int }
-- last/ --
-- worktree/api/new.go --
package api
-- worktree/go.mod --
(deleted)
`

// tree lists "path content" for every file of a commit.
func tree(t *testing.T, f *Fixture, step string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(f.Git("ls-tree", "-r", "--name-only", f.Commits[step]), "\n") {
		if p != "" {
			out[p] = f.Git("show", f.Commits[step]+":"+p)
		}
	}
	return out
}

func TestFromTxtar(t *testing.T) {
	t.Parallel()
	f := FromTxtar(t, []byte(threeSteps))

	if want := []string{"base", "mid", "last", "worktree"}; !reflect.DeepEqual(f.Steps, want) {
		t.Fatalf("Steps = %v, want %v", f.Steps, want)
	}
	if _, ok := f.Commits["worktree"]; ok {
		t.Errorf("worktree step has a commit")
	}
	if len(f.Commits) != 3 {
		t.Errorf("Commits = %v, want 3 entries", f.Commits)
	}

	base := tree(t, f, "base")
	wantBase := map[string]string{
		".gitignore":   "*.log",
		"api/old.go":   "package api",
		"api/types.go": "package api\n\ntype T struct{}",
		"go.mod":       "module example.com/m",
		"keep.log":     "ignored by .gitignore, committed anyway",
	}
	if !reflect.DeepEqual(base, wantBase) {
		t.Errorf("base tree = %v\nwant %v", base, wantBase)
	}

	mid := tree(t, f, "mid")
	wantMid := map[string]string{
		".gitignore":   "*.log",
		"api/types.go": "package api\n\ntype T struct{ X int }",
		"go.mod":       "module example.com/m",
		"keep.log":     "ignored by .gitignore, committed anyway",
	}
	if !reflect.DeepEqual(mid, wantMid) {
		t.Errorf("mid tree = %v\nwant %v", mid, wantMid)
	}

	// "last" is an empty step: same tree, new commit whose parent is mid.
	if got, want := f.Git("rev-parse", f.Commits["last"]+"^{tree}"), f.Git("rev-parse", f.Commits["mid"]+"^{tree}"); got != want {
		t.Errorf("last tree %s != mid tree %s", got, want)
	}
	if got := f.Git("rev-parse", f.Commits["last"]+"^"); got != f.Commits["mid"] {
		t.Errorf("parent of last = %s, want mid %s", got, f.Commits["mid"])
	}
	if got := f.Git("log", "--format=%s", "main"); got != "last\nmid\nbase" {
		t.Errorf("history = %q", got)
	}

	// Tags.
	if got := f.Git("tag", "--points-at", f.Commits["mid"]); got != "v1.0.0\nv1.0.1" {
		t.Errorf("tags on mid = %q, want v1.0.0 and v1.0.1", got)
	}
	if got := f.Git("cat-file", "-t", "v1.0.0"); got != "commit" {
		t.Errorf("v1.0.0 is a %s, want a lightweight tag (commit)", got)
	}

	// The worktree step is on disk only.
	if data, err := os.ReadFile(filepath.Join(f.Dir, "api", "new.go")); err != nil || string(data) != "package api\n" {
		t.Errorf("worktree api/new.go = %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "go.mod")); !os.IsNotExist(err) {
		t.Errorf("go.mod still on disk after worktree deletion: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "api", "old.go")); !os.IsNotExist(err) {
		t.Errorf("api/old.go still on disk: %v", err)
	}
	status := f.Git("status", "--porcelain")
	if want := " D go.mod\n?? api/new.go"; status != want {
		t.Errorf("status = %q, want %q", status, want)
	}

	// Identity and dates are fixed.
	if got := f.Git("log", "-1", "--format=%an <%ae> %cn <%ce> %aI %cI", f.Commits["mid"]); got != "apicheck test <test@apicheck.invalid> apicheck test <test@apicheck.invalid> 2024-01-01T00:01:00+00:00 2024-01-01T00:01:00+00:00" {
		t.Errorf("mid identity/date = %q", got)
	}
}

func TestFromTxtarReproducible(t *testing.T) {
	t.Parallel()
	a := FromTxtar(t, []byte(threeSteps))
	b := FromTxtar(t, []byte(threeSteps))
	if !reflect.DeepEqual(a.Commits, b.Commits) {
		t.Errorf("shas differ between runs: %v vs %v", a.Commits, b.Commits)
	}
}

func TestMethods(t *testing.T) {
	t.Parallel()
	f := New(t)
	if got := f.Git("symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD = %s, want refs/heads/main", got)
	}
	one := f.Commit("one", map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "weird name\twith tab.txt": "w"})
	two := f.Commit("two", map[string]string{"dir/b.txt": "(deleted)"})
	if one == two || f.Commits["one"] != one || f.Commits["two"] != two {
		t.Fatalf("Commits = %v", f.Commits)
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "dir")); !os.IsNotExist(err) {
		t.Errorf("empty dir left behind after deleting its last file")
	}
	if got := f.Git("ls-tree", "-r", "--name-only", "-z", two); got != "a.txt\x00weird name\twith tab.txt\x00" {
		t.Errorf("tree of two = %q", got)
	}
	f.Tag("t1", "one")
	if got := f.Git("rev-parse", "t1"); got != one {
		t.Errorf("t1 = %s, want %s", got, one)
	}
	f.SetRef("origin/main", "one")
	if got := f.Git("rev-parse", "refs/remotes/origin/main"); got != one {
		t.Errorf("origin/main = %s, want %s", got, one)
	}
	f.WriteWorktree(map[string]string{"a.txt": "changed\n"})
	if got := f.Git("status", "--porcelain"); got != " M a.txt" {
		t.Errorf("status = %q", got)
	}
	if want := []string{"one", "two", "worktree"}; !reflect.DeepEqual(f.Steps, want) {
		t.Errorf("Steps = %v, want %v", f.Steps, want)
	}
}

func TestImport(t *testing.T) {
	t.Parallel()
	f := New(t)
	f.Import(
		Commit{Step: "c1", Files: map[string]string{"a": "1\n", "odd \"name\"\nwith\ttab\x01.txt": "odd\n", `"quoted`: "q"}, Tags: []string{"v1.0.0"}},
		Commit{Step: "s1", Branch: "side", Parents: []string{"c1"}, Files: map[string]string{"s": "1\n"}},
		Commit{Step: "c2", Files: map[string]string{"a": "2\n", "run.sh": "#!/bin/sh\n", "link": "a"},
			Modes: map[string]string{"run.sh": "100755", "link": "120000"}},
		Commit{Step: "m", Parents: []string{"c2", "s1"}, Files: map[string]string{"s": "1\n"}, Branches: []string{"release"},
			AnnotatedTags: []string{"v1.1.0"}},
	)
	// A second import continues main from its tip and can reference the
	// steps of the first one.
	f.Import(
		Commit{Step: "c3", Files: map[string]string{"a": Deleted, "sub": f.Commits["c1"]}, Modes: map[string]string{"sub": "160000"}},
		Commit{Step: "o1", Branch: "other", Files: map[string]string{"o": "1\n"}},
	)
	if want := []string{"c1", "s1", "c2", "m", "c3", "o1"}; !reflect.DeepEqual(f.Steps, want) {
		t.Fatalf("Steps = %v, want %v", f.Steps, want)
	}
	for step, want := range map[string]string{"c1": "", "s1": "c1", "c2": "c1", "m": "c2 s1", "c3": "m", "o1": ""} {
		var parents []string
		for _, p := range strings.Fields(f.Git("log", "-1", "--format=%P", f.Commits[step])) {
			for s, sha := range f.Commits {
				if sha == p {
					parents = append(parents, s)
				}
			}
		}
		if got := strings.Join(parents, " "); got != want {
			t.Errorf("parents of %s = %q, want %q", step, got, want)
		}
	}
	for ref, step := range map[string]string{"main": "c3", "side": "s1", "release": "m", "other": "o1", "v1.0.0": "c1"} {
		if got := f.Git("rev-parse", ref); got != f.Commits[step] {
			t.Errorf("%s = %s, want step %s", ref, got, step)
		}
	}
	// An annotated tag: a tag object at the commit, by the fixed
	// identity, 30 seconds after the commit.
	if got, want := f.Git("for-each-ref", "--format=%(objecttype) %(*objectname) %(taggername) %(taggeremail) %(subject)", "refs/tags/v1.1.0"),
		"tag "+f.Commits["m"]+" "+UserName+" <"+UserEmail+"> release v1.1.0"; got != want {
		t.Errorf("annotated tag = %q, want %q", got, want)
	}
	tagged, _ := strconv.Atoi(f.Git("for-each-ref", "--format=%(taggerdate:unix)", "refs/tags/v1.1.0"))
	committed, _ := strconv.Atoi(f.Git("log", "-1", "--format=%ct", f.Commits["m"]))
	if committed == 0 || tagged != committed+30 {
		t.Errorf("tag date %d, commit date %d: want the tag 30 s later", tagged, committed)
	}
	if got := f.Git("ls-tree", "-r", "--format=%(objectmode) %(path)", f.Commits["c3"]); got !=
		"100644 \"\\\"quoted\"\n120000 link\n100644 \"odd \\\"name\\\"\\nwith\\ttab\\001.txt\"\n100755 run.sh\n100644 s\n160000 sub" {
		t.Errorf("tree of c3:\n%s", got)
	}
	if got := f.Git("show", f.Commits["c1"]+":odd \"name\"\nwith\ttab\x01.txt"); got != "odd" {
		t.Errorf("odd file = %q", got)
	}
	// Import leaves the working tree alone; Checkout fills it.
	if _, err := os.Stat(f.Path("run.sh")); !os.IsNotExist(err) {
		t.Errorf("Import wrote the working tree: %v", err)
	}
	f.Checkout()
	if fi, err := os.Stat(f.Path("run.sh")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("run.sh after Checkout: %v %v", fi, err)
	}
	if got := f.Git("status", "--porcelain"); got != "" {
		t.Errorf("status after Checkout = %q", got)
	}
}

// TestFromTxtarMatchesCommit: the fast-import history is the one that
// committing step by step gives, sha for sha (golden files hold shas).
func TestFromTxtarMatchesCommit(t *testing.T) {
	t.Parallel()
	a := FromTxtar(t, []byte(threeSteps))
	b := New(t)
	b.Commit("base", map[string]string{".gitignore": "*.log\n", "api/types.go": "package api\n\ntype T struct{}\n", "api/old.go": "package api\n",
		"go.mod": "module example.com/m\n", "keep.log": "ignored by .gitignore, committed anyway\n"})
	b.Commit("mid", map[string]string{"api/old.go": Deleted, "api/types.go": "package api\n\ntype T struct{ X int }\n"})
	b.Commit("last", nil)
	for _, s := range []string{"base", "mid", "last"} {
		if a.Commits[s] != b.Commits[s] {
			t.Errorf("%s: FromTxtar %s, Commit %s", s, a.Commits[s], b.Commits[s])
		}
	}
}

func TestFromTxtarBadDeletion(t *testing.T) {
	t.Parallel()
	ft := &fakeT{TB: t}
	func() {
		defer func() { recover() }()
		FromTxtar(ft, []byte("-- base/a --\na\n-- head/b --\n(deleted)\n"))
	}()
	if !strings.Contains(ft.msg, "deletes b, which does not exist") {
		t.Errorf("message = %q", ft.msg)
	}
}

// fakeT records Fatalf and stops the calling function.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// TestNewIsGitInit: New writes what git init writes (it saves the process),
// plus the identity and signing settings.
func TestNewIsGitInit(t *testing.T) {
	t.Parallel()
	f := New(t)
	ref := filepath.Join(t.TempDir(), "ref")
	f.Git("init", "-q", "-b", "main", "--template=", ref)
	list := func(gitDir string) []string {
		var out []string
		filepath.WalkDir(gitDir, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(gitDir, p)
			out = append(out, filepath.ToSlash(rel))
			return err
		})
		return out
	}
	if got, want := list(filepath.Join(f.Dir, ".git")), list(filepath.Join(ref, ".git")); !reflect.DeepEqual(got, want) {
		t.Errorf(".git of New = %q\ngit init: %q", got, want)
	}
	wantCfg := f.Git("config", "--file", filepath.Join(ref, ".git", "config"), "--list")
	gotCfg := f.Git("config", "--file", filepath.Join(f.Dir, ".git", "config"), "--list")
	if !strings.HasPrefix(gotCfg, wantCfg+"\n") || !strings.Contains(gotCfg, "user.name="+UserName) || !strings.Contains(gotCfg, "commit.gpgsign=false") {
		t.Errorf("config of New:\n%s\ngit init's:\n%s", gotCfg, wantCfg)
	}
	if got := f.Git("symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD = %s", got)
	}
}

// FromTxtarCommits writes the same commits as FromTxtar and leaves the
// index and the working tree empty.
func TestFromTxtarCommits(t *testing.T) {
	ar := []byte("-- base/a.txt --\none\n-- head/a.txt --\ntwo\n-- head/b/c.txt --\nthree\n")
	full, commits := FromTxtar(t, ar), FromTxtarCommits(t, ar)
	if full.Commits["head"] != commits.Commits["head"] || commits.Commits["head"] == "" {
		t.Errorf("head = %q, FromTxtar made %q", commits.Commits["head"], full.Commits["head"])
	}
	if got := commits.Git("ls-files"); got != "" {
		t.Errorf("index lists %q, want nothing", got)
	}
	if _, err := os.Stat(commits.Path("a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt in the working tree: %v", err)
	}
	if got := commits.Git("show", "HEAD:b/c.txt"); got != "three" {
		t.Errorf("HEAD:b/c.txt = %q", got)
	}
}
