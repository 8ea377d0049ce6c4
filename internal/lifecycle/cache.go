package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apicheck/apicheck/internal/atomicfile"
)

// The struct cache keeps what a Go file of a release (a blob, by object
// id) says about the struct types asked of it (see protohist.go): for
// each, its fields, or that the file does not declare it. A later run
// need not read and parse the file again, and a file shared by many
// releases (most files do not change in a release) is one entry. It
// lives in os.UserCacheDir()/apicheck/structs-v8 (or Options.CacheDir,
// or $APICHECK_CACHE_DIR), never inside the repository and never in a
// shared directory such as /tmp: without a user cache directory there is
// no cache.
//
// Safety: the cache directory and its subdirectory must be real
// directories (not symlinks) owned by the current user and writable by
// nobody else (checked on Unix; created 0700), else the cache is off for
// the run, silently. An entry is written atomically
// (internal/atomicfile.WriteCache) and carries a format line, the blob
// id, and a SHA-256 of those and the content; an entry that is
// truncated, garbled, of another format, for another blob or over the
// size limit is a miss: the file is read again and the entry rewritten.
// So a bad entry costs time, never a wrong or missing finding.
// Concurrent runs write distinct temporary files and rename them into
// place; readers see whole entries or none. A run adds the structs it
// judged to what the entry held; of two runs writing one entry at once,
// the last one's structs stay (the others are judged again later).
//
// Size: entries go into 256 shard directories by the first byte of the
// blob id; a shard holds at most cacheShardBytes (evicting the oldest
// entries after a run wrote to it), so the cache stays under
// 256 × cacheShardBytes = 128 MiB. Entries larger than cacheEntryMax are
// not cached.

// cacheFormat is the first line of every entry; it changes whenever what
// an entry holds changes.
const cacheFormat = "apicheck struct cache 8"

// cacheSubdir is the directory of this format under the cache root.
const cacheSubdir = "structs-v8"

const (
	cacheEntryMax   = 256 << 10 // bytes of one entry
	cacheShardBytes = 512 << 10 // bytes of one shard directory
)

type blobCache struct {
	dir string // "" = disabled

	mu      sync.Mutex
	touched map[string]bool // shard directories written this run
	shards  map[string]bool // shard directories known to exist

	// Entries are written in the background, one at a time and in the
	// order they were put, so that the run does not wait for the file
	// system (a cold run writes hundreds); reads see an entry that is not
	// written yet. flush waits for the writes.
	pending map[string]*pendingEntry // by entry name
	queue   []string                 // names of pending entries, oldest first
	busy    bool                     // a writer runs
	writers sync.WaitGroup
}

// pendingEntry is the content of an entry not written yet (a pointer: a
// newer put of the same entry replaces it).
type pendingEntry struct{ data []byte }

// CacheEnv names the environment variable that sets the cache root when
// Options.CacheDir is empty ("-" disables the cache).
const CacheEnv = "APICHECK_CACHE_DIR"

// openBlobCache returns the cache for this run: configured is
// Options.CacheDir ("" $APICHECK_CACHE_DIR or the user cache directory,
// "-" none).
func openBlobCache(configured, repoRoot string) *blobCache {
	if configured == "" {
		configured = os.Getenv(CacheEnv)
	}
	if configured == "-" {
		return &blobCache{}
	}
	root := configured
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil || base == "" {
			return &blobCache{} // no per-user directory: no cache
		}
		root = filepath.Join(base, "apicheck")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return &blobCache{}
	}
	if r, err := filepath.Abs(repoRoot); err == nil && (root == r || strings.HasPrefix(root, r+string(filepath.Separator))) {
		return &blobCache{} // never write into the repository
	}
	dir := filepath.Join(root, cacheSubdir)
	for _, d := range []string{root, dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return &blobCache{}
		}
		if err := privateDir(d); err != nil {
			return &blobCache{}
		}
	}
	return &blobCache{dir: dir, touched: map[string]bool{}, shards: map[string]bool{}}
}

// privateDir checks that d is a directory, not a symlink, that only the
// current user can write (ownerCheck adds the owner on Unix).
func privateDir(d string) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", d)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others", d)
	}
	return ownerCheck(fi)
}

// entryName is the file of the entry of blob oid, or "" when it cannot
// have one.
func (c *blobCache) entryName(oid string) string {
	if c == nil || c.dir == "" || !validOID(oid) {
		return ""
	}
	return filepath.Join(c.dir, oid[:2], oid[2:])
}

func validOID(oid string) bool {
	if len(oid) < 4 || len(oid) > 64 {
		return false
	}
	_, err := hex.DecodeString(oid)
	return err == nil && strings.ToLower(oid) == oid
}

// validTypeName accepts ASCII Go identifiers of a sane length (others
// are never cached).
func validTypeName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// entryKey is the second line of an entry: what it is about.
func entryKey(oid string) string { return "blob " + oid }

