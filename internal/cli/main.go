package cli

import (
	"fmt"
	"io"
	"os"
)

// reportHint ends every internal-error message.
const reportHint = "please report it at https://github.com/apicheck/apicheck/issues with the command line and this output"

// workerEnv marks the process that runs the command line under a
// supervisor (see Main).
const workerEnv = "APICHECK_SUPERVISED"

// Main is the apicheck program. A panic anywhere in the run is recovered
// and exits 3 (see Execute), but the Go runtime's fatal errors — out of
// memory, a stack overflow, concurrent map writes — cannot be recovered
// and would exit 2, which means "usage error". So on Unix the command line
// runs in a child process (the same executable) that the first process
// supervises: it passes standard input and output through, forwards
// SIGINT and SIGTERM, and turns a crash of the child into exit 3 with a
// message asking to report it. Exit codes the child chooses pass through.
// The supervisor also writes the child's report files, once the child
// has exited normally and no signal came (handoff.go).
func Main(args []string, stderr io.Writer) int {
	if os.Getenv(workerEnv) == "1" {
		return supervised(args, stderr)
	}
	return supervise(args, stderr)
}

// worker runs the command line in this process, without a supervisor.
func worker(args []string, stderr io.Writer) int {
	return Execute(args, os.Stdout, stderr)
}

// crashMessage is the supervisor's message for a child that crashed:
// what happened (the line of the runtime's report that says it, "fatal
// error: out of memory"), else how the child ended.
func crashMessage(what, how string) string {
	if what == "" {
		what = how
	}
	return fmt.Sprintf("apicheck: internal error: %s; %s\n", what, reportHint)
}
