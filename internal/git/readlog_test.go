package git_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestLogReads: a read log records what every object reader of the
// repository is asked, each name once in the order first asked, and
// nothing once it is taken off.
func TestLogReads(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "c1", Files: map[string]string{"a.go": "package a\n", "b/b.go": "package b\n"}})
	r := open(t, f)
	log := &git.ReadLog{}
	r.LogReads(log)
	o, err := r.NewObjectReader()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	c := f.Commits["c1"]
	if _, err := o.Get([]string{c + ":a.go", c + ":b", c + ":a.go"}); err != nil {
		t.Fatal(err)
	}
	blob := strings.TrimSpace(f.Git("rev-parse", c+":b/b.go"))
	if _, err := o.Get([]string{blob}); err != nil {
		t.Fatal(err)
	}
	if got, want := log.Names(), []string{c + ":a.go", c + ":b", blob}; !slices.Equal(got, want) {
		t.Errorf("logged %v, want %v", got, want)
	}
	r.LogReads(nil)
	if _, err := o.Get([]string{c + ":b/b.go"}); err != nil {
		t.Fatal(err)
	}
	if got := log.Names(); len(got) != 3 {
		t.Errorf("logged %v after LogReads(nil), want the 3 names before", got)
	}
}
