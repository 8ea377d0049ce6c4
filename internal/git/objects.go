package git

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Output runs a read-only git command in the repository and returns its
// stdout. git runs with the package's fixed environment and configuration
// (see exec.go); a diff-family subcommand (diff, diff-tree, log, show,
// ...) also gets --no-ext-diff and --no-textconv right after its name, and
// every filter driver of the repository's configuration is switched off,
// so that comparing working-tree files cannot run a repository-defined
// command. When git fails, the error names the command and carries git's
// stderr (hint lines dropped); the stdout printed so far is returned with
// it.
func (r *Repo) Output(args ...string) ([]byte, error) {
	env, err := r.driverOverrides()
	if err != nil {
		return nil, err
	}
	return r.runEnv(env, hardenArgs(args)...)
}

// Object is one answer of an ObjectReader.
type Object struct {
	// OID is the full object id ("" when Missing).
	OID string
	// Type is "blob", "tree", "commit" or "tag" ("" when Missing).
	Type string
	// Data is the raw object content (nil when Missing). A tree is in
	// git's binary format: see ParseTree.
	Data []byte
	// Missing is true when the name does not resolve to an object: an
	// unknown oid, a path absent from the revision, or an ambiguous name.
	Missing bool
	// Size is the object's size in bytes (0 when Missing).
	Size int64

	// tooLarge is set when Size is above the reader's limit: Data is nil.
	tooLarge bool
}

// errReaderClosed is the cause of every error of an ObjectReader that has
// been closed; errClosedWhileReading (which wraps it) is the error of a Get
// that Close interrupted.
var (
	errReaderClosed       = errors.New("object reader is closed")
	errClosedWhileReading = fmt.Errorf("%w while reading", errReaderClosed)
)

// ObjectReader reads objects through one long-lived `git cat-file
// --batch-command` process (`--batch` with a git older than 2.36). Get calls are serialised; Close may be called at any time, also
// while a Get is running (it then stops git so that the Get returns).
type ObjectReader struct {
	repo    *Repo
	maxSize int64 // objects above it are skipped (tooLarge); 0: no limit

	// proc is the running cat-file process, guarded by procMu rather than
	// mu so that Close can kill it while a Get holds mu.
	procMu      sync.Mutex
	proc        *os.Process
	procGroup   bool // proc leads its own process group
	interrupted bool // Close killed proc to stop a running Get

	mu     sync.Mutex // serialises use of the cat-file process
	closed bool
	broken error // set once the cat-file stream can no longer be trusted
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	// requests buffers what ask writes to stdin (one buffer for the
	// process's life, not one per batch).
	requests *bufio.Writer
	stdout   *bufio.Reader
	stderr   *lockedBuffer
	// commands is set when git runs with --batch-command (see ask).
	commands bool
}

// NewObjectReader starts `git cat-file --batch` in the repository. The
// caller must Close the reader. It runs until Close or until the
// repository's context (OpenContext) is done.
func (r *Repo) NewObjectReader() (*ObjectReader, error) {
	o := newObjectReader(r)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.start(); err != nil {
		return nil, err
	}
	return o, nil
}

// newObjectReader makes a reader that starts git on its first Get.
func newObjectReader(r *Repo) *ObjectReader {
	return &ObjectReader{repo: r}
}

