package fix

import (
	"bytes"
	"fmt"
	"go/format"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func TestReplaceWord(t *testing.T) {
	for _, c := range []struct{ s, word, want string }{
		{"Foo is tombstoned to show why 2 is reserved", "2", "Foo is tombstoned to show why N is reserved"},
		{"v1.20 frees 2, not 20 or 12", "2", "v1.20 frees N, not 20 or 12"},
		{"FooBar and Foo", "Foo", "FooBar and N"},
		{"nothing", "", "nothing"},
	} {
		if got := replaceWord(c.s, c.word, "N"); got != c.want {
			t.Errorf("replaceWord(%q, %q) = %q, want %q", c.s, c.word, got, c.want)
		}
	}
}

func tombModel(expls ...string) *model.Model {
	typ := &model.Type{Name: "S", Kind: model.KindStruct}
	for i, e := range expls {
		name := fmt.Sprintf("F%d", i)
		typ.Tombstones = append(typ.Tombstones, &model.Tombstone{
			FieldName: name, Proto: &model.ProtoTag{Number: i + 1}, Explanation: fmt.Sprintf(e, name, i+1),
		})
	}
	return &model.Model{Groups: []*model.Group{{Versions: []*model.Package{{Types: []*model.Type{typ}}}}}}
}

func TestHouseStyle(t *testing.T) {
	const k8s = "%s is tombstoned to show why %d is a reserved protobuf tag."
	const gardener = "%s is tombstoned to show why %d is reserved protobuf tag."
	const own = "%s was removed; number %d stays reserved."
	const oneOff = "Removed in 1.20 (#123): %s, number %d, is reserved."
	for _, c := range []struct {
		name     string
		m        *model.Model
		sentence bool
		want     string
	}{
		{"no tombstones", tombModel(), true, "Old is tombstoned to show why 9 is reserved protobuf tag."},
		{"kubernetes spelling", tombModel(k8s), true, "Old is tombstoned to show why 9 is a reserved protobuf tag."},
		{"majority", tombModel(k8s, gardener, gardener), true, "Old is tombstoned to show why 9 is reserved protobuf tag."},
		{"tie prefers the checklist", tombModel(k8s, gardener), true, "Old is tombstoned to show why 9 is reserved protobuf tag."},
		{"own words, shared", tombModel(own, own, k8s), false, "Old was removed; number 9 stays reserved."},
		{"own words where the sentence is required", tombModel(own, own), true, "Old is tombstoned to show why 9 is reserved protobuf tag."},
		{"one-off words are not a style", tombModel(oneOff), false, "Old is tombstoned to show why 9 is reserved protobuf tag."},
		{"unrecognised words", tombModel("%s %d", "%s %d"), false, "Old is tombstoned to show why 9 is reserved protobuf tag."},
	} {
		if got := HouseStyles(c.m).explanation("Old", 9, c.sentence); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestStylesOfParts: the styles of a tree's parts add up to the whole
// tree's, and a part's plan stands where the whole tree's styles give the
// explanations the part's gave.
func TestStylesOfParts(t *testing.T) {
	const k8s = "%s is tombstoned to show why %d is a reserved protobuf tag."
	const own = "%s was removed; number %d stays reserved."
	a, b := HouseStyles(tombModel(own, k8s)), HouseStyles(tombModel(own))
	whole := HouseStyles(nil)
	whole.Add(a)
	whole.Add(b)
	for _, sentence := range []bool{false, true} {
		want := HouseStyles(tombModel(own, k8s, own)).explanation("Old", 9, sentence)
		if got := whole.explanation("Old", 9, sentence); got != want {
			t.Errorf("sentence=%v: the parts' styles added give %q, the whole tree's %q", sentence, got, want)
		}
	}
	if !b.Agrees(whole) {
		t.Error("a part whose styles gave no explanation disagrees")
	}
	a.explanation("Old", 9, false) // one own-words tombstone is no style: the checklist's sentence
	if a.Agrees(whole) {
		t.Error("the part's explanation (the checklist's) differs from the whole tree's (own words, twice), yet it agrees")
	}
	a.asked = nil
	a.explanation("Old", 9, true) // the sentence is required: the same either way
	if !a.Agrees(whole) {
		t.Error("where the sentence is required the part and the whole give the same, yet it disagrees")
	}
}

func TestParseTag(t *testing.T) {
	tag := `json:"replicas,omitempty" protobuf:"varint,12,opt,name=replicas,casttype=int32"`
	tt, ok := parseTag(tag)
	if !ok || len(tt.keys) != 2 || tt.end != len(tag) {
		t.Fatalf("parseTag = %+v, %v", tt, ok)
	}
	j, _ := tt.get("json")
	if tag[j.start:j.end] != "replicas,omitempty" || !jsonOmits(j.value) {
		t.Errorf("json = %+v", j)
	}
	p, _ := tt.get("protobuf")
	s, e, ok := protoNumberSpan(p.value)
	if !ok || p.value[s:e] != "12" {
		t.Errorf("number span of %q = %d,%d,%v", p.value, s, e, ok)
	}
	for _, bad := range []string{`json:"x`, `json x`, `:"x"`} {
		if _, ok := parseTag(bad); ok {
			t.Errorf("parseTag(%q) ok", bad)
		}
	}
	if tt, ok := parseTag(`json:"a\"b"`); !ok || !tt.keys[0].escaped {
		t.Errorf("escaped value: %+v %v", tt, ok)
	}
	for _, v := range []string{"bytes", "bytes,x,opt", "bytes,,opt"} {
		if _, _, ok := protoNumberSpan(v); ok {
			t.Errorf("protoNumberSpan(%q) ok", v)
		}
	}
	if jsonOmits("name") || !jsonOmits("name,omitzero") {
		t.Error("jsonOmits")
	}
}

func TestProtoWire(t *testing.T) {
	pkg := &model.Package{Types: []*model.Type{
		{Name: "Mode", Kind: model.KindOther, Underlying: "string"},
		{Name: "Count", Kind: model.KindOther, Underlying: "int32"},
		{Name: "Spec", Kind: model.KindStruct},
		{Name: "List", Kind: model.KindOther, Underlying: "[]string"},
	}}
	for _, c := range []struct {
		typ  string
		kind model.ValueKind
		want string
	}{
		{"string", model.KindString, "bytes opt "},
		{"*int64", model.KindPointer, "varint opt "},
		{"[]byte", model.KindSlice, "bytes opt "},
		{"[]string", model.KindSlice, "bytes rep "},
		{"[]int32", model.KindSlice, "varint rep "},
		{"map[string]string", model.KindMap, "bytes rep "},
		{"*Mode", model.KindPointer, "bytes opt Mode"},
		{"Count", model.KindNumber, "varint opt Count"},
		{"*Spec", model.KindPointer, "bytes opt "},
		{"[]Spec", model.KindSlice, "bytes rep "},
		{"*metav1.Time", model.KindPointer, "bytes opt "},
		{"float64", model.KindNumber, "fixed64 opt "},
		{"int", model.KindNumber, "why: go-to-protobuf has no wire type for Go type int"},
		{"corev1.Protocol", model.KindNumber, "why: cannot tell the wire type of corev1.Protocol"},
		{"List", model.KindSlice, "why: cannot tell the wire type of List ([]string)"},
		{"Unknown", model.KindUnknown, "why: cannot tell the wire type of Unknown"},
	} {
		wire, label, cast, why := protoWire(&model.Field{Type: c.typ, ValueKind: c.kind}, pkg)
		got := wire + " " + label + " " + cast
		if why != "" {
			got = "why: " + why
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.typ, got, c.want)
		}
	}
}

// apply replays a line diff: it must turn a into b.
func replay(ops []lineOp, a, b []string) ([]string, error) {
	var out []string
	ai := 0
	for _, o := range ops {
		switch o.kind {
		case '=':
			if o.a != ai || a[o.a] != b[o.b] {
				return nil, fmt.Errorf("bad keep %+v", o)
			}
			out = append(out, a[o.a])
			ai++
		case '-':
			if o.a != ai {
				return nil, fmt.Errorf("bad delete %+v", o)
			}
			ai++
		case '+':
			out = append(out, b[o.b])
		}
	}
	if ai != len(a) {
		return nil, fmt.Errorf("consumed %d of %d lines", ai, len(a))
	}
	return out, nil
}

// lcs is the length of a longest common subsequence (the reference the
// edit script must be minimal against).
func lcs(a, b []string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				d[i][j] = d[i+1][j+1] + 1
			} else {
				d[i][j] = max(d[i+1][j], d[i][j+1])
			}
		}
	}
	return d[0][0]
}

