package scan

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"maps"
	"slices"

	"github.com/apicheck/apicheck/internal/model"
)

// The memo's encoding of a scanned model (memoEntry): a string table and
// the values in a fixed order, every number a varint, every string an
// index into the table (file names, types and markers repeat; a string
// longer than memoInternMax, a doc, is written in place), every
// slice and map its length plus one (0: nil, so that nil and empty stay
// apart) and every pointer a presence byte. It is written for the model
// as a scan returns it, before contracts: a field with a contract is not
// encoded (errContract). Decoding checks every length and index against
// the data and fails on the first flaw, never panicking; a decoded
// model's types and fields are allocated a package at a time, and each
// distinct string on its own (none keeps the entry's bytes alive).
//
// TestMemoCodecRoundTrip fills every field of the model's types and
// checks that they come back: a field added to the model and not here
// fails it.

var (
	errContract = errors.New("a field has a contract: the memo holds models before contracts")
	errCorrupt  = errors.New("memo entry does not decode")
)

type memoEnc struct {
	out   []byte
	ids   map[string]uint64
	table []string
	err   error
	// group, while a group is written, collects its content (hashed at
	// its end): the values, with each string's bytes where the table's
	// index goes (an index is the entry's own). hashes are the groups'
	// hashes.
	group   []byte
	gh      hash.Hash // what group held before it was flushed (groupFlush)
	inGroup bool
	hashes  []string
}

// groupFlush hashes what group collected once it is this large.
const groupFlush = 64 << 10

// groupAdd adds bytes to the group's content.
func (e *memoEnc) groupAdd(b []byte) {
	e.group = append(e.group, b...)
	if len(e.group) >= groupFlush {
		e.gh.Write(e.group)
		e.group = e.group[:0]
	}
}

func (e *memoEnc) uint(x uint64) {
	n := len(e.out)
	e.out = binary.AppendUvarint(e.out, x)
	if e.inGroup {
		e.groupAdd(e.out[n:])
	}
}

func (e *memoEnc) int(x int) {
	n := len(e.out)
	e.out = binary.AppendVarint(e.out, int64(x))
	if e.inGroup {
		e.groupAdd(e.out[n:])
	}
}

func (e *memoEnc) bools(bs ...bool) {
	var x uint64
	for i, b := range bs {
		if b {
			x |= 1 << i
		}
	}
	e.uint(x)
}

// str writes a string: 0 for "", a long one (docs) in place (its length
// times two plus one, then its bytes), another by its index in the table
// (the index plus one, times two).
func (e *memoEnc) str(s string) {
	if e.inGroup {
		e.group = binary.AppendUvarint(e.group, uint64(len(s)))
		e.groupAdd([]byte(s))
		e.inGroup = false // what follows is the entry's own encoding
		defer func() { e.inGroup = true }()
	}
	switch {
	case s == "":
		e.uint(0)
	case len(s) > memoInternMax:
		e.uint(uint64(len(s))<<1 | 1)
		e.out = append(e.out, s...)
	default:
		id, ok := e.ids[s]
		if !ok {
			id = uint64(len(e.table))
			e.ids[s] = id
			e.table = append(e.table, s)
		}
		e.uint((id + 1) << 1)
	}
}

// memoInternMax is the longest string the table holds: longer ones
// (docs) seldom repeat, and hashing them costs more than writing them.
const memoInternMax = 64

// count writes the length of a slice or map plus one, 0 for nil.
func (e *memoEnc) count(n int, isNil bool) {
	if isNil {
		e.uint(0)
		return
	}
	e.uint(uint64(n) + 1)
}

func (e *memoEnc) strs(ss []string) {
	e.count(len(ss), ss == nil)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *memoEnc) strMap(m map[string]string) {
	e.count(len(m), m == nil)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e.str(k)
		e.str(m[k])
	}
}

func (e *memoEnc) pos(p model.Pos) {
	e.str(p.File)
	e.int(p.Line)
	e.int(p.Col)
}

