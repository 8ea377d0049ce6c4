package cli

import (
	"io"
	"os"

	"github.com/apicheck/apicheck/internal/supervisor"
)

// reportHint ends every internal-error message.
const reportHint = supervisor.ReportHint

// Main is the apicheck program. A panic anywhere in the run is recovered
// and exits 3 (see Execute), but the Go runtime's fatal errors cannot be
// recovered and would exit 2, which means "usage error". So on Unix the
// command line runs in a child process (the same executable) that the
// first process supervises (package supervisor): crashes of the child
// exit 3 with a message asking to report them, exit codes the child
// chooses pass through, and the supervisor writes the child's report
// files once the child has exited normally and no signal came
// (handoff.go). cmd/apicheck starts the child while the program is
// initialised (package supervisor/early); Main then only writes the
// report files the child handed over, if any.
func Main(args []string, stderr io.Writer) int {
	if os.Getenv(supervisor.WorkerEnv) == "1" {
		return supervised(args, stderr)
	}
	if end, begun := supervisor.Begun(); begun {
		if end == nil {
			return worker(args, stderr) // the child could not be started
		}
		return end.Code(stderr, commitReports)
	}
	return supervise(args, stderr)
}

// worker runs the command line in this process, without a supervisor.
func worker(args []string, stderr io.Writer) int {
	return Execute(args, os.Stdout, stderr)
}
