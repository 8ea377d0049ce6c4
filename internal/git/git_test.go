package git_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func open(t *testing.T, f *gitfixture.Fixture) *git.Repo {
	t.Helper()
	r, err := git.Open(f.Dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

func snapshot(t *testing.T, r *git.Repo, ref string) git.Snapshot {
	t.Helper()
	s, err := r.Snapshot(ref)
	if err != nil {
		t.Fatalf("Snapshot(%q): %v", ref, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func readAll(t *testing.T, s git.Snapshot) map[string]string {
	t.Helper()
	files, err := s.ReadFiles(s.Files())
	if err != nil {
		t.Fatalf("ReadFiles(%s): %v", s.Ref(), err)
	}
	out := map[string]string{}
	for p, b := range files {
		out[p] = string(b)
	}
	return out
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	// Make sure git does not find some repository above the temp dir.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := git.Open(dir)
	if !errors.Is(err, git.ErrNotRepo) {
		t.Fatalf("Open(non-repo) error = %v, want ErrNotRepo", err)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name the directory %s", err, dir)
	}

	if _, err := git.Open(filepath.Join(dir, "missing")); err == nil || errors.Is(err, git.ErrNotRepo) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open(missing dir) error = %v, want a 'does not exist' error", err)
	}

	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a/b/c.go": "package b\n"}})
	f.Checkout()
	// .git itself is not a work tree.
	if _, err := git.Open(filepath.Join(f.Dir, ".git")); !errors.Is(err, git.ErrNotRepo) {
		t.Errorf("Open(.git) error = %v, want ErrNotRepo", err)
	}
	r, err := git.Open(filepath.Join(f.Dir, "a", "b"))
	if err != nil {
		t.Fatalf("Open(subdir): %v", err)
	}
	if r.Root != f.Dir {
		t.Errorf("Root = %q, want %q", r.Root, f.Dir)
	}
}

func TestResolveCommit(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	r := open(t, f)

	if head, err := r.HeadCommit(); err != nil || head != "" {
		t.Errorf("HeadCommit on empty repo = %q, %v; want \"\", nil", head, err)
	}
	if _, err := r.ResolveCommit("HEAD"); err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Errorf("ResolveCommit(HEAD) on empty repo: error = %v, want 'no commits yet'", err)
	}

	f.Import(
		gitfixture.Commit{Step: "one", Files: map[string]string{"a.txt": "1"}, Tags: []string{"v1"}},
		gitfixture.Commit{Step: "two", Files: map[string]string{"a.txt": "2"}},
	)
	one, two := f.Commits["one"], f.Commits["two"]
	f.Git("tag", "-a", "-m", "annotated", "v2", two)

	for ref, want := range map[string]string{
		"HEAD": two, "HEAD~1": one, "main": two, "v1": one, "v2": two, one: one, one[:10]: one,
	} {
		got, err := r.ResolveCommit(ref)
		if err != nil || got != want {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if head, err := r.HeadCommit(); err != nil || head != two {
		t.Errorf("HeadCommit = %q, %v; want %q", head, err, two)
	}

	for _, ref := range []string{"nope", "HEAD~5", "HEAD^{tree}", "--all", "", git.WorktreeRef} {
		_, err := r.ResolveCommit(ref)
		var ue *git.UnknownRefError
		if !errors.As(err, &ue) {
			t.Errorf("ResolveCommit(%q) error = %v, want *UnknownRefError", ref, err)
			continue
		}
		if ue.Ref != ref {
			t.Errorf("UnknownRefError.Ref = %q, want %q", ue.Ref, ref)
		}
		if want := fmt.Sprintf("unknown revision %q: ", ref); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q does not start with %q", err, want)
		}
	}
	if _, err := r.Snapshot("nope"); !errors.As(err, new(*git.UnknownRefError)) {
		t.Errorf("Snapshot(nope) error = %v, want *UnknownRefError", err)
	}
}

// bigContent is deterministic, larger than 1 MiB and not a multiple of any
// buffer size.
func bigContent() string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20+12345; i++ {
		fmt.Fprintf(&b, "line %d of a big file %x\n", i, i*7919)
	}
	return b.String()
}

func TestCommitSnapshot(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	files := map[string]string{
		"big.bin":                bigContent(),
		"empty":                  "",
		"no-newline.go":          "package x",
		"dir/ünïcödé 文件.go":      "package dir // unicode\n",
		"dir/tab\tand \"quote\"": "odd name\n",
		"dir/new\nline":          "newline in name\n",
		"a-b":                    "sorting\n",
		"a.go":                   "sorting\n",
		"a0":                     "sorting\n",
	}
	// 2000 files, so that the ~2000 requests (~82 KB) exceed a pipe's
	// buffer: an implementation writing all requests before reading any
	// answer would deadlock. The last 1500 share 17 blobs.
	for i := 0; i < 2000; i++ {
		if i < 500 {
			files[fmt.Sprintf("pkg%02d/file%04d.go", i%17, i)] = fmt.Sprintf("package pkg%02d\n\nconst N = %d\n", i%17, i)
		} else {
			files[fmt.Sprintf("pkg%02d/file%04d.go", i%17, i)] = fmt.Sprintf("package pkg%02d\n", i%17)
		}
	}
	f.Import(gitfixture.Commit{Step: "base", Files: files})
	// A symlink, an executable and a submodule (gitlink) in the next commit.
	f.Import(gitfixture.Commit{Step: "head",
		Files: map[string]string{"link": "a.go", "run.sh": "#!/bin/sh\n", "sub": f.Commits["base"]},
		Modes: map[string]string{"link": "120000", "run.sh": "100755", "sub": "160000"}})
	if got := f.Git("ls-tree", "HEAD", "sub"); !strings.HasPrefix(got, "160000 commit ") {
		t.Fatalf("setup: sub is not a gitlink: %q", got)
	}
	files["link"] = "a.go"
	files["run.sh"] = "#!/bin/sh\n"

	r := open(t, f)
	s := snapshot(t, r, "main")
	if s.Ref() != "main" || s.Commit() != f.Commits["head"] {
		t.Errorf("Ref, Commit = %q, %q; want main, %s", s.Ref(), s.Commit(), f.Commits["head"])
	}

	var want []string
	for p := range files {
		want = append(want, p)
	}
	sort.Strings(want)
	got := s.Files()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Files() =\n%q\nwant\n%q", got, want)
	}
	if !s.IsSymlink("link") || s.IsSymlink("a.go") || s.IsSymlink("run.sh") {
		t.Errorf("IsSymlink(link, a.go, run.sh) = %v, %v, %v, want true, false, false", s.IsSymlink("link"), s.IsSymlink("a.go"), s.IsSymlink("run.sh"))
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("Files() not sorted")
	}
	got[0] = "mutated"
	if s.Files()[0] == "mutated" {
		t.Errorf("Files() shares its slice with the caller")
	}

	// Everything in one call through the batch pipe, guarded so that a
	// deadlock fails fast instead of hanging the test binary.
	type result struct {
		files map[string][]byte
		err   error
	}
	done := make(chan result, 1)
	go func() {
		files, err := s.ReadFiles(s.Files())
		done <- result{files, err}
	}()
	contents := map[string]string{}
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("ReadFiles: %v", res.err)
		}
		for p, b := range res.files {
			contents[p] = string(b)
		}
	case <-time.After(30 * time.Second):
		// The cleanup's Close kills git, which unblocks ReadFiles.
		t.Fatal("ReadFiles did not return within 30s: deadlock in the cat-file pipe")
	}
	if len(contents) != len(files) {
		t.Errorf("ReadFiles returned %d files, want %d", len(contents), len(files))
	}
	for p, w := range files {
		if contents[p] != w {
			t.Errorf("content of %q: got %d bytes %.40q, want %d bytes %.40q", p, len(contents[p]), contents[p], len(w), w)
		}
	}

	// The same process serves later calls, with duplicates and in any order.
	again, err := s.ReadFiles([]string{"a0", "big.bin", "a0", "empty"})
	if err != nil {
		t.Fatalf("second ReadFiles: %v", err)
	}
	if len(again) != 3 || string(again["a0"]) != "sorting\n" || string(again["big.bin"]) != files["big.bin"] || again["empty"] == nil && len(again["empty"]) != 0 {
		t.Errorf("second ReadFiles = %d files", len(again))
	}
	if _, ok := again["empty"]; !ok {
		t.Errorf("empty file missing from ReadFiles result")
	}

	// Paths that are not files of the revision.
	for _, bad := range []string{"missing.go", "sub", "pkg00", "dir/"} {
		_, err := s.ReadFiles([]string{"a0", bad})
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ReadFiles(%q) error = %v, want one naming the path", bad, err)
		}
	}
	// ... and the snapshot still works after such an error.
	if got, err := s.ReadFiles([]string{"a-b"}); err != nil || string(got["a-b"]) != "sorting\n" {
		t.Errorf("ReadFiles after a bad path = %q, %v", got, err)
	}

	// An older revision, read while the first snapshot is still open.
	old := snapshot(t, r, "HEAD~1")
	if old.Commit() != f.Commits["base"] {
		t.Errorf("HEAD~1 commit = %s, want %s", old.Commit(), f.Commits["base"])
	}
	for _, p := range old.Files() {
		if p == "link" || p == "run.sh" || p == "sub" {
			t.Errorf("HEAD~1 lists %s", p)
		}
	}

	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.ReadFiles([]string{"a0"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("ReadFiles after Close error = %v, want 'closed'", err)
	}
	// A snapshot never read from closes cleanly too.
	unused := snapshot(t, r, "HEAD")
	if err := unused.Close(); err != nil {
		t.Errorf("Close of unused snapshot: %v", err)
	}
}