func TestLineDiffMinimal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 500; n++ {
		gen := func() []string {
			var s []string
			for range r.Intn(12) {
				s = append(s, string(rune('a'+r.Intn(4)))+"\n")
			}
			return s
		}
		a, b := gen(), gen()
		ops := lineDiff(a, b)
		got, err := replay(ops, a, b)
		if err != nil || strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("%q -> %q: ops %v do not replay (%v)", a, b, ops, err)
		}
		keep := 0
		for _, o := range ops {
			if o.kind == '=' {
				keep++
			}
		}
		if want := lcs(a, b); keep != want {
			t.Fatalf("%q -> %q: keeps %d lines, an LCS has %d", a, b, keep, want)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	var a, b []string
	for i := 1; i <= 20; i++ {
		a = append(a, fmt.Sprintf("line %d\n", i))
	}
	b = append(b, a...)
	b[2] = "changed 3\n"
	b = append(b[:10], append([]string{"new\n"}, b[10:]...)...)
	b = b[:len(b)-1]
	got := string(unifiedDiff("a/f.go", "b/f.go", []byte(strings.Join(a, "")), []byte(strings.Join(b, ""))))
	// As diff -u prints it: seven unchanged lines apart are two hunks.
	want := `--- a/f.go
+++ b/f.go
@@ -1,6 +1,6 @@
 line 1
 line 2
-line 3
+changed 3
 line 4
 line 5
 line 6
@@ -8,6 +8,7 @@
 line 8
 line 9
 line 10
+new
 line 11
 line 12
 line 13
@@ -17,4 +18,3 @@
 line 17
 line 18
 line 19
-line 20
`
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	// Six unchanged lines apart are one hunk.
	c := append([]string(nil), a...)
	c[2], c[9] = "x\n", "y\n"
	got = string(unifiedDiff("a", "b", []byte(strings.Join(a, "")), []byte(strings.Join(c, ""))))
	if !strings.HasPrefix(got, "--- a\n+++ b\n@@ -1,13 +1,13 @@\n") || strings.Count(got, "@@") != 2 {
		t.Errorf("one hunk expected:\n%s", got)
	}
	if d := unifiedDiff("a", "b", []byte("x\n"), []byte("x\n")); d != nil {
		t.Errorf("diff of equal contents: %q", d)
	}
	if got := string(unifiedDiff("a", "b", []byte("x"), []byte("x\ny\n"))); got != "--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n+y\n" {
		t.Errorf("missing final newline: %q", got)
	}
	if got := string(unifiedDiff("a", "b", nil, []byte("y\n"))); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+y\n" {
		t.Errorf("from empty: %q", got)
	}
}

