package git_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

var releasePattern = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

// branchy builds a history in the layout of Gardener and k8s.io/api:
// development on main, each release on its own branch cut from main
// ("prepare" commit tagged vX.Y.0), patch releases later on that branch.
//
//	main:  m0 - m1 - m2 - m3 - m4 - m5 - m6 - m7 - m8 - m9
//	             \              \              \
//	r1.1:         p11[v1.1.0]    \              \
//	                - p11b[v1.1.1] (cut after m9)\
//	r1.2:                        q0 - p12[v1.2.0] - p12b - p12c[v1.2.1]
//	r1.3:                                          p13[v1.3.0]
//	r1.4:                                                   p14[v1.4.0] (from m9)
//	feat:                             f1 (from m5)
//
// plus tags that are not releases: "nightly" on m9, "docs-2024" on m3.
func branchy(t *testing.T) (*gitfixture.Fixture, *git.Repo) {
	f := gitfixture.New(t)
	main := func(i int) { f.Commit(fmt.Sprintf("m%d", i), map[string]string{"main": fmt.Sprint(i)}) }
	branch := func(name, from string) { f.Git("checkout", "-q", "-b", name, f.Commits[from]) }
	for i := 0; i <= 9; i++ {
		main(i)
	}
	branch("r1.1", "m1")
	f.Commit("p11", map[string]string{"version": "1.1.0"})
	f.Tag("v1.1.0", "p11")
	branch("r1.2", "m4")
	f.Commit("q0", map[string]string{"version": "1.2.0-dev"})
	f.Commit("p12", map[string]string{"version": "1.2.0"})
	f.Git("tag", "-a", "-m", "release v1.2.0", "v1.2.0", f.Commits["p12"]) // annotated
	f.Commit("p12b", map[string]string{"fix": "1"})
	f.Commit("p12c", map[string]string{"version": "1.2.1"})
	f.Tag("v1.2.1", "p12c")
	branch("r1.3", "m7")
	f.Commit("p13", map[string]string{"version": "1.3.0"})
	f.Tag("v1.3.0", "p13")
	branch("r1.4", "m9")
	f.Commit("p14", map[string]string{"version": "1.4.0"})
	f.Tag("v1.4.0", "p14")
	f.Git("checkout", "-q", "r1.1")
	f.Commit("p11b", map[string]string{"version": "1.1.1"})
	f.Tag("v1.1.1", "p11b")
	branch("feat", "m5")
	f.Commit("f1", map[string]string{"feature": "1"})
	branch("feat2", "m8")
	f.Commit("f2", map[string]string{"feature": "2"})
	f.Tag("nightly", "m9")
	f.Tag("docs-2024", "m3")
	return f, open(t, f)
}

func before(t *testing.T, r *git.Repo, match func(string) bool, commits ...string) []string {
	t.Helper()
	rs, err := r.ReleaseTags(match)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rs.Before(commits...)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	return names
}

func TestBeforeReleaseBranches(t *testing.T) {
	f, r := branchy(t)
	for _, c := range []struct{ step, want, why string }{
		{"m0", "", "before the first release"},
		{"m1", "", "v1.1.0 was branched at m1 but cut after it"},
		{"m2", "v1.1.0", "release-v1.1 branched before"},
		{"m4", "v1.1.0", "release-v1.2 branches at m4 but v1.2.0 comes after m4"},
		{"m5", "v1.2.0", "v1.2.1 is a patch of the same line: the line's first release counts"},
		{"m7", "v1.2.0", "v1.3.0 is cut after m7"},
		{"m8", "v1.3.0", "the newest line"},
		{"m9", "v1.3.0", "v1.1.1 (a patch on an old branch, cut later) never wins; v1.4.0 comes after m9"},
		{"p14", "v1.4.0", ""},
		{"q0", "v1.1.0", "on release-v1.2 before its first release: not v1.3.0"},
		{"p12", "v1.2.0", "a release is the release before itself"},
		{"p12b", "v1.2.0", "on release-v1.2 after v1.2.0"},
		{"p12c", "v1.2.1", "on release-v1.2 after the patch: the patch it contains"},
		{"p13", "v1.3.0", ""},
		{"p11b", "v1.1.1", "an old branch after its patch release: not a newer line"},
		{"f1", "v1.2.0", "a feature branch from m5: release-v1.3 left main after it"},
		// The documented limit: nothing above the highest line shows that
		// it left main after the feature branch did.
		{"f2", "v1.4.0", "a feature branch from m8, before release-v1.4 (the highest line) left main"},
	} {
		got := before(t, r, releasePattern.MatchString, f.Commits[c.step])
		if got[0] != c.want {
			t.Errorf("release before %s = %q, want %q (%s)", c.step, got[0], c.want, c.why)
		}
	}
	// Several commits at once give the answers one at a time gives.
	steps := []string{"m9", "m5", "p12c", "q0", "m0", "f1"}
	var commits, want []string
	for _, s := range steps {
		commits = append(commits, f.Commits[s])
		want = append(want, before(t, r, releasePattern.MatchString, f.Commits[s])[0])
	}
	if got := before(t, r, releasePattern.MatchString, commits...); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Before(%v) = %v, want %v", steps, got, want)
	}
}

