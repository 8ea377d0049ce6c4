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
	"sync/atomic"
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
// Commit snapshots

// commitSnapshot reads blobs through the repository's shared
// ObjectReader: one long-lived `git cat-file --batch` for all the open
// commit snapshots of a Repo (base and head of a check share it), started
// on the first ReadFiles and stopped when the last of them is closed.
type commitSnapshot struct {
	repo       *Repo
	ref        string
	sha        string
	blobs      map[string]string // path -> blob oid
	links      map[string]bool   // the paths of blobs that are symbolic links
	files      []string          // sorted
	submodules []string          // sorted
	objects    *ObjectReader

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

func (r *Repo) commitSnapshot(ref, sha string) (*commitSnapshot, error) {
	s := &commitSnapshot{repo: r, ref: ref, sha: sha, blobs: map[string]string{}}
	s.objects = r.acquireObjects()
	if err := s.list(); err != nil {
		_ = r.releaseObjects(s.objects)
		return nil, err
	}
	// ls-tree lists a tree's paths in order (git sorts a directory as
	// its name plus "/"), walkTree level by level; a malformed tree may
	// list a path twice.
	if !strictlySorted(s.files) {
		s.files = slices.Sorted(maps.Keys(s.blobs))
	}
	sort.Strings(s.submodules)
	return s, nil
}

// list lists the commit's files: `git ls-tree -r` in a process of its
// own (base's and head's run side by side on two cores), else, when that
// fails (a partial clone without trees, an old git), walkTree, whose
// errors say which object is missing.
func (s *commitSnapshot) list() error {
	if s.lsTree() == nil {
		return nil
	}
	clear(s.blobs)
	s.files, s.submodules, s.links = nil, nil, nil
	return s.walkTree()
}

// lsTree lists the commit's files with one `git ls-tree -r -z` (a commit
// of 5,400 files and 1,500 directories in 17 ms, where walkTree's
// round trips per directory level took 40 ms for base and head).
func (s *commitSnapshot) lsTree() error {
	out, err := s.repo.run("ls-tree", "-r", "-z", "--full-tree", "--end-of-options", s.sha+"^{commit}")
	if err != nil {
		return err
	}
	// One copy of the listing: the paths and ids kept are slices of it,
	// and the map is sized once (a Gardener commit lists 5,400 files).
	text := string(out)
	n := strings.Count(text, "\x00")
	s.blobs = make(map[string]string, n)
	s.files = make([]string, 0, n)
	for len(text) > 0 {
		rec, rest, ok := strings.Cut(text, "\x00")
		if !ok {
			return fmt.Errorf("list files of %s: git ls-tree output ends without NUL", s.ref)
		}
		text = rest
		// "<mode> SP <type> SP <oid> TAB <path>"
		meta, path, ok := strings.Cut(rec, "\t")
		mode, meta2, ok1 := strings.Cut(meta, " ")
		_, oid, ok2 := strings.Cut(meta2, " ")
		if !ok || !ok1 || !ok2 || len(path) == 0 || len(oid) == 0 {
			return fmt.Errorf("list files of %s: unexpected git ls-tree output %q", s.ref, rec)
		}
		switch {
		case mode == modeGitlink:
			s.submodules = append(s.submodules, path)
		case isFileMode(mode):
			s.blobs[path] = oid
			s.files = append(s.files, path)
			s.addLink(path, mode)
		}
	}
	return nil
}

// walkTree reads the commit's tree through the shared cat-file process,
// one batch of requests per directory level, what `git ls-tree -r` prints
// without a process of its own; a directory that another revision of the
// run has (the same tree object) is parsed once.
func (s *commitSnapshot) walkTree() error {
	objs, err := s.objects.Get([]string{s.sha + "^{commit}"})
	if err != nil {
		return s.listError(err)
	}
	c := objs[0]
	if c.Missing || c.Type != "commit" {
		return fmt.Errorf("list files of %s: %s does not name a commit", s.ref, s.sha)
	}
	root, ok := commitTree(c.Data)
	if !ok {
		return fmt.Errorf("list files of %s: commit %s has no tree", s.ref, c.OID)
	}
	type dir struct{ path, oid string }
	level := []dir{{"", root}}
	for len(level) > 0 {
		var read []string // trees not parsed yet
		for _, d := range level {
			if _, ok := s.repo.trees.Load(d.oid); !ok {
				read = append(read, d.oid)
			}
		}
		objs, err := s.objects.Get(read)
		if err != nil {
			return s.listError(err)
		}
		for i, o := range objs {
			var entries []TreeEntry
			switch {
			case o.Missing:
				return s.missing(&MissingObjectError{OID: read[i]})
			case o.Type != "tree":
				return fmt.Errorf("list files of %s: object %s is a %s, not a tree", s.ref, read[i], o.Type)
			case o.tooLarge:
				return fmt.Errorf("list files of %s: tree object %s is %d bytes, more than apicheck's limit of %d", s.ref, read[i], o.Size, s.objects.maxSize)
			}
			if entries, err = ParseTree(o.Data, len(o.OID)/2); err != nil {
				return fmt.Errorf("list files of %s: tree %s: %w", s.ref, read[i], err)
			}
			s.repo.trees.Store(read[i], entries)
		}
		var next []dir
		for _, d := range level {
			v, _ := s.repo.trees.Load(d.oid)
			for _, e := range v.([]TreeEntry) {
				p := e.Name
				if d.path != "" {
					p = d.path + "/" + e.Name
				}
				switch {
				case e.Mode == modeTree:
					next = append(next, dir{p, e.OID})
				case e.Mode == modeGitlink:
					s.submodules = append(s.submodules, p)
				case isFileMode(e.Mode):
					s.blobs[p] = e.OID
					s.addLink(p, e.Mode)
				}
			}
		}
		level = next
	}
	return nil
}

// listError words a failure of the cat-file process while listing.
func (s *commitSnapshot) listError(err error) error {
	var me *MissingObjectError
	if errors.As(err, &me) {
		c := *me
		return s.missing(&c)
	}
	return fmt.Errorf("list files of %s: %w", s.ref, err)
}

// commitTree returns the tree oid of a commit object's content.
func commitTree(data []byte) (string, bool) {
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	oid, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || len(oid) == 0 {
		return "", false
	}
	return string(oid), true
}

// BlobIDs is implemented by the snapshots of a commit: BlobID returns
// the blob id of a file of Files(), so that a caller reading the same
// file at two revisions can tell when it is the same content without
// reading it.
type BlobIDs interface {
	BlobID(path string) (oid string, ok bool)
}

func (s *commitSnapshot) BlobID(path string) (string, bool) {
	oid, ok := s.blobs[path]
	return oid, ok
}

func (s *commitSnapshot) Ref() string    { return s.ref }
func (s *commitSnapshot) Commit() string { return s.sha }
func (s *commitSnapshot) Files() []string {
	return append([]string(nil), s.files...)
}

// Submodules lists the gitlinks of the commit.
func (s *commitSnapshot) Submodules() []string {
	return append([]string(nil), s.submodules...)
}

// rev names the revision in messages.
func (s *commitSnapshot) rev() string {
	if s.ref == s.sha {
		return "commit " + shortSHA(s.sha)
	}
	return fmt.Sprintf("%s (%s)", s.ref, shortSHA(s.sha))
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// missing completes a MissingObjectError: the revision, the path of the
// object if it is a file of the revision, and the promisor remote.
func (s *commitSnapshot) missing(e *MissingObjectError) error {
	e.Rev, e.Commit = s.rev(), s.sha
	if e.Path == "" {
		for p, oid := range s.blobs {
			if oid == e.OID && (e.Path == "" || p < e.Path) {
				e.Path = p
			}
		}
	}
	if remote := s.repo.promisorRemote(); remote != "" {
		e.Partial, e.Remote = true, remote
	}
	return e
}

// addLink records path as a symbolic link when mode says it is one.
func (s *commitSnapshot) addLink(path, mode string) {
	if mode != modeSymlink {
		return
	}
	if s.links == nil {
		s.links = map[string]bool{}
	}
	s.links[path] = true
}

func (s *commitSnapshot) IsSymlink(path string) bool { return s.links[path] }

func (s *commitSnapshot) ReadFiles(paths []string) (map[string][]byte, error) {
	want, err := uniquePaths(paths, s.blobs, s.rev())
	if err != nil {
		return nil, err
	}
	if err := checkNames(want, s.rev()); err != nil {
		return nil, err
	}
	oids := make([]string, len(want))
	for i, p := range want {
		oids[i] = s.blobs[p]
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("read files of %s: snapshot is closed", s.rev())
	}
	objs, err := s.objects.Get(oids)
	if err == nil && s.closed.Load() {
		err = errClosedWhileReading
	}
	if err != nil {
		var me *MissingObjectError
		switch {
		case errors.As(err, &me):
			c := *me
			return nil, s.missing(&c)
		case errors.Is(err, errClosedWhileReading):
			return nil, fmt.Errorf("read files of %s: snapshot closed while reading", s.rev())
		case errors.Is(err, errReaderClosed):
			return nil, fmt.Errorf("read files of %s: snapshot is closed", s.rev())
		}
		return nil, fmt.Errorf("read files of %s: %w", s.rev(), err)
	}
	files := make(map[string][]byte, len(want))
	for i, p := range want {
		o, oid := objs[i], oids[i]
		switch {
		case o.Missing:
			return nil, s.missing(&MissingObjectError{OID: oid, Path: p})
		case o.OID != oid:
			return nil, fmt.Errorf("read %s from %s: git cat-file answered for object %s, expected %s", quote.Name(p), s.rev(), o.OID, oid)
		case o.Type != "blob":
			return nil, fmt.Errorf("read %s from %s: object %s is a %s, not a blob", quote.Name(p), s.rev(), oid, o.Type)
		case o.tooLarge:
			return nil, &FileTooLargeError{Path: p, Rev: s.rev(), Size: o.Size, Limit: s.objects.maxSize}
		}
		files[p] = o.Data
	}
	return files, nil
}

// Close releases the shared reader (stopping git when no other snapshot
// uses it); it is safe to call twice, and during a ReadFiles.
func (s *commitSnapshot) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if err := s.repo.releaseObjects(s.objects); err != nil {
			s.closeErr = fmt.Errorf("%s: %w", s.rev(), err)
		}
	})
	return s.closeErr
}

