package lifecycle

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/apicheck/apicheck/internal/git"
)

// The protobuf history of a struct (structHistory over every release, as
// ProtoHistory reads it) is a function of the release tags and their
// commits, the struct's directory and name, and the shape it is judged
// against (refShape, from base or head): it is memoised in the cache
// (git.Memo) under a key that hashes these with the apicheck executable
// (git.BinaryID), so that a check or an audit run again reads no release
// tree or blob of a struct it asked about before.

// protoMemoKind names the memo entries.
const protoMemoKind = "proto history 2"

// protoMemo is the memo of one history's struct histories: tags are the
// release tags they all depend on (nil memo: none).
type protoMemo struct {
	e    *History
	memo git.Memo
	tags []git.Tag
}

func (e *History) protoMemo(tags []git.Tag) *protoMemo {
	if m := e.Memo(); m != nil && git.BinaryID() != "" {
		return &protoMemo{e: e, memo: m, tags: tags}
	}
	return &protoMemo{}
}

// key is the memo key of struct typ of dir, judged against its shape.
func (p *protoMemo) key(dir, typ string) string {
	k := git.NewMemoKey(protoMemoKind)
	for _, t := range p.tags {
		k.Words(t.Name, t.Commit)
	}
	k.Words(dir, typ)
	shape := p.e.refShape(dir, typ)
	if shape == nil {
		k.Word("none") // no struct to judge against: no break either
		return k.String()
	}
	keys := make([]string, 0, len(shape))
	for s := range shape {
		keys = append(keys, strconv.Quote(s.json)+" "+strconv.Itoa(s.number))
	}
	slices.Sort(keys)
	k.Word("shape")
	k.Words(keys...)
	return k.String()
}

// get returns the memoised history of a struct, and the key to put it
// under when there is none.
func (p *protoMemo) get(dir, typ string) (sh StructHistory, key string, ok bool) {
	if p.memo == nil {
		return StructHistory{}, "", false
	}
	key = p.key(dir, typ)
	sh, ok = decodeStructHistory(p.memo.Get(protoMemoKind, key), p.tags)
	return sh, key, ok
}

func (p *protoMemo) put(key string, sh StructHistory) {
	if p.memo == nil || key == "" {
		return
	}
	if data, ok := encodeStructHistory(sh, p.tags); ok {
		p.memo.Put(protoMemoKind, key, data)
	}
}

// encodeStructHistory writes a history as ProtoNumbers reads it: the
// break, the number of releases, and per release (the next tag each) its
// file and its fields, or a 0 byte for the fields of the release before;
// each field's name, JSON name and wire, and its number. Strings are
// their length (a uvarint) and bytes. ok is false for a release that is
// not the next tag.
func encodeStructHistory(sh StructHistory, tags []git.Tag) ([]byte, bool) {
	b := make([]byte, 0, 64)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(sh.Break)
	b = binary.AppendUvarint(b, uint64(len(sh.Releases)))
	var prev []relField
	for i, rs := range sh.Releases {
		if i >= len(tags) || tags[i].Name != rs.Tag {
			return nil, false
		}
		str(rs.File)
		if i > 0 && slices.EqualFunc(rs.fields, prev, sameProtoField) {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(rs.fields)))
		for _, f := range rs.fields {
			str(f.Name)
			str(f.JSON)
			str(f.Wire)
			b = binary.AppendVarint(b, int64(f.Number))
		}
		prev = rs.fields
	}
	return b, true
}

// sameProtoField compares what ProtoNumbers keeps of a field.
func sameProtoField(a, b relField) bool {
	return a.Name == b.Name && a.JSON == b.JSON && a.Number == b.Number && a.Wire == b.Wire
}

// decodeStructHistory reads what encodeStructHistory wrote (nil: a miss);
// the fields keep what ProtoNumbers reads of them.
func decodeStructHistory(data []byte, tags []git.Tag) (StructHistory, bool) {
	if data == nil {
		return StructHistory{}, false
	}
	bad := false
	uint := func() uint64 {
		x, n := binary.Uvarint(data)
		if n <= 0 {
			bad = true
			return 0
		}
		data = data[n:]
		return x
	}
	str := func() string {
		n := uint()
		if bad || n > uint64(len(data)) {
			bad = true
			return ""
		}
		s := string(data[:n])
		data = data[n:]
		return s
	}
	var sh StructHistory
	sh.Break = str()
	n := uint()
	if bad || n > uint64(len(tags)) || n > uint64(len(data)) {
		return StructHistory{}, false
	}
	var prev []relField
	for i := range int(n) {
		file := str()
		if bad || len(data) == 0 {
			return StructHistory{}, false
		}
		flag := data[0]
		data = data[1:]
		fields := prev
		switch {
		case flag == 0 && i > 0:
		case flag == 1:
			k := uint()
			if bad || k > uint64(len(data)) {
				return StructHistory{}, false
			}
			fields = make([]relField, k)
			for j := range fields {
				f := relField{Name: str(), JSON: str(), Wire: str()}
				num, m := binary.Varint(data)
				if bad || m <= 0 || int64(int(num)) != num {
					return StructHistory{}, false
				}
				data = data[m:]
				f.Number = int(num)
				fields[j] = f
			}
		default:
			return StructHistory{}, false
		}
		sh.Releases = append(sh.Releases, ReleaseStruct{Tag: tags[i].Name, File: file, fields: fields})
		prev = fields
	}
	if len(data) != 0 {
		return StructHistory{}, false
	}
	return sh, true
}
