package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestSignalsLeaveNothingBehind: SIGTERM to apicheck, and SIGKILL to its
// supervisor process, while the run waits on a git process (the working
// tree read blocks on a FIFO .gitignore). Afterwards no process of the
// run is left (neither the check process nor git; a SIGKILLed supervisor
// used to leave the check process running on as an orphan), no report
// and no temporary file is next to the output, and $TMPDIR is empty.
func TestSignalsLeaveNothingBehind(t *testing.T) {
	fx := example(t)
	fx.Git("checkout", "-q", fx.Commits["head"])
	fifo := fx.Path("untracked/.gitignore")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // releases anything stuck reading it
		}
	})
	// inFixture lists the processes (other than pid) working in the
	// fixture: the check process and its git processes.
	inFixture := func(pid int) []string {
		var out []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
		for _, p := range procs {
			target, err := os.Readlink(p)
			if err != nil || !strings.HasPrefix(target, fx.Dir) || filepath.Base(filepath.Dir(p)) == strconv.Itoa(pid) {
				continue
			}
			comm, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "comm"))
			out = append(out, filepath.Base(filepath.Dir(p))+" "+strings.TrimSpace(string(comm)))
		}
		return out
	}
	waitFor := func(what func() string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what())
			}
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			outDir, tmpDir := t.TempDir(), t.TempDir()
			cmd := exec.Command(binary, "check", "--base", fx.Commits["base"], "--format", "json",
				"--output", filepath.Join(outDir, "report.json"), "--report", "sarif="+filepath.Join(outDir, "report.sarif"))
			cmd.Dir = fx.Dir
			cmd.Env = append(append(os.Environ(), hermetic.UserDirs(t)...), "TMPDIR="+tmpDir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			// The supervisor, the check process and git all run.
			waitFor(func() string { return "git to run" }, func() bool {
				for _, p := range inFixture(pid) {
					if strings.HasSuffix(p, " git") {
						return true
					}
				}
				return false
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if sig == syscall.SIGTERM && (!ok || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "interrupted")) {
				t.Errorf("after SIGTERM: %v, stderr %q; want exit 3, interrupted", err, stderr.String())
			}
			var left []string
			waitFor(func() string { return "the run's processes to end: " + strings.Join(left, ", ") },
				func() bool { left = inFixture(pid); return len(left) == 0 })
			for _, d := range []string{outDir, tmpDir} {
				if es, _ := os.ReadDir(d); len(es) != 0 {
					t.Errorf("left in %s: %v", d, es)
				}
			}
		})
	}
}