func (e *memoEnc) markers(ms model.Markers) {
	e.count(len(ms), ms == nil)
	for _, m := range ms {
		e.str(m.Key)
		e.str(m.Value)
	}
}

func (e *memoEnc) located(ms []model.LocatedMarker) {
	e.count(len(ms), ms == nil)
	for _, m := range ms {
		e.str(m.Key)
		e.str(m.Value)
		e.pos(m.Pos)
	}
}

func (e *memoEnc) proto(p *model.ProtoTag) {
	e.bools(p != nil)
	if p == nil {
		return
	}
	e.str(p.Wire)
	e.int(p.Number)
	e.str(p.Label)
	e.str(p.Name)
	e.strs(p.Options)
	e.str(p.Raw)
}

func (e *memoEnc) model(m *model.Model) {
	e.str(string(m.Profile))
	e.str(m.ProfileReason)
	e.count(len(m.Groups), m.Groups == nil)
	for _, g := range m.Groups {
		e.bools(g != nil)
		if g == nil {
			e.hashes = append(e.hashes, "")
			continue
		}
		if e.gh == nil {
			e.gh, e.group = sha256.New(), make([]byte, 0, groupFlush+memoInternMax)
		}
		e.gh.Reset()
		e.group, e.inGroup = e.group[:0], true
		e.str(g.Dir)
		e.str(g.Name)
		e.str(string(g.Profile))
		e.str(string(g.UntrustedProfile))
		e.pkgPtr(g.Internal)
		e.pkgs(g.Versions)
		e.gh.Write(e.group)
		e.hashes = append(e.hashes, string(e.gh.Sum(nil)))
		e.inGroup = false
	}
	e.pkgs(m.Shared)
	e.pkgs(m.External)
	e.strs(m.Notes)
	e.strs(m.Modules)
	e.strs(m.Requires)
}

func (e *memoEnc) pkgs(ps []*model.Package) {
	e.count(len(ps), ps == nil)
	for _, p := range ps {
		e.pkgPtr(p)
	}
}

func (e *memoEnc) pkgPtr(p *model.Package) {
	e.bools(p != nil)
	if p == nil {
		return
	}
	e.str(p.Dir)
	e.str(p.ImportPath)
	e.str(p.Name)
	e.str(p.Version)
	e.str(string(p.Maturity))
	e.str(p.GroupName)
	e.str(p.GroupNameUnknown)
	e.str(p.ConversionGen)
	e.bools(p.Deprecated, p.DefaultOptional)
	e.strs(p.Files)
	e.count(len(p.Imports), p.Imports == nil)
	for _, k := range slices.Sorted(maps.Keys(p.Imports)) {
		e.str(k)
		e.strMap(p.Imports[k])
	}
	e.strMap(p.Conversions)
	e.count(len(p.Consts), p.Consts == nil)
	for _, c := range p.Consts {
		e.bools(c != nil)
		if c == nil {
			continue
		}
		e.str(c.Name)
		e.str(c.Type)
		e.str(c.Value)
		e.str(c.Below)
		e.pos(c.Pos)
	}
	// The fields of all the types first, so that the decoder allocates
	// them at once.
	nf := 0
	for _, t := range p.Types {
		if t != nil {
			nf += len(t.Fields)
		}
	}
	e.uint(uint64(nf))
	e.count(len(p.Types), p.Types == nil)
	for _, t := range p.Types {
		e.typ(t)
	}
}

func (e *memoEnc) typ(t *model.Type) {
	e.bools(t != nil)
	if t == nil {
		return
	}
	e.str(t.Name)
	e.str(string(t.Kind))
	e.str(t.Underlying)
	e.str(t.UnderlyingID)
	e.str(t.Doc)
	e.bools(t.Alias, t.RootKind, t.CustomJSON, t.Deprecated, t.Alpha)
	e.pos(t.Pos)
	e.pos(t.End)
	e.markers(t.Markers)
	e.located(t.Own)
	e.count(len(t.Tombstones), t.Tombstones == nil)
	for _, ts := range t.Tombstones {
		e.bools(ts != nil)
		if ts == nil {
			continue
		}
		e.str(ts.FieldName)
		e.str(ts.Type)
		e.str(ts.JSONName)
		e.str(ts.Explanation)
		e.str(ts.Problem)
		e.proto(ts.Proto)
		e.pos(ts.Pos)
	}
	e.count(len(t.Fields), t.Fields == nil)
	for _, f := range t.Fields {
		e.field(f)
	}
}

