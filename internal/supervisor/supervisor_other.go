//go:build !unix

package supervisor

import "io"

// End is how a child ended: without Unix process control there is no
// supervisor, and no child.
type End struct{}

// Code is not called: Begun returns no End.
func (e *End) Code(io.Writer, Commit) int { return exitFailure }

// Begin does nothing: the command line runs in this process.
func Begin() {}

// Begun reports that Begin supervised nothing.
func Begun() (end *End, begun bool) { return nil, false }
