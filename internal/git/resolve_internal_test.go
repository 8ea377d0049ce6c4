package git

import (
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// A commit resolved by any name is known by its sha afterwards: asking
// for it by sha (the release history does) runs no git.
func TestResolveCommitRemembersSHA(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a": "a\n"}, Tags: []string{"v1.0.0"}})
	r, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	sha, err := r.ResolveCommit("v1.0.0")
	if err != nil || sha != f.Commits["one"] {
		t.Fatalf("ResolveCommit(v1.0.0) = %q, %v; want %s", sha, err, f.Commits["one"])
	}
	if got, ok := r.commits.Load(sha); !ok || got != sha {
		t.Errorf("after ResolveCommit(v1.0.0), the sha is not remembered: %v, %v", got, ok)
	}
	if _, ok := r.commits.Load("v1.0.0"); ok {
		t.Errorf("a tag name was remembered as a commit: tags can move")
	}
}
