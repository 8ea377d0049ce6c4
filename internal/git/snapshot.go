package git

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/quote"
)

// Snapshot is a read-only view of one revision: a commit, or the working tree.
//
// Besides the methods, Submodules(s) names the submodules the revision
// does not read into, and Skipped(s) the working-tree entries it left out;
// a report should mention both.
type Snapshot interface {
	// Ref is the ref as given by the user (or WorktreeRef).
	Ref() string
	// Commit is the resolved sha; for the working tree, HEAD's sha or ""
	// when there is no commit.
	Commit() string
	// Files lists every regular file (and symlink path) of the revision,
	// repo-relative, forward slashes, sorted. Submodules (gitlinks) are
	// excluded. For the working tree: tracked files that still exist on
	// disk plus untracked non-ignored files. The caller gets its own copy.
	Files() []string
	// ReadFiles returns the contents of the given paths, which must all be
	// in Files() (otherwise an error naming the path). The content of a
	// symlink is its target, as git stores it, for the working tree too:
	// a link is never followed. A file above MaxFileSize gives a
	// *FileTooLargeError, a path that is not valid UTF-8 a
	// *FileNameError, an object missing from a (partial) clone a
	// *MissingObjectError.
	ReadFiles(paths []string) (map[string][]byte, error)
	// IsSymlink reports whether path is a symbolic link of the revision
	// (its content, as ReadFiles gives it, is the link's target).
	IsSymlink(path string) bool
	// Close stops any git process. Safe to call twice.
	Close() error
}

// MaxFileSize is the largest file ReadFiles returns: 8 MiB. Go files of
// API packages are far smaller (Kubernetes' largest hand-written types.go
// is about 0.4 MiB); generated code, which can be larger, is not scanned.
const MaxFileSize = 8 << 20

// FileTooLargeError is a file above MaxFileSize that ReadFiles was asked for.
type FileTooLargeError struct {
	Path  string // repo-relative
	Rev   string // the revision, in words
	Size  int64
	Limit int64 // MaxFileSize
}

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("%s in %s is %d bytes, above apicheck's limit of %d bytes per file", quote.Name(e.Path), e.Rev, e.Size, e.Limit)
}

// limit is the largest file ReadFiles returns.
func (r *Repo) limit() int64 {
	if r.fileLimit > 0 {
		return r.fileLimit
	}
	return MaxFileSize
}

// FileNameError is a file ReadFiles was asked for whose name is not valid
// UTF-8: apicheck could not name it correctly in its reports. (Files lists
// such files; only reading one is an error.)
type FileNameError struct {
	Path string // repo-relative, as git stores it
	Rev  string
}

func (e *FileNameError) Error() string {
	return fmt.Sprintf("file name %q in %s is not valid UTF-8: apicheck cannot report on it (rename the file)", e.Path, e.Rev)
}

// MissingObjectError is an object that a revision needs and the local
// object store lacks. In a partial clone (git clone --filter) that is
// expected: apicheck never fetches (lazy fetching is off), so the error
// says how to fetch the objects first.
type MissingObjectError struct {
	OID  string
	Path string // the file it holds, "" when unknown
	Rev  string // the revision, in words
	// Commit is the revision's commit, for the fetch advice.
	Commit string
	// Partial is set in a partial clone; Remote is its promisor remote.
	Partial bool
	Remote  string
}

func (e *MissingObjectError) Error() string {
	what := "object " + e.OID
	if e.Path != "" {
		what = fmt.Sprintf("%s (object %s)", quote.Name(e.Path), e.OID)
	}
	if e.Rev != "" {
		what += " of " + e.Rev
	}
	if !e.Partial {
		return what + " is missing from the object store (is this a damaged clone?)"
	}
	remote, commit := e.Remote, e.Commit
	if remote == "" {
		remote = "origin"
	}
	if commit == "" {
		commit = "<commit>"
	}
	return fmt.Sprintf("%s is not in this partial clone (git clone --filter), and apicheck never fetches missing objects: "+
		"fetch them first with `git fetch --refetch --no-filter %s %s` (git 2.36 or later), or clone without --filter", what, remote, commit)
}

