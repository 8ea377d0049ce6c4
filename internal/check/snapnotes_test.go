package check

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
)

type fakeSnap struct {
	git.Snapshot // only the methods below are called
	subs         []string
	skipped      []git.SkippedFile
}

func (f fakeSnap) Submodules() []string       { return f.subs }
func (f fakeSnap) Skipped() []git.SkippedFile { return f.skipped }

func TestSnapshotNotes(t *testing.T) {
	if got := snapshotNotes(fakeSnap{}, nil); got != nil {
		t.Errorf("notes without submodules or skipped entries = %q", got)
	}
	var many []git.SkippedFile
	for i := range 12 {
		many = append(many, git.SkippedFile{Path: fmt.Sprintf("p%02d", i), Reason: "socket, not opened"})
	}
	many[0].Path = "bad\xffname"
	got := snapshotNotes(
		fakeSnap{subs: []string{"vendor/b", "a"}},
		fakeSnap{subs: []string{"a"}, skipped: many},
	)
	want := []string{
		"submodules are not read, so API groups inside them are not checked: a, vendor/b",
		`working-tree entries not read: "bad\xffname" (socket, not opened), p01 (socket, not opened), p02 (socket, not opened), ` +
			"p03 (socket, not opened), p04 (socket, not opened), p05 (socket, not opened), p06 (socket, not opened), " +
			"p07 (socket, not opened), p08 (socket, not opened), p09 (socket, not opened) and 2 more",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("snapshotNotes =\n%q\nwant\n%q", got, want)
	}
}
