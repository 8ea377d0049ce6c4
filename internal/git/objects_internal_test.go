package git

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestObjectReaderGitDies: once git is gone, Get fails (it neither hangs
// nor invents answers), keeps failing, and Close does not repeat the error.
func TestObjectReaderGitDies(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a": "a\n"}})
	r, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := r.NewObjectReader()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if objs, err := o.Get([]string{"HEAD:a"}); err != nil || string(objs[0].Data) != "a\n" {
		t.Fatalf("Get = %+v, %v", objs, err)
	}
	o.procMu.Lock()
	if err := o.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	o.procMu.Unlock()

	done := make(chan error, 1)
	go func() {
		_, err := o.Get([]string{"HEAD:a", "HEAD:a"})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped answering") {
			t.Errorf("Get after git died: error = %v, want 'stopped answering'", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get hung after git died")
	}
	if _, err := o.Get([]string{"HEAD:a"}); err == nil {
		t.Error("second Get after git died: no error")
	}
	if err := o.Close(); err != nil {
		t.Errorf("Close after a failed Get: %v", err)
	}
}

// TestStrictlySorted: a listing is kept only when it is in increasing
// order without a path twice (a malformed tree may list one twice).
func TestStrictlySorted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		list []string
		want bool
	}{
		{nil, false},
		{[]string{"a"}, true},
		{[]string{"a", "a/b", "b"}, true},
		{[]string{"a", "a", "b"}, false},
		{[]string{"a/b", "a"}, false},
	} {
		if got := strictlySorted(c.list); got != c.want {
			t.Errorf("strictlySorted(%q) = %v, want %v", c.list, got, c.want)
		}
	}
}

// TestSnapshotUsesObjectReader: commit snapshots read their files through
// one shared cat-file process; the listing without ls-tree (walkTree)
// gives the same files, parsing a directory both revisions have once.
func TestSnapshotUsesObjectReader(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(
		gitfixture.Commit{Step: "one", Files: map[string]string{"a": "a\n", "d/e/b": "b\n", "x/c": "c\n"}},
		gitfixture.Commit{Step: "two", Files: map[string]string{"a": "a2\n", "d/e/b": "b\n", "x/c": "c2\n", "x/l": "../a"},
			Modes: map[string]string{"x/l": "120000"}},
	)
	r, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*commitSnapshot
	for _, step := range []string{"one", "two"} {
		s, err := r.Snapshot(f.Commits[step])
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		snaps = append(snaps, s.(*commitSnapshot))
	}
	if snaps[1].objects != snaps[0].objects {
		t.Fatal("the snapshots do not share one cat-file process")
	}
	if diff := cmp.Diff([]string{"a", "d/e/b", "x/c", "x/l"}, snaps[1].Files()); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	if got, err := snaps[1].ReadFiles([]string{"a", "d/e/b"}); err != nil || string(got["a"]) != "a2\n" || string(got["d/e/b"]) != "b\n" {
		t.Fatalf("ReadFiles = %q, %v", got, err)
	}
	if snaps[0].objects.cmd == nil {
		t.Fatal("ReadFiles started no cat-file process")
	}
	if !snaps[1].IsSymlink("x/l") || snaps[1].IsSymlink("x/c") || snaps[0].IsSymlink("x/l") {
		t.Errorf("IsSymlink(x/l, x/c) = %v, %v, want true, false", snaps[1].IsSymlink("x/l"), snaps[1].IsSymlink("x/c"))
	}
	// walkTree lists what ls-tree listed, links alike.
	for _, s := range snaps {
		s.Files() // the whole list, by ls-tree
		lsTree, links := maps.Clone(s.blobs), maps.Clone(s.links)
		clear(s.blobs)
		s.links = nil
		if err := s.walkTree(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(lsTree, s.blobs); diff != "" {
			t.Errorf("walkTree of %s (-ls-tree +walkTree):\n%s", s.ref, diff)
		}
		if diff := cmp.Diff(links, s.links); diff != "" {
			t.Errorf("walkTree's links of %s (-ls-tree +walkTree):\n%s", s.ref, diff)
		}
	}
	// Files are sorted by path, whatever git's tree order (a directory
	// sorts as its name plus "/"): ls-tree's order is kept as it is.
	g := gitfixture.New(t)
	g.Import(gitfixture.Commit{Step: "one", Files: map[string]string{
		"a!": "", "a-b": "", "a.b": "", "a/x": "", "a0": "", "a/b/c": "", "a/b.go": "", "ab": "", "a/b!/c": "",
	}})
	gr, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gr.Snapshot(g.Commits["one"])
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	want := []string{"a!", "a-b", "a.b", "a/b!/c", "a/b.go", "a/b/c", "a/x", "a0", "ab"}
	if diff := cmp.Diff(want, gs.Files()); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	// Trees: two roots, two x/, and d/ and d/e once.
	n := 0
	r.trees.Range(func(any, any) bool { n++; return true })
	if n != 6 {
		t.Errorf("%d tree objects parsed, want 6", n)
	}
}

// FuzzParseHeader: parseHeader reads a cat-file header as strings.Fields
// and strconv.ParseInt do.
func FuzzParseHeader(f *testing.F) {
	for _, h := range []string{"0123456789abcdef0123456789abcdef01234567 blob 12", "x tree 0", "x  blob 1", "x blob +1", "x blob -1",
		"x blob 1 y", "x blob", " x blob 1", "x blob 1 ", "x\tblob\t1", "x blob 99999999999999999999", "x bl\u00a0ob 1", "a b 007", ""} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		oid, typ, size, ok := parseHeader([]byte(h))
		fields := strings.Fields(h)
		if len(fields) != 3 {
			if ok {
				t.Fatalf("parseHeader(%q) = %q, %q, %d, want no header", h, oid, typ, size)
			}
			return
		}
		want, err := strconv.ParseInt(fields[2], 10, 64)
		if ok != (err == nil) || ok && (oid != fields[0] || typ != fields[1] || size != want) {
			t.Fatalf("parseHeader(%q) = %q, %q, %d, %v; want %q, %q, %d, %v", h, oid, typ, size, ok, fields[0], fields[1], want, err == nil)
		}
	})
}
