// Package atomicfile writes files whole or not at all: the content goes
// to a temporary file beside the destination, which is synced and renamed
// into place. Every writer of apicheck (reports, --output, apicheck init,
// caches, apicheck fix) uses it, so an interrupted run never leaves a
// half-written file behind, and the temporary file exists only while it
// is being written.
//
// Only a regular file (or a name where nothing is yet) is replaced that
// way: Write writes a FIFO or a character device (/dev/null, /dev/stdout,
// a pipe) in place, also through a symlink, refuses a symlink to anything
// else, and refuses a directory or a socket, so no destination is ever replaced by
// something of another kind.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// pending are the temporary files being written right now, for Cleanup:
// each with the function that removes it.
var (
	mu      sync.Mutex
	pending = map[string]func() error{}
)

// Write writes data to path. What happens depends on what path is:
//
//   - A regular file, or nothing: the data goes to a temporary file
//     beside it, which is synced and renamed over path. The file is
//     created with perm minus the umask (reports use 0666, as a shell
//     redirection does: rw-r--r-- with the usual umask 022, rw-rw-r--
//     with 002). On failure path is unchanged and no temporary file is
//     left.
//   - A FIFO or a character device (/dev/null, a terminal, a pipe a
//     process reads): the data is written to it in place, nothing is
//     renamed over it and it keeps its kind. A FIFO that no process has
//     open for reading is an error at once, never a wait.
//   - A symlink: never replaced. One that leads to a FIFO or a device
//     (/dev/stdout) is written through, in place. One that leads to a
//     regular file, to nothing, or that cannot be followed (a loop) is an
//     error and nothing is written: a link in an untrusted checkout can
//     point at any file (.git/config), and a report must not overwrite
//     it.
//   - A directory, a socket, a block device or anything else: an error;
//     nothing is written.
//
// Errors name path as given, never the temporary file: the name of a
// file that no longer exists would only puzzle the user.
func Write(path string, data []byte, perm fs.FileMode) error {
	d := dest{name: path, target: path}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return d.replace(data, perm, true)
	case err != nil:
		return d.fail("write", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return writeLink(path, data, perm)
	}
	return d.write(fi, data, perm, false)
}

// writeLink writes through the symlink at path to a FIFO or a character
// device (see Write) and refuses a link to anything else.
func writeLink(path string, data []byte, perm fs.FileMode) error {
	d := dest{name: path, target: path}
	t, err := os.Readlink(path)
	if err != nil {
		return d.fail("write", err)
	}
	d.via = t
	// os.Stat lets the kernel follow the link: it also follows the links
	// of /proc (/dev/stdout is /proc/self/fd/1, which names a pipe or a
	// terminal no path leads to).
	fi, err := os.Stat(path)
	switch {
	case err == nil && inPlace(fi.Mode()):
		return d.writeInPlace(fi, data, true)
	case err == nil && !fi.Mode().IsRegular():
		return d.write(fi, data, perm, true)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return d.fail("write", err) // a loop, a directory it may not search
	}
	// A regular file or nothing: a link in a checkout is the pull
	// request's, and could lead anywhere (.git/config, a CI script).
	what := "a regular file"
	if err != nil {
		what = "a file that does not exist"
	}
	return d.fail("write", fmt.Errorf("it leads to %s; apicheck writes through a symlink only to a FIFO or a device "+
		"(a link in a checkout can point anywhere): give the file's own path", what))
}

// WriteCache is Write without flushing the file to disk before the
// rename: for cache entries, whose readers check them (a checksum) and
// recompute a damaged one. Other processes see the whole file or none;
// only a crash of the machine can leave a damaged file behind. Whatever
// is at path is replaced (a symlink too, never followed): a cache
// directory holds only apicheck's own files.
func WriteCache(path string, data []byte, perm fs.FileMode) error {
	return dest{name: path, target: path}.replace(data, perm, false)
}

// dest is one destination: the name the user gave and the name the data
// goes to (the target of a symlink at name, or name itself).
type dest struct {
	name, target string
	// via is where the symlink at name leads, for messages ("": name is
	// not a symlink).
	via string
}

// fail is err about the destination: a *fs.PathError naming the path the
// user gave, saying where a symlink led when it matters.
func (d dest) fail(op string, err error) error {
	err = cause(err)
	if d.via != "" {
		err = fmt.Errorf("symlink to %s: %w", d.via, err)
	}
	return &fs.PathError{Op: op, Path: d.name, Err: err}
}

// cause is the cause of a *fs.PathError or *os.LinkError (which name a
// temporary file or a link's target), or err.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// inPlace reports whether a file of mode m is written in place.
func inPlace(m fs.FileMode) bool {
	return m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

// write writes data to the existing file fi at d.target according to
// its kind. follow: d.target may be a symlink to open through.
func (d dest) write(fi fs.FileInfo, data []byte, perm fs.FileMode, follow bool) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return d.replace(data, perm, true)
	case inPlace(m):
		return d.writeInPlace(fi, data, follow)
	case m.IsDir():
		return d.fail("write", errors.New("is a directory"))
	case m&fs.ModeSocket != 0:
		return d.fail("write", errors.New("is a socket"))
	case m&fs.ModeDevice != 0:
		return d.fail("write", errors.New("is a block device"))
	}
	return d.fail("write", errors.New("is not a regular file, a FIFO or a character device"))
}