// TestUnifiedDiffApplies checks unifiedDiff against git apply and patch:
// random changes (hunks near each other, at either end, files without a
// final newline, empty files) must give a patch both accept that turns a
// into b exactly.
func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	before, after := map[string][]byte{}, map[string][]byte{}
	var diff []byte
	for n := 0; n < 40; n++ {
		var a []string
		for i := range r.Intn(40) {
			a = append(a, fmt.Sprintf("line %d\n", i))
		}
		var b []string
		for i, l := range a {
			switch r.Intn(8) {
			case 0: // deleted
			case 1:
				b = append(b, "changed "+l)
			case 2:
				b = append(b, l, fmt.Sprintf("new after %d\n", i))
			default:
				b = append(b, l)
			}
		}
		if r.Intn(4) == 0 {
			b = append([]string{"new first\n"}, b...)
		}
		as, bs := strings.Join(a, ""), strings.Join(b, "")
		if r.Intn(5) == 0 && as != "" {
			as = strings.TrimSuffix(as, "\n")
		}
		if r.Intn(5) == 0 && bs != "" {
			bs = strings.TrimSuffix(bs, "\n")
		}
		if as == bs || as == "" || bs == "" {
			continue // git apply takes an empty side for a creation or deletion
		}
		name := fmt.Sprintf("d/f%02d.go", n)
		before[name], after[name] = []byte(as), []byte(bs)
		diff = append(diff, unifiedDiff("a/"+name, "b/"+name, []byte(as), []byte(bs))...)
	}
	CheckPatch(t, before, after, diff)
}