// entrySum is the checksum of an entry's key and content.
func entrySum(key string, body []byte) string {
	h := sha256.New()
	io.WriteString(h, cacheFormat+"\n"+key+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeEntry renders an entry: format, key, checksum, then the content:
// per struct type (sorted by name) a line "struct" or "absent" and the
// type name, then, for a struct, one line per field (Go name, json
// name, protobuf number, deprecated 0/1, line, column, protobuf wire
// type and label), each starting with a tab. Names are Go-quoted.
func encodeEntry(oid string, structs map[string]decl) ([]byte, error) {
	names := make([]string, 0, len(structs))
	for n := range structs {
		if !validTypeName(n) {
			return nil, fmt.Errorf("type name %q", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var body bytes.Buffer
	for _, n := range names {
		d := structs[n]
		if !d.Found {
			fmt.Fprintf(&body, "absent\t%s\n", n)
			continue
		}
		fmt.Fprintf(&body, "struct\t%s\n", n)
		for _, f := range d.Fields {
			dep := 0
			if f.Deprecated {
				dep = 1
			}
			fmt.Fprintf(&body, "\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", strconv.Quote(f.Name), strconv.Quote(f.JSON), f.Number, dep, f.Line, f.Col, strconv.Quote(f.Wire))
		}
	}
	key := entryKey(oid)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n", cacheFormat, key, entrySum(key, body.Bytes()))
	b.Write(body.Bytes())
	return b.Bytes(), nil
}

// decodeEntry checks and reads an entry; any flaw is an error.
func decodeEntry(oid string, data []byte) (map[string]decl, error) {
	parts := bytes.SplitN(data, []byte("\n"), 4)
	if len(parts) != 4 {
		return nil, errors.New("truncated header")
	}
	if string(parts[0]) != cacheFormat {
		return nil, fmt.Errorf("format %q", parts[0])
	}
	key := entryKey(oid)
	if string(parts[1]) != key {
		return nil, fmt.Errorf("entry of %q", parts[1])
	}
	body := parts[3]
	if string(parts[2]) != entrySum(key, body) {
		return nil, errors.New("checksum mismatch")
	}
	out := map[string]decl{}
	if len(body) == 0 {
		return out, nil
	}
	lines := strings.Split(string(body), "\n")
	if lines[len(lines)-1] != "" {
		return nil, errors.New("unterminated content")
	}
	lines = lines[:len(lines)-1]
	cur := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, "\t") {
			state, name, ok := strings.Cut(l, "\t")
			if !ok || (state != "struct" && state != "absent") || !validTypeName(name) {
				return nil, fmt.Errorf("bad struct line %q", l)
			}
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("struct %s twice", name)
			}
			cur = ""
			if state == "absent" {
				out[name] = decl{}
				continue
			}
			out[name] = decl{Found: true, Fields: []relField{}}
			cur = name
			continue
		}
		if cur == "" {
			return nil, fmt.Errorf("field line %q outside a struct", l)
		}
		rf, err := decodeField(l[1:])
		if err != nil {
			return nil, err
		}
		d := out[cur]
		d.Fields = append(d.Fields, rf)
		out[cur] = d
	}
	return out, nil
}

// decodeField reads a field line (without its leading tab).
func decodeField(l string) (relField, error) {
	f := strings.Split(l, "\t")
	bad := fmt.Errorf("bad field line %q", l)
	if len(f) != 7 {
		return relField{}, bad
	}
	var rf relField
	var err error
	var nums [4]int
	if rf.Name, err = strconv.Unquote(f[0]); err != nil {
		return relField{}, bad
	}
	if rf.JSON, err = strconv.Unquote(f[1]); err != nil {
		return relField{}, bad
	}
	for i := range nums {
		if nums[i], err = strconv.Atoi(f[2+i]); err != nil {
			return relField{}, bad
		}
	}
	rf.Number, rf.Deprecated, rf.Line, rf.Col = nums[0], nums[1] == 1, nums[2], nums[3]
	if rf.Wire, err = strconv.Unquote(f[6]); err != nil {
		return relField{}, bad
	}
	return rf, nil
}

// get returns what the cache holds about the structs of blob oid (nil
// on any problem: a miss).
func (c *blobCache) get(oid string) map[string]decl {
	data := c.readEntry(oid)
	if data == nil {
		return nil
	}
	m, err := decodeEntry(oid, data)
	if err != nil {
		return nil
	}
	return m
}

// readEntry returns the content of entry name (a lowercase hex id), nil
// when there is none or it is not a regular file of at most
// cacheEntryMax bytes.
func (c *blobCache) readEntry(name string) []byte {
	p := c.entryName(name)
	if p == "" {
		return nil
	}
	c.mu.Lock()
	pe := c.pending[name]
	c.mu.Unlock()
	if pe != nil {
		return pe.data
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > cacheEntryMax {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, cacheEntryMax+1))
	if err != nil {
		return nil
	}
	return data
}

// put stores the entry of blob oid atomically; a failure only costs a
// later parse.
func (c *blobCache) put(oid string, structs map[string]decl) {
	p := c.entryName(oid)
	if p == "" {
		return
	}
	data, err := encodeEntry(oid, structs)
	if err != nil || len(data) > cacheEntryMax {
		return
	}
	c.write(oid, data)
}

// write queues the data of entry name (a lowercase hex id) for the
// background writer (see store).
func (c *blobCache) write(name string, data []byte) {
	if c.entryName(name) == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string]*pendingEntry{}
	}
	if c.pending[name] == nil {
		c.queue = append(c.queue, name)
	}
	c.pending[name] = &pendingEntry{data}
	if !c.busy {
		c.busy = true
		c.writers.Go(c.drain)
	}
}