func TestCloseDuringReadFiles(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	// ~24 MiB to read, so that Close usually lands in the middle.
	big := bigContent()
	files := map[string]string{}
	for i := 0; i < 24; i++ {
		files[fmt.Sprintf("big%02d.bin", i)] = fmt.Sprintf("%d\n%s", i, big)
	}
	f.Import(gitfixture.Commit{Step: "base", Files: files})
	r := open(t, f)
	for _, delay := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		s := snapshot(t, r, "HEAD")
		// Start git, so that the next ReadFiles only reads.
		if _, err := s.ReadFiles([]string{"big00.bin"}); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			got, err := s.ReadFiles(s.Files())
			if err == nil && string(got["big07.bin"]) != files["big07.bin"] {
				err = errors.New("wrong content")
			}
			done <- err
		}()
		time.Sleep(delay)
		if err := s.Close(); err != nil {
			t.Errorf("Close during ReadFiles: %v", err)
		}
		select {
		case err := <-done:
			// Either it finished first, or Close came first (an error
			// saying so), or Close interrupted it: never wrong content.
			if err != nil && !strings.Contains(err.Error(), "closed") {
				t.Errorf("ReadFiles racing Close: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("ReadFiles did not return after Close")
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}

// fileState captures what the code under test must not change.
type fileState struct {
	status  string
	index   []byte
	modTime time.Time
}

func captureState(t *testing.T, f *gitfixture.Fixture) fileState {
	t.Helper()
	indexPath := filepath.Join(f.Dir, ".git", "index")
	data, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	// The fixture runs git with GIT_OPTIONAL_LOCKS=0, so this status does
	// not refresh the index itself.
	return fileState{status: f.Git("status", "--porcelain", "-uall"), index: data, modTime: fi.ModTime()}
}

func (a fileState) check(t *testing.T, b fileState) {
	t.Helper()
	if a.status != b.status {
		t.Errorf("git status changed:\nbefore %q\nafter  %q", a.status, b.status)
	}
	if !bytes.Equal(a.index, b.index) {
		t.Errorf(".git/index content changed")
	}
	if !a.modTime.Equal(b.modTime) {
		t.Errorf(".git/index mtime changed: %v -> %v", a.modTime, b.modTime)
	}
}

func TestWorktreeSnapshot(t *testing.T) {
	t.Parallel()
	f := gitfixture.FromTxtar(t, []byte(`
-- base/.gitignore --
*.log
/build/
-- base/tracked.go --
package x
-- base/tracked.log --
tracked although ignored
-- base/modified.go --
package x // old
-- base/deleted.go --
package x
-- base/dir/deep.go --
package dir
-- worktree/modified.go --
package x // new
-- worktree/untracked.go --
package x // untracked
-- worktree/newdir/untracked.go --
package newdir
-- worktree/debug.log --
ignored
-- worktree/build/out.go --
ignored too
-- worktree/deleted.go --
(deleted)
`))
	// A nested repository is not a file of this one.
	nested := filepath.Join(f.Dir, "nested")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Git("init", "-q", nested)
	if err := os.WriteFile(filepath.Join(nested, "inner.go"), []byte("package inner\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("tracked.go", filepath.Join(f.Dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	// A tracked file whose stat data no longer matches the index: any index
	// refresh (e.g. a plain `git status`) would rewrite .git/index.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.Dir, "tracked.go"), future, future); err != nil {
		t.Fatal(err)
	}
	before := captureState(t, f)

	r := open(t, f)
	s := snapshot(t, r, git.WorktreeRef)
	if s.Ref() != git.WorktreeRef || s.Commit() != f.Commits["base"] {
		t.Errorf("Ref, Commit = %q, %q; want %q, %q", s.Ref(), s.Commit(), git.WorktreeRef, f.Commits["base"])
	}
	want := []string{".gitignore", "dir/deep.go", "link.go", "modified.go", "newdir/untracked.go", "tracked.go", "tracked.log", "untracked.go"}
	if got := s.Files(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Files() = %q\nwant %q", got, want)
	}
	if !s.IsSymlink("link.go") || s.IsSymlink("tracked.go") {
		t.Errorf("IsSymlink(link.go, tracked.go) = %v, %v, want true, false", s.IsSymlink("link.go"), s.IsSymlink("tracked.go"))
	}
	got := readAll(t, s)
	wantContent := map[string]string{
		".gitignore":          "*.log\n/build/\n",
		"dir/deep.go":         "package dir\n",
		"link.go":             "tracked.go", // the link target, as git would store it
		"modified.go":         "package x // new\n",
		"newdir/untracked.go": "package newdir\n",
		"tracked.go":          "package x\n",
		"tracked.log":         "tracked although ignored\n",
		"untracked.go":        "package x // untracked\n",
	}
	if !reflect.DeepEqual(got, wantContent) {
		t.Errorf("contents = %q\nwant %q", got, wantContent)
	}
	for _, bad := range []string{"deleted.go", "debug.log", "build/out.go", "nested/inner.go"} {
		if _, err := s.ReadFiles([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ReadFiles(%q) error = %v, want one naming the path", bad, err)
		}
	}

	// A file that vanishes after the listing gives an error naming it.
	if err := os.Remove(filepath.Join(f.Dir, "untracked.go")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadFiles([]string{"tracked.go", "untracked.go"}); err == nil || !strings.Contains(err.Error(), "untracked.go") {
		t.Errorf("ReadFiles of a vanished file: error = %v", err)
	}
	if err := os.WriteFile(filepath.Join(f.Dir, "untracked.go"), []byte("package x // untracked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil || s.Close() != nil {
		t.Errorf("Close: %v", err)
	}

	// Everything else the package does, then prove nothing changed.
	f.SetRef("origin/main", "base")
	if _, err := r.DefaultBase(); err != nil {
		t.Errorf("DefaultBase: %v", err)
	}
	cs := snapshot(t, r, "HEAD")
	readAll(t, cs)
	cs.Close()
	if _, err := r.Tags(""); err != nil {
		t.Error(err)
	}
	if rs, err := r.ReleaseTags(nil); err != nil {
		t.Error(err)
	} else if _, err := rs.Before("HEAD"); err != nil {
		t.Error(err)
	}
	if _, err := r.IsShallow(); err != nil {
		t.Error(err)
	}
	before.check(t, captureState(t, f))
}

func TestWorktreeSnapshotNoCommits(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.WriteWorktree(map[string]string{"a.go": "package a\n"})
	s := snapshot(t, open(t, f), git.WorktreeRef)
	if s.Commit() != "" {
		t.Errorf("Commit() = %q, want empty", s.Commit())
	}
	if got := readAll(t, s); !reflect.DeepEqual(got, map[string]string{"a.go": "package a\n"}) {
		t.Errorf("contents = %q", got)
	}
}

func TestWorktreeSnapshotSubmodule(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "base", Files: map[string]string{"a.go": "package a\n"}})
	f.Import(gitfixture.Commit{Step: "head", Files: map[string]string{"sub": f.Commits["base"]}, Modes: map[string]string{"sub": "160000"}})
	f.Checkout()
	// The submodule's directory is checked out, with its own .git.
	sub := filepath.Join(f.Dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Git("init", "-q", sub)
	if err := os.WriteFile(filepath.Join(sub, "inner.go"), []byte("package inner\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshot(t, open(t, f), git.WorktreeRef)
	if got := s.Files(); !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Errorf("Files() = %q, want only a.go", got)
	}
}

func TestDefaultBaseAndMergeBase(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	r := open(t, f)
	// main: base - feature; upstream is a child of feature that main does
	// not have; orphan has no parent.
	f.Import(
		gitfixture.Commit{Step: "base", Files: map[string]string{"a": "1"}},
		gitfixture.Commit{Step: "feature", Files: map[string]string{"a": "2"}},
		gitfixture.Commit{Step: "upstream", Branch: "upstream", Parents: []string{"feature"}, Files: map[string]string{"b": "1"}},
		gitfixture.Commit{Step: "orphan", Branch: "other", Files: map[string]string{"c": "1"}},
	)

	_, err := r.DefaultBase()
	if err == nil || err.Error() != "no base to compare with: branch main has no upstream (@{upstream}), and neither the remote upstream nor origin has a default branch here (HEAD, main or master); pass --base REF" {
		t.Errorf("DefaultBase without upstream: error = %v", err)
	}

	// A local branch called origin/main must not count as the upstream.
	f.Git("branch", "origin/main", f.Commits["base"])
	if _, err := r.DefaultBase(); err == nil {
		t.Errorf("DefaultBase used local branch origin/main")
	}

	f.SetRef("origin/master", "feature")
	b, err := r.DefaultBase()
	if err != nil || b.Upstream != "origin/master" || b.Commit != f.Commits["feature"] {
		t.Errorf("DefaultBase = %+v, %v; want origin/master, %s", b, err, f.Commits["feature"])
	}

	// origin/main wins over origin/master; the merge base is the fork point.
	f.SetRef("origin/main", "upstream")
	b, err = r.DefaultBase()
	if err != nil || b.Upstream != "origin/main" || b.Commit != f.Commits["feature"] {
		t.Errorf("DefaultBase = %+v, %v; want origin/main, %s", b, err, f.Commits["feature"])
	}
	// origin/HEAD's target wins over both.
	f.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/master")
	b, err = r.DefaultBase()
	if err != nil || b.Upstream != "origin/master" {
		t.Errorf("DefaultBase = %+v, %v; want origin/master (origin/HEAD)", b, err)
	}

	mb, err := r.MergeBase("HEAD", "refs/remotes/origin/main")
	if err != nil || mb != f.Commits["feature"] {
		t.Errorf("MergeBase = %q, %v", mb, err)
	}
	if _, err := r.MergeBase("HEAD", "nope"); !errors.As(err, new(*git.UnknownRefError)) {
		t.Errorf("MergeBase with unknown ref: error = %v", err)
	}

	// Unrelated histories.
	_, err = r.MergeBase(f.Commits["orphan"], "main")
	if err == nil || !strings.Contains(err.Error(), "no common ancestor") || strings.Contains(err.Error(), "unshallow") {
		t.Errorf("MergeBase of unrelated histories: error = %v", err)
	}
	if shallow, err := r.IsShallow(); err != nil || shallow {
		t.Errorf("IsShallow = %v, %v; want false", shallow, err)
	}
}

func TestShallowClone(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(
		gitfixture.Commit{Step: "base", Files: map[string]string{"a": "1"}},
		gitfixture.Commit{Step: "main1", Files: map[string]string{"a": "2"}},
		gitfixture.Commit{Step: "side1", Branch: "side", Parents: []string{"base"}, Files: map[string]string{"b": "1"}},
	)

	dst := filepath.Join(t.TempDir(), "clone")
	f.Git("clone", "-q", "--depth=1", "--no-single-branch", "file://"+f.Dir, dst)
	r, err := git.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if shallow, err := r.IsShallow(); err != nil || !shallow {
		t.Fatalf("IsShallow = %v, %v; want true", shallow, err)
	}
	// A bare shallow clone, and a bare full one, say so too (Open reads it).
	for _, depth := range []string{"--depth=1", "--no-local"} {
		bare := filepath.Join(t.TempDir(), "bare.git")
		f.Git("clone", "-q", "--bare", depth, "file://"+f.Dir, bare)
		br, err := git.Open(bare)
		if err != nil {
			t.Fatal(err)
		}
		if shallow, err := br.IsShallow(); err != nil || !br.Bare || shallow != (depth == "--depth=1") {
			t.Errorf("bare clone %s: Bare %v, IsShallow = %v, %v", depth, br.Bare, shallow, err)
		}
	}
	_, err = r.MergeBase("origin/main", "origin/side")
	if err == nil || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("MergeBase in shallow clone: error = %v, want a hint to unshallow", err)
	}
	if _, err := r.DefaultBase(); err != nil {
		// HEAD is origin/main's commit here, so a base exists.
		t.Errorf("DefaultBase in shallow clone: %v", err)
	}
}

func TestTagsAndIsAncestor(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(
		gitfixture.Commit{Step: "one", Files: map[string]string{"a": "1"}, Tags: []string{"v1.0.0"}},
		gitfixture.Commit{Step: "two", Files: map[string]string{"a": "2"}, Tags: []string{"v1.1.0", "release/v2"}},
	)
	one, two := f.Commits["one"], f.Commits["two"]
	f.Git("tag", "-a", "-m", "annotated", "v1.0.1", one)
	f.Git("tag", "-a", "-m", "tag of a tag", "v1.0.2", "v1.0.1")
	f.Git("tag", "tree-tag", two+"^{tree}")
	r := open(t, f)

	tags, err := r.Tags("v1.*")
	if err != nil {
		t.Fatal(err)
	}
	want := []git.Tag{{Name: "v1.0.0", Commit: one}, {Name: "v1.0.1", Commit: one}, {Name: "v1.0.2", Commit: one}, {Name: "v1.1.0", Commit: two}}
	for i := range tags {
		if tags[i].Date.IsZero() {
			t.Errorf("Tags: %s has no date", tags[i].Name)
		}
		tags[i].Date = time.Time{}
	}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags(v1.*) = %v\nwant %v", tags, want)
	}
	all, err := r.Tags("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tag := range all {
		names = append(names, tag.Name)
	}
	if want := []string{"release/v2", "v1.0.0", "v1.0.1", "v1.0.2", "v1.1.0"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Tags(\"\") names = %v, want %v (no tree tag)", names, want)
	}
	if none, err := r.Tags("nothing*"); err != nil || len(none) != 0 {
		t.Errorf("Tags(nothing*) = %v, %v", none, err)
	}

	for _, c := range []struct {
		a, b string
		want bool
	}{{"v1.0.0", "v1.1.0", true}, {"v1.1.0", "v1.0.0", false}, {"HEAD", "HEAD", true}} {
		got, err := r.IsAncestor(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := r.IsAncestor("nope", "HEAD"); !errors.As(err, new(*git.UnknownRefError)) {
		t.Errorf("IsAncestor(nope) error = %v", err)
	}
}