// SkippedFile is an entry of the working tree that a snapshot leaves out
// of Files, and why.
type SkippedFile struct {
	Path   string // repo-relative, forward slashes
	Reason string // e.g. "named pipe (FIFO), not opened"
}

func (s SkippedFile) String() string { return s.Path + ": " + s.Reason }

// Submodules returns the paths of the submodules (gitlinks) of s, sorted.
// Their files are not part of the snapshot: API groups inside a submodule
// are not read, and a report should say so, naming them.
func Submodules(s Snapshot) []string {
	if x, ok := s.(interface{ Submodules() []string }); ok {
		return x.Submodules()
	}
	return nil
}

// Skipped returns the entries of a working-tree snapshot that are not in
// its Files although git lists them, sorted by path: special files (named
// pipes, sockets, devices: never opened), tracked files below a directory
// that is now a symbolic link (git does not follow it either) and nested
// git repositories. It is nil for a commit. A report should show them in
// a note.
func Skipped(s Snapshot) []SkippedFile {
	if x, ok := s.(interface{ Skipped() []SkippedFile }); ok {
		return x.Skipped()
	}
	return nil
}

// Git file modes, as ls-tree and ls-files print them.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
	modeTree    = "40000" // in tree objects; ls-tree prints 040000
)

// isFileMode reports whether mode is a blob that Files lists: a regular
// file, an executable or a symlink. Gitlinks (submodules) and anything else
// (e.g. sparse-index directories) are not.
func isFileMode(mode string) bool {
	return mode == modeFile || mode == modeExec || mode == modeSymlink
}