// drain writes the queued entries until none is left.
func (c *blobCache) drain() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.busy = false
			c.mu.Unlock()
			return
		}
		name := c.queue[0]
		c.queue = c.queue[1:]
		pe := c.pending[name]
		c.mu.Unlock()
		c.store(name, pe.data)
		c.mu.Lock()
		if c.pending[name] == pe {
			delete(c.pending, name)
		} else { // put again while being written: write the newer one too
			c.queue = append(c.queue, name)
		}
		c.mu.Unlock()
	}
}

// flush waits for the queued entries to be written, then trims the
// shards written to.
func (c *blobCache) flush() {
	if c == nil || c.dir == "" {
		return
	}
	c.writers.Wait()
	c.trim()
}

// store writes the data of entry name atomically in its shard.
func (c *blobCache) store(name string, data []byte) {
	p := c.entryName(name)
	shard := filepath.Dir(p)
	c.mu.Lock()
	made := c.shards[shard]
	c.mu.Unlock()
	if !made {
		if err := os.Mkdir(shard, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return
		}
	}
	if atomicfile.WriteCache(p, data, 0o600) != nil {
		return
	}
	c.mu.Lock()
	c.touched[shard] = true
	c.shards[shard] = true
	c.mu.Unlock()
}

// trim keeps every shard written this run under cacheShardBytes by
// removing its oldest entries (and temporary files that an interrupted
// run left behind more than an hour ago).
func (c *blobCache) trim() {
	if c == nil || c.dir == "" {
		return
	}
	c.mu.Lock()
	shards := make([]string, 0, len(c.touched))
	for s := range c.touched {
		shards = append(shards, s)
	}
	c.touched = map[string]bool{}
	c.mu.Unlock()
	for _, s := range shards {
		trimShard(s, cacheShardBytes)
	}
}

func trimShard(dir string, budget int64) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var es []entry
	var total int64
	for _, de := range des {
		fi, err := de.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		p := filepath.Join(dir, de.Name())
		if strings.HasPrefix(de.Name(), ".") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(p)
			}
			continue
		}
		es = append(es, entry{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if total <= budget {
		return
	}
	sort.Slice(es, func(i, j int) bool { return es[i].mod.Before(es[j].mod) })
	for _, e := range es {
		if total <= budget*3/4 {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}

// Memo entries keep answers that are pure functions of their key (tags
// and their objects, commit shas, tree ids): the peeled release tags,
// the release before a commit, the trees of a directory at the releases,
// the files of a tree. An entry lives in the same shards as the struct
// entries, under the SHA-256 of its kind and key; it carries its own
// format line, the kind and that hash, and a checksum, and any flaw is a
// miss. It implements git.Memo.
const memoFormat = "apicheck memo 1"

func memoName(kind, key string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + key))
	return hex.EncodeToString(h[:])
}

// Get returns the value of the entry of (kind, key), nil on a miss.
func (c *blobCache) Get(kind, key string) []byte {
	name := memoName(kind, key)
	data := c.readEntry(name)
	if data == nil {
		return nil
	}
	parts := bytes.SplitN(data, []byte("\n"), 4)
	head := kind + " " + name
	if len(parts) != 4 || string(parts[0]) != memoFormat || string(parts[1]) != head || string(parts[2]) != memoSum(head, parts[3]) {
		return nil
	}
	return parts[3]
}

// Put stores the entry of (kind, key) atomically; a failure only costs
// the work again later.
func (c *blobCache) Put(kind, key string, value []byte) {
	name := memoName(kind, key)
	head := kind + " " + name
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n", memoFormat, head, memoSum(head, value))
	b.Write(value)
	if b.Len() > cacheEntryMax {
		return
	}
	c.write(name, b.Bytes())
}

func memoSum(head string, body []byte) string {
	h := sha256.New()
	io.WriteString(h, memoFormat+"\n"+head+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
