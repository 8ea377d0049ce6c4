//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fifoReader opens the FIFO at path for reading without waiting for a
// writer; read returns everything written to it once every writer has
// closed it (the pipe buffer holds what the tests write), and closes it.
func fifoReader(t *testing.T, path string) (read func() string) {
	t.Helper()
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), path)
	t.Cleanup(func() { f.Close() })
	return func() string {
		t.Helper()
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// writeSoon is Write that fails the test instead of hanging.
func writeSoon(t *testing.T, path string, data []byte) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- Write(path, data, 0o666) }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("Write(%s) did not return", path)
		return nil
	}
}

// wantKind fails unless what is at path (not followed) has the type bits.
func wantKind(t *testing.T, path string, kind fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != kind {
		t.Errorf("%s is now %v, want type %v", path, fi.Mode(), kind)
	}
}

// wantOnly fails unless dir holds exactly names (no temporary file left).
func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// wantRefusal fails unless err is a *fs.PathError naming path whose
// message contains want.
func wantRefusal(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Write(%s) succeeded, want an error containing %q", path, want)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("error %q does not name %s", err, path)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("error %q names a temporary file", err)
	}
}

// A regular file is replaced by a new one (a reader of the old one keeps
// the old content), with nothing left beside it.
func TestWriteRegularFileIsReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "apicheck.json")
	if err := os.WriteFile(p, []byte("old content, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := Write(p, []byte("new"), 0o666); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	if b, _ := io.ReadAll(held); string(b) != "old content, longer than the new" {
		t.Errorf("the old file was written in place: it now reads %q", b)
	}
	wantKind(t, p, 0)
	wantOnly(t, dir, "apicheck.json")
}

func TestWriteCreatesMissingFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "apicheck.sarif")
	if err := Write(p, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}" {
		t.Errorf("content = %q", b)
	}
	wantKind(t, p, 0)
	wantOnly(t, dir, "apicheck.sarif")
}

// A FIFO that a process reads gets the bytes and stays a FIFO.
func TestWriteFIFOWithReader(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	mkfifo(t, p)
	read := fifoReader(t, p)
	if err := writeSoon(t, p, []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "report\n" {
		t.Errorf("the reader got %q", got)
	}
	wantKind(t, p, fs.ModeNamedPipe)
	wantOnly(t, dir, "pipe")
}

// A FIFO nobody reads is an error at once, not a wait for a reader, and
// stays a FIFO.
func TestWriteFIFOWithoutReader(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	mkfifo(t, p)
	wantRefusal(t, writeSoon(t, p, []byte("report\n")), p, "no process has open for reading")
	wantKind(t, p, fs.ModeNamedPipe)
	wantOnly(t, dir, "pipe")
}

// A symlink to a FIFO is written through; both stay what they are.
func TestWriteSymlinkToFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	mkfifo(t, fifo)
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink("pipe", link); err != nil {
		t.Fatal(err)
	}
	read := fifoReader(t, fifo)
	if err := writeSoon(t, link, []byte(`{"findings":[]}`)); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != `{"findings":[]}` {
		t.Errorf("the reader got %q", got)
	}
	wantKind(t, link, fs.ModeSymlink)
	wantKind(t, fifo, fs.ModeNamedPipe)
	wantOnly(t, dir, "pipe", "report.json")

	// Nobody reads: the error names the link given.
	wantRefusal(t, writeSoon(t, link, []byte("x")), link, "no process has open for reading")
	wantKind(t, link, fs.ModeSymlink)
}

// A dangling symlink, one whose directory is missing and a loop are
// refused, and stay links; nothing is created where they point.
func TestWriteDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// link -> out/hop -> ../out/report.json (missing)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join("out", "hop"), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "out", "report.json"), filepath.Join(out, "hop")); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, Write(link, []byte("created"), 0o666), link, "it leads to a file that does not exist")
	wantKind(t, link, fs.ModeSymlink)
	wantKind(t, filepath.Join(out, "hop"), fs.ModeSymlink)
	wantOnly(t, out, "hop")

	nowhere := filepath.Join(dir, "nowhere")
	if err := os.Symlink(filepath.Join(dir, "missing", "report.json"), nowhere); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, Write(nowhere, []byte("x"), 0o666), nowhere, "does not exist")
	wantKind(t, nowhere, fs.ModeSymlink)

	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, Write(loop, []byte("x"), 0o666), loop, "too many levels of symbolic links")
	wantKind(t, loop, fs.ModeSymlink)
	wantOnly(t, dir, "link", "loop", "nowhere", "out")
}

// A directory, a socket, or a symlink to either, is refused and stays.
func TestWriteRefusesDirectoryAndSocket(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "empty")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, Write(d, []byte("x"), 0o666), d, "is a directory")
	wantKind(t, d, fs.ModeDir)

	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("cannot make a socket: %v", err)
	}
	defer l.Close()
	wantRefusal(t, Write(sock, []byte("x"), 0o666), sock, "is a socket")
	wantKind(t, sock, fs.ModeSocket)

	toDir := filepath.Join(dir, "to-dir")
	if err := os.Symlink("empty", toDir); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, Write(toDir, []byte("x"), 0o666), toDir, "symlink to empty: is a directory")
	wantKind(t, toDir, fs.ModeSymlink)
	wantOnly(t, dir, "empty", "sock", "to-dir")
	wantOnly(t, d)
}

// A character device (here a node like /dev/null) is written in place
// and stays a device, directly and through a symlink.
func TestWriteCharDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a device node needs root")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the device number of /dev/null is Linux's")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // major 1, minor 3
		t.Skipf("creating a device node: %v", err)
	}
	if f, err := os.OpenFile(p, os.O_WRONLY, 0); err != nil {
		t.Skipf("the temporary directory does not allow device nodes: %v", err)
	} else {
		f.Close()
	}
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{p, link} {
		if err := writeSoon(t, dest, []byte("report\n")); err != nil {
			t.Fatalf("Write(%s): %v", dest, err)
		}
	}
	wantKind(t, p, fs.ModeDevice|fs.ModeCharDevice)
	wantKind(t, link, fs.ModeSymlink)
	wantOnly(t, dir, "null", "stdout")
}