func (e *memoEnc) field(f *model.Field) {
	e.bools(f != nil)
	if f == nil {
		return
	}
	if f.Contract != nil {
		e.err = errContract
	}
	e.str(f.Name)
	e.str(f.Type)
	e.str(string(f.Nillable))
	e.str(f.NillableWhy)
	e.str(string(f.ValueKind))
	e.str(f.TypeID)
	e.str(f.Tag)
	e.str(f.JSON.Name)
	e.str(f.ProtoErr)
	e.str(f.PatchStrategy)
	e.str(f.PatchMergeKey)
	e.str(f.Doc)
	e.bools(f.Embedded, f.Deprecated, f.Alpha,
		f.JSON.Present, f.JSON.OmitEmpty, f.JSON.OmitZero, f.JSON.Inline, f.JSON.String)
	e.proto(f.Proto)
	e.markers(f.Markers)
	e.located(f.Own)
	e.strs(f.Promoted)
	e.strs(f.PromotedKnown)
	e.strs(f.PromotedUnknown)
	e.strs(f.InlinedTypes)
	e.pos(f.Pos)
}

// encodeMemo encodes an entry: the values, then the string table (its
// count, then each string's length and bytes), then where the table
// starts (8 bytes, little-endian).
func encodeMemo(entry memoEntry) ([]byte, error) {
	e := &memoEnc{ids: make(map[string]uint64, 4096), out: make([]byte, 0, 1<<20)}
	e.count(len(entry.ModDirs), false)
	for _, p := range entry.ModDirs {
		e.str(p.Rel)
		e.bools(p.Absent)
		e.strs(p.Entries)
	}
	e.bools(entry.Model != nil)
	if entry.Model != nil {
		e.model(entry.Model)
		e.strs(e.hashes)
	}
	if e.err != nil {
		return nil, e.err
	}
	start := len(e.out)
	e.uint(uint64(len(e.table)))
	for _, s := range e.table {
		e.uint(uint64(len(s)))
		e.out = append(e.out, s...)
	}
	return binary.LittleEndian.AppendUint64(e.out, uint64(start)), nil
}

type memoDec struct {
	data []byte
	off  int
	// table are the table's strings.
	table []string
	err   error
}

func (d *memoDec) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.off = len(d.data)
}

func (d *memoDec) left() int { return len(d.data) - d.off }

func (d *memoDec) uint() uint64 {
	x, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return x
}

func (d *memoDec) int() int {
	x, n := binary.Varint(d.data[d.off:])
	if n <= 0 || int64(int(x)) != x {
		d.fail()
		return 0
	}
	d.off += n
	return int(x)
}

func (d *memoDec) bools(n int) uint64 {
	x := d.uint()
	if x>>n != 0 {
		d.fail()
		return 0
	}
	return x
}

func (d *memoDec) present() bool { return d.bools(1) == 1 }

// bytesAt takes the next n bytes as a string of its own (a part of one
// string would keep the whole entry in memory while any part lives: a
// tree judged part by part keeps the parts' group names).
func (d *memoDec) bytesAt(n uint64) string {
	if n > uint64(d.left()) {
		d.fail()
		return ""
	}
	s := string(d.data[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *memoDec) str() string {
	x := d.uint()
	switch {
	case x == 0:
		return ""
	case x&1 == 1:
		return d.bytesAt(x >> 1)
	}
	i := x>>1 - 1
	if i >= uint64(len(d.table)) {
		d.fail()
		return ""
	}
	return d.table[i]
}

// count reads a length written by memoEnc.count: nil is false for a nil
// slice or map. Every element takes a byte at least, so a count above
// the bytes left is a flaw.
func (d *memoDec) count() (n int, ok bool) {
	x := d.uint()
	if x == 0 {
		return 0, false
	}
	if x-1 > uint64(d.left()) {
		d.fail()
		return 0, false
	}
	return int(x - 1), true
}
func (d *memoDec) strs() []string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *memoDec) strMap() map[string]string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := d.str()
		m[k] = d.str()
	}
	return m
}

