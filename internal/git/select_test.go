package git

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// selectHistory has two revisions whose trees share directories at
// different depths (base's pkg/apis/settings is head's api/settings), a
// version directory below a directory that is not one, a group
// directory with files, go.mod files, a symbolic link, a gitlink, a
// marked directory and files outside everything.
func selectHistory(t *testing.T) *gitfixture.Fixture {
	t.Helper()
	f := gitfixture.New(t)
	sub := "0123456789012345678901234567890123456789"
	f.Import(
		gitfixture.Commit{Step: "base", Files: map[string]string{
			"go.mod":                            "module example.com/api\n",
			"README.md":                         "hi\n",
			"pkg/apis/settings/v1alpha1/doc.go": "package v1alpha1\n",
			"pkg/apis/settings/v1alpha1/t.go":   "package v1alpha1\n",
			"pkg/apis/settings/v1alpha1/t.pb":   "x\n",
			"pkg/apis/core/register.go":         "package core\n",
			"pkg/apis/core/notes.txt":           "x\n",
			"pkg/apis/core/v1/types.go":         "package v1\n",
			"pkg/apis/core/v1/types_test.go":    "package v1\n",
			"pkg/apis/core/v1/link.go":          "types.go",
			"pkg/util/helper.go":                "package util\n",
			"hack/tools/go.mod":                 "module example.com/tools\n",
			"docs/a/b/c.md":                     "x\n",
			"docs/a/b/v2/x.go":                  "package v2\n",
			"third/shoot-things/x.go":           "package x\n",
			"third/shoot-things/deep/y.go":      "package y\n",
			"third/other/shoot.go":              "package other\n",
			"mod":                               sub,
		}, Modes: map[string]string{"pkg/apis/core/v1/link.go": "120000", "mod": "160000"}},
		gitfixture.Commit{Step: "head", Files: map[string]string{
			"pkg/apis/settings/v1alpha1/doc.go": gitfixture.Deleted,
			"pkg/apis/settings/v1alpha1/t.go":   gitfixture.Deleted,
			"pkg/apis/settings/v1alpha1/t.pb":   gitfixture.Deleted,
			"api/settings/v1alpha1/doc.go":      "package v1alpha1\n",
			"api/settings/v1alpha1/t.go":        "package v1alpha1\n",
			"api/settings/v1alpha1/t.pb":        "x\n",
			"pkg/apis/core/v1/types.go":         "package v1 // changed\n",
		}},
	)
	return f
}

var testSelection = &Selection{
	Name:      "test 1",
	Group:     func(name string) bool { return name == "v1" || name == "v1alpha1" || name == "v2" },
	GroupFile: func(name string) bool { return strings.HasSuffix(name, ".go") },
	File:      func(name string) bool { return name == "go.mod" },
}

var markSelection = &Selection{
	Name:     "mark 1",
	Mark:     func(name string) bool { return strings.Contains(name, "shoot") },
	MarkFile: func(name string) bool { return strings.HasSuffix(name, ".go") },
}

