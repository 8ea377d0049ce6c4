package gitfixture

import (
	"os"
	"path/filepath"
	"reflect"
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
	a := FromTxtar(t, []byte(threeSteps))
	b := FromTxtar(t, []byte(threeSteps))
	if !reflect.DeepEqual(a.Commits, b.Commits) {
		t.Errorf("shas differ between runs: %v vs %v", a.Commits, b.Commits)
	}
}

func TestMethods(t *testing.T) {
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
