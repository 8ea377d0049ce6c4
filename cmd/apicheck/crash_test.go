//go:build linux

package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestCrashesExit3: whatever way the process dies — a panic, a panic in a
// goroutine nobody recovers, running out of memory, a stack overflow, a
// SIGKILL as the kernel's OOM killer sends it, a rule that panics during a
// check — apicheck exits 3 (an internal failure) with a message asking to
// report it, never 2 (which means a usage error), and writes no report.
// TestMain builds the binary with the apicheck_crashtest tag on Linux,
// which adds the crashes.
func TestCrashesExit3(t *testing.T) {
	t.Parallel()
	runCrash := func(t *testing.T, dir, mode string, args ...string) result {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), hermetic.UserDirs(t)...), "APICHECK_CRASHTEST="+mode)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running apicheck: %v", err)
		}
		return result{stdout.String(), stderr.String(), code}
	}
	expectCrash := func(t *testing.T, r result, want string) {
		t.Helper()
		if r.code != 3 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "please report it") {
			tail := r.stderr
			if len(tail) > 2000 {
				tail = "..." + tail[len(tail)-2000:]
			}
			t.Errorf("exit %d, stderr:\n%s\nwant exit 3 and %q", r.code, tail, want)
		}
		if r.stdout != "" {
			t.Errorf("stdout: %q", r.stdout)
		}
	}

	for mode, want := range map[string]string{
		"panic":     "apicheck: internal error: crash test; please report it",
		"goroutine": "apicheck: internal error: panic: crash test in a goroutine",
		"oom":       "apicheck: internal error: fatal error: out of memory",
		"stack":     "apicheck: internal error: fatal error: stack overflow",
		"kill":      `apicheck: internal error: the check process was killed by signal "killed" (out of memory?)`,
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			expectCrash(t, runCrash(t, t.TempDir(), mode, "version"), want)
		})
	}

	// A rule that panics in the middle of a check: recovered by the engine
	// (rule) or fatal to the process (rule-goroutine). The run prints the
	// panic, exits 3 and leaves the output directory empty: no report, not
	// even a partial one, no temporary file.
	fx := example(t)
	check := func(out string) []string {
		return []string{"check", "--base", fx.Commits["base"], "--head", fx.Commits["head"],
			"--format", "json", "--output", filepath.Join(out, "report.json"),
			"--report", "sarif=" + filepath.Join(out, "report.sarif"),
			"--report", "markdown=" + filepath.Join(out, "report.md")}
	}
	for mode, want := range map[string]string{
		"rule":           "apicheck: internal error in rule CRASH_TEST: crash test in a rule; please report it",
		"rule-goroutine": "apicheck: internal error: panic: crash test in a rule's goroutine",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			r := runCrash(t, fx.Dir, mode, check(out)...)
			expectCrash(t, r, want)
			if !strings.Contains(r.stderr, "goroutine ") || !strings.Contains(r.stderr, "internal/cli/crashtest.go:") {
				t.Errorf("stderr lacks the panicking goroutine's stack:\n%s", r.stderr)
			}
			if names := dirNames(t, out); len(names) > 0 {
				t.Errorf("a crashed check left %q in the output directory", names)
			}
		})
	}

	// The same binary without a crash behaves: the check writes all three
	// reports, and a usage error is still 2.
	out := t.TempDir()
	if r := runCrash(t, fx.Dir, "", check(out)...); r.code != 1 {
		t.Errorf("check without a crash: exit %d, stderr %s", r.code, r.stderr)
	}
	if names, want := dirNames(t, out), []string{"report.json", "report.md", "report.sarif"}; !slices.Equal(names, want) {
		t.Errorf("check without a crash wrote %q, want %q", names, want)
	}
	if r := runCrash(t, t.TempDir(), "", "check", "--bogus"); r.code != 2 {
		t.Errorf("usage error: exit %d", r.code)
	}
}

// dirNames lists a directory's entries, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
