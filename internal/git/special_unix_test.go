//go:build unix

package git_test

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestWorktreeSocketAndDevice: tracked files replaced in the working tree
// by a socket and (when the test may create one, as root) a character
// device reading endless zeros are skipped with their reason, never
// opened; the other files are read.
func TestWorktreeSocketAndDevice(t *testing.T) {
	t.Parallel()
	f := gitfixture.Init(t)
	f.ImportTrees([]map[string]string{{"a/s.go": "package a\n", "a/d.go": "package a\n", "a/ok.go": "package a\n"}}, nil)
	f.CheckoutFiles()
	path := func(p string) string { return filepath.Join(f.Dir, filepath.FromSlash(p)) }
	if err := os.Remove(path("a/s.go")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path("a/s.go"))
	if err != nil {
		t.Skipf("cannot create a socket: %v", err)
	}
	defer l.Close()
	want := []git.SkippedFile{{Path: "a/s.go", Reason: "socket, not opened"}}
	if err := os.Remove(path("a/d.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(path("a/d.go"), syscall.S_IFCHR|0o644, 1<<8|5); err == nil { // 1,5: /dev/zero
		want = []git.SkippedFile{{Path: "a/d.go", Reason: "device file, not opened"}, want[0]}
	} else {
		t.Logf("no device file (mknod: %v): checking the socket only", err)
	}
	s := openSnapshot(t, openRepo(t, f.Dir), git.WorktreeRef)
	if got := git.Skipped(s); !reflect.DeepEqual(got, want) {
		t.Errorf("Skipped = %q, want %q", got, want)
	}
	if got := contents(t, s, "a/ok.go"); got["a/ok.go"] != "package a\n" {
		t.Errorf("contents = %q", got)
	}
	for _, sk := range want {
		if _, err := s.ReadFiles([]string{sk.Path}); err == nil {
			t.Errorf("ReadFiles(%s) read a %s", sk.Path, sk.Reason)
		}
	}
}
