// Package atomicfile writes files whole or not at all: the content goes
// to a temporary file beside the destination, which is synced and renamed
// into place. Every writer of apicheck (reports, --output, apicheck init,
// caches) uses it, so an interrupted run never leaves a half-written file
// behind, and the temporary file exists only while it is being written.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// pending are the temporary files being written right now, for Cleanup.
var (
	mu      sync.Mutex
	pending = map[string]bool{}
)

// Write writes data to path. The file is created with perm minus the
// umask (reports use 0666, as a shell redirection does: rw-r--r-- with
// the usual umask 022, rw-rw-r-- with 002), replacing whatever was at path —
// a symlink at path is replaced, never followed. On failure path is
// unchanged and no temporary file is left.
//
// Errors name path, never the temporary file: the name of a file that no
// longer exists would only puzzle the user.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache is Write without flushing the file to disk before the
// rename: for cache entries, whose readers check them (a checksum) and
// recompute a damaged one. Other processes see the whole file or none;
// only a crash of the machine can leave a damaged file behind.
func WriteCache(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm fs.FileMode, sync bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, f, err := create(dir, base, perm)
	if err != nil {
		return destError("create", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		forget(tmp)
	}()
	if _, err = f.Write(data); err != nil {
		return destError("write", path, err)
	}
	if sync {
		if err = f.Sync(); err != nil {
			return destError("write", path, err)
		}
	}
	if err = f.Close(); err != nil {
		return destError("write", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return destError("replace", path, err)
	}
	return nil
}

// destError is err about the destination path: the cause of a
// *fs.PathError or *os.LinkError (which name the temporary file) under a
// *fs.PathError naming path.
func destError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// Replace replaces the content of the existing regular file at path,
// whole or not at all, keeping its permission bits exactly (the umask
// does not apply): `apicheck fix` rewrites source files with it. A path
// that is not a regular file (a symlink, a directory) is an error.
func Replace(path string, data []byte) (err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "replace", Path: path, Err: errors.New("not a regular file")}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, f, err := create(dir, base, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		forget(tmp)
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(fi.Mode().Perm()); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// create makes a new temporary file beside the destination; O_EXCL makes
// sure nobody else's file (or a symlink planted under the name) is used.
func create(dir, base string, perm fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		mu.Lock()
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			pending[name] = true
		}
		mu.Unlock()
		if err == nil {
			return name, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", nil, err
		}
	}
	return "", nil, fs.ErrExist
}

func forget(name string) {
	mu.Lock()
	delete(pending, name)
	mu.Unlock()
}

// Cleanup removes the temporary files of writes still in progress. The
// CLI calls it when a signal ends the run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for name := range pending {
		os.Remove(name)
		delete(pending, name)
	}
}
