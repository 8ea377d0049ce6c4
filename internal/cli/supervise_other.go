//go:build !unix

package cli

import "io"

// supervise runs the command line in this process: without Unix process
// control there is no supervisor (see Main).
func supervise(args []string, stderr io.Writer) int {
	return worker(args, stderr)
}

// setCrashOutput does nothing without a supervisor.
func setCrashOutput() {}
