package lifecycle

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/git"
)

// The struct cache keeps what a Go file of a release (a blob, by object
// id) says about the struct types asked of it (see protohist.go): for
// each, its fields, or that the file does not declare it. A later run
// need not read and parse the file again, and a file shared by many
// releases (most files do not change in a release) is one entry. It
// lives in os.UserCacheDir()/apicheck/packs-v9 (or Options.CacheDir,
// or $APICHECK_CACHE_DIR), never inside the repository and never in a
// shared directory such as /tmp: without a user cache directory there is
// no cache.
//
// Packs: a run writes the entries it made as one file (a pack), so a
// cold run that makes hundreds of entries creates one file, not hundreds
// of files in hundreds of directories (on an ext4 disk creating a file
// costs about 0.3 ms and a directory 0.8 ms: one file per entry cost a
// cold Gardener release pair a third of its time). A run reads the packs
// the first time it asks for an entry, newest first (a newer entry of a
// name wins). When a run finds more than packsMax packs, or more than
// cacheBudget bytes of them, it merges them into one: the entries it made
// and used first, then the others from the newest pack down, up to three
// quarters of the budget; then it removes the packs it merged.
//
// Safety: the cache directory and its subdirectory must be real
// directories (not symlinks) owned by the current user and writable by
// nobody else (checked on Unix; created 0700), else the cache is off for
// the run, silently. A pack is written atomically
// (internal/atomicfile.WriteCache); every entry in it carries a format
// line, its key and a SHA-256 of those and the content, so an entry that
// is truncated, garbled, of another format, for another key or over the
// size limit is a miss: the file is read again and the entry made anew.
// A pack whose record framing is broken is read up to the flaw. So a bad
// entry costs time, never a wrong or missing finding. Concurrent runs
// write distinct packs; two runs merging at once each write their merged
// pack, and the next merge folds both (removing a pack another run
// removed already is no error).
//
// Size: a pack is at most packMax bytes and the packs a run reads at
// most cacheBudget bytes (older ones are not read, and the next merge
// removes them); entries larger than cacheEntryMax are not cached.

// cacheFormat is the first line of every entry; it changes whenever what
// an entry holds changes.
const cacheFormat = "apicheck struct cache 8"

// cacheSubdir is the directory of this layout under the cache root.
const cacheSubdir = "packs-v9"

// packHeader is the first line of every pack. A record follows it per
// entry: "NAME SIZE\n" and SIZE bytes of the entry.
const packHeader = "apicheck cache pack 1\n"

const (
	cacheEntryMax = 256 << 10 // bytes of one entry
	packMax       = 16 << 20  // bytes of one pack
	cacheBudget   = 32 << 20  // bytes of all the packs a run reads
	packsMax      = 8         // packs before a run merges them
)

type blobCache struct {
	dir string // "" = disabled
	// budget and maxPacks are cacheBudget and packsMax (tests lower them).
	budget   int64
	maxPacks int

	mu sync.Mutex
	// loaded is set once the packs were read: entries holds their
	// entries by name (the newest pack's, for a name in several) and
	// packs their file names.
	loaded  bool
	entries map[string][]byte
	packs   []string
	// order are the entries of the packs as merge writes them: the
	// newest pack's first, each name once.
	order []packRecord
	// used are the names of entries read from the packs this run (a
	// merge keeps them first).
	used map[string]bool
	// pending are the entries made this run, not written yet (flush
	// writes them as one pack); queue their names, oldest first.
	pending map[string][]byte
	queue   []string
	// decoded are the entries get decoded this run, by blob.
	decoded map[string]map[string]decl
}

// CacheEnv names the environment variable that sets the cache root when
// Options.CacheDir is empty ("-" disables the cache).
const CacheEnv = "APICHECK_CACHE_DIR"

// openBlobCache returns the cache for this run: configured is
// Options.CacheDir ("" $APICHECK_CACHE_DIR or the user cache directory,
// "-" none).
func openBlobCache(configured, repoRoot string) *blobCache {
	dir := cacheDir(configured, repoRoot, cacheSubdir)
	if dir == "" {
		return &blobCache{}
	}
	return &blobCache{dir: dir, budget: cacheBudget, maxPacks: packsMax}
}

// treeMemoSubdir is the directory of the tree memo files (git.UseTreeMemo)
// under the cache root.
const treeMemoSubdir = "trees-v1"