// TestBeforeTagsOnMain: projects that tag main (and branch only for
// patches) get the nearest release on main.
func TestBeforeTagsOnMain(t *testing.T) {
	f := gitfixture.New(t)
	for i := 0; i < 8; i++ {
		f.Commit(fmt.Sprintf("m%d", i), map[string]string{"main": fmt.Sprint(i)})
	}
	f.Tag("v1.0.0", "m1")
	f.Tag("v1.1.0", "m3")
	f.Tag("v1.1.0-rc.1", "m2")
	f.Tag("v1.2.0", "m6")
	f.Git("checkout", "-q", "-b", "release-1.1", f.Commits["m3"])
	f.Commit("fix", map[string]string{"fix": "1"})
	f.Tag("v1.1.1", "fix")
	r := open(t, f)
	for _, c := range []struct{ step, want string }{
		{"m0", ""}, {"m1", "v1.0.0"}, {"m2", "v1.0.0"}, {"m3", "v1.1.0"}, {"m5", "v1.1.0"},
		{"m6", "v1.2.0"}, {"m7", "v1.2.0"}, {"fix", "v1.1.1"},
	} {
		if got := before(t, r, releasePattern.MatchString, f.Commits[c.step]); got[0] != c.want {
			t.Errorf("release before %s = %q, want %q", c.step, got[0], c.want)
		}
	}
	// With pre-releases as releases, v1.1.0-rc.1 belongs to the v1.1 line.
	all := func(string) bool { return true }
	if got := before(t, r, all, f.Commits["m2"]); got[0] != "v1.1.0-rc.1" {
		t.Errorf("with pre-releases, release before m2 = %q, want v1.1.0-rc.1", got[0])
	}
}

func TestReleaseTags(t *testing.T) {
	f, r := branchy(t)
	f.Tag("kubernetes-1.3.0", "p13")
	f.Tag("v1.3", "p13")
	f.Git("tag", "-a", "-m", "tag of a tag", "v1.3.0-again", "v1.2.0")
	f.Git("tag", "v9.0.0", f.Commits["p13"]+"^{tree}")                               // a tag of a tree
	f.Git("tag", "-a", "-m", "annotated tree", "v9.1.0", f.Commits["p13"]+"^{tree}") // and an annotated one
	rs, err := r.ReleaseTags(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range rs.Tags {
		names = append(names, tg.Name+"="+tg.Version)
		if tg.Date.IsZero() {
			t.Errorf("%s has no date", tg.Name)
		}
	}
	// Highest version first; equal versions by name.
	want := "v1.4.0=v1.4.0 kubernetes-1.3.0=v1.3.0 v1.3=v1.3.0 v1.3.0=v1.3.0 v1.3.0-again=v1.3.0-again v1.2.1=v1.2.1 v1.2.0=v1.2.0 v1.1.1=v1.1.1 v1.1.0=v1.1.0"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("ReleaseTags = %s\nwant %s", got, want)
	}
	if rs.Total != 13 || rs.Matched != 13 || strings.Join(rs.NotVersions, ",") != "docs-2024,nightly" {
		t.Errorf("Total = %d, Matched = %d, NotVersions = %v", rs.Total, rs.Matched, rs.NotVersions)
	}
	// The tag of a tag is peeled to its commit; the annotated tag too.
	for _, tg := range rs.Tags {
		if tg.Name == "v1.3.0-again" || tg.Name == "v1.2.0" {
			if tg.Commit != f.Commits["p12"] {
				t.Errorf("%s peels to %s, want %s", tg.Name, tg.Commit, f.Commits["p12"])
			}
		}
	}

	rs, err = r.ReleaseTags(releasePattern.MatchString)
	if err != nil {
		t.Fatal(err)
	}
	up := func(ts []git.ReleaseTag) string {
		var n []string
		for _, t := range ts {
			n = append(n, t.Name)
		}
		return strings.Join(n, " ")
	}
	get := func(name string) git.ReleaseTag {
		for _, t := range rs.Tags {
			if t.Name == name {
				return t
			}
		}
		t.Fatalf("no tag %s", name)
		return git.ReleaseTag{}
	}
	if got := up(rs.UpTo(get("v1.2.0"))); got != "v1.2.0 v1.1.1 v1.1.0" {
		t.Errorf("UpTo(v1.2.0) = %s", got)
	}
	if got := up(rs.Between(get("v1.1.0"), get("v1.3.0"))); got != "v1.3.0 v1.2.1 v1.2.0" {
		t.Errorf("Between(v1.1.0, v1.3.0) = %s", got)
	}
	if got := up(rs.Between(get("v1.2.0"), get("v1.2.1"))); got != "" {
		t.Errorf("Between within one line = %q", got)
	}
	if rs.Oldest().Name != "v1.1.0" {
		t.Errorf("Oldest = %s", rs.Oldest().Name)
	}
}

// TestBeforeNoReleases: no tags, no matching tags, unrelated histories.
func TestBeforeNoReleases(t *testing.T) {
	f := gitfixture.New(t)
	f.Commit("m0", map[string]string{"a": "0"})
	f.Commit("m1", map[string]string{"a": "1"})
	r := open(t, f)
	if got := before(t, r, releasePattern.MatchString, "HEAD"); got[0] != "" {
		t.Errorf("no tags: %v", got)
	}
	// A release on an unrelated (orphan) history is never before.
	f.Git("checkout", "-q", "--orphan", "pages")
	f.Commit("o1", map[string]string{"index": "1"})
	f.Tag("v9.0.0", "o1")
	if got := before(t, r, releasePattern.MatchString, f.Commits["m1"]); got[0] != "" {
		t.Errorf("orphan release: %v", got)
	}
	if _, err := before2(r, "nope"); err == nil {
		t.Error("unknown commit: no error")
	}
}

func before2(r *git.Repo, c string) ([]git.ReleaseTag, error) {
	rs, err := r.ReleaseTags(nil)
	if err != nil {
		return nil, err
	}
	return rs.Before(c)
}