// start launches cat-file; o.mu is held.
func (o *ObjectReader) start() error {
	if err := o.repo.context().Err(); err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	args := batchCommandArgs
	if o.repo.plainBatch.Load() {
		args = []string{"cat-file", "--batch"}
	}
	cmd := o.repo.command(nil, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	o.stderr = &lockedBuffer{}
	cmd.Stderr = o.stderr
	if err := cmd.Start(); err != nil {
		return startError(err)
	}
	o.cmd, o.stdin, o.stdout = cmd, stdin, bufio.NewReaderSize(stdout, 64<<10)
	o.requests = bufio.NewWriterSize(stdin, 32<<10)
	o.commands = !o.repo.plainBatch.Load()
	o.procMu.Lock()
	o.proc, o.procGroup = cmd.Process, ownGroup(cmd)
	o.procMu.Unlock()
	return nil
}

// Get looks up every name ("<oid>" or "<rev>:<path>", as git cat-file
// understands them) and returns the answers in the same order. A name that
// resolves to no object gives an Object with Missing set, not an error.
//
// Requests are written from a goroutine while the answers are read, so a
// batch of any size cannot deadlock on full pipes. An error (git died, the
// reader was closed) leaves the reader unusable: every later Get fails.
func (o *ObjectReader) Get(names []string) ([]Object, error) {
	out := make([]Object, len(names))
	if err := o.Each(names, func(i int, obj Object) { out[i] = obj }); err != nil {
		return nil, err
	}
	return out, nil
}

// Each is Get that hands each answer to fn as it arrives (in order, on
// the calling goroutine), so that the caller works on the first objects
// while git reads the next ones. fn must not use the reader. When Each
// fails, fn has seen some answers and not others.
func (o *ObjectReader) Each(names []string, fn func(i int, obj Object)) error {
	for _, n := range names {
		if strings.ContainsAny(n, "\n") {
			return fmt.Errorf("git cat-file: object name %q contains a newline", n)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errReaderClosed
	}
	if o.broken != nil {
		return o.broken
	}
	// The repository's context done: git is being killed (exec kills it
	// from a goroutine of its own), so nothing it would still answer
	// counts.
	if cerr := o.repo.context().Err(); cerr != nil {
		if o.cmd != nil {
			o.kill()
		}
		o.broken = fmt.Errorf("git cat-file: %w", cerr)
		return o.broken
	}
	if len(names) == 0 {
		return nil
	}
	if l := o.repo.readLog.Load(); l != nil {
		l.add(names)
	}
	if o.cmd == nil {
		if err := o.start(); err != nil {
			return err
		}
	}
	return o.ask(names, fn)
}

// ask is Each with git running; o.mu is held.
func (o *ObjectReader) ask(names []string, fn func(i int, obj Object)) error {
	// Write every request from a goroutine while this one reads the answers:
	// git answers as it reads, so writing everything first could fill both
	// pipes and deadlock. With --batch-command the answers are buffered
	// (--buffer) until the flush that ends the requests: one write of git
	// per buffer full rather than per object (a walk of a Gardener commit's
	// 1,500 trees in 20 ms instead of 34 ms).
	commands := o.commands
	writeErr := make(chan error, 1)
	w := o.requests
	go func() {
		for _, n := range names {
			if commands {
				w.WriteString("contents ")
			}
			w.WriteString(n)
			// The writer keeps its first error: WriteByte returns it.
			if err := w.WriteByte('\n'); err != nil {
				writeErr <- err
				return
			}
		}
		if commands {
			if _, err := io.WriteString(w, "flush\n"); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- w.Flush()
	}()

	for i, n := range names {
		obj, err := o.read(n)
		if err != nil {
			// The stream is out of step now: stop git (which also unblocks
			// the writer) and refuse further reads.
			o.kill()
			<-writeErr
			o.procMu.Lock()
			interrupted := o.interrupted
			o.procMu.Unlock()
			if i == 0 && commands && !interrupted && o.repo.context().Err() == nil && refusedCommands(o.stderr.Bytes()) {
				// A git older than 2.36: ask again with --batch.
				o.repo.plainBatch.Store(true)
				if err := o.start(); err != nil {
					return err
				}
				return o.ask(names, fn)
			}
			switch cerr := o.repo.context().Err(); {
			case interrupted:
				o.broken = errClosedWhileReading
			case cerr != nil:
				o.broken = fmt.Errorf("git cat-file: %w", cerr)
			default:
				o.broken = err
			}
			return o.broken
		}
		fn(i, obj)
	}
	if err := <-writeErr; err != nil {
		// Every answer arrived, so this cannot really happen; be safe.
		o.kill()
		o.broken = fmt.Errorf("writing to git cat-file: %w", err)
		return o.broken
	}
	return nil
}

// batchCommandArgs start cat-file with --batch-command (tests: a git
// that refuses it).
var batchCommandArgs = []string{"cat-file", "--batch-command", "--buffer"}

// refusedCommands recognises a git that does not know --batch-command
// (before 2.36): it exits with its usage.
func refusedCommands(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("batch-command"))
}

// read reads the answer to the request name:
// "<oid> SP <type> SP <size> LF <content> LF", or "<name> SP missing LF"
// (likewise "ambiguous").
func (o *ObjectReader) read(name string) (Object, error) {
	line, err := o.stdout.ReadSlice('\n') // valid until the next read
	if err == bufio.ErrBufferFull {
		rest, err2 := o.stdout.ReadString('\n')
		line, err = append(append([]byte(nil), line...), rest...), err2
	}
	if err != nil {
		return Object{}, o.processError(fmt.Errorf("git cat-file stopped answering: %w", err))
	}
	header := line[:len(line)-1]
	if bytes.HasSuffix(header, []byte(" missing")) || bytes.HasSuffix(header, []byte(" ambiguous")) {
		return Object{Missing: true}, nil
	}
	oid, typ, size, ok := parseHeader(header)
	if !ok || size < 0 || size != int64(int(size)) {
		return Object{}, fmt.Errorf("unexpected git cat-file answer %q", header)
	}
	if o.maxSize > 0 && size > o.maxSize {
		// Skip the content (and its LF) to stay in step with git.
		if _, err := io.CopyN(io.Discard, o.stdout, size+1); err != nil {
			return Object{}, o.processError(fmt.Errorf("git cat-file answer for %s cut short: %w", name, err))
		}
		return Object{OID: oid, Type: typ, Size: size, tooLarge: true}, nil
	}
	data := make([]byte, size+1) // content and its trailing LF
	if _, err := io.ReadFull(o.stdout, data); err != nil {
		return Object{}, o.processError(fmt.Errorf("git cat-file answer for %s cut short: %w", name, err))
	}
	if data[size] != '\n' {
		return Object{}, fmt.Errorf("git cat-file answer for %s is not terminated by a newline", name)
	}
	return Object{OID: oid, Type: typ, Data: data[:size:size], Size: size}, nil
}

// parseHeader reads "<oid> SP <type> SP <size>": three words separated
// by white space (strings.Fields), the size a decimal number
// (strconv.ParseInt). Git writes single spaces, lower-case hex, a type
// name and digits, which are read without allocating but for the oid.
func parseHeader(h []byte) (oid, typ string, size int64, ok bool) {
	a := bytes.IndexByte(h, ' ')
	b := a + 1 + bytes.IndexByte(h[a+1:], ' ')
	if a <= 0 || b <= a+1 || b+1 >= len(h) || !plainWord(h[:a]) || !plainWord(h[a+1:b]) || !digits(h[b+1:]) {
		fields := strings.Fields(string(h))
		if len(fields) != 3 {
			return "", "", 0, false
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		return fields[0], fields[1], size, err == nil
	}
	switch t := h[a+1 : b]; string(t) {
	case "blob":
		typ = "blob"
	case "tree":
		typ = "tree"
	case "commit":
		typ = "commit"
	case "tag":
		typ = "tag"
	default:
		typ = string(t)
	}
	for _, c := range h[b+1:] {
		size = size*10 + int64(c-'0')
	}
	return string(h[:a]), typ, size, true
}

// plainWord reports a word of printable ASCII without white space.
func plainWord(w []byte) bool {
	for _, c := range w {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// digits reports 1 to 18 decimal digits: a number ParseInt reads and
// int64 holds.
func digits(w []byte) bool {
	if len(w) == 0 || len(w) > 18 {
		return false
	}
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// processError adds what git printed on stderr, if anything, to err.
// It is used when the process seems to have died; it waits for it so that
// its stderr is complete.
func (o *ObjectReader) processError(err error) error {
	o.kill()
	stderr := o.stderr.Bytes()
	if oid, ok := lazyFetchFailure(stderr); ok {
		return &MissingObjectError{OID: oid, Partial: true}
	}
	if msg := cleanStderr(stderr); msg != "" {
		return fmt.Errorf("%w (git said: %s)", err, msg)
	}
	return err
}

// lazyFetchFailure recognises git giving up on an object that a partial
// clone's promisor remote would have to supply (lazy fetching is off):
// "fatal: could not fetch <oid> from promisor remote".
func lazyFetchFailure(stderr []byte) (oid string, ok bool) {
	const prefix, suffix = "could not fetch ", " from promisor remote"
	for _, l := range strings.Split(string(stderr), "\n") {
		i := strings.Index(l, prefix)
		j := strings.Index(l, suffix)
		if i >= 0 && j > i+len(prefix) {
			return strings.TrimSpace(l[i+len(prefix) : j]), true
		}
	}
	return "", false
}

// kill stops the cat-file process, if any, and waits for it; o.mu is held.
func (o *ObjectReader) kill() {
	if o.cmd == nil {
		return
	}
	o.stdin.Close()
	_ = killProcess(o.cmd.Process, ownGroup(o.cmd))
	_ = o.cmd.Wait()
	o.cmd = nil
	o.procMu.Lock()
	o.proc = nil
	o.procMu.Unlock()
}

// Close stops git. It is safe to call twice, and while a Get is running:
// that Get then returns an error saying the reader was closed. Close
// reports a failure of git only when no Get has reported one already.
func (o *ObjectReader) Close() error {
	if !o.mu.TryLock() {
		// A Get is running (or stuck, e.g. on a git waiting for the network
		// in a partial clone): kill git so that it returns.
		o.procMu.Lock()
		if o.proc != nil {
			o.interrupted = true
			_ = killProcess(o.proc, o.procGroup)
		}
		o.procMu.Unlock()
		o.mu.Lock()
	}
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	if o.cmd == nil {
		return nil
	}
	// cat-file exits by itself at end of input.
	o.stdin.Close()
	err := o.cmd.Wait()
	o.cmd = nil
	o.procMu.Lock()
	o.proc = nil
	interrupted := o.interrupted
	o.procMu.Unlock()
	if err != nil && o.broken == nil && !interrupted && o.repo.context().Err() == nil {
		if msg := cleanStderr(o.stderr.Bytes()); msg != "" {
			return fmt.Errorf("git cat-file: %s", msg)
		}
		return fmt.Errorf("git cat-file: %w", err)
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

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	// Mode is the octal mode as git writes it in trees: "100644",
	// "100755", "120000" (symlink), "160000" (gitlink) or "40000" (tree).
	Mode string
	// Name is the entry's name within its directory.
	Name string
	// OID is the entry's object id, in lower-case hex.
	OID string
}

// ParseTree decodes the content of a tree object (Object.Data of a "tree"),
// repeated "<mode> SP <name> NUL <binary oid>". oidLen is the length of a
// binary object id in bytes: 20 for SHA-1, 32 for SHA-256 repositories,
// i.e. half the length of a hex OID.
func ParseTree(data []byte, oidLen int) ([]TreeEntry, error) {
	if oidLen <= 0 {
		return nil, fmt.Errorf("parse tree: invalid object id length %d", oidLen)
	}
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || nul+1+oidLen > len(data) {
			return nil, errors.New("malformed tree object")
		}
		out = append(out, TreeEntry{
			Mode: string(data[:sp]),
			Name: string(data[sp+1 : nul]),
			OID:  hex.EncodeToString(data[nul+1 : nul+1+oidLen]),
		})
		data = data[nul+1+oidLen:]
	}
	return out, nil
}
