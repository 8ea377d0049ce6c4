// Package supervisor runs apicheck's command line in a child process of
// the same executable, on Unix, and watches it. A panic anywhere in the
// run is recovered and exits 3 (cli.Execute), but the Go runtime's fatal
// errors — out of memory, a stack overflow, concurrent map writes —
// cannot be recovered and would exit 2, which means "usage error". The
// supervisor passes standard input, output and error through, forwards
// SIGINT, SIGTERM and SIGHUP, and turns a crash of the child into exit 3
// with a message asking to report it; exit codes the child chooses pass
// through. The child hands its report files over a pipe, and the
// supervisor has them written once the child exited normally with 0 or 1
// and no signal came (package cli's handoff.go).
//
// The supervisor costs one more start of the executable. So that the
// supervising process does as little as possible, cmd/apicheck imports
// package early, whose initialisation supervises the command line
// (Begin) before the packages that the check process needs, and the
// supervisor does not, are initialised: the supervising process exits
// there, unless report files are left to write.
package supervisor

import "io"

// WorkerEnv marks the child, which runs the command line.
const WorkerEnv = "APICHECK_SUPERVISED"

// CrashFD is the child's file descriptor of the supervisor's pipe for
// crash reports; HandoffFD that of the pipe the child hands its report
// files over, which HandoffEnv names.
const (
	CrashFD    = 3
	HandoffFD  = 4
	HandoffEnv = "APICHECK_REPORTS_FD"
)

// ReportHint ends every internal-error message.
const ReportHint = "please report it at https://github.com/apicheck/apicheck/issues with the command line and this output"

// The exit codes the supervisor chooses or looks at (package cli's).
const (
	exitOK       = 0
	exitFindings = 1
	exitFailure  = 3
)

// Commit writes the report files a child handed over (reports, as the
// child encoded them) and returns the exit code: the child's, code, or
// that of what went wrong, said on stderr.
type Commit func(reports []byte, code int, stderr io.Writer) int

// CrashMessage is the supervisor's message for a child that crashed:
// what happened (the line of the runtime's report that says it, "fatal
// error: out of memory"), else how the child ended.
func CrashMessage(what, how string) string {
	if what == "" {
		what = how
	}
	return "apicheck: internal error: " + what + "; " + ReportHint + "\n"
}
