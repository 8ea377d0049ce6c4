//go:build unix

package git

import "syscall"

// openNoFollow makes opening a working-tree file fail on a symbolic link
// and return at once on a FIFO (which is then refused after fstat).
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