func (d *memoDec) pos() model.Pos {
	return model.Pos{File: d.str(), Line: d.int(), Col: d.int()}
}

func (d *memoDec) markers() model.Markers {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make(model.Markers, n)
	for i := range out {
		out[i] = model.Marker{Key: d.str(), Value: d.str()}
	}
	return out
}

func (d *memoDec) located() []model.LocatedMarker {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make([]model.LocatedMarker, n)
	for i := range out {
		out[i].Key, out[i].Value = d.str(), d.str()
		out[i].Pos = d.pos()
	}
	return out
}

func (d *memoDec) proto() *model.ProtoTag {
	if !d.present() {
		return nil
	}
	return &model.ProtoTag{Wire: d.str(), Number: d.int(), Label: d.str(), Name: d.str(), Options: d.strs(), Raw: d.str()}
}

func (d *memoDec) model() *model.Model {
	m := &model.Model{Profile: model.Profile(d.str()), ProfileReason: d.str()}
	if n, ok := d.count(); ok {
		m.Groups = make([]*model.Group, n)
		for i := range m.Groups {
			if !d.present() {
				continue
			}
			g := &model.Group{Dir: d.str(), Name: d.str(), Profile: model.Profile(d.str()), UntrustedProfile: model.Profile(d.str())}
			g.Internal = d.pkgPtr()
			g.Versions = d.pkgs()
			m.Groups[i] = g
		}
	}
	m.Shared = d.pkgs()
	m.External = d.pkgs()
	m.Notes = d.strs()
	m.Modules = d.strs()
	m.Requires = d.strs()
	return m
}

func (d *memoDec) pkgs() []*model.Package {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make([]*model.Package, n)
	for i := range out {
		out[i] = d.pkgPtr()
	}
	return out
}

func (d *memoDec) pkgPtr() *model.Package {
	if !d.present() {
		return nil
	}
	p := &model.Package{Dir: d.str(), ImportPath: d.str(), Name: d.str(), Version: d.str(),
		Maturity: model.Maturity(d.str()), GroupName: d.str(), GroupNameUnknown: d.str(), ConversionGen: d.str()}
	flags := d.bools(2)
	p.Deprecated, p.DefaultOptional = flags&1 != 0, flags&2 != 0
	p.Files = d.strs()
	if n, ok := d.count(); ok {
		p.Imports = make(map[string]map[string]string, n)
		for range n {
			k := d.str()
			p.Imports[k] = d.strMap()
		}
	}
	p.Conversions = d.strMap()
	if n, ok := d.count(); ok {
		p.Consts = make([]*model.Const, n)
		for i := range p.Consts {
			if d.present() {
				p.Consts[i] = &model.Const{Name: d.str(), Type: d.str(), Value: d.str(), Below: d.str(), Pos: d.pos()}
			}
		}
	}
	nf := d.uint()
	if nf > uint64(d.left()) {
		d.fail()
		return p
	}
	fields := make([]model.Field, nf)
	if n, ok := d.count(); ok {
		types := make([]model.Type, n)
		p.Types = make([]*model.Type, n)
		for i := range p.Types {
			p.Types[i] = d.typ(&types[i], &fields)
		}
	}
	return p
}