// wantSelected is what sel keeps of files, by its definition.
func wantSelected(files []string, sel *Selection) []string {
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	group := func(dir string) bool {
		if dir != "." && sel.Group != nil && sel.Group(path.Base(dir)) {
			return true
		}
		for d := range dirs {
			if path.Dir(d) == dir && sel.Group != nil && sel.Group(path.Base(d)) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, f := range files {
		name := path.Base(f)
		marked := false
		for _, seg := range strings.Split(f, "/") {
			marked = marked || sel.Mark != nil && sel.Mark(seg)
		}
		if sel.File != nil && sel.File(name) || sel.GroupFile != nil && sel.GroupFile(name) && group(path.Dir(f)) ||
			sel.MarkFile != nil && marked && sel.MarkFile(name) {
			out = append(out, f)
		}
	}
	return out
}

func openBoth(t *testing.T, r *Repo, f *gitfixture.Fixture) (base, head Snapshot) {
	t.Helper()
	var snaps []Snapshot
	for _, step := range []string{"base", "head"} {
		s, err := r.Snapshot(f.Commits[step])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		snaps = append(snaps, s)
	}
	return snaps[0], snaps[1]
}

// TestSelect: what a selection keeps is what its definition says, for
// two revisions walked at once and for each alone, with an empty memo,
// a warm one (which reads no tree but the changed ones) and a damaged
// one; the gitlinks are the submodules.
func TestSelect(t *testing.T) {
	t.Parallel()
	f := selectHistory(t)
	memo := filepath.Join(t.TempDir(), "memo")
	check := func(name string, r *Repo, base, head Snapshot, together bool) {
		t.Helper()
		for _, sel := range []*Selection{testSelection, markSelection} {
			if together {
				if err := SelectAll(sel, base, head); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range []Snapshot{base, head} {
				got, err := s.(Selector).Select(sel)
				if err != nil {
					t.Fatal(err)
				}
				fresh, _ := r.Snapshot(s.Commit())
				want := wantSelected(fresh.Files(), sel)
				fresh.Close()
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: %s of %s (-want +got):\n%s", name, sel.Name, s.Ref(), diff)
				}
			}
		}
		if got := Submodules(head); !slices.Equal(got, []string{"mod"}) {
			t.Errorf("%s: Submodules = %q, want [mod]", name, got)
		}
	}

	r1, _ := Open(f.Dir)
	r1.UseTreeMemo(memo)
	base, head := openBoth(t, r1, f)
	check("cold, together", r1, base, head, true)
	r1.SaveTreeMemo()
	if _, err := os.Stat(memo); err != nil {
		t.Fatalf("no memo written: %v", err)
	}

	r2, _ := Open(f.Dir)
	base, head = openBoth(t, r2, f)
	check("no memo, apart", r2, base, head, false)

	r3, _ := Open(f.Dir)
	r3.UseTreeMemo(memo)
	base, head = openBoth(t, r3, f)
	check("warm", r3, base, head, true)
	if n := r3.treeReads.Load(); n != 0 {
		t.Errorf("a warm walk read %d trees from git, want none", n)
	}

	data, err := os.ReadFile(memo)
	if err != nil {
		t.Fatal(err)
	}
	for i, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { c := slices.Clone(b); c[len(c)-40] ^= 1; return c },
		func(b []byte) []byte { return append([]byte("apicheck tree memo 0\n"), b[len(treeMemoHeader):]...) },
	} {
		if err := os.WriteFile(memo, damage(data), 0o600); err != nil {
			t.Fatal(err)
		}
		r, _ := Open(f.Dir)
		r.UseTreeMemo(memo)
		base, head := openBoth(t, r, f)
		check("damaged memo "+string(rune('a'+i)), r, base, head, true)
	}
}

// TestSelectIncompleteMemo: a memo that lacks a tree an entry of it
// names is walked again, not trusted.
func TestSelectIncompleteMemo(t *testing.T) {
	t.Parallel()
	f := selectHistory(t)
	r, _ := Open(f.Dir)
	_, head := openBoth(t, r, f)
	if _, err := head.(Selector).Select(testSelection); err != nil {
		t.Fatal(err)
	}
	// Drop a kept subdirectory's summary, as a memo file that lost it.
	r.sums.mu.Lock()
	for k, s := range r.sums.m {
		if len(s.dirs) > 0 && len(s.files) > 0 {
			delete(r.sums.m, s.dirs[0].key)
			_ = k
			break
		}
	}
	r.sums.mu.Unlock()
	r2head, _ := r.Snapshot(head.Commit())
	defer r2head.Close()
	got, err := r2head.(Selector).Select(testSelection)
	if err != nil {
		t.Fatal(err)
	}
	if want := wantSelected(head.Files(), testSelection); !slices.Equal(got, want) {
		t.Errorf("Select after a summary went missing = %q, want %q", got, want)
	}
}

// TestSnapshotParts: DirFiles, FilesUnder, HasFile, HasDir, BlobID,
// IsSymlink and ReadFiles answer as the whole file list says, without
// it.
func TestSnapshotParts(t *testing.T) {
	t.Parallel()
	head, full := headAndFull(t)
	files := full.Files()
	sel := head.(Selector)
	dirs := dirsOf(files, ".")
	for _, d := range append(slices.Sorted(func(yield func(string) bool) {
		for d := range dirs {
			if !yield(d) {
				return
			}
		}
	}), "nope", "pkg/nope", "pkg/", "/pkg", "pkg//apis", "./pkg", "pkg/apis/..", "README.md") {
		var wantDir, wantUnder []string
		for _, p := range files {
			if path.Dir(p) == d {
				wantDir = append(wantDir, p)
			}
			if strings.HasPrefix(p, d+"/") || d == "." {
				wantUnder = append(wantUnder, p)
			}
		}
		if got, err := sel.DirFiles(d); err != nil || !slices.Equal(got, wantDir) {
			t.Errorf("DirFiles(%q) = %q, %v; want %q", d, got, err, wantDir)
		}
		if got, err := sel.FilesUnder(d); err != nil || !slices.Equal(got, wantUnder) {
			t.Errorf("FilesUnder(%q) = %q, %v; want %q", d, got, err, wantUnder)
		}
		if got, err := sel.HasDir(d); err != nil || got != dirs[d] {
			t.Errorf("HasDir(%q) = %v, %v; want %v", d, got, err, dirs[d])
		}
	}
	for _, p := range append(slices.Clone(files), "nope", "pkg/apis", "pkg/apis/", "/README.md", "mod", "pkg//util/helper.go") {
		want := slices.Contains(files, p)
		if got, err := sel.HasFile(p); err != nil || got != want {
			t.Errorf("HasFile(%q) = %v, %v; want %v", p, got, err, want)
		}
		if _, err := head.ReadFiles([]string{p}); (err == nil) != want {
			t.Errorf("ReadFiles(%q): error %v, want one: %v", p, err, !want)
		}
	}
	if !head.IsSymlink("pkg/apis/core/v1/link.go") || head.IsSymlink("pkg/apis/core/v1/types.go") {
		t.Error("IsSymlink does not tell the link from the file")
	}
	oid, ok := head.(BlobIDs).BlobID("pkg/util/helper.go")
	want, _ := full.(BlobIDs).BlobID("pkg/util/helper.go")
	if !ok || oid != want || want == "" {
		t.Errorf("BlobID = %q, %v; want %q", oid, ok, want)
	}
	got, err := head.ReadFiles([]string{"pkg/util/helper.go", "docs/a/b/c.md", "pkg/util/helper.go"})
	if err != nil || string(got["pkg/util/helper.go"]) != "package util\n" || string(got["docs/a/b/c.md"]) != "x\n" || len(got) != 2 {
		t.Errorf("ReadFiles = %q, %v", got, err)
	}
}

// TestHasFileSelected: after selections, HasFile answers as the whole
// file list says, and tells a file a selection would have kept from
// none without listing its directory.
func TestHasFileSelected(t *testing.T) {
	t.Parallel()
	head, full := headAndFull(t)
	files := full.Files()
	for _, sel := range []*Selection{testSelection, markSelection} {
		if _, err := head.(Selector).Select(sel); err != nil {
			t.Fatal(err)
		}
	}
	dirs := dirsOf(files, ".", "nope", "pkg/apis/core/v9", "third/shoot-x")
	paths := slices.Clone(files)
	for d := range dirs {
		for _, name := range []string{"missing.go", "go.mod", "missing.txt", "shoot.go"} {
			paths = append(paths, path.Join(d, name))
		}
	}
	// The files a selection would have kept first: none lists a
	// directory.
	c := head.(*commitSnapshot)
	kept := func(p string) bool {
		return testSelection.keeps(path.Dir(p), path.Base(p)) || markSelection.keeps(path.Dir(p), path.Base(p))
	}
	slices.SortStableFunc(paths, func(a, b string) int {
		switch ka, kb := kept(a), kept(b); {
		case ka == kb:
			return 0
		case ka:
			return -1
		}
		return 1
	})
	for _, p := range paths {
		if kept(p) && len(c.dirFiles) > 0 {
			t.Errorf("HasFile of files the selections keep listed %q", slices.Sorted(maps.Keys(c.dirFiles)))
		}
		want := slices.Contains(files, p)
		if got, err := c.HasFile(p); err != nil || got != want {
			t.Errorf("HasFile(%q) = %v, %v; want %v", p, got, err, want)
		}
		gotID, _ := c.BlobID(p)
		if wantID, _ := full.(BlobIDs).BlobID(p); gotID != wantID || c.IsSymlink(p) != full.IsSymlink(p) {
			t.Errorf("BlobID(%q) = %q, IsSymlink %v; want %q, %v", p, gotID, c.IsSymlink(p), wantID, full.IsSymlink(p))
		}
	}
}

// TestOldCatFile: a git that refuses cat-file --batch-command (before
// 2.36) is asked again with --batch, and reads the same.
func TestOldCatFile(t *testing.T) {
	f := selectHistory(t)
	want := func() map[string][]byte {
		r, _ := Open(f.Dir)
		_, head := openBoth(t, r, f)
		got, err := head.ReadFiles([]string{"pkg/util/helper.go", "README.md"})
		if err != nil || r.plainBatch.Load() {
			t.Fatalf("ReadFiles = %v; --batch: %v", err, r.plainBatch.Load())
		}
		return got
	}()
	defer func(a []string) { batchCommandArgs = a }(batchCommandArgs)
	batchCommandArgs = []string{"cat-file", "--batch-command-of-no-git", "--buffer"}
	r, _ := Open(f.Dir)
	_, head := openBoth(t, r, f)
	got, err := head.ReadFiles([]string{"pkg/util/helper.go", "README.md"})
	if err != nil || !r.plainBatch.Load() || string(got["pkg/util/helper.go"]) != string(want["pkg/util/helper.go"]) || string(got["README.md"]) != string(want["README.md"]) {
		t.Fatalf("ReadFiles with a git without --batch-command = %q, %v; --batch: %v", got, err, r.plainBatch.Load())
	}
	if files, err := head.(Selector).Select(testSelection); err != nil || len(files) == 0 {
		t.Errorf("Select with --batch = %q, %v", files, err)
	}
}

// TestSelectReadsTheChange: with a warm memo, a new revision costs the
// trees its change touched; a run that used one selection keeps the
// memo's sections of the others.
func TestSelectReadsTheChange(t *testing.T) {
	t.Parallel()
	f := selectHistory(t)
	memo := filepath.Join(t.TempDir(), "memo")
	r, _ := Open(f.Dir)
	r.UseTreeMemo(memo)
	base, head := openBoth(t, r, f)
	for _, sel := range []*Selection{testSelection, markSelection} {
		if err := SelectAll(sel, base, head); err != nil {
			t.Fatal(err)
		}
	}
	r.SaveTreeMemo()

	f.Import(gitfixture.Commit{Step: "next", Files: map[string]string{"pkg/util/helper.go": "package util // changed\n"}})
	r2, _ := Open(f.Dir)
	r2.UseTreeMemo(memo)
	next, err := r2.Snapshot(f.Commits["next"])
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	got, err := next.(Selector).Select(testSelection)
	if err != nil {
		t.Fatal(err)
	}
	if n := r2.treeReads.Load(); n != 3 { // the root, pkg and pkg/util
		t.Errorf("the walk of a one-file change read %d trees, want 3", n)
	}
	if want := wantSelected(next.Files(), testSelection); !slices.Equal(got, want) {
		t.Errorf("Select = %q, want %q", got, want)
	}
	r2.SaveTreeMemo()

	r3, _ := Open(f.Dir)
	r3.UseTreeMemo(memo)
	base3, _ := openBoth(t, r3, f)
	if _, err := base3.(Selector).Select(markSelection); err != nil {
		t.Fatal(err)
	}
	if n := r3.treeReads.Load(); n != 0 {
		t.Errorf("a selection the last run did not use read %d trees, want none (its section kept)", n)
	}
}

// headAndFull opens selectHistory's head twice: the snapshot the test
// selects in, and one whose whole file list says what it must answer.
func headAndFull(t *testing.T) (head, full Snapshot) {
	t.Helper()
	f := selectHistory(t)
	r, _ := Open(f.Dir)
	_, head = openBoth(t, r, f)
	full, err := r.Snapshot(head.Commit())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { full.Close() })
	return head, full
}

// dirsOf is the set of the directories of files, and of extra.
func dirsOf(files []string, extra ...string) map[string]bool {
	dirs := map[string]bool{}
	for _, d := range extra {
		dirs[d] = true
	}
	for _, p := range files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}
