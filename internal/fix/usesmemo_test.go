package fix

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/finding"
)

// mapMemo is a git.Memo in memory that counts its hits.
type mapMemo struct {
	m    map[string][]byte
	hits int
}

func (m *mapMemo) Get(kind, key string) []byte {
	v, ok := m.m[kind+" "+key]
	if ok {
		m.hits++
	}
	return v
}

func (m *mapMemo) Put(kind, key string, value []byte) { m.m[kind+" "+key] = value }

// The uses of a field are memoised by the package's files: a later plan
// (another lookups, as another run has) answers from the memo without a
// type check, the same answer, parse errors included; a file that
// changed is a new question.
func TestFieldUsesMemo(t *testing.T) {
	const dir, importPath = "p/v1", "example.com/api/p/v1"
	types := []byte("package v1\n\ntype S struct {\n\tA int32 `json:\"a\"`\n}\n")
	files := map[string][]byte{dir + "/types.go": types, dir + "/h.go": []byte("package v1\n\nfunc f(s S) int32 { return s.A }\n")}
	broken := map[string][]byte{dir + "/types.go": types, dir + "/h.go": []byte("package v1\n\nfunc (\n")}
	memo := &mapMemo{m: map[string][]byte{}}
	type answer struct {
		Refs []fieldRef
		Err  *parseError
	}
	ask := func(files map[string][]byte) (answer, bool) {
		l := &lookups{memo: memo}
		refs, pe := l.fieldUses(files, "v1", importPath, "S", "A")
		return answer{refs, pe}, l.typed != nil
	}
	opts := cmp.AllowUnexported(fieldRef{}, parseError{})

	first, checked := ask(files)
	if !checked || len(first.Refs) != 1 || first.Refs[0].pos != dir+"/h.go:3:30" || !first.Refs[0].sure {
		t.Fatalf("first answer %+v (type-checked %v), want the use at h.go:3:30", first, checked)
	}
	again, checked := ask(files)
	if checked || memo.hits != 1 {
		t.Errorf("asked again: type-checked %v, %d memo hits; want the memo's answer", checked, memo.hits)
	}
	if d := cmp.Diff(first, again, opts); d != "" {
		t.Errorf("the memo's answer differs (-first +again):\n%s", d)
	}

	bad, _ := ask(broken)
	if bad.Err == nil {
		t.Fatalf("a file that does not parse: %+v", bad)
	}
	hits := memo.hits
	badAgain, _ := ask(broken)
	if memo.hits != hits+1 {
		t.Errorf("the parse error was not memoised")
	}
	if d := cmp.Diff(bad, badAgain, opts); d != "" {
		t.Errorf("the memo's parse error differs:\n%s", d)
	}
}

// encodeUses and decodeUses round-trip; anything else is a miss.
func TestUsesEncoding(t *testing.T) {
	opts := cmp.AllowUnexported(fieldRef{}, parseError{})
	for _, c := range []struct {
		refs []fieldRef
		pe   *parseError
	}{
		{nil, nil},
		{[]fieldRef{{"a.go:1:2", true}, {"b.go:3:4", false}}, nil},
		{nil, &parseError{pos: "a.go:1:1", msg: "expected 'IDENT'\nand more"}},
	} {
		refs, pe, ok := decodeUses(encodeUses(c.refs, c.pe))
		if !ok || !cmp.Equal(c.refs, refs, opts) || !cmp.Equal(c.pe, pe, opts) {
			t.Errorf("round trip of %+v %+v: %+v %+v %v", c.refs, c.pe, refs, pe, ok)
		}
	}
	for _, bad := range []string{"", "x", "uses\nperhaps a.go:1:1", "usesX", "parse\n", "uses\nsure "} {
		if _, _, ok := decodeUses([]byte(bad)); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}

// Suggestions are memoised by the edits and the files' contents: a
// later plan (another lookups) answers from the memo, the same answer;
// another content or other edits are new questions.
func TestSuggestionsMemo(t *testing.T) {
	src := []byte("package v1\n\ntype S struct {\n\tA    string `json:\"a\"`\n\tLong int32  `json:\"long\"`\n}\n")
	ptr := strings.Index(string(src), "int32")
	fx := finding.Fix{Edits: []finding.Edit{{Path: "a.go", StartOffset: ptr, EndOffset: ptr + len("int32"), NewText: "*int32"}}}
	content := map[string][]byte{"a.go": src}
	memo := &mapMemo{m: map[string][]byte{}}
	want := suggestions(fx, content)
	if got := (&lookups{memo: memo}).suggestions(fx, content); !cmp.Equal(got, want) || len(memo.m) != 1 {
		t.Fatalf("first: %+v with %d memo entries, want %+v and one entry", got, len(memo.m), want)
	}
	// What the memo holds is what a later plan answers.
	l := &lookups{memo: memo}
	key := l.suggestKey(fx, content)
	planted := []finding.Suggestion{{Path: "a.go", StartLine: 1, EndLine: 1, Text: "from the memo"}}
	data, _ := json.Marshal(planted)
	memo.Put(suggestMemoKind, key, data)
	if got := l.suggestions(fx, content); !cmp.Equal(got, planted) {
		t.Errorf("a later plan: %+v, want the memo's %+v", got, planted)
	}
	other := map[string][]byte{"a.go": append(append([]byte{}, src...), "// more\n"...)}
	if k := (&lookups{memo: memo}).suggestKey(fx, other); k == key {
		t.Error("another content has the same key")
	}
	fx2 := finding.Fix{Edits: []finding.Edit{{Path: "a.go", StartOffset: ptr, EndOffset: ptr + len("int32"), NewText: "*int64"}}}
	if k := l.suggestKey(fx2, content); k == key {
		t.Error("other edits have the same key")
	}
}
