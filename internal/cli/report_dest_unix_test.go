//go:build unix

package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// A report whose path is a symlink to a FIFO is written into the FIFO,
// as a shell redirection would: the reader gets the report, and neither
// the link nor the FIFO is replaced by a file.
func TestReportThroughSymlinkToFIFO(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "pipe"), filepath.Join(dir, "report.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe", link); err != nil {
		t.Fatal(err)
	}
	// Opened before the run, without waiting for a writer; the pipe
	// buffer holds this small report until it is read below.
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	reader := os.NewFile(uintptr(fd), fifo)
	defer reader.Close()
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"],
		"--format", "json", "--report", "json="+link)
	if code != ExitFindings {
		t.Fatalf("exit code %d, want %d\n%s", code, ExitFindings, stderr)
	}
	got, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || string(got) != stdout {
		t.Errorf("the FIFO's reader got %d bytes, want the %d of the JSON report", len(got), len(stdout))
	}
	for p, kind := range map[string]fs.FileMode{fifo: fs.ModeNamedPipe, link: fs.ModeSymlink} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Type() != kind {
			t.Errorf("%s is now %v (%v), want type %v", p, fi.Mode(), err, kind)
		}
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "pipe report.json" {
		t.Errorf("files: %v", got)
	}
}

// --output naming a FIFO that nobody reads is a usage error naming the
// path, at once: the run does not wait for a reader, and the FIFO stays.
func TestOutputFIFOWithoutReader(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"],
		"--format", "json", "-o", fifo)
	if code != ExitUsage {
		t.Fatalf("exit code %d, want %d\n%s", code, ExitUsage, stderr)
	}
	for _, want := range []string{"cannot write --output " + fifo, "no process has open for reading"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not contain %q", stderr, want)
		}
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("%s is now %v (%v), want a FIFO", fifo, fi.Mode(), err)
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "pipe" {
		t.Errorf("files: %v", got)
	}
}

// A report path that is a symlink to a regular file (a pull request's
// apicheck.sarif -> .git/config) is a usage error naming it; the file it
// points at and the link stay as they were.
func TestReportSymlinkToFileRefused(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	dir := t.TempDir()
	target, link := filepath.Join(dir, "config"), filepath.Join(dir, "apicheck.sarif")
	if err := os.WriteFile(target, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("config", link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"],
		"--report", "sarif="+link)
	if code != ExitUsage {
		t.Fatalf("exit code %d, want %d\n%s", code, ExitUsage, stderr)
	}
	want := "cannot write --report sarif=" + link + ": write " + link + ": symlink to config: it leads to a regular file"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
	if b, _ := os.ReadFile(target); string(b) != "[core]\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("%s is now %v (%v), want a symlink", link, fi.Mode(), err)
	}
}