// errNoReader is a FIFO nobody reads: writing would wait for one forever.
var errNoReader = errors.New("a FIFO that no process has open for reading")

// writeInPlace writes data to the FIFO or character device fi at
// d.target, without creating or truncating anything. follow: d.target
// is a symlink to open through (else a symlink swapped in is refused).
func (d dest) writeInPlace(fi fs.FileInfo, data []byte, follow bool) error {
	f, err := openInPlace(d.target, follow)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) && fi.Mode()&fs.ModeNamedPipe != 0 {
			return d.fail("write", errNoReader)
		}
		if errors.Is(err, syscall.ELOOP) && !follow {
			return d.fail("write", errors.New("was replaced by a symlink while apicheck wrote it"))
		}
		return d.fail("open", err)
	}
	now, err := f.Stat()
	if err != nil {
		f.Close()
		return d.fail("write", err)
	}
	if !inPlace(now.Mode()) {
		f.Close()
		return d.fail("write", errors.New("changed while apicheck wrote it: it is no longer a FIFO or a device"))
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return d.fail("write", err)
	}
	if err := f.Close(); err != nil {
		return d.fail("write", err)
	}
	return nil
}

// replace writes data to a temporary file beside d.target and renames it
// over d.target. sync: flush the file to disk before the rename.
func (d dest) replace(data []byte, perm fs.FileMode, sync bool) (err error) {
	dir, base := filepath.Split(d.target)
	if dir == "" {
		dir = "."
	}
	tmp, f, err := create(dir, base, perm)
	if err != nil {
		return d.fail("create", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		forget(tmp)
	}()
	if _, err = f.Write(data); err != nil {
		return d.fail("write", err)
	}
	if sync {
		if err = f.Sync(); err != nil {
			return d.fail("write", err)
		}
	}
	if err = f.Close(); err != nil {
		return d.fail("write", err)
	}
	if err = os.Rename(tmp, d.target); err != nil {
		return d.fail("replace", err)
	}
	return nil
}

// Replace replaces the content of the existing regular file at path,
// whole or not at all, keeping its permission bits exactly (the umask
// does not apply). A path that is not a regular file (a symlink, a
// directory) is an error. The directory of path is opened once and
// everything happens inside it (see ReplaceIn).
func Replace(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return replaceIn(root, base, path, data)
}

// ReplaceIn is Replace of the file name inside root (a path relative to
// it): `apicheck fix` rewrites source files of the working tree with it.
// The check, the temporary file and the rename all go through root, so
// no symlink swapped in meanwhile can lead the write out of it, and the
// last component is replaced, never followed.
func ReplaceIn(root *os.Root, name string, data []byte) error {
	return replaceIn(root, name, name, data)
}

// replaceIn is ReplaceIn; errors name shown.
func replaceIn(root *os.Root, name, shown string, data []byte) (err error) {
	fail := func(op string, err error) error {
		return &fs.PathError{Op: op, Path: shown, Err: cause(err)}
	}
	fi, err := root.Lstat(name)
	if err != nil {
		return fail("replace", err)
	}
	if !fi.Mode().IsRegular() {
		return fail("replace", errors.New("not a regular file"))
	}
	dir, base := filepath.Split(name)
	tmp, f, err := createIn(root, dir, base, 0o600)
	if err != nil {
		return fail("create", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
		forget(pendingKey(root, tmp))
	}()
	if _, err = f.Write(data); err != nil {
		return fail("write", err)
	}
	if err = f.Chmod(fi.Mode().Perm()); err != nil {
		return fail("write", err)
	}
	if err = f.Sync(); err != nil {
		return fail("write", err)
	}
	if err = f.Close(); err != nil {
		return fail("write", err)
	}
	if err = root.Rename(tmp, name); err != nil {
		return fail("replace", err)
	}
	return nil
}

// create makes a new temporary file beside the destination; O_EXCL makes
// sure nobody else's file (or a symlink planted under the name) is used.
func create(dir, base string, perm fs.FileMode) (string, *os.File, error) {
	return createWith(dir, base, func(name string) (*os.File, error) {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			pending[name] = func() error { return os.Remove(name) }
		}
		return f, err
	})
}

// createIn is create inside root.
func createIn(root *os.Root, dir, base string, perm fs.FileMode) (string, *os.File, error) {
	return createWith(dir, base, func(name string) (*os.File, error) {
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			pending[pendingKey(root, name)] = func() error { return root.Remove(name) }
		}
		return f, err
	})
}

// pendingKey names a temporary file inside root for pending.
func pendingKey(root *os.Root, name string) string {
	return filepath.Join(root.Name(), name)
}

// createWith tries fresh temporary names for base in dir with open,
// which registers the file it makes in pending (mu is held).
func createWith(dir, base string, open func(name string) (*os.File, error)) (string, *os.File, error) {
	for range 10 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		mu.Lock()
		f, err := open(name)
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

func forget(key string) {
	mu.Lock()
	delete(pending, key)
	mu.Unlock()
}

// Cleanup removes the temporary files of writes still in progress. The
// CLI calls it when a signal ends the run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for key, remove := range pending {
		remove()
		delete(pending, key)
	}
}
