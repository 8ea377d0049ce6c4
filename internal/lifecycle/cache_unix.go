//go:build unix

package lifecycle

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownerCheck requires the current user to own the directory.
func ownerCheck(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: unknown owner", fi.Name())
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by the current user", fi.Name(), st.Uid)
	}
	return nil
}
