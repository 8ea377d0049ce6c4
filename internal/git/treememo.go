package git

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apicheck/apicheck/internal/atomicfile"
)

// The tree memo keeps what each selection (Selection) kept of the trees
// a run walked, by tree object id, so that the next run reads from git
// only the trees that changed since: a directory that did not change,
// however large, costs a lookup. It is one file per repository
// (UseTreeMemo names it), read on the first walk and written by
// SaveTreeMemo when the run walked trees the file did not have: a
// section per selection, its records sorted by tree, which a run indexes
// (no more than the selections it uses) and decodes record by record as
// the walk asks (a walk reads few: the unchanged trees that keep nothing,
// most of a large repository, are never decoded). The file names the
// apicheck binary that wrote it (a build reads only its own memo: a
// change of a selection's functions never meets a stale entry), and
// every section ends with a SHA-256 of its name and content: a file of
// another format or build is ignored, a damaged section too, and the
// trees are read again. Records the run did not use are kept while the
// file stays below treeMemoMax bytes.

const treeMemoHeader = "apicheck tree memo 3\n"

// treeMemoMax bounds the memo file.
const treeMemoMax = 32 << 20

// treeSums holds the summaries of a repository's trees: those this run
// computed or read from the memo file.
type treeSums struct {
	mu     sync.Mutex
	path   string // the memo file; "" none
	loaded bool
	m      map[sumKey]*treeSummary // computed, or decoded from the file
	// sections are the file's, by selection name (nil: not to be used).
	sections map[string]*memoSection
	added    bool // a summary the file lacks
}

// memoSection is one selection's section of the memo file.
type memoSection struct {
	sel     string
	data    []byte // the records and the checksum
	indexed bool
	recs    []memoRec // sorted by key; nil when the section is damaged
}

// memoRec is a record of a section: where it is in the section's data,
// where its key's tree id is within it, and its key's flags. It holds no
// copy of the id: a section of a large repository has a record for each
// of hundreds of thousands of trees.
type memoRec struct {
	start, end     uint32
	oidOff, oidLen uint8 // the raw tree id is data[start+oidOff:][:oidLen]
	flags          byte
	decoded        bool // in treeSums.m
}

// oid returns the raw tree id of rec, a view into data.
func (rec memoRec) oid(data []byte) []byte {
	at := int(rec.start) + int(rec.oidOff)
	return data[at : at+int(rec.oidLen)]
}

// UseTreeMemo makes the repository keep its tree memo in the file at
// path (in a directory only the user can write; "" none). Call it before
// any Select.
func (r *Repo) UseTreeMemo(path string) {
	r.sums.mu.Lock()
	defer r.sums.mu.Unlock()
	r.sums.path = path
}

// TreeMemoName is the file name of the tree memo of the repository at
// root, in the directory the caller keeps memo files in.
func TreeMemoName(root string) string {
	h := sha256.Sum256([]byte(root))
	return "t-" + hex.EncodeToString(h[:16])
}

// get returns the summary of k, nil when it is unknown.
func (t *treeSums) get(k sumKey) *treeSummary {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.load()
	if s := t.m[k]; s != nil {
		return s
	}
	sec := t.sections[k.sel]
	if sec == nil {
		return nil
	}
	raw, err := hex.DecodeString(k.oid)
	if err != nil {
		return nil
	}
	i, ok := sec.find(raw, flags(k))
	if !ok {
		return nil
	}
	s, err := decodeRecord(k.sel, sec.data[sec.recs[i].start:sec.recs[i].end])
	if err != nil {
		t.sections[k.sel] = nil // damaged after all: not trusted, not kept
		return nil
	}
	sec.recs[i].decoded = true
	t.m[k] = s
	return s
}

func (t *treeSums) put(k sumKey, s *treeSummary) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.load()
	t.m[k] = s
	t.added = true
}

// forget drops the summaries of selection sel, those of the memo file
// too.
func (t *treeSums) forget(sel string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.load()
	for k := range t.m {
		if k.sel == sel {
			delete(t.m, k)
		}
	}
	if _, ok := t.sections[sel]; ok {
		t.sections[sel] = nil
	}
	t.added = true // the file's section is to be replaced
}

// load reads the memo file once (t.mu held).
func (t *treeSums) load() {
	if t.loaded {
		return
	}
	t.loaded = true
	t.m = map[sumKey]*treeSummary{}
	t.sections = readTreeMemo(t.path)
}

// find returns the index of the record of (oid, flags), indexing the
// section first (a damaged section has none).
func (sec *memoSection) find(oid []byte, fl byte) (int, bool) {
	if !sec.indexed {
		sec.indexed = true
		sec.recs = indexSection(sec.sel, sec.data)
	}
	return slices.BinarySearchFunc(sec.recs, fl, func(rec memoRec, fl byte) int {
		return cmp.Or(bytes.Compare(rec.oid(sec.data), oid), int(rec.flags)-int(fl))
	})
}