// TreeMemoPath returns the file of the tree memo of the repository at
// repoRoot (git.Repo.UseTreeMemo), in the cache that configured names as
// Options.CacheDir does; "" when there is no cache. The directory is
// made, and checked, as the struct cache's is.
func TreeMemoPath(configured, repoRoot string) string {
	dir := cacheDir(configured, repoRoot, treeMemoSubdir)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, git.TreeMemoName(repoRoot))
}

// scanMemoSubdir is the directory of the scan memo (scan.Memo) under
// the cache root.
const scanMemoSubdir = "scans-v1"

// ScanMemoDir returns the directory of the scan memo (scan.NewMemo) in
// the cache that configured names as Options.CacheDir does; "" when there
// is no cache. It is made, and checked, as the struct cache's is.
func ScanMemoDir(configured, repoRoot string) string {
	return cacheDir(configured, repoRoot, scanMemoSubdir)
}

// cacheDir returns the directory sub of the cache root (configured is
// Options.CacheDir), made if needed: "" when the cache is off, there is
// no per-user directory, the root is inside the repository, or the root
// or sub is not a private directory.
func cacheDir(configured, repoRoot, sub string) string {
	if configured == "" {
		configured = os.Getenv(CacheEnv)
	}
	if configured == "-" {
		return ""
	}
	root := configured
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil || base == "" {
			return "" // no per-user directory: no cache
		}
		root = filepath.Join(base, "apicheck")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	if r, err := filepath.Abs(repoRoot); err == nil && (root == r || strings.HasPrefix(root, r+string(filepath.Separator))) {
		return "" // never write into the repository
	}
	dir := filepath.Join(root, sub)
	for _, d := range []string{root, dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return ""
		}
		if err := privateDir(d); err != nil {
			return ""
		}
	}
	return dir
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

// enabled reports whether entry name (a lowercase hex id) can be cached.
func (c *blobCache) enabled(name string) bool {
	return c != nil && c.dir != "" && validOID(name)
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
	// Appended by hand: fmt was a tenth of a cold run's protobuf history.
	var body []byte
	for _, n := range names {
		d := structs[n]
		if !d.Found {
			body = append(append(append(body, "absent\t"...), n...), '\n')
			continue
		}
		body = append(append(append(body, "struct\t"...), n...), '\n')
		for _, f := range d.Fields {
			dep := int64(0)
			if f.Deprecated {
				dep = 1
			}
			body = append(body, '\t')
			body = strconv.AppendQuote(body, f.Name)
			body = append(body, '\t')
			body = strconv.AppendQuote(body, f.JSON)
			for _, v := range [...]int64{int64(f.Number), dep, int64(f.Line), int64(f.Col)} {
				body = strconv.AppendInt(append(body, '\t'), v, 10)
			}
			body = append(body, '\t')
			body = strconv.AppendQuote(body, f.Wire)
			body = append(body, '\n')
		}
	}
	key := entryKey(oid)
	sum := entrySum(key, body)
	b := make([]byte, 0, len(cacheFormat)+len(key)+len(sum)+3+len(body))
	b = append(append(b, cacheFormat...), '\n')
	b = append(append(b, key...), '\n')
	b = append(append(b, sum...), '\n')
	return append(b, body...), nil
}

// entryBody checks an entry's header (format, key, checksum) and returns
// its body.
func entryBody(oid string, data []byte) ([]byte, error) {
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
	return body, nil
}

// decodeEntry checks and reads an entry; any flaw is an error.
func decodeEntry(oid string, data []byte) (map[string]decl, error) {
	body, err := entryBody(oid, data)
	if err != nil {
		return nil, err
	}
	out := map[string]decl{}
	if len(body) == 0 {
		return out, nil
	}
	if body[len(body)-1] != '\n' {
		return nil, errors.New("unterminated content")
	}
	text := string(body[:len(body)-1]) // the fields' strings are parts of it
	// The fields of all structs, in one slice: a field line starts the
	// text or follows a line end, and starts with a tab.
	n := strings.Count(text, "\n\t")
	if strings.HasPrefix(text, "\t") {
		n++
	}
	fields := make([]relField, 0, n)
	cur, from := "", 0 // the struct whose fields are read, where they start
	end := func() {
		if cur != "" {
			out[cur] = decl{Found: true, Fields: fields[from:len(fields):len(fields)]}
		}
	}
	for l := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(l, "\t") {
			end()
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
			cur, from = name, len(fields)
			continue
		}
		if cur == "" {
			return nil, fmt.Errorf("field line %q outside a struct", l)
		}
		rf, err := decodeField(l[1:])
		if err != nil {
			return nil, err
		}
		fields = append(fields, rf)
	}
	end()
	return out, nil
}

