//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// openInPlace opens the FIFO or device at path for writing, creating and
// truncating nothing. O_NONBLOCK makes opening a FIFO without a reader
// fail at once (ENXIO) instead of waiting for one, and opening a serial
// line return without waiting for a carrier; the file is then made
// blocking again, so a full pipe is waited on as by any writer. Without
// follow, a symlink at path is refused (ELOOP).
func openInPlace(path string, follow bool) (*os.File, error) {
	flags := syscall.O_WRONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