// readTreeMemo returns the sections of the memo file at path written by
// this build, not indexed yet; none when there is no such file.
func readTreeMemo(path string) map[string]*memoSection {
	if path == "" || BinaryID() == "" {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > treeMemoMax {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	head := treeMemoHeader + "binary " + BinaryID() + "\n"
	if !bytes.HasPrefix(data, []byte(head)) {
		return nil // another format or build
	}
	d := &memoDecoder{data: data[len(head):]}
	out := map[string]*memoSection{}
	for len(d.data) > 0 && d.err == nil {
		name := d.str()
		body := d.raw()
		if d.err != nil || len(d.data) < sha256.Size {
			return nil
		}
		// The checksum, which follows the body, stays with it:
		// indexSection checks it.
		n := len(body) + sha256.Size
		out[name] = &memoSection{sel: name, data: body[:n:n]}
		d.data = d.data[sha256.Size:]
	}
	if d.err != nil {
		return nil
	}
	return out
}

// SaveTreeMemo writes the tree memo file when this run walked trees it
// lacks: a section per selection, with the records this run used and,
// while the file stays below its bound, those of the file it did not.
// A failure only costs the next run the walk.
func (r *Repo) SaveTreeMemo() {
	t := &r.sums
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.path == "" || !t.added || BinaryID() == "" {
		return
	}
	bySel := map[string][]sumKey{}
	for k := range t.m {
		bySel[k.sel] = append(bySel[k.sel], k)
	}
	for sel, sec := range t.sections {
		if _, ok := bySel[sel]; !ok && sec != nil {
			bySel[sel] = nil
		}
	}
	b := []byte(treeMemoHeader + "binary " + BinaryID() + "\n")
	for _, sel := range slices.Sorted(maps.Keys(bySel)) {
		used := encodeRecords(t.m, bySel[sel])
		if used == nil && len(bySel[sel]) > 0 {
			continue
		}
		// The file's records this run did not decode, as they are.
		all := slices.Clone(used)
		if sec := t.sections[sel]; sec != nil {
			if !sec.indexed {
				sec.indexed = true
				sec.recs = indexSection(sel, sec.data)
			}
			for _, rec := range sec.recs {
				if !rec.decoded {
					all = append(all, outRec{oid: string(rec.oid(sec.data)), flags: rec.flags, data: sec.data[rec.start:rec.end]})
				}
			}
		}
		// Stable, and a key once: the run's record wins.
		slices.SortStableFunc(all, compareOut)
		all = slices.CompactFunc(all, func(a, b outRec) bool { return compareOut(a, b) == 0 })
		slices.SortFunc(used, compareOut)
		data := joinRecords(all)
		if len(b)+len(data)+len(sel)+2*binary.MaxVarintLen64+sha256.Size > treeMemoMax {
			data = joinRecords(used) // without the records the run did not use
		}
		if len(data) > 0 && len(b)+len(data)+len(sel)+2*binary.MaxVarintLen64+sha256.Size <= treeMemoMax {
			b = appendSection(b, sel, data)
		}
	}
	if err := atomicfile.WriteCache(t.path, b, 0o600); err == nil {
		t.added = false
	}
}

// appendSection appends a section: name, body and their checksum.
func appendSection(b []byte, name string, body []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.AppendUvarint(b, uint64(len(body)))
	b = append(b, body...)
	sum := sectionSum(name, body)
	return append(b, sum[:]...)
}

func sectionSum(name string, body []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(binary.AppendUvarint(nil, uint64(len(name))))
	h.Write([]byte(name))
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// BinaryID names the running executable by its file (path, size and
// modification time): a memo written by one build is only read by the
// same build, so a change of the code never meets a stale answer. ""
// when it cannot be found (no memo then).
var BinaryID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", filepath.Clean(exe), fi.Size(), fi.ModTime().UnixNano())
})

// A section's body is its records, sorted by tree id and flags: the
// tree id (binary), a flags byte (group 1, marked 2), the kept files (count, then mode code, name and
// id each) and the kept subdirectories (count, then name, id and flags
// byte each); counts and lengths are uvarints.

var modeCodes = [...]string{modeFile, modeExec, modeSymlink, modeGitlink}

func modeCode(m string) (byte, bool) {
	for i, c := range modeCodes {
		if c == m {
			return byte(i), true
		}
	}
	return 0, false
}

// outRec is a record to write: its key (the raw tree id and the flags)
// and its bytes.
type outRec struct {
	oid   string
	flags byte
	data  []byte
}

func compareOut(a, b outRec) int {
	return cmp.Or(strings.Compare(a.oid, b.oid), int(a.flags)-int(b.flags))
}

func joinRecords(recs []outRec) []byte {
	var out []byte
	for _, r := range recs {
		out = append(out, r.data...)
	}
	return out
}

// encodeRecords renders the summaries of keys, a record each; nil when
// one cannot be encoded.
func encodeRecords(m map[sumKey]*treeSummary, keys []sumKey) []outRec {
	putStr := func(b []byte, s string) []byte {
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	putOID := func(b []byte, oid string) ([]byte, bool) {
		raw, err := hex.DecodeString(oid)
		if err != nil || len(raw) == 0 {
			return b, false
		}
		return putStr(b, string(raw)), true
	}
	out := make([]outRec, 0, len(keys))
	for _, k := range keys {
		s := m[k]
		raw, err := hex.DecodeString(k.oid)
		if err != nil || len(raw) == 0 {
			return nil
		}
		b := putStr(nil, string(raw))
		b = append(b, flags(k))
		b = binary.AppendUvarint(b, uint64(len(s.files)))
		var ok bool
		for _, f := range s.files {
			c, ok := modeCode(f.mode)
			if !ok {
				return nil
			}
			b = append(b, c)
			b = putStr(b, f.name)
			if b, ok = putOID(b, f.oid); !ok {
				return nil
			}
		}
		b = binary.AppendUvarint(b, uint64(len(s.dirs)))
		for _, d := range s.dirs {
			b = putStr(b, d.name)
			if b, ok = putOID(b, d.key.oid); !ok {
				return nil
			}
			b = append(b, flags(d.key))
		}
		out = append(out, outRec{oid: string(raw), flags: flags(k), data: b})
	}
	return out
}

// indexSection checks a section (records and checksum) and returns its
// records, sorted by key; nil when it is damaged or not sorted.
func indexSection(sel string, data []byte) []memoRec {
	if len(data) < sha256.Size {
		return nil
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sectionSum(sel, body); !bytes.Equal(got[:], sum) {
		return nil
	}
	if uint64(len(data)) > math.MaxUint32 { // treeMemoMax keeps it far below
		return nil
	}
	d := &memoDecoder{data: body}
	recs := make([]memoRec, 0, len(body)/24+1) // an empty tree's record is 24 bytes
	for len(d.data) > 0 && d.err == nil {
		start := len(body) - len(d.data)
		oid := d.raw()
		at := len(body) - len(d.data) - len(oid)
		if at-start > math.MaxUint8 || len(oid) > math.MaxUint8 {
			return nil // no tree id is that long
		}
		fl := d.byte()
		for range d.count() {
			d.byte()
			d.raw()
			d.raw()
		}
		for range d.count() {
			d.raw()
			d.raw()
			d.byte()
		}
		if d.err != nil {
			return nil
		}
		rec := memoRec{start: uint32(start), end: uint32(len(body) - len(d.data)), oidOff: uint8(at - start), oidLen: uint8(len(oid)), flags: fl}
		if n := len(recs); n > 0 && cmp.Or(bytes.Compare(recs[n-1].oid(body), oid), int(recs[n-1].flags)-int(fl)) >= 0 {
			return nil // not sorted, or a key twice
		}
		recs = append(recs, rec)
	}
	return recs
}

// decodeRecord reads one record of selection sel; any flaw is an error.
func decodeRecord(sel string, rec []byte) (*treeSummary, error) {
	d := &memoDecoder{data: rec}
	d.oid()
	d.flags()
	s := &treeSummary{}
	for range d.count() {
		c := d.byte()
		f := keptFile{name: d.name()}
		f.oid = d.oid()
		if int(c) >= len(modeCodes) {
			d.fail()
			break
		}
		f.mode = modeCodes[c]
		s.files = append(s.files, f)
	}
	for range d.count() {
		dd := keptDir{name: d.name()}
		dd.key = sumKey{sel: sel, oid: d.oid()}
		dd.key.group, dd.key.marked = d.flags()
		s.dirs = append(s.dirs, dd)
	}
	if d.err == nil && len(d.data) > 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	if s.empty() {
		return emptySummary, nil
	}
	return s, nil
}

type memoDecoder struct {
	data []byte
	err  error
}

func (d *memoDecoder) fail() {
	if d.err == nil {
		d.err = errors.New("malformed tree memo")
	}
	d.data = nil
}

func (d *memoDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.data = d.data[n:]
	return v
}

// count reads a count no larger than what is left of the data.
func (d *memoDecoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.data)) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *memoDecoder) raw() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	b := d.data[:n]
	d.data = d.data[n:]
	return b
}

func (d *memoDecoder) str() string { return string(d.raw()) }

// name reads an entry name: not empty, no slash, no NUL.
func (d *memoDecoder) name() string {
	s := d.str()
	if d.err == nil && (s == "" || strings.ContainsAny(s, "/\x00")) {
		d.fail()
	}
	return s
}

func (d *memoDecoder) oid() string {
	b := d.raw()
	if d.err == nil && len(b) != 20 && len(b) != 32 {
		d.fail()
	}
	return hex.EncodeToString(b)
}

func (d *memoDecoder) byte() byte {
	if len(d.data) == 0 {
		d.fail()
		return 0
	}
	c := d.data[0]
	d.data = d.data[1:]
	return c
}

// flags reads a key's group and marked bits.
func (d *memoDecoder) flags() (group, marked bool) {
	c := d.byte()
	if c > 3 {
		d.fail()
	}
	return c&1 != 0, c&2 != 0
}

// flags encodes a key's group and marked bits.
func flags(k sumKey) byte {
	var c byte
	if k.group {
		c |= 1
	}
	if k.marked {
		c |= 2
	}
	return c
}
