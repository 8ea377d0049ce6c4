package git_test

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
	var cs []gitfixture.Commit
	for i := 0; i <= 9; i++ {
		cs = append(cs, gitfixture.Commit{Step: fmt.Sprintf("m%d", i), Files: map[string]string{"main": fmt.Sprint(i)}})
	}
	on := func(branch, step, from, file, content string, tags ...string) gitfixture.Commit {
		c := gitfixture.Commit{Step: step, Branch: branch, Files: map[string]string{file: content}, Tags: tags}
		if from != "" {
			c.Parents = []string{from}
		}
		return c
	}
	cs = append(cs,
		on("r1.1", "p11", "m1", "version", "1.1.0", "v1.1.0"),
		on("r1.2", "q0", "m4", "version", "1.2.0-dev"),
		on("r1.2", "p12", "", "version", "1.2.0"),
		on("r1.2", "p12b", "", "fix", "1"),
		on("r1.2", "p12c", "", "version", "1.2.1", "v1.2.1"),
		on("r1.3", "p13", "m7", "version", "1.3.0", "v1.3.0"),
		on("r1.4", "p14", "m9", "version", "1.4.0", "v1.4.0"),
		on("r1.1", "p11b", "", "version", "1.1.1", "v1.1.1"),
		on("feat", "f1", "m5", "feature", "1"),
		on("feat2", "f2", "m8", "feature", "2"),
	)
	for i := range cs {
		switch cs[i].Step {
		case "p12":
			cs[i].AnnotatedTags = []string{"v1.2.0"}
		case "m9":
			cs[i].Tags = []string{"nightly"}
		case "m3":
			cs[i].Tags = []string{"docs-2024"}
		}
	}
	f.Import(cs...)
	return f, open(t, f)
}

func before(t *testing.T, r *git.Repo, match func(string) bool, commits ...string) []string {
	t.Helper()
	names, _ := beforeTags(t, r, match, commits...)
	return names
}

// beforeTags is before with the release tags it asked (to count their
// reads of the commit graph).
func beforeTags(t *testing.T, r *git.Repo, match func(string) bool, commits ...string) ([]string, *git.ReleaseTags) {
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
	return names, rs
}

func TestBeforeReleaseBranches(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	f := gitfixture.New(t)
	tags := map[int][]string{1: {"v1.0.0"}, 2: {"v1.1.0-rc.1"}, 3: {"v1.1.0"}, 6: {"v1.2.0"}}
	var cs []gitfixture.Commit
	for i := 0; i < 8; i++ {
		cs = append(cs, gitfixture.Commit{Step: fmt.Sprintf("m%d", i), Files: map[string]string{"main": fmt.Sprint(i)}, Tags: tags[i]})
	}
	cs = append(cs, gitfixture.Commit{Step: "fix", Branch: "release-1.1", Parents: []string{"m3"}, Files: map[string]string{"fix": "1"}, Tags: []string{"v1.1.1"}})
	f.Import(cs...)
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
	t.Parallel()
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
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "m0", Files: map[string]string{"a": "0"}}, gitfixture.Commit{Step: "m1", Files: map[string]string{"a": "1"}})
	r := open(t, f)
	if got := before(t, r, releasePattern.MatchString, "HEAD"); got[0] != "" {
		t.Errorf("no tags: %v", got)
	}
	// A release on an unrelated (orphan) history is never before.
	f.Import(gitfixture.Commit{Step: "o1", Branch: "pages", Files: map[string]string{"index": "1"}, Tags: []string{"v9.0.0"}})
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

// mapMemo is a git.Memo in memory that counts what it answers and keeps.
type mapMemo struct {
	mu         sync.Mutex
	m          map[string][]byte
	hits, puts map[string]int // by kind
}

func newMapMemo() *mapMemo {
	return &mapMemo{m: map[string][]byte{}, hits: map[string]int{}, puts: map[string]int{}}
}

func (m *mapMemo) Get(kind, key string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[kind+"\x00"+key]
	if ok {
		m.hits[kind]++
	}
	return v
}

func (m *mapMemo) Put(kind, key string, v []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts[kind]++
	m.m[kind+"\x00"+key] = v
}

// TestReleaseTagsMemo: with a memo, a second reading of unchanged tags
// peels no tag and reads no commit graph (nothing is computed, so
// nothing is kept again) and answers as the first; a moved tag, a new
// commit or a damaged entry is computed again, with the answers of a
// reading without memo.
func TestReleaseTagsMemo(t *testing.T) {
	t.Parallel()
	f, r := branchy(t)
	f.Git("tag", "-a", "-m", "tag of a tag", "v1.3.0-again", "v1.2.0")
	commits := []string{f.Commits["m3"], f.Commits["p12b"], f.Commits["f1"], f.Commits["m9"]}
	read := func(memo git.Memo) string {
		t.Helper()
		rs, err := r.ReleaseTagsMemo(releasePattern.MatchString, memo)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rs.Before(commits...)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, tg := range rs.Tags {
			fmt.Fprintf(&b, "%s=%s@%s,", tg.Name, tg.Commit[:7], tg.Date.Format(time.RFC3339))
		}
		for _, g := range got {
			fmt.Fprintf(&b, " before:%s", g.Name)
		}
		return b.String()
	}
	want := read(nil)
	memo := newMapMemo()
	if got := read(memo); got != want {
		t.Fatalf("first reading with a memo:\n%s\nwant\n%s", got, want)
	}
	if memo.puts["release-tags"] != 1 || memo.puts["release-before"] != 1 {
		t.Fatalf("first reading kept %v, want one entry of each kind", memo.puts)
	}
	memo.puts = map[string]int{}
	if got := read(memo); got != want {
		t.Errorf("second reading:\n%s\nwant\n%s", got, want)
	}
	if len(memo.puts) != 0 || memo.hits["release-tags"] != 1 || memo.hits["release-before"] != 1 {
		t.Errorf("second reading computed %v (memo answered %v), want nothing computed", memo.puts, memo.hits)
	}

	// Damaged entries are computed again.
	for k := range memo.m {
		memo.m[k] = []byte("v9.9.9 0000000 garbage\n")
	}
	memo.puts = map[string]int{}
	if got := read(memo); got != want {
		t.Errorf("with damaged entries:\n%s\nwant\n%s", got, want)
	}
	if memo.puts["release-tags"] != 1 || memo.puts["release-before"] != 1 {
		t.Errorf("damaged entries: computed %v, want both again", memo.puts)
	}

	// A moved tag changes the key: the memo cannot answer for it.
	f.Git("tag", "-f", "v1.2.0", f.Commits["m3"])
	memo.puts = map[string]int{}
	fresh := read(nil)
	if got := read(memo); got != fresh || got == want {
		t.Errorf("after moving v1.2.0:\n%s\nwant\n%s (and not the old answer)", got, fresh)
	}
	if memo.puts["release-tags"] != 1 || memo.puts["release-before"] != 1 {
		t.Errorf("after moving a tag: computed %v, want both again", memo.puts)
	}
}

