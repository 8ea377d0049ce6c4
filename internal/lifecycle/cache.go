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

// The struct cache keeps what a release's package directory (a tree, by
// object id) says about a struct type (see protohist.go) so that a later
// run need not read and parse its files again. It lives in
// os.UserCacheDir()/apicheck/structs-v7 (or Options.CacheDir, or
// $APICHECK_CACHE_DIR), never inside the repository and never in a
// shared directory such as /tmp: without a user cache directory there is
// no cache.
//
// Safety: the cache directory and its subdirectory must be real
// directories (not symlinks) owned by the current user and writable by
// nobody else (checked on Unix; created 0700), else the cache is off for
// the run, silently. An entry is written atomically
// (internal/atomicfile.WriteCache) and carries a format line, the tree id
// and type name, and a SHA-256 of those and the content; an entry that is
// truncated, garbled, of another format, for another tree or type or over
// the size limit is a miss: the files are read again and the entry
// rewritten. So a bad entry costs time, never a wrong or missing finding.
// Concurrent runs write distinct temporary files and rename them into
// place; readers see whole entries or none.
//
// Size: entries go into 256 shard directories by the first byte of the
// tree id; a shard holds at most cacheShardBytes (evicting the oldest
// entries after a run wrote to it), so the cache stays under
// 256 × cacheShardBytes = 128 MiB. Entries larger than cacheEntryMax are
// not cached.

// cacheFormat is the first line of every entry; it changes whenever what
// an entry holds changes.
const cacheFormat = "apicheck struct cache 7"

// cacheSubdir is the directory of this format under the cache root.
const cacheSubdir = "structs-v7"

const (
	cacheEntryMax   = 256 << 10 // bytes of one entry
	cacheShardBytes = 512 << 10 // bytes of one shard directory
)

type blobCache struct {
	dir string // "" = disabled

	mu      sync.Mutex
	touched map[string]bool // shard directories written this run
	shards  map[string]bool // shard directories known to exist
}

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

// entryName is the file of the entry of (oid, typ), or "" when it
// cannot have one.
func (c *blobCache) entryName(oid, typ string) string {
	if c == nil || c.dir == "" || !validOID(oid) || !validTypeName(typ) {
		return ""
	}
	return filepath.Join(c.dir, oid[:2], oid[2:]+"."+typ)
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
func entryKey(oid, typ string) string { return oid + " " + typ }

// entrySum is the checksum of an entry's key and content.
func entrySum(key string, body []byte) string {
	h := sha256.New()
	io.WriteString(h, cacheFormat+"\n"+key+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeEntry renders an entry: format, key, checksum, then the content
// as lines of tab-separated values: "found" or "absent" and the file
// name, then one line per field (Go name, json name, protobuf number,
// deprecated 0/1, line, column, protobuf wire type and label). Names are
// Go-quoted.
func encodeEntry(oid, typ string, d decl) ([]byte, error) {
	var body bytes.Buffer
	state := "absent"
	if d.Found {
		state = "found"
	}
	fmt.Fprintf(&body, "%s\t%s\n", state, strconv.Quote(d.File))
	for _, f := range d.Fields {
		dep := 0
		if f.Deprecated {
			dep = 1
		}
		fmt.Fprintf(&body, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", strconv.Quote(f.Name), strconv.Quote(f.JSON), f.Number, dep, f.Line, f.Col, strconv.Quote(f.Wire))
	}
	key := entryKey(oid, typ)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n", cacheFormat, key, entrySum(key, body.Bytes()))
	b.Write(body.Bytes())
	return b.Bytes(), nil
}

// decodeEntry checks and reads an entry; any flaw is an error.
func decodeEntry(oid, typ string, data []byte) (decl, error) {
	parts := bytes.SplitN(data, []byte("\n"), 4)
	if len(parts) != 4 {
		return decl{}, errors.New("truncated header")
	}
	if string(parts[0]) != cacheFormat {
		return decl{}, fmt.Errorf("format %q", parts[0])
	}
	key := entryKey(oid, typ)
	if string(parts[1]) != key {
		return decl{}, fmt.Errorf("entry of %q", parts[1])
	}
	body := parts[3]
	if string(parts[2]) != entrySum(key, body) {
		return decl{}, errors.New("checksum mismatch")
	}
	lines := strings.Split(string(body), "\n")
	if len(lines) < 2 || lines[len(lines)-1] != "" {
		return decl{}, errors.New("unterminated content")
	}
	lines = lines[:len(lines)-1]
	head := strings.Split(lines[0], "\t")
	if len(head) != 2 || (head[0] != "found" && head[0] != "absent") {
		return decl{}, fmt.Errorf("bad state line %q", lines[0])
	}
	var d decl
	var err error
	d.Found = head[0] == "found"
	if d.File, err = strconv.Unquote(head[1]); err != nil {
		return decl{}, fmt.Errorf("bad file name %q", head[1])
	}
	if d.Found {
		d.Fields = make([]relField, 0, len(lines)-1)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 7 || !d.Found {
			return decl{}, fmt.Errorf("bad field line %q", l)
		}
		var rf relField
		var nums [4]int
		if rf.Name, err = strconv.Unquote(f[0]); err != nil {
			return decl{}, fmt.Errorf("bad field line %q", l)
		}
		if rf.JSON, err = strconv.Unquote(f[1]); err != nil {
			return decl{}, fmt.Errorf("bad field line %q", l)
		}
		for i := range nums {
			if nums[i], err = strconv.Atoi(f[2+i]); err != nil {
				return decl{}, fmt.Errorf("bad field line %q", l)
			}
		}
		rf.Number, rf.Deprecated, rf.Line, rf.Col = nums[0], nums[1] == 1, nums[2], nums[3]
		if rf.Wire, err = strconv.Unquote(f[6]); err != nil {
			return decl{}, fmt.Errorf("bad field line %q", l)
		}
		d.Fields = append(d.Fields, rf)
	}
	return d, nil
}

// get returns the cached judgement of (oid, typ); any problem is a miss.
func (c *blobCache) get(oid, typ string) (decl, bool) {
	p := c.entryName(oid, typ)
	if p == "" {
		return decl{}, false
	}
	f, err := os.Open(p)
	if err != nil {
		return decl{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > cacheEntryMax {
		return decl{}, false
	}
	data, err := io.ReadAll(io.LimitReader(f, cacheEntryMax+1))
	if err != nil {
		return decl{}, false
	}
	d, err := decodeEntry(oid, typ, data)
	if err != nil {
		return decl{}, false
	}
	return d, true
}

// put stores an entry atomically; a failure only costs a later parse.
func (c *blobCache) put(oid, typ string, d decl) {
	p := c.entryName(oid, typ)
	if p == "" {
		return
	}
	data, err := encodeEntry(oid, typ, d)
	if err != nil || len(data) > cacheEntryMax {
		return
	}
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
