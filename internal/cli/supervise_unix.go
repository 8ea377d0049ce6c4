//go:build unix

package cli

import (
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"

	"github.com/apicheck/apicheck/internal/supervisor"
)

// supervised runs the command line in the child of a supervisor. The Go
// runtime writes its crash report to the supervisor's pipe
// (setCrashOutput), so that the supervisor can tell a crash from exit code
// 2. The report files go to the supervisor, which writes them: they are
// sent once the command ended with exit code 0 or 1, and only while the
// supervisor that started this process lives (a check process whose
// supervisor was killed writes nothing, wherever it got to).
func supervised(args []string, stderr io.Writer) int {
	setCrashOutput()
	pipe := openHandoff()
	if pipe == nil {
		return worker(args, stderr)
	}
	defer pipe.Close()
	h := newHandoff()
	h.parent = os.Getppid()
	handOff = h
	code := Execute(args, os.Stdout, stderr)
	handOff = nil
	if code != ExitOK && code != ExitFindings || len(h.files) == 0 {
		return code
	}
	if h.orphaned() {
		return ExitFailure // nobody to tell, or to write the reports
	}
	if _, err := pipe.Write(h.encode()); err != nil {
		return ExitFailure // the supervisor is gone
	}
	return code
}

// supervise runs the command line in a child process and returns its exit
// code (supervisor.End.Code). When the child cannot be started, the
// command line runs in this process.
func supervise(args []string, stderr io.Writer) int {
	c := supervisor.Start(args, stderr)
	if c == nil {
		return worker(args, stderr)
	}
	return c.Wait().Code(stderr, commitReports)
}

// setCrashOutput makes the runtime copy a crash report to the
// supervisor's pipe, if file descriptor supervisor.CrashFD is a pipe
// (it is not when APICHECK_SUPERVISED was set by hand). The processes this
// one starts (git) do not inherit it.
func setCrashOutput() {
	var st syscall.Stat_t
	if syscall.Fstat(supervisor.CrashFD, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return
	}
	syscall.CloseOnExec(supervisor.CrashFD)
	f := os.NewFile(supervisor.CrashFD, "crash-output")
	if debug.SetCrashOutput(f, debug.CrashOptions{}) == nil {
		f.Close() // the runtime keeps a duplicate
	}
}

// openHandoff returns the pipe to hand report files over, when the
// supervisor passed one (nil otherwise: then this process writes them).
// The processes this one starts (git) do not inherit it: the supervisor
// reads until the pipe closes.
func openHandoff() *os.File {
	if os.Getenv(supervisor.HandoffEnv) != strconv.Itoa(supervisor.HandoffFD) {
		return nil
	}
	os.Unsetenv(supervisor.HandoffEnv)
	var st syscall.Stat_t
	if syscall.Fstat(supervisor.HandoffFD, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(supervisor.HandoffFD)
	return os.NewFile(supervisor.HandoffFD, "report-handoff")
}
