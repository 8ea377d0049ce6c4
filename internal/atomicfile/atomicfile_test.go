package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.md")
	if err := Write(p, []byte("one"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o666); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content = %q", b)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}
}

// The mode is perm minus the umask: a report (0644) is never writable by
// others, even with umask 0, and stays private with umask 077.
func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0, 0o644}, {0o077, 0o600}, {0o027, 0o640}} {
		old := syscall.Umask(c.umask)
		q := filepath.Join(dir, fmt.Sprintf("x-%o.sarif", c.umask))
		err := Write(q, nil, 0o644)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(q); fi.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode = %v, want %v", c.umask, fi.Mode().Perm(), c.want)
		}
	}
}

// Errors name the destination, never the temporary file beside it.
func TestWriteErrorsNameTheDestination(t *testing.T) {
	dir := t.TempDir()
	isDir := filepath.Join(dir, "isdir")
	if err := os.MkdirAll(filepath.Join(isDir, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{
		filepath.Join(dir, "missing", "x.json"), // the temporary file cannot be created
		isDir,                                   // the rename fails
	} {
		err := Write(dest, []byte("x"), 0o644)
		if err == nil {
			t.Fatalf("Write(%s) succeeded", dest)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != dest {
			t.Errorf("Write(%s): error %q does not name the destination (%#v)", dest, err, err)
		}
		if strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("Write(%s): error %q names the temporary file", dest, err)
		}
	}
}

// A symlink to a regular file is refused, and both stay as they were: a
// link in a pull request's checkout (apicheck.sarif -> .git/config) must
// not make a report overwrite what it points at.
func TestWriteSymlinkToRegularFile(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(other, "config")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "apicheck.sarif")
	if err := os.Symlink(filepath.Join("other", "config"), p); err != nil {
		t.Fatal(err)
	}
	err := Write(p, []byte("report"), 0o666)
	want := "write " + p + ": symlink to other/config: it leads to a regular file; apicheck writes through a symlink only to a FIFO or a device"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Write = %v, want an error starting %q", err, want)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("target content = %q, want it untouched", b)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink: %v %v", p, fi, err)
	}
	if es, _ := os.ReadDir(other); len(es) != 1 {
		t.Errorf("left beside the target: %v", es)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("left beside the link: %v", es)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o666); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	// The destination is a directory: the rename fails, the temp goes.
	d := filepath.Join(dir, "isdir")
	if err := os.MkdirAll(filepath.Join(d, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(d, []byte("x"), 0o666); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}
}

func TestCleanup(t *testing.T) {
	dir := t.TempDir()
	name, f, err := create(dir, "r.json", 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	Cleanup()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("Cleanup left %s: %v", name, err)
	}
}

// Replace keeps the file's permission bits, whatever the umask, and
// leaves no temporary file; it refuses what is not a regular file.
func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "types.go")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o764); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	if err := Replace(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o764 {
		t.Errorf("mode = %v, want 0764", fi.Mode().Perm())
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}
	link := filepath.Join(dir, "link.go")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("x")); err == nil {
		t.Error("Replace wrote through a symlink")
	}
	if err := Replace(filepath.Join(dir, "missing.go"), []byte("x")); err == nil {
		t.Error("Replace created a missing file")
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content after refusals = %q", b)
	}
}

func TestWriteCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "entry")
	for _, content := range []string{"one", "two"} {
		if err := WriteCache(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("content = %q, want %q", b, content)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}
}
