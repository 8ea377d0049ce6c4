package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apicheck/apicheck/internal/atomicfile"
)

// The struct cache keeps what a Go file (a blob, by object id) declares
// (see protohist.go) so that a later run need not read and parse it
// again. It lives in os.UserCacheDir()/apicheck/structs-v3 (or
// Options.CacheDir, or $APICHECK_CACHE_DIR), never inside the repository
// and never in a shared directory such as /tmp: without a user cache
// directory there is no cache.
//
// Safety: the cache directory and its subdirectory must be real
// directories (not symlinks) owned by the current user and writable by
// nobody else (checked on Unix; created 0700), else the cache is off for
// the run, silently. An entry is written atomically (internal/atomicfile)
// and carries a format line, the blob id and a SHA-256 of both and the
// content; an entry that is truncated, garbled, of another format, for
// another blob or over the size limit is a miss: the file is parsed
// again and the entry rewritten. So a bad entry costs time, never a wrong
// or missing finding. Concurrent runs write distinct temporary files and
// rename them into place; readers see whole entries or none.
//
// Size: entries go into 256 shard directories by the first byte of the
// blob id; a shard holds at most cacheShardBytes (evicting the oldest
// entries after a run wrote to it), so the cache stays under
// 256 × cacheShardBytes = 128 MiB. Entries larger than cacheEntryMax are
// not cached.

// cacheFormat is the first line of every entry; it changes whenever what
// an entry holds changes.
const cacheFormat = "apicheck struct cache 3"

// cacheSubdir is the directory of this format under the cache root.
const cacheSubdir = "structs-v3"

const (
	cacheEntryMax   = 64 << 10  // bytes of one entry
	cacheShardBytes = 512 << 10 // bytes of one shard directory
)

type blobCache struct {
	dir string // "" = disabled

	mu      sync.Mutex
	touched map[string]bool // shard directories written this run
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
	return &blobCache{dir: dir, touched: map[string]bool{}}
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

func (c *blobCache) path(oid string) string {
	return filepath.Join(c.dir, oid[:2], oid[2:])
}

func validOID(oid string) bool {
	if len(oid) < 4 || len(oid) > 64 {
		return false
	}
	_, err := hex.DecodeString(oid)
	return err == nil && strings.ToLower(oid) == oid
}

// entrySum is the checksum of an entry's blob id and content.
func entrySum(oid string, body []byte) string {
	h := sha256.New()
	io.WriteString(h, cacheFormat+"\n"+oid+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeEntry renders an entry: format, blob id, checksum, content.
func encodeEntry(oid string, st fileStructs) ([]byte, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n", cacheFormat, oid, entrySum(oid, body))
	b.Write(body)
	return b.Bytes(), nil
}

// decodeEntry checks and reads an entry; any flaw is an error.
func decodeEntry(oid string, data []byte) (fileStructs, error) {
	parts := bytes.SplitN(data, []byte("\n"), 4)
	if len(parts) != 4 {
		return nil, errors.New("truncated header")
	}
	if string(parts[0]) != cacheFormat {
		return nil, fmt.Errorf("format %q", parts[0])
	}
	if string(parts[1]) != oid {
		return nil, fmt.Errorf("entry of blob %q", parts[1])
	}
	body := parts[3]
	if string(parts[2]) != entrySum(oid, body) {
		return nil, errors.New("checksum mismatch")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var st fileStructs
	if err := dec.Decode(&st); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	if st == nil {
		st = fileStructs{}
	}
	return st, nil
}

// get returns the cached structs of a blob; any problem is a miss.
func (c *blobCache) get(oid string) (fileStructs, bool) {
	if c == nil || c.dir == "" || !validOID(oid) {
		return nil, false
	}
	f, err := os.Open(c.path(oid))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > cacheEntryMax {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, cacheEntryMax+1))
	if err != nil {
		return nil, false
	}
	st, err := decodeEntry(oid, data)
	if err != nil {
		return nil, false
	}
	return st, true
}

// put stores an entry atomically; a failure only costs a later parse.
func (c *blobCache) put(oid string, st fileStructs) {
	if c == nil || c.dir == "" || !validOID(oid) {
		return
	}
	data, err := encodeEntry(oid, st)
	if err != nil || len(data) > cacheEntryMax {
		return
	}
	p := c.path(oid)
	shard := filepath.Dir(p)
	if err := os.Mkdir(shard, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	if atomicfile.Write(p, data, 0o600) != nil {
		return
	}
	c.mu.Lock()
	c.touched[shard] = true
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