// TestBeforeTaggedCommitOneRead: in a history of many release lines
// (each cut on its own branch from main), a release's own commit is
// answered by its release, in one read of the commit graph however far
// below the highest lines it is; main's head needs one read too, and both
// at once as well.
func TestBeforeTaggedCommitOneRead(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	const lines = 20
	var cs []gitfixture.Commit
	for i := 0; i <= lines; i++ {
		cs = append(cs, gitfixture.Commit{Step: fmt.Sprintf("m%d", i), Files: map[string]string{"main": fmt.Sprint(i)}})
	}
	for i := 1; i <= lines; i++ {
		cs = append(cs, gitfixture.Commit{Step: fmt.Sprintf("r%d", i), Branch: fmt.Sprintf("release-v1.%d", i),
			Parents: []string{fmt.Sprintf("m%d", i-1)}, Files: map[string]string{"version": fmt.Sprint(i)},
			Tags: []string{fmt.Sprintf("v1.%d.0", i)}})
	}
	f.Import(cs...)
	r := open(t, f)
	for _, c := range []struct {
		steps []string
		want  []string
	}{
		{[]string{"r3"}, []string{"v1.3.0"}},
		{[]string{"r17"}, []string{"v1.17.0"}},
		{[]string{"m20"}, []string{"v1.20.0"}},
		{[]string{"r2", "m20"}, []string{"v1.2.0", "v1.20.0"}},
	} {
		var commits []string
		for _, s := range c.steps {
			commits = append(commits, f.Commits[s])
		}
		names, rs := beforeTags(t, r, releasePattern.MatchString, commits...)
		if strings.Join(names, " ") != strings.Join(c.want, " ") || git.GraphReads(rs) != 1 {
			t.Errorf("Before(%v) = %v in %d reads of the graph, want %v in 1", c.steps, names, git.GraphReads(rs), c.want)
		}
	}
}

// TestBeforeDatesGuideFirstRead: a main commit far below the highest
// release lines is answered in one read of the commit graph when the
// dates tell where its release is (the first batch reaches down to it),
// and rightly, in more reads, when the dates mislead.
func TestBeforeDatesGuideFirstRead(t *testing.T) {
	t.Parallel()
	// Each line is cut from main, then main goes on (dates one minute
	// apart, in import order).
	const lines = 20
	f := gitfixture.New(t)
	cs := []gitfixture.Commit{{Step: "m0", Files: map[string]string{"main": "0"}}}
	for i := 1; i <= lines; i++ {
		cs = append(cs,
			gitfixture.Commit{Step: fmt.Sprintf("r%d", i), Branch: fmt.Sprintf("release-v1.%d", i),
				Parents: []string{fmt.Sprintf("m%d", i-1)}, Files: map[string]string{"version": fmt.Sprint(i)},
				Tags: []string{fmt.Sprintf("v1.%d.0", i)}},
			gitfixture.Commit{Step: fmt.Sprintf("m%d", i), Branch: "main", Parents: []string{fmt.Sprintf("m%d", i-1)},
				Files: map[string]string{"main": fmt.Sprint(i)}})
	}
	f.Import(cs...)
	r := open(t, f)
	for _, c := range []struct {
		name  string
		step  string
		dates time.Time // every release line's, when set
		want  string
		reads int
	}{
		{"16 lines down", "m5", time.Time{}, "v1.5.0", 1},
		{"19 lines down", "m2", time.Time{}, "v1.2.0", 1},
		{"the highest line", "m20", time.Time{}, "v1.20.0", 1},
		{"every line dated before the commit", "m5", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "v1.5.0", 2},
		{"every line dated after the commit", "m5", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), "v1.5.0", 1},
	} {
		rs, err := r.ReleaseTags(releasePattern.MatchString)
		if err != nil {
			t.Fatal(err)
		}
		if !c.dates.IsZero() {
			git.DateLines(rs, c.dates)
		}
		got, err := rs.Before(f.Commits[c.step])
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Name != c.want || git.GraphReads(rs) != c.reads {
			t.Errorf("%s: Before(%s) = %s in %d reads of the graph, want %s in %d", c.name, c.step, got[0].Name, git.GraphReads(rs), c.want, c.reads)
		}
	}
}
