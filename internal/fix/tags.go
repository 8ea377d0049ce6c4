package fix

import (
	"strings"
)

// tagKey is one key:"value" pair of a struct tag, with the offsets of
// its value (between the quotes) in the tag's text.
type tagKey struct {
	key        string
	value      string // as written between the quotes
	start, end int    // value offsets in the tag text
	escaped    bool   // the value holds a backslash
}

// tagText is a struct tag as written: the keys in order and where the
// last one ends.
type tagText struct {
	keys []tagKey
	end  int // offset just past the last key's closing quote
}

// parseTag splits the text of a struct tag (without the back quotes) the
// way reflect.StructTag.Lookup reads it, keeping offsets. ok is false
// when the tag is not in the conventional key:"value" form.
func parseTag(tag string) (tagText, bool) {
	var t tagText
	i := 0
	for {
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		if i == len(tag) {
			return t, true
		}
		j := i
		for j < len(tag) && tag[j] > ' ' && tag[j] != ':' && tag[j] != '"' && tag[j] != 0x7f {
			j++
		}
		if j == i || j+1 >= len(tag) || tag[j] != ':' || tag[j+1] != '"' {
			return t, false
		}
		k := tagKey{key: tag[i:j], start: j + 2}
		q := j + 2
		for q < len(tag) && tag[q] != '"' {
			if tag[q] == '\\' {
				k.escaped = true
				q++
			}
			q++
		}
		if q >= len(tag) {
			return t, false
		}
		k.end = q
		k.value = tag[k.start:k.end]
		t.keys = append(t.keys, k)
		t.end = q + 1
		i = q + 1
	}
}

// get returns the key's entry.
func (t tagText) get(key string) (tagKey, bool) {
	for _, k := range t.keys {
		if k.key == key {
			return k, true
		}
	}
	return tagKey{}, false
}

// jsonOmits reports whether a json tag value has omitempty or omitzero.
func jsonOmits(v string) bool {
	_, opts, _ := strings.Cut(v, ",")
	for _, o := range strings.Split(opts, ",") {
		if o = strings.TrimSpace(o); o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}

// protoNumberSpan returns the offsets (within the value) of the number
// of a protobuf tag value "wire,N,label,...".
func protoNumberSpan(v string) (start, end int, ok bool) {
	c1 := strings.IndexByte(v, ',')
	if c1 < 0 {
		return 0, 0, false
	}
	start = c1 + 1
	end = start
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	if end == start || (end < len(v) && v[end] != ',') {
		return 0, 0, false
	}
	return start, end, true
}