// Snapshot opens a read-only view of one revision. ref == WorktreeRef gives
// the working tree (an *UnknownRefError wrapping ErrNoWorkTree in a bare
// repository). The caller must Close it.
func (r *Repo) Snapshot(ref string) (Snapshot, error) {
	if ref == WorktreeRef {
		if r.Bare {
			return nil, &UnknownRefError{Ref: ref, Err: ErrNoWorkTree,
				Detail: r.Root + " is a bare repository: name a commit to read instead (check --head REF, audit and dump --rev REF)"}
		}
		return r.worktreeSnapshot()
	}
	if isFullSHA(ref) {
		// A full sha needs no resolving: listing <sha>^{commit} reads the
		// files and checks that it names a commit.
		// On failure ResolveCommit says why, as for any other ref.
		s, err := r.commitSnapshot(ref, ref)
		if err == nil {
			r.commits.Store(ref, ref)
			return s, nil
		}
		if _, rerr := r.ResolveCommit(ref); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	sha, err := r.ResolveCommit(ref)
	if err != nil {
		return nil, err
	}
	return r.commitSnapshot(ref, sha)
}

// strictlySorted reports a non-empty list in increasing order without
// duplicates.
func strictlySorted(list []string) bool {
	for i := 1; i < len(list); i++ {
		if list[i-1] >= list[i] {
			return false
		}
	}
	return len(list) > 0
}

// uniquePaths checks that every path is known and returns them without
// duplicates, in the given order.
func uniquePaths[V any](paths []string, known map[string]V, rev string) ([]string, error) {
	seen := make(map[string]bool, len(paths))
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if _, ok := known[p]; !ok {
			return nil, fmt.Errorf("%s: no such file in %s", quote.Name(p), rev)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// checkNames fails on the first path that is not valid UTF-8.
func checkNames(paths []string, rev string) error {
	for _, p := range paths {
		if !utf8.ValidString(p) {
			return &FileNameError{Path: p, Rev: rev}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Working-tree snapshots

// worktreeSnapshot reads files from disk, through an os.Root: no path,
// whatever symbolic links the working tree holds, resolves outside the
// repository. Symbolic links read as their target text (as git stores
// them), never as the content they point to; special files are never
// opened; a regular file is opened with O_NOFOLLOW|O_NONBLOCK (where the
// platform has them) and checked again after opening, so a file swapped
// for a link or a FIFO after the listing can neither be followed nor hang
// the read.
type worktreeSnapshot struct {
	repo       *Repo
	root       *os.Root
	head       string
	kinds      map[string]os.FileMode // path -> os.ModeSymlink or 0 for a regular file
	files      []string
	submodules []string
	skipped    []SkippedFile
}

const worktreeRev = "the working tree"

func (r *Repo) worktreeSnapshot() (*worktreeSnapshot, error) {
	head, err := r.HeadCommit()
	if err != nil {
		return nil, err
	}
	// Tracked files, with their modes so that gitlinks can be left out.
	// (ls-files cannot print modes for untracked files, hence two calls.)
	staged, err := r.run("ls-files", "-z", "--cached", "--stage")
	if err != nil {
		return nil, fmt.Errorf("list tracked files of the working tree: %w", err)
	}
	s := &worktreeSnapshot{repo: r, head: head, kinds: map[string]os.FileMode{}}
	candidates := map[string]bool{}
	submodules := map[string]bool{}
	for _, rec := range bytes.Split(staged, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> SP <oid> SP <stage> TAB <path>"; a conflicted path has
		// several stages, the map dedupes them.
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("list tracked files: unexpected git ls-files output %q", rec)
		}
		switch {
		case isFileMode(fields[0]):
			candidates[string(path)] = true
		case fields[0] == modeGitlink:
			submodules[string(path)] = true
		}
	}
	others, err := r.run("ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list untracked files of the working tree: %w", err)
	}
	for _, rec := range bytes.Split(others, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// A nested repository is listed as "dir/": it is not a file.
		if rec[len(rec)-1] == '/' {
			s.skipped = append(s.skipped, SkippedFile{string(rec[:len(rec)-1]), "nested git repository, not read"})
			continue
		}
		candidates[string(rec)] = true
	}
	s.submodules = slices.Sorted(maps.Keys(submodules))

	s.root, err = os.OpenRoot(r.Root)
	if err != nil {
		return nil, fmt.Errorf("working tree: %w", err)
	}
	dirs := map[string]dirState{}
	for _, p := range slices.Sorted(maps.Keys(candidates)) {
		if s.dirState(path.Dir(p), dirs) != dirOK {
			continue
		}
		fi, err := s.root.Lstat(filepath.FromSlash(p))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue // deleted on disk
			}
			s.root.Close()
			return nil, fmt.Errorf("working tree: %w", err)
		}
		switch m := fi.Mode(); {
		case m.IsRegular():
			s.kinds[p] = 0
		case m&os.ModeSymlink != 0:
			s.kinds[p] = os.ModeSymlink
		case m.IsDir():
			// A tracked file replaced by a directory: as good as deleted.
		default:
			s.skipped = append(s.skipped, SkippedFile{p, specialReason(m)})
		}
	}
	sort.Slice(s.skipped, func(i, j int) bool { return s.skipped[i].Path < s.skipped[j].Path })
	s.files = slices.Sorted(maps.Keys(s.kinds))
	return s, nil
}

// dirState is what a directory of listed paths turned out to be on disk.
type dirState int

const (
	dirOK   dirState = iota // a directory: its files can be read
	dirGone                 // missing, not a directory, or below a dirLink: its files are deleted
	dirLink                 // a symbolic link (noted in skipped)
)

// dirState checks directory d and, first, its parents, caching the results
// in dirs. A tracked file below a directory that is now a symbolic link is
// treated as deleted, as git does, and the link is recorded in s.skipped;
// the snapshot never follows it.
func (s *worktreeSnapshot) dirState(d string, dirs map[string]dirState) dirState {
	if d == "." || d == "" {
		return dirOK
	}
	if st, ok := dirs[d]; ok {
		return st
	}
	st := dirGone
	if s.dirState(path.Dir(d), dirs) == dirOK {
		fi, err := s.root.Lstat(filepath.FromSlash(d))
		switch {
		case err != nil:
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				s.skipped = append(s.skipped, SkippedFile{d, "directory cannot be read: " + err.Error()})
			}
		case fi.Mode()&os.ModeSymlink != 0:
			st = dirLink
			s.skipped = append(s.skipped, SkippedFile{d, "directory replaced by a symbolic link; the tracked files below it are not read (git does not follow it either)"})
		case fi.IsDir():
			st = dirOK
		}
	}
	dirs[d] = st
	return st
}

// specialReason describes a file that is neither regular, a link nor a
// directory.
func specialReason(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe (FIFO), not opened"
	case m&os.ModeSocket != 0:
		return "socket, not opened"
	case m&os.ModeDevice != 0:
		return "device file, not opened"
	}
	return fmt.Sprintf("not a regular file (%v), not opened", m.Type())
}

