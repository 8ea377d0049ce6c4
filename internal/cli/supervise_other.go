//go:build !unix

package cli

import "io"

// supervise runs the command line in this process: without Unix process
// control there is no supervisor (see Main).
func supervise(args []string, stderr io.Writer) int {
	return worker(args, stderr)
}

// supervised runs the command line as worker does: there is no
// supervisor.
func supervised(args []string, stderr io.Writer) int {
	return worker(args, stderr)
}
