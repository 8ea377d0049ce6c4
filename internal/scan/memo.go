package scan

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
)

// Memo keeps the models that scans of commits built, one file per scan
// in a directory of apicheck's cache, so that a later run scanning the
// same commit with the same options decodes the model instead of reading,
// parsing and building it again (a pair judged again, a base every pull
// request shares, the releases a history reads).
//
// A scan of a commit is a function of the commit's files, the options,
// apicheck's own code and what the module cache holds of the packages
// type resolution looked up there. The entry's key names the first three
// (the commit, the options, BinaryID of the running executable); the
// entry lists the module cache directories the scan looked into, with
// what each held (names and sizes: a module version's files never change
// once the go command wrote them), and is used only while they still
// hold that. The working tree is never memoised, nor a scan that could
// not read a file (a partial clone's missing object: the scan goes on
// without the package, and would be stale once it is fetched).
//
// An entry carries its format, key and a checksum of its body: any flaw,
// a decode error included, is a miss. The directory is kept below
// memoBudget bytes by removing the least recently used entries.
type Memo struct {
	dir    string
	budget int64
	mu     sync.Mutex // one prune at a time
	// writes are the entries being written (Wait).
	writes sync.WaitGroup
	// prints are the module cache directories read (modDirPrint).
	prints sync.Map
}

// memoFormat is the first line of every entry; it changes whenever what
// an entry holds changes.
const memoFormat = "apicheck scan memo 3"

const (
	memoBudget   = 512 << 20 // bytes of all the entries
	memoEntryMax = 128 << 20 // bytes of one entry
)

// NewMemo returns the memo in directory dir (made and checked by the
// caller, as the cache's are); nil when dir is "" (no memo).
func NewMemo(dir string) *Memo {
	if dir == "" {
		return nil
	}
	return &Memo{dir: dir, budget: memoBudget}
}

// memoEntry is what an entry holds: the model as the scan returned it
// (before contracts) and the module cache directories it looked into.
type memoEntry struct {
	ModDirs []ModDirPrint
	Model   *model.Model
	// GroupHashes are a hash of each group's content, in the order of
	// Model.Groups (written by the encoder, not by store's caller): two
	// entries' groups with the same hash are the same group.
	GroupHashes []string
}

// ModDirPrint is what a module cache directory held when a scan looked
// into it: Rel is its path relative to the module cache; Entries its
// entries as "name kind size" lines (kind "f" a regular file, "o"
// anything else), in directory order; Absent when it could not be read.
type ModDirPrint struct {
	Rel     string
	Entries []string
	Absent  bool
}

// modDirPrint is what directory rel of the module cache holds, read once
// per Memo (a run: its scans of base, head and the releases look into
// the same directories, which do not change meanwhile).
func (m *Memo) modDirPrint(modCache, rel string) ModDirPrint {
	key := modCache + "\x00" + rel
	if p, ok := m.prints.Load(key); ok {
		return p.(ModDirPrint)
	}
	p := readModDirPrint(modCache, rel)
	m.prints.Store(key, p)
	return p
}

// readModDirPrint reads what directory rel of the module cache holds.
func readModDirPrint(modCache, rel string) ModDirPrint {
	entries, err := os.ReadDir(filepath.Join(modCache, filepath.FromSlash(rel)))
	if err != nil {
		return ModDirPrint{Rel: rel, Absent: true}
	}
	p := ModDirPrint{Rel: rel, Entries: make([]string, 0, len(entries))}
	for _, e := range entries {
		kind, size := "o", int64(0)
		if e.Type().IsRegular() {
			kind = "f"
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			} else {
				size = -1
			}
		}
		p.Entries = append(p.Entries, e.Name()+" "+kind+" "+strconv.FormatInt(size, 10))
	}
	return p
}

func sameModDirPrint(a, b ModDirPrint) bool {
	return a.Rel == b.Rel && a.Absent == b.Absent && slices.Equal(a.Entries, b.Entries)
}

// memoKey returns the key of a scan of src with opts reading the module
// cache at modCache (the resolver's directory); "" when the scan is not
// memoised: no memo, no executable to name, or src is not a commit
// naming its files by blob.
func memoKey(src Source, opts Options, modCache string) string {
	if opts.Memo == nil {
		return ""
	}
	c, ok := src.(interface {
		Ref() string
		Commit() string
	})
	if _, blobs := src.(BlobIDs); !ok || !blobs || c.Ref() == git.WorktreeRef || c.Commit() == "" {
		return ""
	}
	fp, err := json.Marshal(struct {
		Groups     []GroupSpec
		Profile    model.Profile
		Exclude    []string
		Only       []string
		ModCache   string
		NoExternal bool
	}{opts.Groups, opts.Profile, opts.Exclude, opts.Only, modCache, opts.NoExternal})
	if err != nil {
		return ""
	}
	k := git.NewMemoKey(memoFormat)
	k.Words(c.Commit(), string(fp))
	return k.String()
}