// decodeField reads a field line (without its leading tab).
func decodeField(l string) (relField, error) {
	bad := func() (relField, error) { return relField{}, fmt.Errorf("bad field line %q", l) } // only when it is
	var f [7]string
	rest := l
	for i := range len(f) - 1 {
		var ok bool
		if f[i], rest, ok = strings.Cut(rest, "\t"); !ok {
			return bad()
		}
	}
	if strings.IndexByte(rest, '\t') >= 0 {
		return bad()
	}
	f[6] = rest
	rf, ok := fieldOf(f)
	if !ok {
		return bad()
	}
	return rf, nil
}

// fieldOf reads the seven parts of a field line: Go name, json name
// (quoted), number, deprecated (0 or 1), line, column and wire name
// (quoted).
func fieldOf(f [7]string) (relField, bool) {
	var rf relField
	var err error
	var nums [4]int
	if rf.Name, err = strconv.Unquote(f[0]); err != nil {
		return relField{}, false
	}
	if rf.JSON, err = strconv.Unquote(f[1]); err != nil {
		return relField{}, false
	}
	for i := range nums {
		if nums[i], err = strconv.Atoi(f[2+i]); err != nil {
			return relField{}, false
		}
	}
	rf.Number, rf.Deprecated, rf.Line, rf.Col = nums[0], nums[1] == 1, nums[2], nums[3]
	if rf.Wire, err = strconv.Unquote(f[6]); err != nil {
		return relField{}, false
	}
	return rf, true
}

// get returns what the cache holds about the structs of blob oid (nil
// on any problem: a miss). The map is read-only: an entry is decoded
// once per run (a history asks about a blob once per struct batch).
func (c *blobCache) get(oid string) map[string]decl {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	m, ok := c.decoded[oid]
	c.mu.Unlock()
	if ok {
		return m
	}
	data := c.readEntry(oid)
	if data == nil {
		return nil
	}
	m, err := decodeEntry(oid, data)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	if c.decoded == nil {
		c.decoded = map[string]map[string]decl{}
	}
	c.decoded[oid] = m
	c.mu.Unlock()
	return m
}

// readEntry returns the content of entry name (a lowercase hex id), nil
// when there is none.
func (c *blobCache) readEntry(name string) []byte {
	if !c.enabled(name) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok := c.pending[name]; ok {
		return data
	}
	c.load()
	data := c.entries[name]
	if data != nil {
		c.used[name] = true
	}
	return data
}

// put stores the entry of blob oid atomically; a failure only costs a
// later parse.
func (c *blobCache) put(oid string, structs map[string]decl) {
	if !c.enabled(oid) {
		return
	}
	data, err := encodeEntry(oid, structs)
	if err != nil || len(data) > cacheEntryMax {
		return
	}
	c.mu.Lock()
	delete(c.decoded, oid) // what get decoded before is not the entry now
	c.mu.Unlock()
	c.write(oid, data)
}

// write keeps the data of entry name (a lowercase hex id) for the pack
// flush writes; a later write of the same name replaces it.
func (c *blobCache) write(name string, data []byte) {
	if !c.enabled(name) || len(data) > cacheEntryMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string][]byte{}
	}
	if _, ok := c.pending[name]; !ok {
		c.queue = append(c.queue, name)
	}
	c.pending[name] = data
}

// packName says whether a file of the cache directory is a pack.
func packName(name string) bool {
	return strings.HasPrefix(name, "p-") && len(name) <= 64
}