// typ decodes a type into t (nil when it was nil), its fields into the
// package's slab.
func (d *memoDec) typ(t *model.Type, slab *[]model.Field) *model.Type {
	if !d.present() {
		return nil
	}
	t.Name, t.Kind, t.Underlying, t.UnderlyingID, t.Doc = d.str(), model.TypeKind(d.str()), d.str(), d.str(), d.str()
	flags := d.bools(5)
	t.Alias, t.RootKind, t.CustomJSON, t.Deprecated, t.Alpha = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0, flags&16 != 0
	t.Pos, t.End = d.pos(), d.pos()
	t.Markers = d.markers()
	t.Own = d.located()
	if n, ok := d.count(); ok {
		t.Tombstones = make([]*model.Tombstone, n)
		for i := range t.Tombstones {
			if d.present() {
				ts := &model.Tombstone{FieldName: d.str(), Type: d.str(), JSONName: d.str(), Explanation: d.str(), Problem: d.str()}
				ts.Proto = d.proto()
				ts.Pos = d.pos()
				t.Tombstones[i] = ts
			}
		}
	}
	if n, ok := d.count(); ok {
		t.Fields = make([]*model.Field, n)
		for i := range t.Fields {
			if !d.present() {
				continue
			}
			if len(*slab) == 0 {
				d.fail()
				return t
			}
			f := &(*slab)[0]
			*slab = (*slab)[1:]
			d.field(f)
			t.Fields[i] = f
		}
	}
	return t
}

func (d *memoDec) field(f *model.Field) {
	f.Name, f.Type, f.Nillable, f.NillableWhy = d.str(), d.str(), model.Nillability(d.str()), d.str()
	f.ValueKind, f.TypeID, f.Tag, f.JSON.Name = model.ValueKind(d.str()), d.str(), d.str(), d.str()
	f.ProtoErr, f.PatchStrategy, f.PatchMergeKey, f.Doc = d.str(), d.str(), d.str(), d.str()
	flags := d.bools(8)
	f.Embedded, f.Deprecated, f.Alpha = flags&1 != 0, flags&2 != 0, flags&4 != 0
	f.JSON.Present, f.JSON.OmitEmpty, f.JSON.OmitZero, f.JSON.Inline, f.JSON.String = flags&8 != 0, flags&16 != 0, flags&32 != 0, flags&64 != 0, flags&128 != 0
	f.Proto = d.proto()
	f.Markers = d.markers()
	f.Own = d.located()
	f.Promoted = d.strs()
	f.PromotedKnown = d.strs()
	f.PromotedUnknown = d.strs()
	f.InlinedTypes = d.strs()
	f.Pos = d.pos()
}

// decodeMemo decodes what encodeMemo wrote.
func decodeMemo(data []byte) (memoEntry, error) {
	if len(data) < 8 {
		return memoEntry{}, errCorrupt
	}
	start := binary.LittleEndian.Uint64(data[len(data)-8:])
	data = data[:len(data)-8]
	if start > uint64(len(data)) {
		return memoEntry{}, errCorrupt
	}
	d := &memoDec{data: data, off: int(start)}
	n := d.uint()
	if n > uint64(d.left()) {
		return memoEntry{}, errCorrupt
	}
	d.table = make([]string, n)
	for i := range d.table {
		l := d.uint()
		if d.err != nil || l > uint64(d.left()) {
			return memoEntry{}, errCorrupt
		}
		d.table[i] = d.bytesAt(l)
	}
	if d.left() != 0 {
		return memoEntry{}, errCorrupt
	}
	// The values, before the table.
	d.data, d.off = data[:start], 0
	var e memoEntry
	if k, ok := d.count(); ok {
		e.ModDirs = make([]ModDirPrint, k)
		for i := range e.ModDirs {
			e.ModDirs[i].Rel = d.str()
			e.ModDirs[i].Absent = d.bools(1) == 1
			e.ModDirs[i].Entries = d.strs()
		}
	}
	if d.present() {
		e.Model = d.model()
		e.GroupHashes = d.strs()
		if len(e.GroupHashes) != len(e.Model.Groups) {
			d.fail()
		}
	}
	if d.err != nil || d.left() != 0 {
		return memoEntry{}, errCorrupt
	}
	return e, nil
}
