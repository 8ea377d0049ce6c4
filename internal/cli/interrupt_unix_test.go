//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// previousReport is what the --output file holds before a run that must
// leave it alone.
const previousReport = "the report of an earlier run\n"

// reportDir returns a directory holding the --output file r.txt of an
// earlier run, and the arguments of a check of f that writes r.txt and
// r.json there.
func reportDir(t *testing.T, f *gitfixture.Fixture) (dir string, args []string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.txt"), []byte(previousReport), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"check", "--base", f.Commits["base"], "--head", f.Commits["head"],
		"--report", "json=" + filepath.Join(dir, "r.json"), "-o", filepath.Join(dir, "r.txt")}
}

// untouched fails the test unless dir holds r.txt as reportDir wrote it
// and nothing else: no report, no temporary file.
func untouched(t *testing.T, dir string) {
	t.Helper()
	if got := strings.Join(dirFiles(t, dir), " "); got != "r.txt" {
		t.Errorf("files in the report directory: %s; want r.txt only", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r.txt")); err != nil || string(b) != previousReport {
		t.Errorf("--output file: %q, %v; want it unchanged, %q", b, err, previousReport)
	}
}

// startApicheck starts this test binary as apicheck (asApicheckEnv) in
// dir, the hold rule set to mode ("" none); ready is the file that rule
// writes.
func startApicheck(t *testing.T, dir, mode string, args ...string) (cmd *exec.Cmd, stderr *bytes.Buffer, ready string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ready = filepath.Join(t.TempDir(), "ready")
	cmd = exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), hermetic.UserDirs(t)...),
		asApicheckEnv+"=1", holdEnv+"="+mode, readyEnv+"="+ready)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr, ready
}

// waitFor polls until cond holds, and fails the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// holding waits until the hold rule holds the check and returns the
// check process's ID.
func holding(t *testing.T, ready string, stderr *bytes.Buffer) int {
	t.Helper()
	var pid int
	waitFor(t, "the check to reach the rules", func() bool {
		b, err := os.ReadFile(ready)
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	})
	return pid
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode()
	}
	return 0
}

// TestInterruptedCheckWritesNoReport: SIGTERM or SIGINT to apicheck in
// the middle of a check (while the rules run) makes it exit 3 and say
// that no report was written: neither --output nor --report is written,
// not even with what the run judged before the signal, and the file of
// an earlier run at --output stays as it was. The same check run to its
// end writes both.
func TestInterruptedCheckWritesNoReport(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	t.Run("completed", func(t *testing.T) {
		dir, args := reportDir(t, f)
		cmd, stderr, _ := startApicheck(t, f.Dir, "", args...)
		if code := exitCode(t, cmd.Wait()); code != ExitFindings {
			t.Fatalf("exit code %d, want %d; stderr:\n%s", code, ExitFindings, stderr)
		}
		if got := strings.Join(dirFiles(t, dir), " "); got != "r.json r.txt" {
			t.Errorf("files in the report directory: %s; want r.json r.txt", got)
		}
		text, _ := os.ReadFile(filepath.Join(dir, "r.txt"))
		js, _ := os.ReadFile(filepath.Join(dir, "r.json"))
		if !strings.Contains(string(text), "NEW_FIELD_NOT_POINTER") || !strings.Contains(string(js), `"NEW_FIELD_NOT_POINTER"`) {
			t.Errorf("reports lack the findings:\n%s\n%s", text, js)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, args := reportDir(t, f)
			cmd, stderr, ready := startApicheck(t, f.Dir, "signal", args...)
			holding(t, ready, stderr)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := exitCode(t, cmd.Wait())
			if code != ExitFailure || !strings.Contains(stderr.String(), "apicheck: interrupted; no report was written") {
				t.Errorf("exit code %d, stderr:\n%s\nwant exit 3 and the interruption", code, stderr)
			}
			untouched(t, dir)
		})
	}
}

// TestKilledSupervisorWritesNoReport: when apicheck's supervisor process
// is killed (SIGKILL) in the middle of a check, the check process writes
// no report, whether it stops on the signal Linux sends it when its
// parent dies, or runs its check to the end.
func TestKilledSupervisorWritesNoReport(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	for _, mode := range []string{"signal", "orphan"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "signal" && runtime.GOOS != "linux" {
				t.Skip("only Linux signals the check process when its parent dies")
			}
			dir, args := reportDir(t, f)
			cmd, stderr, ready := startApicheck(t, f.Dir, mode, args...)
			pid := holding(t, ready, stderr)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			waitFor(t, "the check to let go", func() bool {
				_, err := os.Stat(ready + ".done")
				return err == nil
			})
			waitFor(t, "the check process to end", func() bool { return ended(pid) })
			untouched(t, dir)
		})
	}
}

// ended reports whether process pid ended (it may be a zombie that its
// new parent did not reap yet).
func ended(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) state ...
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			return b[i+2] == 'Z' || b[i+2] == 'X'
		}
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// TestInterruptedInProcessWritesNoReport: without a supervisor (the
// command line run in process), a check interrupted while the rules run
// writes no report either.
func TestInterruptedInProcessWritesNoReport(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	dir, args := reportDir(t, f)
	crashRule = &rules.Rule{ID: "INTERRUPTS", Severity: finding.Error, Summary: "interrupts the check",
		Check: func(*rules.Context) {
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, syscall.SIGTERM)
			defer signal.Stop(sigs)
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			<-sigs
		}}
	defer func() { crashRule = nil }()
	code, _, stderr := run(t, append(args, "--repo", f.Dir)...)
	if code != ExitFailure || !strings.Contains(stderr, "apicheck: interrupted; no report was written") {
		t.Errorf("exit code %d, stderr:\n%s\nwant exit 3 and the interruption", code, stderr)
	}
	untouched(t, dir)
}
