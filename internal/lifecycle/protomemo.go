package lifecycle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

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
const protoMemoKind = "proto history 1"

// protoMemo is the memo of one history's struct histories: base is the
// hash of what they all depend on (nil memo: none).
type protoMemo struct {
	e    *History
	memo git.Memo
	base []byte
	tags []git.Tag
}

func (e *History) protoMemo(tags []git.Tag) *protoMemo {
	m := e.Memo()
	id := git.BinaryID()
	if m == nil || id == "" {
		return &protoMemo{}
	}
	h := sha256.New()
	word(h, protoMemoKind)
	word(h, id)
	for _, t := range tags {
		word(h, t.Name)
		word(h, t.Commit)
	}
	return &protoMemo{e: e, memo: m, base: h.Sum(nil), tags: tags}
}

type hashWriter interface{ Write([]byte) (int, error) }

func word(h hashWriter, s string) {
	h.Write(binary.AppendUvarint(nil, uint64(len(s))))
	h.Write([]byte(s))
}

// key is the memo key of struct typ of dir, judged against its shape.
func (p *protoMemo) key(dir, typ string) string {
	h := sha256.New()
	h.Write(p.base)
	word(h, dir)
	word(h, typ)
	shape := p.e.refShape(dir, typ)
	if shape == nil {
		word(h, "none") // no struct to judge against: no break either
	} else {
		keys := make([]string, 0, len(shape))
		for k := range shape {
			keys = append(keys, strconv.Quote(k.json)+" "+strconv.Itoa(k.number))
		}
		slices.Sort(keys)
		word(h, "shape")
		for _, k := range keys {
			word(h, k)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// get returns the memoised history of a struct.
func (p *protoMemo) get(dir, typ string) (StructHistory, bool) {
	if p.memo == nil {
		return StructHistory{}, false
	}
	return decodeStructHistory(p.memo.Get(protoMemoKind, p.key(dir, typ)), p.tags)
}

func (p *protoMemo) put(dir, typ string, sh StructHistory) {
	if p.memo == nil {
		return
	}
	if data, ok := encodeStructHistory(sh, p.tags); ok {
		p.memo.Put(protoMemoKind, p.key(dir, typ), data)
	}
}

// encodeStructHistory writes a history as ProtoNumbers reads it: the
// break ("break" and the tag, or "break-"), then a line per release, its
// position among the tags and its fields ("=": those of the release
// before), each field's name, JSON name, number and wire quoted or
// written out. ok is false for a release that is not the next tag.
func encodeStructHistory(sh StructHistory, tags []git.Tag) ([]byte, bool) {
	var b strings.Builder
	if sh.Break != "" {
		b.WriteString("break " + strconv.Quote(sh.Break))
	} else {
		b.WriteString("break-")
	}
	var prev []relField
	for i, rs := range sh.Releases {
		if i >= len(tags) || tags[i].Name != rs.Tag {
			return nil, false
		}
		b.WriteString("\nr " + strconv.Quote(rs.File))
		if i > 0 && slices.EqualFunc(rs.fields, prev, sameProtoField) {
			b.WriteString(" =")
			continue
		}
		b.WriteString(" " + strconv.Itoa(len(rs.fields)))
		for _, f := range rs.fields {
			b.WriteString("\n" + strconv.Quote(f.Name) + " " + strconv.Quote(f.JSON) + " " + strconv.Itoa(f.Number) + " " + strconv.Quote(f.Wire))
		}
		prev = rs.fields
	}
	return []byte(b.String()), true
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
	lines := strings.Split(string(data), "\n")
	var sh StructHistory
	switch head := lines[0]; {
	case head == "break-":
	case strings.HasPrefix(head, "break "):
		t, err := strconv.Unquote(head[len("break "):])
		if err != nil || t == "" {
			return StructHistory{}, false
		}
		sh.Break = t
	default:
		return StructHistory{}, false
	}
	var prev []relField
	for i := 1; i < len(lines); {
		rel := len(sh.Releases)
		rest, ok := strings.CutPrefix(lines[i], "r ")
		if !ok || rel >= len(tags) {
			return StructHistory{}, false
		}
		i++
		j := strings.LastIndexByte(rest, ' ')
		if j < 0 {
			return StructHistory{}, false
		}
		file, err := strconv.Unquote(rest[:j])
		if err != nil {
			return StructHistory{}, false
		}
		fields := prev
		if rest[j+1:] != "=" || rel == 0 {
			n, err := strconv.Atoi(rest[j+1:])
			if err != nil || n < 0 || n > len(lines)-i {
				return StructHistory{}, false
			}
			fields = make([]relField, n)
			for k := range fields {
				f, ok := decodeProtoField(lines[i])
				if !ok {
					return StructHistory{}, false
				}
				fields[k] = f
				i++
			}
		}
		sh.Releases = append(sh.Releases, ReleaseStruct{Tag: tags[rel].Name, File: file, fields: fields})
		prev = fields
	}
	return sh, true
}

func decodeProtoField(l string) (relField, bool) {
	var parts [4]string
	rest := l
	for k := range parts {
		var q string
		var err error
		if k == 2 {
			sp := strings.IndexByte(rest, ' ')
			if sp < 0 {
				return relField{}, false
			}
			q, rest = rest[:sp], rest[sp+1:]
		} else {
			if q, err = strconv.QuotedPrefix(rest); err != nil {
				return relField{}, false
			}
			rest = strings.TrimPrefix(rest[len(q):], " ")
			if q, err = strconv.Unquote(q); err != nil {
				return relField{}, false
			}
		}
		parts[k] = q
	}
	if rest != "" {
		return relField{}, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return relField{}, false
	}
	return relField{Name: parts[0], JSON: parts[1], Number: n, Wire: parts[3]}, true
}