// load returns the model of the entry of key, when there is one and the
// module cache at modCache still holds what it held for the scan.
func (m *Memo) load(key, modCache string) (memoEntry, bool) {
	path := filepath.Join(m.dir, key)
	data, err := os.ReadFile(path)
	if err != nil {
		return memoEntry{}, false
	}
	body, ok := memoBody(key, data)
	if !ok {
		return memoEntry{}, false
	}
	e, err := decodeMemo(body)
	if err != nil || e.Model == nil {
		return memoEntry{}, false
	}
	for _, p := range e.ModDirs {
		if !sameModDirPrint(p, m.modDirPrint(modCache, p.Rel)) {
			return memoEntry{}, false
		}
	}
	reindex(e.Model)
	now := time.Now()
	_ = os.Chtimes(path, now, now) // recently used: pruned last
	return e, true
}

// memoBody checks an entry's header (format, key, checksum of the body)
// and returns its body.
func memoBody(key string, data []byte) ([]byte, bool) {
	parts := bytes.SplitN(data, []byte("\n"), 4)
	if len(parts) != 4 || string(parts[0]) != memoFormat || string(parts[1]) != key {
		return nil, false
	}
	if string(parts[2]) != memoSum(parts[3]) {
		return nil, false
	}
	return parts[3], true
}

// store encodes the entry of key and writes it in the background (Wait
// waits for the writes); a failure only costs the scan again later. mdl
// must not change while store runs; it may once store returned.
func (m *Memo) store(key string, mdl *model.Model, mods []ModDirPrint) {
	body, err := encodeMemo(memoEntry{ModDirs: mods, Model: mdl})
	if err != nil {
		return
	}
	m.writes.Go(func() { m.write(key, body) })
}

func (m *Memo) write(key string, body []byte) {
	head := memoFormat + "\n" + key + "\n" + memoSum(body) + "\n"
	if len(head)+len(body) > memoEntryMax {
		return
	}
	b := make([]byte, 0, len(head)+len(body))
	b = append(append(b, head...), body...)
	if atomicfile.WriteCache(filepath.Join(m.dir, key), b, 0o600) != nil {
		return
	}
	m.prune()
}

// Wait waits for the entries being written. A nil Memo has none.
func (m *Memo) Wait() {
	if m != nil {
		m.writes.Wait()
	}
}

// prune removes the least recently used entries (by modification time,
// which load updates) while the directory holds more than the budget,
// and the temporary files of writes that ended an hour ago or more.
func (m *Memo) prune() {
	m.mu.Lock()
	defer m.mu.Unlock()
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		size int64
		mod  int64
	}
	var es []entry
	total := int64(0)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") && time.Since(fi.ModTime()) > time.Hour {
			// A write's temporary file that a killed run left behind.
			os.Remove(filepath.Join(m.dir, e.Name()))
			continue
		}
		if !memoName(e.Name()) {
			continue
		}
		es = append(es, entry{e.Name(), fi.Size(), fi.ModTime().UnixNano()})
		total += fi.Size()
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.mod, b.mod), strings.Compare(a.name, b.name)) })
	for _, e := range es {
		if total <= m.budget {
			break
		}
		if os.Remove(filepath.Join(m.dir, e.name)) == nil {
			total -= e.size
		}
	}
}

// memoSum is an entry's checksum: CRC-32C of its body, which finds a
// damaged or truncated file (the key names the content; an entry is
// megabytes, which SHA-256 would take a millisecond to hash).
func memoSum(body []byte) string {
	return strconv.FormatUint(uint64(crc32.Checksum(body, crc32c)), 16)
}

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// memoName says whether a file of the memo directory is an entry (a key:
// 64 lowercase hex digits).
func memoName(name string) bool {
	if len(name) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil && strings.ToLower(name) == name
}

// reindex rebuilds the lookup indexes of a decoded model as Model.Sort
// leaves them (a decoded model is in order already).
func reindex(m *model.Model) {
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			p.Reindex()
		}
	}
}

// lookedInto records, for the memo, what module cache directory rel (of
// s.modCache) holds before the scan reads it: should it change while the
// scan reads it, the entry is stale from the start, and never used.
func (s *state) lookedInto(rel string) {
	if s.modPrints == nil {
		return
	}
	s.modMu.Lock()
	defer s.modMu.Unlock()
	if _, ok := s.modPrints[rel]; !ok {
		s.modPrints[rel] = s.memo.modDirPrint(s.modCache, rel)
	}
}

// modDirPrints returns the module cache directories the scan looked
// into, sorted.
func (s *state) modDirPrints() []ModDirPrint {
	s.modMu.Lock()
	defer s.modMu.Unlock()
	out := make([]ModDirPrint, 0, len(s.modPrints))
	for _, p := range s.modPrints {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b ModDirPrint) int { return strings.Compare(a.Rel, b.Rel) })
	return out
}