func ed(start, end int, text string) finding.Edit {
	return finding.Edit{Path: "f.go", StartOffset: start, EndOffset: end, NewText: text}
}

func TestOverlapAndApplyEdits(t *testing.T) {
	for _, c := range []struct {
		a, b finding.Edit
		want bool
	}{
		{ed(0, 3, "x"), ed(2, 5, "y"), true},
		{ed(0, 3, "x"), ed(3, 5, "y"), false},
		{ed(2, 2, "x"), ed(2, 2, "y"), false}, // two insertions at one place
		{ed(2, 2, "x"), ed(0, 4, "y"), true},  // an insertion inside a replacement
		{ed(0, 0, "x"), ed(0, 4, "y"), false}, // an insertion before it
		{ed(4, 4, "x"), ed(0, 4, "y"), false}, // and after it
		{ed(1, 3, "x"), ed(1, 2, "y"), true},
	} {
		if got := overlap(c.a, c.b); got != c.want {
			t.Errorf("overlap(%v, %v) = %v", c.a, c.b, got)
		}
		if got := overlap(c.b, c.a); got != c.want {
			t.Errorf("overlap(%v, %v) = %v", c.b, c.a, got)
		}
	}
	out, err := applyEdits([]byte("abcdef"), []finding.Edit{ed(4, 4, "2"), ed(1, 3, "X"), ed(4, 4, "3"), ed(1, 1, "<")})
	if err != nil || string(out) != "a<Xd23ef" {
		t.Errorf("applyEdits = %q, %v", out, err)
	}
	if _, err := applyEdits([]byte("abc"), []finding.Edit{ed(0, 2, "x"), ed(1, 3, "y")}); err == nil {
		t.Error("overlapping edits applied")
	}
}

// Two fixes whose edits overlap: the first is applied, the second is
// refused and says whose fix it collides with.
func TestApplyRejectsOverlappingFixes(t *testing.T) {
	const file = "pkg/apis/core/v1/types.go"
	src := "package v1\n\n// S is a struct.\ntype S struct {\n\tA int32 `json:\"a\"`\n}\n"
	fx := gitfixture.FromTxtar(t, []byte("-- head/"+file+" --\n"+src))
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(src, "int32")
	mk := func(field, text string, s, e int) *item {
		return &item{file: file, typ: "S", field: field,
			findings: []*finding.Finding{{Rule: "R_" + field, Type: "S", Field: "A"}},
			out: outcome{fix: &finding.Fix{Description: "fix " + field, Edits: []finding.Edit{
				{Path: file, StartLine: 5, StartCol: s - start + 4, StartOffset: s, EndOffset: e, NewText: text},
			}}}}
	}
	p := &Plan{
		items:    []*item{mk("one", "*int32", start, start+5), mk("two", "int64", start, start+5)},
		planned:  map[string][]byte{file: []byte(src)},
		apiFiles: map[string]bool{file: true},
	}
	res, err := p.Apply(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 1 || res.Applied[0].Description != "fix one" {
		t.Errorf("applied %+v", res.Applied)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].String(), "R_two S.A not fixed: its edits overlap those of the fix for R_one S.A (fix one)") {
		t.Errorf("skipped %v", res.Skipped)
	}
	got, _ := os.ReadFile(filepath.Join(fx.Dir, filepath.FromSlash(file)))
	if !bytes.Contains(got, []byte("A *int32 `json:\"a\"`")) {
		t.Errorf("file:\n%s", got)
	}
}

