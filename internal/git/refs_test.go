package git_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// staleFork builds the layout of a contributor's clone of a fork: origin
// (the fork) stopped at "fork", upstream (the real project) moved on by
// n commits; featureFresh starts at upstream's tip, featureOld at fork.
// Neither feature branch tracks anything yet; HEAD is featureFresh.
func staleFork(t *testing.T, n int) *gitfixture.Fixture {
	t.Helper()
	f := gitfixture.New(t)
	commits := []gitfixture.Commit{
		{Step: "root", Files: map[string]string{"a": "0"}},
		{Step: "fork", Files: map[string]string{"a": "1"}},
	}
	for i := 1; i <= n; i++ {
		commits = append(commits, gitfixture.Commit{Step: fmt.Sprintf("u%d", i), Files: map[string]string{"a": fmt.Sprint(i + 1)}})
	}
	last := fmt.Sprintf("u%d", n)
	commits = append(commits,
		gitfixture.Commit{Step: "fresh", Branch: "featureFresh", Parents: []string{last}, Files: map[string]string{"b": "1"}},
		gitfixture.Commit{Step: "old", Branch: "featureOld", Parents: []string{"fork"}, Files: map[string]string{"b": "2"}},
	)
	f.Import(commits...)
	f.SetRef("origin/main", "fork")
	f.SetRef("upstream/main", last)
	f.Git("symbolic-ref", "refs/remotes/upstream/HEAD", "refs/remotes/upstream/main")
	for _, rm := range []string{"origin", "upstream"} {
		f.Git("config", "remote."+rm+".url", "https://example.invalid/"+rm+".git")
		f.Git("config", "remote."+rm+".fetch", "+refs/heads/*:refs/remotes/"+rm+"/*")
	}
	f.Git("symbolic-ref", "HEAD", "refs/heads/featureFresh")
	return f
}

func TestDefaultBaseStaleFork(t *testing.T) {
	t.Parallel()
	f := staleFork(t, git.StaleCommits+10)
	r := open(t, f)
	fresh := fmt.Sprintf("u%d", git.StaleCommits+10)

	// No upstream for the branch: the remote upstream's default branch,
	// which HEAD is up to date with.
	b, err := r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	want := &git.Base{Upstream: "upstream/main", Commit: f.Commits[fresh],
		Why: "upstream/main is the default branch of the remote upstream, and branch featureFresh has no upstream"}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("no tracking:\n got %+v\nwant %+v", b, want)
	}

	// The branch tracks the stale fork's main: that is the base, and it
	// is far behind upstream/main.
	f.Git("config", "branch.featureFresh.remote", "origin")
	f.Git("config", "branch.featureFresh.merge", "refs/heads/main")
	b, err = r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	if b.Upstream != "origin/main" || b.Commit != f.Commits["fork"] || b.Why != "origin/main is the upstream of branch featureFresh (@{upstream})" {
		t.Errorf("tracking origin/main: %+v", b)
	}
	if b.Fresher == nil || b.Fresher.Short() != "upstream/main" || b.Behind != git.StaleCommits+10 {
		t.Errorf("tracking origin/main: fresher %+v, behind %d; want upstream/main, %d", b.Fresher, b.Behind, git.StaleCommits+10)
	}

	// A branch forked from the stale main long ago: the merge-base with
	// upstream is old, and the base says so.
	f.Git("symbolic-ref", "HEAD", "refs/heads/featureOld")
	b, err = r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	if b.Upstream != "upstream/main" || b.Commit != f.Commits["fork"] || b.Fresher == nil || b.Behind != git.StaleCommits+10 {
		t.Errorf("old branch: %+v", b)
	}

	// Detached HEAD, no remote upstream: origin's default branch, which
	// is then the freshest there is.
	f.Git("update-ref", "-d", "refs/remotes/upstream/HEAD")
	f.Git("update-ref", "-d", "refs/remotes/upstream/main")
	f.Git("checkout", "-q", "--detach", f.Commits["old"])
	b, err = r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	want = &git.Base{Upstream: "origin/main", Commit: f.Commits["fork"],
		Why: "origin/main is the default branch of the remote origin, HEAD is detached and there is no remote upstream"}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("detached, origin only:\n got %+v\nwant %+v", b, want)
	}
}

