package git_test

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// manyTags makes a history of 50 commits m0..m49 and writes tags at them
// straight into packed-refs (no git process per tag): names[i] at commit
// m<i*50/len(names)>, so the later names sit on later commits.
func manyTags(t *testing.T, names []string) (*gitfixture.Fixture, *git.Repo) {
	t.Helper()
	f := gitfixture.New(t)
	var cs []gitfixture.Commit
	for i := range 50 {
		cs = append(cs, gitfixture.Commit{Step: fmt.Sprintf("m%d", i), Files: map[string]string{"main": fmt.Sprint(i)}})
	}
	f.Import(cs...)
	refs := make([]string, len(names))
	for i, n := range names {
		refs[i] = "refs/tags/" + n + "\x00" + f.Commits[fmt.Sprintf("m%d", i*50/len(names))]
	}
	slices.Sort(refs) // packed-refs is sorted by ref name
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, r := range refs {
		ref, sha, _ := strings.Cut(r, "\x00")
		b.WriteString(sha + " " + ref + "\n")
	}
	if err := os.WriteFile(f.Path(".git/packed-refs"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f, open(t, f)
}

// TestReleaseTagsBounded: of 20,000 release tags, ReleaseTags keeps the
// MaxReleaseTags highest versions (equal versions by name, as Tags
// orders them), counts the others in Skipped and says so in
// SkippedNote; the tags without a version are counted, and a few kept as
// examples. What it holds stays bounded. (Not parallel: the heap it
// measures is the test's alone.)
func TestReleaseTagsBounded(t *testing.T) {
	const n = 20000
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("v1.%d.0", i))
	}
	// The same version as the lowest kept one: "a/..." sorts before
	// "v1.19000.0" and takes its place, "x/..." after it and is left out.
	low := n - git.MaxReleaseTags
	names = append(names, fmt.Sprintf("a/v1.%d.0", low), fmt.Sprintf("x/v1.%d.0", low))
	for i := range 50 {
		names = append(names, fmt.Sprintf("build-%d", i)) // no version
	}
	f, r := manyTags(t, names)

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rs, err := r.ReleaseTags(nil)
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)

	if rs.Total != len(names) || rs.Matched != len(names) {
		t.Errorf("Total = %d, Matched = %d, want %d", rs.Total, rs.Matched, len(names))
	}
	if len(rs.Tags) != git.MaxReleaseTags || rs.Skipped != n+2-git.MaxReleaseTags {
		t.Fatalf("kept %d tags, skipped %d; want %d and %d", len(rs.Tags), rs.Skipped, git.MaxReleaseTags, n+2-git.MaxReleaseTags)
	}
	var want []string
	for i := n - 1; i > low; i-- {
		want = append(want, fmt.Sprintf("v1.%d.0", i))
	}
	want = append(want, fmt.Sprintf("a/v1.%d.0", low))
	var got []string
	for _, tg := range rs.Tags {
		got = append(got, tg.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("kept %s ... %s, want %s ... %s", got[0], got[len(got)-1], want[0], want[len(want)-1])
	}
	if rs.Tags[0].Commit != f.Commits["m49"] {
		t.Errorf("%s at %s, want m49's commit", rs.Tags[0].Name, rs.Tags[0].Commit)
	}
	if o := rs.Oldest(); o.Name != want[len(want)-1] {
		t.Errorf("Oldest = %s, want %s", o.Name, want[len(want)-1])
	}
	// NotVersions keeps the first few names by name; Matched counts all.
	wantNot := []string{"build-0", "build-1", "build-10", "build-11", "build-12", "build-13", "build-14", "build-15", "build-16", "build-17"}
	if !slices.Equal(rs.NotVersions, wantNot) {
		t.Errorf("NotVersions = %v, want %v", rs.NotVersions, wantNot)
	}
	note := rs.SkippedNote("<pattern>")
	for _, s := range []string{"20002 release tags match <pattern>", "the 1000 highest versions", "the oldest kept is a/v1.19000.0", "the 19002 older tags were not read"} {
		if !strings.Contains(note, s) {
			t.Errorf("SkippedNote = %q, want it to say %q", note, s)
		}
	}
	// The release before the last commit is among the kept ones.
	bt, err := rs.Before(f.Commits["m49"])
	if err != nil || bt[0].Name != want[0] {
		t.Errorf("Before(m49) = %v, %v; want %s", bt, err, want[0])
	}
	// A tag kept costs a few hundred bytes; all 20,000 would cost
	// several megabytes.
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 2<<20 {
		t.Errorf("the release tags hold %d bytes of heap, want at most 2 MiB", held)
	}
	runtime.KeepAlive(rs)

	// Under the bound, nothing is skipped and there is no note.
	rs, err = r.ReleaseTags(func(name string) bool { return strings.HasPrefix(name, "v1.1") && len(name) == len("v1.1000.0") })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Tags) != 1000 || rs.Skipped != 0 || rs.SkippedNote("p") != "" {
		t.Errorf("v1.1xxx.0: kept %d, skipped %d, note %q; want 1000, 0, none", len(rs.Tags), rs.Skipped, rs.SkippedNote("p"))
	}
}

