package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// staleForkRepo is a contributor's clone of a stale fork: origin/main
// (the fork) stopped at "fork"; upstream/main (the project) is 55
// commits further; branch feature starts at "fork" and adds a field that
// is not optional.
func staleForkRepo(t *testing.T) *gitfixture.Fixture {
	t.Helper()
	const types = "package v1beta1\n\n// Spec is a spec.\ntype Spec struct {\n" +
		"\t// +optional\n\tA *string `json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`\n%s}\n"
	f := gitfixture.New(t)
	commits := []gitfixture.Commit{{Step: "fork", Files: map[string]string{
		"go.mod":                         "module example.com/m\n\ngo 1.22\n",
		"pkg/apis/core/v1beta1/doc.go":   "// +groupName=core.example.cloud\npackage v1beta1\n",
		"pkg/apis/core/v1beta1/types.go": fmt.Sprintf(types, ""),
	}}}
	for i := 1; i <= 55; i++ {
		c := gitfixture.Commit{Step: fmt.Sprintf("u%d", i), Branch: "upstream-main", Files: map[string]string{"CHANGELOG": fmt.Sprint(i)}}
		if i == 1 {
			c.Parents = []string{"fork"}
		}
		commits = append(commits, c)
	}
	commits = append(commits, gitfixture.Commit{Step: "feature", Branch: "feature", Parents: []string{"fork"}, Files: map[string]string{
		"pkg/apis/core/v1beta1/types.go": fmt.Sprintf(types, "\tB string `json:\"b\" protobuf:\"bytes,2,opt,name=b\"`\n"),
	}})
	f.Import(commits...)
	f.SetRef("origin/main", "fork")
	f.SetRef("upstream/main", "u55")
	f.SetRef("origin/feature-x", "fork")
	f.Git("symbolic-ref", "HEAD", "refs/heads/feature")
	f.Checkout()
	return f
}

func TestDefaultBaseInReports(t *testing.T) {
	f := staleForkRepo(t)
	fork := f.Commits["fork"][:12]
	why := "upstream/main is the default branch of the remote upstream, and branch feature has no upstream"

	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--head", "HEAD")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(stdout, "\n")
	wantFirst := fmt.Sprintf("apicheck: comparing merge-base of HEAD and upstream/main (%s) with HEAD (%s) (no --base given: %s)",
		fork, f.Commits["feature"][:12], why)
	if lines[0] != wantFirst {
		t.Errorf("first line:\n got %s\nwant %s", lines[0], wantFirst)
	}
	stale := fmt.Sprintf("note: the base %s is 55 commits behind upstream/main, the freshest default branch among the remotes: ", fork)
	if !strings.Contains(stdout, stale) || !strings.Contains(stdout, "pass --base upstream/main") {
		t.Errorf("text report lacks the stale-base note %q:\n%s", stale, stdout)
	}
	if strings.Contains(stdout, "note: base: ") {
		t.Errorf("the text report repeats the base choice as a note:\n%s", stdout)
	}

	code, stdout, _ = run(t, "check", "--repo", f.Dir, "--head", "HEAD", "--format", "json")
	r := jsonReport(t, stdout)
	if code != ExitFindings || r.Base.Reason != why || r.Base.Ref != "merge-base of HEAD and upstream/main" {
		t.Errorf("JSON base = %+v (exit %d)", r.Base, code)
	}
	choice := fmt.Sprintf("base: merge-base of HEAD and upstream/main (%s), chosen because no --base was given and %s; pass --base REF to compare with another revision", fork, why)
	var hasChoice, hasStale bool
	for _, n := range r.Notes {
		hasChoice = hasChoice || n == choice
		hasStale = hasStale || strings.HasPrefix(n, "the base "+fork+" is 55 commits behind upstream/main")
	}
	if !hasChoice || !hasStale {
		t.Errorf("JSON notes %q: want %q and the stale-base note", r.Notes, choice)
	}

	_, stdout, _ = run(t, "check", "--repo", f.Dir, "--head", "HEAD", "--format", "markdown")
	// The first line names the base; the run notes (collapsed) say why
	// and that it is behind.
	for _, want := range []string{
		"Compared `merge-base of HEAD and upstream/main (" + fork + ")`",
		"- base: merge-base of HEAD and upstream/main (" + fork + "), chosen because",
		"- the base " + fork + " is 55 commits behind upstream/main",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, stdout)
		}
	}

	// With --base there is no choice to explain.
	_, stdout, _ = run(t, "check", "--repo", f.Dir, "--base", "origin/main", "--head", "HEAD")
	if strings.Contains(stdout, "no --base given") || strings.Contains(stdout, "freshest default branch") {
		t.Errorf("explicit --base: the report explains a default base:\n%s", stdout)
	}
}

func TestUnknownRefHints(t *testing.T) {
	f := staleForkRepo(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base", "feature-x"}, "hint: origin/feature-x exists: did you mean origin/feature-x?"},
		{[]string{"--base", "origin/main", "--head", "nope"}, "hint: if nope exists on the remote, fetch it: `git fetch origin nope`"},
		{[]string{"--base", "upstream/release-1.2"}, "hint: if release-1.2 exists on the remote, fetch it: `git fetch upstream release-1.2`"},
	} {
		code, _, stderr := run(t, append([]string{"check", "--repo", f.Dir}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	code, _, stderr := run(t, "audit", "--repo", f.Dir, "--rev", "feature-x")
	if code != ExitUsage || !strings.Contains(stderr, "did you mean origin/feature-x?") {
		t.Errorf("audit --rev: exit %d, stderr %q", code, stderr)
	}
}