// A base a few commits but more than StaleAge behind is stale too.
func TestDefaultBaseStaleByAge(t *testing.T) {
	t.Parallel()
	f := staleFork(t, 1)
	r := open(t, f)
	f.Git("symbolic-ref", "HEAD", "refs/heads/featureOld")
	// upstream/main gets a commit 40 days after the fixture's dates.
	when := time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC).Unix()
	tree := f.Git("rev-parse", f.Commits["u1"]+"^{tree}")
	sha := f.GitStdin(fmt.Sprintf("tree %s\nparent %s\nauthor a <a@example.invalid> %d +0000\ncommitter a <a@example.invalid> %d +0000\n\nlate\n",
		tree, f.Commits["u1"], when, when), "hash-object", "-t", "commit", "-w", "--stdin")
	f.Git("update-ref", "refs/remotes/upstream/main", sha)
	b, err := r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.Commits["fork"] || b.Fresher == nil || b.Fresher.Commit != sha || b.Behind != 2 || b.Older < 30*24*time.Hour {
		t.Errorf("base %+v (fresher %+v): want fork, 2 commits and over 30 days behind upstream/main", b, b.Fresher)
	}
	// Not stale: a couple of commits and minutes behind.
	f.Git("update-ref", "refs/remotes/upstream/main", f.Commits["u1"])
	if b, err := r.DefaultBase(); err != nil || b.Fresher != nil {
		t.Errorf("1 commit behind: %+v, %v; want no Fresher", b, err)
	}
}

func TestRemoteDefaultBranches(t *testing.T) {
	t.Parallel()
	f := staleFork(t, 2)
	r := open(t, f)
	f.SetRef("origin/master", "root")
	f.SetRef("nested/team/main", "root")
	f.SetRef("other/topic", "root") // no default branch
	f.Git("symbolic-ref", "refs/remotes/gone/HEAD", "refs/remotes/gone/main")
	ds, err := r.RemoteDefaultBranches()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.Remote+"="+d.Short())
	}
	want := []string{"nested/team=nested/team/main", "origin=origin/main", "upstream=upstream/main"}
	if !slices.Equal(got, want) {
		t.Errorf("RemoteDefaultBranches = %v, want %v", got, want)
	}
	names, err := r.RefNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"main", "featureOld", "origin/main", "upstream/HEAD", "upstream/main"} {
		if !slices.Contains(names, n) {
			t.Errorf("RefNames lacks %s: %v", n, names)
		}
	}
}

func TestRefHints(t *testing.T) {
	t.Parallel()
	f := staleFork(t, 1)
	r := open(t, f)
	f.SetRef("origin/feature", "root")
	for _, c := range []struct {
		ref  string
		want []string
	}{
		{"feature", []string{"origin/feature exists: did you mean origin/feature?"}},
		{"topic", []string{"if topic exists on the remote, fetch it: `git fetch origin topic`"}},
		{"upstream/fix", []string{"if fix exists on the remote, fetch it: `git fetch upstream fix`"}},
		{"0123456789abcdef0123456789abcdef01234567", []string{"if 0123456789abcdef0123456789abcdef01234567 exists on the remote, fetch it: `git fetch origin 0123456789abcdef0123456789abcdef01234567`"}},
		{"HEAD~40", nil},
		{"a..b", nil},
	} {
		if got := r.RefHints(c.ref); !slices.Equal(got, c.want) {
			t.Errorf("RefHints(%q) = %q, want %q", c.ref, got, c.want)
		}
	}

	// A shallow clone says so.
	dst := filepath.Join(t.TempDir(), "clone")
	f.Git("clone", "-q", "--depth=1", "file://"+f.Dir, dst)
	c, err := git.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	hints := strings.Join(c.RefHints("v1.0.0"), "\n")
	for _, w := range []string{"shallow clone (.git/shallow)", "git fetch --unshallow", "fetch-depth: 0", "git fetch origin v1.0.0"} {
		if !strings.Contains(hints, w) {
			t.Errorf("shallow clone hints %q lack %q", hints, w)
		}
	}
	_, err = c.ResolveCommit("v1.0.0")
	u, ok := err.(*git.UnknownRefError)
	if !ok {
		t.Fatalf("ResolveCommit: %v", err)
	}
	u.Hints = c.RefHints(u.Ref)
	if msg := u.Error(); !strings.HasPrefix(msg, `unknown revision "v1.0.0": `) || !strings.Contains(msg, "\nhint: this is a shallow clone") {
		t.Errorf("error with hints = %q", msg)
	}
}