func (s *worktreeSnapshot) Ref() string    { return WorktreeRef }
func (s *worktreeSnapshot) Commit() string { return s.head }
func (s *worktreeSnapshot) Files() []string {
	return append([]string(nil), s.files...)
}

// Submodules lists the gitlinks of the index.
func (s *worktreeSnapshot) Submodules() []string {
	return append([]string(nil), s.submodules...)
}

// Skipped lists what the snapshot left out, see the package function.
func (s *worktreeSnapshot) Skipped() []SkippedFile {
	return append([]SkippedFile(nil), s.skipped...)
}

// Close releases the directory handle; safe to call twice.
func (s *worktreeSnapshot) Close() error {
	s.root.Close()
	return nil
}

func (s *worktreeSnapshot) IsSymlink(path string) bool { return s.kinds[path] == os.ModeSymlink }

func (s *worktreeSnapshot) ReadFiles(paths []string) (map[string][]byte, error) {
	want, err := uniquePaths(paths, s.kinds, worktreeRev)
	if err != nil {
		return nil, err
	}
	if err := checkNames(want, worktreeRev); err != nil {
		return nil, err
	}
	type result struct {
		path string
		data []byte
		err  error
	}
	jobs := make(chan string)
	results := make(chan result)
	workers := min(runtime.GOMAXPROCS(0)*2, 16, len(want))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				data, err := s.readOne(p)
				results <- result{p, data, err}
			}
		}()
	}
	go func() {
		for _, p := range want {
			jobs <- p
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	files := make(map[string][]byte, len(want))
	failed := map[string]error{}
	for res := range results {
		if res.err != nil {
			failed[res.path] = res.err
			continue
		}
		files[res.path] = res.data
	}
	for _, p := range want {
		// Report the first failing path in request order, so the message is stable.
		if err := failed[p]; err != nil {
			return nil, err
		}
	}
	return files, nil
}

// readOne reads one working-tree file; a symlink reads as its target, the
// way git stores it.
func (s *worktreeSnapshot) readOne(p string) ([]byte, error) {
	name := filepath.FromSlash(p)
	if s.kinds[p] == os.ModeSymlink {
		target, err := s.root.Readlink(name)
		if err != nil {
			return nil, fmt.Errorf("read %s from the working tree: %w", quote.Name(p), err)
		}
		return []byte(filepath.ToSlash(target)), nil
	}
	f, err := s.root.OpenFile(name, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s from the working tree: %w", quote.Name(p), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s from the working tree: %w", quote.Name(p), err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s from the working tree: it changed into a %s while apicheck ran", quote.Name(p), specialReason(fi.Mode()))
	}
	limit := s.repo.limit()
	if fi.Size() > limit {
		return nil, &FileTooLargeError{Path: p, Rev: worktreeRev, Size: fi.Size(), Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s from the working tree: %w", quote.Name(p), err)
	}
	if int64(len(data)) > limit {
		return nil, &FileTooLargeError{Path: p, Rev: worktreeRev, Size: int64(len(data)), Limit: limit}
	}
	return data, nil
}
