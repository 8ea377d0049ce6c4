package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// Snapshot is a read-only view of one revision: a commit, or the working tree.
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
	// symlink is its target, as git stores it, for the working tree too.
	ReadFiles(paths []string) (map[string][]byte, error)
	// Close stops any git process. Safe to call twice.
	Close() error
}

// Git file modes, as ls-tree and ls-files print them.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
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
	sha, err := r.ResolveCommit(ref)
	if err != nil {
		return nil, err
	}
	return r.commitSnapshot(ref, sha)
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// uniquePaths checks that every path is known and returns them without
// duplicates, in the given order.
func uniquePaths[V any](paths []string, known map[string]V, rev string) ([]string, error) {
	seen := make(map[string]bool, len(paths))
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if _, ok := known[p]; !ok {
			return nil, fmt.Errorf("%s: no such file in %s", p, rev)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Commit snapshots

// commitSnapshot reads blobs through an ObjectReader: one long-lived
// `git cat-file --batch`, started on the first ReadFiles.
type commitSnapshot struct {
	ref     string
	sha     string
	blobs   map[string]string // path -> blob oid
	files   []string          // sorted
	objects *ObjectReader
}

func (r *Repo) commitSnapshot(ref, sha string) (*commitSnapshot, error) {
	out, err := r.run("ls-tree", "-r", "-z", "--full-tree", sha)
	if err != nil {
		return nil, fmt.Errorf("list files of %s: %w", ref, err)
	}
	s := &commitSnapshot{ref: ref, sha: sha, blobs: map[string]string{}, objects: newObjectReader(r)}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> SP <type> SP <oid> TAB <path>"
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("list files of %s: unexpected git ls-tree output %q", ref, rec)
		}
		if !isFileMode(fields[0]) || fields[1] != "blob" {
			continue
		}
		s.blobs[string(path)] = fields[2]
	}
	s.files = sortedKeys(s.blobs)
	return s, nil
}

func (s *commitSnapshot) Ref() string    { return s.ref }
func (s *commitSnapshot) Commit() string { return s.sha }
func (s *commitSnapshot) Files() []string {
	return append([]string(nil), s.files...)
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

func (s *commitSnapshot) ReadFiles(paths []string) (map[string][]byte, error) {
	want, err := uniquePaths(paths, s.blobs, s.rev())
	if err != nil {
		return nil, err
	}
	oids := make([]string, len(want))
	for i, p := range want {
		oids[i] = s.blobs[p]
	}
	objs, err := s.objects.Get(oids)
	if err != nil {
		switch {
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
			return nil, fmt.Errorf("read %s from %s: blob %s is missing from the object store (is this a partial or damaged clone?)", p, s.rev(), oid)
		case o.OID != oid:
			return nil, fmt.Errorf("read %s from %s: git cat-file answered for object %s, expected %s", p, s.rev(), o.OID, oid)
		case o.Type != "blob":
			return nil, fmt.Errorf("read %s from %s: object %s is a %s, not a blob", p, s.rev(), oid, o.Type)
		}
		files[p] = o.Data
	}
	return files, nil
}

// Close stops git; it is safe to call twice, and during a ReadFiles.
func (s *commitSnapshot) Close() error {
	if err := s.objects.Close(); err != nil {
		return fmt.Errorf("%s: %w", s.rev(), err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Working-tree snapshots

// worktreeSnapshot reads files from disk.
type worktreeSnapshot struct {
	repo  *Repo
	head  string
	kinds map[string]os.FileMode // path -> os.ModeSymlink or 0 for a regular file
	files []string
}

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
	candidates := map[string]bool{}
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
		if isFileMode(fields[0]) {
			candidates[string(path)] = true
		}
	}
	others, err := r.run("ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list untracked files of the working tree: %w", err)
	}
	for _, rec := range bytes.Split(others, []byte{0}) {
		// A nested repository is listed as "dir/": it is not a file.
		if len(rec) == 0 || rec[len(rec)-1] == '/' {
			continue
		}
		candidates[string(rec)] = true
	}

	s := &worktreeSnapshot{repo: r, head: head, kinds: map[string]os.FileMode{}}
	for p := range candidates {
		fi, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(p)))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue // deleted on disk (or a parent became a file)
			}
			return nil, fmt.Errorf("working tree: %w", err)
		}
		switch {
		case fi.Mode().IsRegular():
			s.kinds[p] = 0
		case fi.Mode()&os.ModeSymlink != 0:
			s.kinds[p] = os.ModeSymlink
		}
		// Anything else (a tracked file replaced by a directory, ...) is
		// not a file of the working tree.
	}
	s.files = sortedKeys(s.kinds)
	return s, nil
}

func (s *worktreeSnapshot) Ref() string    { return WorktreeRef }
func (s *worktreeSnapshot) Commit() string { return s.head }
func (s *worktreeSnapshot) Files() []string {
	return append([]string(nil), s.files...)
}
func (s *worktreeSnapshot) Close() error { return nil }

func (s *worktreeSnapshot) ReadFiles(paths []string) (map[string][]byte, error) {
	want, err := uniquePaths(paths, s.kinds, "the working tree")
	if err != nil {
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
	full := filepath.Join(s.repo.Root, filepath.FromSlash(p))
	if s.kinds[p] == os.ModeSymlink {
		target, err := os.Readlink(full)
		if err != nil {
			return nil, fmt.Errorf("read %s from the working tree: %w", p, err)
		}
		return []byte(filepath.ToSlash(target)), nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("read %s from the working tree: %w", p, err)
	}
	return data, nil
}