// A file outside the analysed API packages is never written, whatever
// the plan says.
func TestApplyOnlyAPIFiles(t *testing.T) {
	const file = "main.go"
	src := "package main\n\nfunc main() {}\n"
	fx := gitfixture.FromTxtar(t, []byte("-- head/"+file+" --\n"+src))
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{
		items: []*item{{file: file, typ: "S", field: "A", findings: []*finding.Finding{{Rule: "R", Type: "S", Field: "A"}},
			out: outcome{fix: &finding.Fix{Description: "x", Edits: []finding.Edit{{Path: file, NewText: "// x\n"}}}}}},
		planned:  map[string][]byte{file: []byte(src)},
		apiFiles: map[string]bool{},
	}
	res, err := p.Apply(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "not a file of the analysed API packages") {
		t.Errorf("result %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(fx.Dir, file)); string(got) != src {
		t.Errorf("main.go changed: %q", got)
	}
}

// mapSource is a package directory in memory.
type mapSource map[string][]byte

func (m mapSource) dirFiles(string) (map[string][]byte, error) { return m, nil }

func (m mapSource) parse(name string, src []byte) (*parsedFile, *parseError) {
	return parseFile(name, src)
}

func (m mapSource) fieldUses(files map[string][]byte, pkgName, importPath, typ, field string) ([]fieldRef, *parseError) {
	tp, pe := typeCheck(files, pkgName, importPath)
	if pe != nil {
		return nil, pe
	}
	return tp.uses(typ, field), nil
}

func (m mapSource) mayUse(files map[string][]byte, field string) bool {
	return syntaxOf(files).mayUse(field)
}

// TestPlanFile plans single intents on small files, without git: what
// each fix writes (after gofmt), what is already done, and why what
// cannot be fixed is not.
func TestPlanFile(t *testing.T) {
	const name = "p/v1/types.go"
	hdr := "package v1\n\n"
	for _, c := range []struct {
		name string
		src  string
		it   item
		want string // the formatted result, "noop", or "skip: <substring>"
	}{
		{"pointer", "type S struct {\n\tA int32 `json:\"a\"`\n}\n", item{kind: kindPointer, field: "A"},
			"type S struct {\n\tA *int32 `json:\"a\"`\n}\n"},
		{"already a pointer", "type S struct {\n\tA *int32\n}\n", item{kind: kindPointer, field: "A"}, "noop"},
		{"slice is nillable", "type S struct {\n\tA []int32\n}\n", item{kind: kindPointer, field: "A"}, "noop"},
		{"array is not", "type S struct {\n\tA [2]int32\n}\n", item{kind: kindPointer, field: "A"},
			"type S struct {\n\tA *[2]int32\n}\n"},
		{"positional literal", "type S struct {\n\tA int32\n}\n\nvar x = S{1}\n", item{kind: kindPointer, field: "A"},
			"skip: A is used at p/v1/types.go:7:9"},
		{"optional exists", "type S struct {\n\t// +optional\n\tA *int32\n}\n", item{kind: kindOptional, field: "A"}, "noop"},
		{"optional in place of k8s:required", "type S struct {\n\t// A is a.\n\t// +k8s:required\n\tA *int32\n}\n",
			item{kind: kindOptional, field: "A"}, "type S struct {\n\t// A is a.\n\t// +optional\n\tA *int32\n}\n"},
		{"shares its line", "type S struct{ B int32; A int32 }\n", item{kind: kindOptional, field: "A"},
			"skip: A shares its line with other code"},
		{"omitempty exists", "type S struct {\n\tA *int32 `json:\"a,omitzero\"`\n}\n", item{kind: kindOmitEmpty, field: "A"}, "noop"},
		{"json key missing", "type S struct {\n\tA *int32 `protobuf:\"varint,1,opt,name=a\"`\n}\n", item{kind: kindOmitEmpty, field: "A", jsonName: "a"},
			"type S struct {\n\tA *int32 `json:\"a,omitempty\" protobuf:\"varint,1,opt,name=a\"`\n}\n"},
		{"interpreted tag", "type S struct {\n\tA *int32 \"json:\\\"a\\\"\"\n}\n", item{kind: kindOmitEmpty, field: "A"},
			"skip: its struct tag is an interpreted string literal"},
		{"json escapes", "type S struct {\n\tA *int32 `json:\"a\\\"\"`\n}\n", item{kind: kindOmitEmpty, field: "A"},
			"skip: cannot take omitempty mechanically"},
		{"json dash", "type S struct {\n\tA *int32 `json:\"-\"`\n}\n", item{kind: kindOmitEmpty, field: "A"},
			"skip: cannot take omitempty mechanically"},
		{"renumbered since", "type S struct {\n\tA *int32 `protobuf:\"varint,5,opt,name=a\"`\n}\n", item{kind: kindNumber, field: "A", oldNumber: 3}, "noop"},
		{"renumber", "type S struct {\n\tB *int32 `protobuf:\"varint,4,opt,name=b\"`\n\tA *int32 `protobuf:\"varint,3,opt,name=a\"`\n}\n",
			item{kind: kindNumber, field: "A", oldNumber: 3, floor: 19000},
			"type S struct {\n\tB *int32 `protobuf:\"varint,4,opt,name=b\"`\n\tA *int32 `protobuf:\"varint,20000,opt,name=a\"`\n}\n"},
		{"renumber past a marker reservation", "type S struct {\n\t// +k8s:deprecated=c,protobuf=7\n\n\t// Future extensions must not use field number 9.\n\tB *int32 `protobuf:\"varint,4,opt,name=b\"`\n\tA *int32 `protobuf:\"varint,3,opt,name=a\"`\n}\n",
			item{kind: kindNumber, field: "A", oldNumber: 3, floor: 5},
			"type S struct {\n\t// +k8s:deprecated=c,protobuf=7\n\n\t// Future extensions must not use field number 9.\n\tB *int32 `protobuf:\"varint,4,opt,name=b\"`\n\tA *int32 `protobuf:\"varint,10,opt,name=a\"`\n}\n"},
		{"tombstone exists", "type S struct {\n\t// A is tombstoned to show why 2 is reserved protobuf tag.\n\t// A *int32 `protobuf:\"varint,2,opt,name=a\"`\n}\n",
			item{kind: kindTombstone, field: "A", tomb: &tombSpec{name: "A", number: 2}}, "noop"},
		{"tombstone in an empty struct", "type S struct{}\n",
			item{kind: kindTombstone, field: "A", tomb: &tombSpec{name: "A", number: 2, explanation: "A is tombstoned to show why 2 is reserved protobuf tag.", decl: "A *int32 `protobuf:\"varint,2,opt,name=a\"`"}},
			"type S struct {\n\t// A is tombstoned to show why 2 is reserved protobuf tag.\n\t// A *int32 `protobuf:\"varint,2,opt,name=a\"`\n}\n"},
		{"field gone", "type S struct {\n\tB int32\n}\n", item{kind: kindPointer, field: "A"}, "skip: struct S has no field A any more"},
		{"struct gone", "type T struct{}\n", item{kind: kindPointer, field: "A"}, "skip: struct S is no longer in p/v1/types.go"},
		{"CRLF", "type S struct {\r\n\tA int32\r\n}\r\n", item{kind: kindPointer, field: "A"}, "skip: CRLF line endings"},
		{"syntax error", "type S struct {\n\tA int32 `json\n}\n", item{kind: kindPointer, field: "A"}, "skip: the file does not parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(hdr + c.src)
			it := c.it
			it.file, it.dir, it.typ = name, "p/v1", "S"
			planFile(name, src, []*item{&it}, mapSource{name: src})
			o := it.out
			var got string
			switch {
			case o.skip != "":
				got = "skip: " + o.skip
				if !strings.HasPrefix(c.want, "skip: ") || !strings.Contains(got, c.want[len("skip: "):]) {
					t.Errorf("got %q, want %q", got, c.want)
				}
				return
			case o.noop:
				got = "noop"
			case o.fix != nil:
				out, err := applyEdits(src, o.fix.Edits)
				if err != nil {
					t.Fatal(err)
				}
				if f, err := format.Source(out); err != nil {
					t.Fatalf("%v:\n%s", err, out)
				} else {
					got = strings.TrimPrefix(string(f), hdr)
				}
			}
			if got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestLookups: a file parsed to look into is parsed once per content; a
// changed content is parsed again, a broken one is an error every time.
func TestLookups(t *testing.T) {
	var l lookups
	a := []byte("package p\n\nvar A = 1\n")
	first, pe := l.parse("p/a.go", a)
	if pe != nil {
		t.Fatal(pe.msg)
	}
	if again, _ := l.parse("p/a.go", append([]byte(nil), a...)); again != first {
		t.Error("the same content was parsed again")
	}
	if changed, _ := l.parse("p/a.go", []byte("package p\n\nvar B = 2\n")); changed == first {
		t.Error("a changed content gave the earlier parse")
	}
	for range 2 {
		if _, pe := l.parse("p/b.go", []byte("package p\n\nvar = \n")); pe == nil {
			t.Error("a broken file parsed")
		}
	}
}

// TestMayUse: the syntax of a package's files says a field may be used
// wherever the type check finds a use (uses), so that a package it says
// cannot use the field need not be type-checked; and it says so of the
// packages that name the field nowhere.
func TestMayUse(t *testing.T) {
	const types = "package v1\n\ntype Spec struct {\n\tReplicas int32 `json:\"replicas\"`\n\tName string `json:\"name\"`\n}\n\ntype Specs []Spec\n"
	for _, c := range []struct {
		name, code string
		may        bool
	}{
		{"no code", "", false},
		{"other field selected", "package v1\n\nfunc f(s Spec) string { return s.Name }\n", false},
		{"slices and maps without keys", "package v1\n\nvar a = []string{\"x\"}\nvar m = map[string]int{}\nvar b = [...]int{1}\n", false},
		{"keyed literal of another field", "package v1\n\nvar s = Spec{Name: \"x\"}\n", false},
		{"selector", "package v1\n\nfunc f(s *Spec) int32 { return s.Replicas }\n", true},
		{"key", "package v1\n\nvar s = Spec{Replicas: 1}\n", true},
		{"unkeyed literal", "package v1\n\nvar s = Spec{1, \"x\"}\n", true},
		{"elided unkeyed literal", "package v1\n\nvar s = Specs{{1, \"x\"}}\n", true},
		{"selector of an unknown type", "package v1\n\nimport \"example.com/x\"\n\nvar r = x.Get().Replicas\n", true},
		{"test file", "package v1_test\n\nimport v1 \"example.com/p/v1\"\n\nvar s = v1.Spec{Replicas: 2}\n", true},
		{"broken file", "package v1\n\nfunc {\n", true},
	} {
		files := map[string][]byte{"p/v1/types.go": []byte(types)}
		if c.code != "" {
			files["p/v1/code.go"] = []byte(c.code)
		}
		files["p/v1/zz_generated.deepcopy.go"] = []byte("// Code generated by deepcopy-gen. DO NOT EDIT.\n\npackage v1\n\nfunc (in *Spec) DeepCopyInto(out *Spec) { out.Replicas = in.Replicas }\n")
		if got := syntaxOf(files).mayUse("Replicas"); got != c.may {
			t.Errorf("%s: mayUse = %v, want %v", c.name, got, c.may)
		}
		if c.may {
			continue
		}
		tp, pe := typeCheck(files, "v1", "example.com/p/v1")
		if pe != nil {
			t.Fatalf("%s: %s", c.name, pe.msg)
		}
		if refs := tp.uses("Spec", "Replicas"); len(refs) > 0 {
			t.Errorf("%s: mayUse says no use, the type check finds %v", c.name, refs)
		}
	}
}
