//go:build !unix

package atomicfile

import "os"

// openInPlace opens the device at path for writing, creating and
// truncating nothing. follow has no equivalent here: the kind of the
// opened file is checked after opening.
func openInPlace(path string, follow bool) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY, 0)
}