// acquireObjects returns the reader the repository's commit snapshots
// share, counting one more user.
func (r *Repo) acquireObjects() *ObjectReader {
	r.objMu.Lock()
	defer r.objMu.Unlock()
	if r.objects == nil {
		r.objects = newObjectReader(r)
		r.objects.maxSize = r.limit()
	}
	r.objUsers++
	return r.objects
}

// releaseObjects counts one user less of the shared reader and closes it
// when it was the last one (a later snapshot starts a new one).
func (r *Repo) releaseObjects(o *ObjectReader) error {
	r.objMu.Lock()
	last := false
	if r.objects == o {
		r.objUsers--
		if r.objUsers == 0 {
			r.objects, last = nil, true
		}
	}
	r.objMu.Unlock()
	if !last {
		return nil
	}
	return o.Close()
}

// promisorRemote returns the promisor remote of a partial clone, or "".
// Only used on error paths.
func (r *Repo) promisorRemote() string {
	out, err := r.run("config", "-z", "--get-regexp", `^(extensions\.partialclone|remote\..*\.promisor)$`)
	if err != nil {
		return ""
	}
	remote := ""
	for _, rec := range strings.Split(string(out), "\x00") {
		key, val, _ := strings.Cut(rec, "\n")
		switch {
		case key == "extensions.partialclone" && val != "":
			return val
		case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".promisor") && val == "true" && remote == "":
			remote = strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".promisor")
		}
	}
	return remote
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