// listPacks returns the pack files of the cache directory, newest first
// (their names start with the time they were written).
func (c *blobCache) listPacks() []string {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		if de.Type().IsRegular() && packName(de.Name()) {
			out = append(out, de.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

// load reads the packs, newest first, up to c.budget bytes (c.mu held).
func (c *blobCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries, c.packs, c.order = map[string][]byte{}, nil, nil
	if c.used == nil {
		c.used = map[string]bool{}
	}
	var total int64
	for _, name := range c.listPacks() {
		data := readPack(filepath.Join(c.dir, name))
		if data == nil {
			continue
		}
		if total += int64(len(data)); total > c.budget {
			break
		}
		c.packs = append(c.packs, name)
		for _, r := range parsePack(data) {
			if _, newer := c.entries[r.name]; !newer {
				c.entries[r.name] = r.data
				c.order = append(c.order, r)
			}
		}
	}
}

// readPack returns the content of the pack at p, nil when it cannot be
// read or is not a regular file of at most packMax bytes.
func readPack(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > packMax {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, packMax+1))
	if err != nil || len(data) > packMax {
		return nil
	}
	return data
}

// packRecord is one entry of a pack.
type packRecord struct {
	name string
	data []byte
}

// parsePack returns the records of a pack up to the first flaw of its
// framing (the entries check themselves).
func parsePack(data []byte) []packRecord {
	rest, ok := bytes.CutPrefix(data, []byte(packHeader))
	if !ok {
		return nil
	}
	var out []packRecord
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 || nl > 100 {
			break
		}
		name, size, ok := strings.Cut(string(rest[:nl]), " ")
		n, err := strconv.Atoi(size)
		if !ok || !validOID(name) || err != nil || n < 0 || n > cacheEntryMax || n > len(rest)-nl-1 {
			break
		}
		out = append(out, packRecord{name, rest[nl+1 : nl+1+n]})
		rest = rest[nl+1+n:]
	}
	return out
}

// encodePack renders records as a pack, leaving out those that would
// make it larger than packMax and names already written.
func encodePack(records []packRecord) []byte {
	var b bytes.Buffer
	b.WriteString(packHeader)
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.name] {
			continue
		}
		head := r.name + " " + strconv.Itoa(len(r.data)) + "\n"
		if b.Len()+len(head)+len(r.data) > packMax {
			continue
		}
		seen[r.name] = true
		b.WriteString(head)
		b.Write(r.data)
	}
	return b.Bytes()
}

// newPackName names a pack written now: the time first, so that names
// sort by age, then random bytes, so that concurrent runs differ.
func newPackName() string {
	var r [6]byte
	rand.Read(r[:])
	return fmt.Sprintf("p-%016x-%s", time.Now().UnixNano(), hex.EncodeToString(r[:]))
}

// flush writes the entries made this run as one pack, merging the packs
// when there are too many of them (see the package comment). Nothing is
// written when the run made no entry.
func (c *blobCache) flush() {
	if c == nil || c.dir == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return
	}
	records := make([]packRecord, 0, len(c.queue))
	for _, name := range c.queue {
		records = append(records, packRecord{name, c.pending[name]})
	}
	c.pending, c.queue = nil, nil
	listed := c.listPacks()
	var size int64
	for _, name := range listed {
		if fi, err := os.Lstat(filepath.Join(c.dir, name)); err == nil {
			size += fi.Size()
		}
	}
	if len(listed)+1 <= c.maxPacks && size <= c.budget {
		atomicfile.WriteCache(filepath.Join(c.dir, newPackName()), encodePack(records), 0o600)
		return
	}
	c.merge(records, listed)
}

// merge writes records and the entries of the packs as one pack of at
// most three quarters of cacheBudget (the entries used this run first,
// then the newest), then removes the packs listed before (those it read,
// and older ones past the budget or unreadable), and temporary files an
// interrupted run left more than an hour ago (c.mu held). A pack another
// run wrote since the listing stays.
func (c *blobCache) merge(records []packRecord, listed []string) {
	c.loaded = false // read the packs as they are now: other runs may have written some
	c.load()
	made := map[string]bool{}
	for _, r := range records {
		made[r.name] = true
	}
	var used, rest []packRecord
	for _, r := range c.order {
		switch {
		case made[r.name]: // made anew this run
		case c.used[r.name]:
			used = append(used, r)
		default:
			rest = append(rest, r)
		}
	}
	all := append(append(records, used...), rest...)
	var keep []packRecord
	var total int64
	for _, r := range all {
		if total += int64(len(r.name) + len(r.data) + 16); total > c.budget*3/4 {
			break
		}
		keep = append(keep, r)
	}
	if atomicfile.WriteCache(filepath.Join(c.dir, newPackName()), encodePack(keep), 0o600) != nil {
		return
	}
	for _, name := range listed {
		os.Remove(filepath.Join(c.dir, name))
	}
	c.packs, c.order, c.entries, c.loaded = nil, nil, nil, false
	removeStaleTemps(c.dir)
}

// removeStaleTemps removes the temporary files (names starting with a
// dot) of dir older than an hour: what an interrupted write left.
func removeStaleTemps(dir string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ".") || !de.Type().IsRegular() {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, de.Name()))
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
