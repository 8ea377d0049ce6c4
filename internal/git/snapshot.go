package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
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
// the working tree. The caller must Close it.
func (r *Repo) Snapshot(ref string) (Snapshot, error) {
	if ref == WorktreeRef {
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

// commitSnapshot reads blobs through one long-lived `git cat-file --batch`.
type commitSnapshot struct {
	repo  *Repo
	ref   string
	sha   string
	blobs map[string]string // path -> blob oid
	files []string          // sorted

	// proc is the running cat-file process, guarded by procMu rather than
	// mu so that Close can kill it while a ReadFiles holds mu.
	procMu      sync.Mutex
	proc        *os.Process
	interrupted bool // Close killed proc to stop a running ReadFiles

	mu     sync.Mutex // serialises use of the cat-file process
	closed bool
	broken error // set once the cat-file stream can no longer be trusted
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *lockedBuffer
}

func (r *Repo) commitSnapshot(ref, sha string) (*commitSnapshot, error) {
	out, err := r.run("-c", "core.quotepath=off", "ls-tree", "-r", "-z", "--full-tree", sha)
	if err != nil {
		return nil, fmt.Errorf("list files of %s: %w", ref, err)
	}
	s := &commitSnapshot{repo: r, ref: ref, sha: sha, blobs: map[string]string{}}
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

// start launches cat-file; s.mu is held.
func (s *commitSnapshot) start() error {
	cmd := gitCommand(s.repo.Root, "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	s.stderr = &lockedBuffer{}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return startError(err)
	}
	s.cmd, s.stdin, s.stdout = cmd, stdin, bufio.NewReaderSize(stdout, 64<<10)
	s.procMu.Lock()
	s.proc = cmd.Process
	s.procMu.Unlock()
	return nil
}

func (s *commitSnapshot) ReadFiles(paths []string) (map[string][]byte, error) {
	want, err := uniquePaths(paths, s.blobs, s.rev())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("read files of %s: snapshot is closed", s.rev())
	}
	if s.broken != nil {
		return nil, s.broken
	}
	if len(want) == 0 {
		return map[string][]byte{}, nil
	}
	if s.cmd == nil {
		if err := s.start(); err != nil {
			return nil, err
		}
	}

	// Write every request from a goroutine while this one reads the answers:
	// git answers as it reads, so writing everything first could fill both
	// pipes and deadlock.
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(s.stdin, 32<<10)
		for _, p := range want {
			if _, err := io.WriteString(w, s.blobs[p]+"\n"); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- w.Flush()
	}()

	files := make(map[string][]byte, len(want))
	for _, p := range want {
		data, err := s.readObject(s.blobs[p])
		if err != nil {
			// The stream is out of step now: stop git (which also unblocks
			// the writer) and refuse further reads.
			s.kill()
			<-writeErr
			s.procMu.Lock()
			interrupted := s.interrupted
			s.procMu.Unlock()
			if interrupted {
				s.broken = fmt.Errorf("read files of %s: snapshot closed while reading", s.rev())
			} else {
				s.broken = fmt.Errorf("read %s from %s: %w", p, s.rev(), err)
			}
			return nil, s.broken
		}
		files[p] = data
	}
	if err := <-writeErr; err != nil {
		// Every answer arrived, so this cannot really happen; be safe.
		s.kill()
		s.broken = fmt.Errorf("read files of %s: writing to git cat-file: %w", s.rev(), err)
		return nil, s.broken
	}
	return files, nil
}

// readObject reads one "<oid> SP <type> SP <size> LF <content> LF" answer.
func (s *commitSnapshot) readObject(oid string) ([]byte, error) {
	header, err := s.stdout.ReadString('\n')
	if err != nil {
		return nil, s.processError(fmt.Errorf("git cat-file stopped answering: %w", err))
	}
	header = strings.TrimSuffix(header, "\n")
	fields := strings.Fields(header)
	if len(fields) == 2 && fields[1] == "missing" {
		return nil, fmt.Errorf("blob %s is missing from the object store (is this a partial or damaged clone?)", oid)
	}
	if len(fields) != 3 {
		return nil, fmt.Errorf("unexpected git cat-file answer %q", header)
	}
	if fields[0] != oid {
		return nil, fmt.Errorf("git cat-file answered for object %s, expected %s", fields[0], oid)
	}
	if fields[1] != "blob" {
		return nil, fmt.Errorf("object %s is a %s, not a blob", oid, fields[1])
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("unexpected git cat-file answer %q", header)
	}
	data := make([]byte, size+1) // content and its trailing LF
	if _, err := io.ReadFull(s.stdout, data); err != nil {
		return nil, s.processError(fmt.Errorf("git cat-file answer for %s cut short: %w", oid, err))
	}
	if data[size] != '\n' {
		return nil, fmt.Errorf("git cat-file answer for %s is not terminated by a newline", oid)
	}
	return data[:size:size], nil
}

// processError adds what git printed on stderr, if anything, to err.
// It is used when the process seems to have died; it waits for it so that
// its stderr is complete.
func (s *commitSnapshot) processError(err error) error {
	s.kill()
	if msg := cleanStderr(s.stderr.Bytes()); msg != "" {
		return fmt.Errorf("%w (git said: %s)", err, msg)
	}
	return err
}

// kill stops the cat-file process, if any, and waits for it; s.mu is held.
func (s *commitSnapshot) kill() {
	if s.cmd == nil {
		return
	}
	s.stdin.Close()
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
	s.cmd = nil
	s.procMu.Lock()
	s.proc = nil
	s.procMu.Unlock()
}

func (s *commitSnapshot) Close() error {
	if !s.mu.TryLock() {
		// A ReadFiles is running (or stuck, e.g. on a git waiting for the
		// network in a partial clone): kill git so that it returns.
		s.procMu.Lock()
		if s.proc != nil {
			s.interrupted = true
			_ = s.proc.Kill()
		}
		s.procMu.Unlock()
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cmd == nil {
		return nil
	}
	// cat-file exits by itself at end of input.
	s.stdin.Close()
	err := s.cmd.Wait()
	s.cmd = nil
	s.procMu.Lock()
	s.proc = nil
	interrupted := s.interrupted
	s.procMu.Unlock()
	if err != nil && s.broken == nil && !interrupted {
		if msg := cleanStderr(s.stderr.Bytes()); msg != "" {
			return fmt.Errorf("git cat-file for %s: %s", s.rev(), msg)
		}
		return fmt.Errorf("git cat-file for %s: %w", s.rev(), err)
	}
	return nil
}

// lockedBuffer is a bytes.Buffer safe for one writer and concurrent readers;
// it keeps at most 64 KiB so that a chatty process cannot eat memory.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 64<<10 - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
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
	staged, err := r.run("-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--stage")
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
	others, err := r.run("-c", "core.quotepath=off", "ls-files", "-z", "--others", "--exclude-standard")
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