// TestTagsMatching: TagsMatching is Tags("") without the tags match
// rejects; annotated tags and tags of tags are peeled as there.
func TestTagsMatching(t *testing.T) {
	t.Parallel()
	f, r := branchy(t)
	f.Git("tag", "-a", "-m", "tag of a tag", "v1.3.0-again", "v1.2.0")
	all, err := r.Tags("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.TagsMatching(releasePattern.MatchString)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(all), func(tg git.Tag) bool { return !releasePattern.MatchString(tg.Name) })
	if !slices.Equal(got, want) || len(got) == 0 || len(got) == len(all) {
		t.Errorf("TagsMatching = %v\nwant %v (of %d tags)", got, want, len(all))
	}
}

// TestVersionTagMergedManyTags: the first version tag reachable from a
// commit answers, among thousands of tags.
func TestVersionTagMergedManyTags(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 5000 {
		names = append(names, fmt.Sprintf("build-%d", i))
	}
	names[4999] = "v2.0.0" // at m49
	f, r := manyTags(t, names)
	if got, err := r.VersionTagMerged(f.Commits["m49"]); err != nil || got != "v2.0.0" {
		t.Errorf("VersionTagMerged(m49) = %q, %v; want v2.0.0", got, err)
	}
	if got, err := r.VersionTagMerged(f.Commits["m48"]); err != nil || got != "" {
		t.Errorf("VersionTagMerged(m48) = %q, %v; want none", got, err)
	}
}

// TestTagRefs: the matching tags' names and the objects their refs name,
// sorted; an annotated tag's object is its tag object, which moving the
// tag changes.
func TestTagRefs(t *testing.T) {
	t.Parallel()
	f, r := branchy(t)
	tags, err := r.TagsMatching(releasePattern.MatchString)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := r.TagRefs(releasePattern.MatchString)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != len(tags) || len(refs) == 0 || !slices.IsSorted(refs) {
		t.Fatalf("TagRefs = %v for the tags %v", refs, tags)
	}
	for i, tg := range tags {
		if name, _, _ := strings.Cut(refs[i], " "); name != tg.Name {
			t.Errorf("ref %d names %s, want %s", i, name, tg.Name)
		}
	}
	first := strings.Split(refs[0], " ")[0]
	f.Git("tag", "-f", "-a", "-m", "moved", first, "HEAD")
	moved, err := r.TagRefs(releasePattern.MatchString)
	if err != nil {
		t.Fatal(err)
	}
	if moved[0] == refs[0] {
		t.Errorf("moving %s left its ref %q", first, refs[0])
	}
}
