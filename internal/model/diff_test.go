package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func field(name, json string, num int, typ string) *Field {
	f := &Field{Name: name, Type: typ, JSON: JSONTag{Present: true, Name: json, OmitEmpty: true}}
	if num > 0 {
		f.Proto = &ProtoTag{Wire: "bytes", Number: num, Label: "opt", Name: json}
	}
	return f
}

func oneType(fields []*Field, tombs ...*Tombstone) *Model {
	return &Model{Groups: []*Group{{Dir: "g", Versions: []*Package{{Dir: "g/v1", Version: "v1", Types: []*Type{
		{Name: "Spec", Kind: KindStruct, Fields: fields, Tombstones: tombs},
	}}}}}}
}

func pairs(d *Diff) []string {
	var out []string
	for _, fd := range d.Groups[0].Packages[0].Types[0].Fields {
		b, h := "-", "-"
		if fd.Base != nil {
			b = fd.Base.Name
		}
		if fd.Head != nil {
			h = fd.Head.Name
		}
		out = append(out, b+">"+h)
	}
	return out
}

func TestComparePairsFieldsOnce(t *testing.T) {
	cases := []struct {
		name       string
		base, head []*Field
		tombs      []*Tombstone
		want       []string
	}{
		{"same name", []*Field{field("A", "a", 1, "*string")}, []*Field{field("A", "a", 2, "*string")}, nil, []string{"A>A"}},
		{"go rename keeps json and number", []*Field{field("A", "a", 1, "*string")}, []*Field{field("B", "a", 1, "*string")}, nil, []string{"A>B"}},
		{"json-only rename without protobuf", []*Field{field("A", "a", 0, "*string")}, []*Field{field("B", "a", 0, "*string")}, nil, []string{"A>B"}},
		{"number reused by a different field is removal plus addition", []*Field{field("A", "a", 1, "*string")}, []*Field{field("B", "b", 1, "*int32")}, nil, []string{"->B", "A>-"}},
		{"tombstoned field is never paired", []*Field{field("A", "a", 1, "*string")}, []*Field{field("B", "a", 1, "*string")},
			[]*Tombstone{{FieldName: "A", Proto: &ProtoTag{Number: 1}}}, []string{"->B", "A>-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Compare(oneType(c.base), oneType(c.head, c.tombs...))
			got := pairs(d)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("pairs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFieldAttrs(t *testing.T) {
	b := field("A", "a", 1, "*string")
	h := field("A", "b", 2, "string")
	h.JSON.OmitEmpty = false
	h.Markers = Markers{{Key: "required"}, {Key: "listType", Value: "map"}}
	got := fieldAttrs(b, h, nil)
	want := []Attr{AttrJSONName, AttrOmitEmpty, AttrProtoNumber, AttrGoType, AttrOptional, AttrListType}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
	// A missing protobuf label equals "opt".
	h2 := field("A", "a", 1, "*string")
	h2.Proto.Label = ""
	if got := fieldAttrs(b, h2, nil); len(got) != 0 {
		t.Errorf("label \"\" vs opt reported as %v", got)
	}
}

func TestTypeRename(t *testing.T) {
	base := &Model{Groups: []*Group{{Dir: "g", Versions: []*Package{{Version: "v1", Types: []*Type{
		{Name: "Old", Kind: KindStruct, Fields: []*Field{field("X", "x", 1, "*string")}},
		{Name: "Spec", Kind: KindStruct, Fields: []*Field{field("O", "o", 1, "*Old")}},
	}}}}}}
	head := &Model{Groups: []*Group{{Dir: "g", Versions: []*Package{{Version: "v1", Types: []*Type{
		{Name: "New", Kind: KindStruct, Fields: []*Field{field("X", "x", 1, "*string")}},
		{Name: "Spec", Kind: KindStruct, Fields: []*Field{field("O", "o", 1, "*New")}},
	}}}}}}
	d := Compare(base, head)
	types := d.Groups[0].Packages[0].Types
	if len(types) != 2 || !types[0].Renamed || types[0].Base.Name != "Old" {
		t.Fatalf("rename not detected: %+v", types[0])
	}
	if attrs := types[1].Fields[0].Attrs; len(attrs) != 0 {
		t.Errorf("field type following a rename reported as changed: %v", attrs)
	}
}

func TestTypeExprHelpers(t *testing.T) {
	for in, want := range map[string]string{"*[]Foo": "Foo", "map[string]Bar": "Bar", "map[Key][]*Baz": "Baz", "metav1.Time": "", "string": "", "[3]Q": "Q"} {
		if got := LocalTypeName(in); got != want {
			t.Errorf("LocalTypeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := RenameType("map[Old]*pkg.Old", map[string]string{"Old": "New"}); got != "map[New]*pkg.Old" {
		t.Errorf("RenameType = %q", got)
	}
}

// TestCompareIsLinear: pairing fields and detecting renamed types does
// not compare every element with every other one. 20000 fields that share
// a protobuf number and 20000 types renamed at once took minutes when it
// did; now they take a fraction of a second (the bound is generous for
// loaded machines).
func TestCompareIsLinear(t *testing.T) {
	const n = 20000
	var bf, hf []*Field
	for i := range n {
		bf = append(bf, field(fmt.Sprintf("B%d", i), fmt.Sprintf("b%d", i), 1, "string"))
		hf = append(hf, field(fmt.Sprintf("H%d", i), fmt.Sprintf("h%d", i), 1, "string"))
	}
	types := func(prefix string) *Model {
		p := &Package{Dir: "g/v1", Version: "v1"}
		for i := range n {
			p.Types = append(p.Types, &Type{Name: fmt.Sprintf("%s%d", prefix, i), Kind: KindOther, Underlying: fmt.Sprintf("[%d]string", i)})
		}
		return &Model{Groups: []*Group{{Dir: "g", Versions: []*Package{p}}}}
	}
	start := time.Now()
	d := Compare(oneType(bf), oneType(hf))
	if got := len(d.Groups[0].Packages[0].Types[0].Fields); got != 2*n {
		t.Errorf("%d field pairs, want %d (nothing pairs: the numbers are ambiguous)", got, 2*n)
	}
	d = Compare(types("A"), types("B"))
	renamed := 0
	for _, td := range d.Groups[0].Packages[0].Types {
		if td.Renamed {
			renamed++
		}
	}
	if renamed != 0 {
		t.Errorf("%d renames of non-struct types", renamed)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}

// versionPairs lists every version pair of d as "dir:version base>head"
// (base and head package directories, "-" when absent).
func versionPairs(d *Diff) []string {
	var out []string
	for _, gd := range d.Groups {
		for _, pd := range gd.Packages {
			b, h := "-", "-"
			if pd.Base != nil {
				b = pd.Base.Dir
			}
			if pd.Head != nil {
				h = pd.Head.Dir
			}
			out = append(out, gd.Dir+":"+pd.Version+" "+b+">"+h)
		}
	}
	return out
}

func TestCompareMovedVersions(t *testing.T) {
	pkg := func(dir, group string) *Package {
		return &Package{Dir: dir, Version: dir[strings.LastIndex(dir, "/")+1:], GroupName: group}
	}
	group := func(dir string, ps ...*Package) *Group {
		return &Group{Dir: dir, Name: ps[0].GroupName, Versions: ps}
	}
	cases := []struct {
		name       string
		base, head []*Group
		want       []string
	}{
		{"a version moves out of a group that stays",
			[]*Group{group("old", pkg("old/v1alpha1", "x.io"), pkg("old/v1beta1", "x.io"))},
			[]*Group{group("old", pkg("old/v1alpha1", "x.io")), group("new", pkg("new/v1beta1", "x.io"))},
			[]string{"new:v1beta1 old/v1beta1>new/v1beta1", "old:v1alpha1 old/v1alpha1>old/v1alpha1"}},
		{"another group name is a removal and an addition",
			[]*Group{group("old", pkg("old/v1alpha1", "x.io"), pkg("old/v1beta1", "x.io"))},
			[]*Group{group("old", pkg("old/v1alpha1", "x.io")), group("new", pkg("new/v1beta1", "y.io"))},
			[]string{"new:v1beta1 ->new/v1beta1", "old:v1alpha1 old/v1alpha1>old/v1alpha1", "old:v1beta1 old/v1beta1>-"}},
		{"two candidates are not guessed between",
			[]*Group{group("old", pkg("old/v1alpha1", "x.io"), pkg("old/v1beta1", "x.io"))},
			[]*Group{group("old", pkg("old/v1alpha1", "x.io")), group("a", pkg("a/v1beta1", "x.io")), group("b", pkg("b/v1beta1", "x.io"))},
			[]string{"a:v1beta1 ->a/v1beta1", "b:v1beta1 ->b/v1beta1", "old:v1alpha1 old/v1alpha1>old/v1alpha1", "old:v1beta1 old/v1beta1>-"}},
		{"no group name: never paired",
			[]*Group{group("old", pkg("old/v1alpha1", ""), pkg("old/v1", ""))},
			[]*Group{group("old", pkg("old/v1alpha1", "")), group("new", pkg("new/v1", ""))},
			[]string{"new:v1 ->new/v1", "old:v1 old/v1>-", "old:v1alpha1 old/v1alpha1>old/v1alpha1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Compare(&Model{Groups: c.base}, &Model{Groups: c.head})
			if diff := cmp.Diff(c.want, versionPairs(d)); diff != "" {
				t.Errorf("version pairs (-want +got):\n%s", diff)
			}
		})
	}
}

// Versions rank as the API server prefers them (Kubernetes' version
// priority): GA above beta above alpha; within a level the higher major,
// then the higher stage number; names that are no versions rank below,
// so that they list after the versions, alphabetically.
func TestCompareVersions(t *testing.T) {
	// Highest priority first.
	order := []string{
		"v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v2beta1", "v1beta2", "v1beta1",
		"v12alpha1", "v11alpha2", "v2alpha1", "v1alpha2", "v1alpha1",
		"foo1", "foo10", "internal", "v1alpha", "v1gamma1", "v99999999999999999999",
	}
	for i, a := range order {
		for j, b := range order {
			want := 0 // a ranks above b when it comes first
			switch {
			case i < j:
				want = 1
			case i > j:
				want = -1
			}
			if got := CompareVersions(a, b); got != want {
				t.Errorf("CompareVersions(%s, %s) = %d, want %d", a, b, got, want)
			}
			if got, want := VersionLess(a, b), i > j; got != want {
				t.Errorf("VersionLess(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
	}
	for _, c := range []struct {
		a, b string
		want int
	}{
		// The examples of k8s.io/apimachinery's CompareKubeAwareVersionStrings.
		{"v1", "v1", 0},
		{"v2", "v1", 1},
		{"v1", "v2", -1},
		{"v10", "v2", 1},
		{"v1", "v2alpha1", 1},
		{"v1", "v1alpha1", 1},
		{"v2alpha1", "v1", -1},
		{"v1beta1", "v2alpha3", 1},
		{"v1alpha2", "v1alpha1", 1},
		{"v1beta1", "v2beta1", -1},
		{"v11beta2", "v10beta3", 1},
		{"v10beta3", "v3beta1", 1},
		{"v3beta1", "v12alpha1", 1},
		{"v12alpha1", "v11alpha2", 1},
		{"foo1", "foo10", 1},
		{"foo10", "foo1", -1},
		{"v1", "foo1", 1},
		{"foo1", "v1alpha1", -1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	sorted := []string{"v1alpha1", "foo", "v2", "v1beta1", "bar", "v1", "v2alpha1"}
	slices.SortFunc(sorted, func(a, b string) int { return CompareVersions(b, a) })
	if want := []string{"v2", "v1", "v1beta1", "v2alpha1", "v1alpha1", "bar", "foo"}; !slices.Equal(sorted, want) {
		t.Errorf("sorted by descending priority: %v, want %v", sorted, want)
	}
}

func TestSplitIdent(t *testing.T) {
	for _, c := range []struct {
		expr, name, pre, post string
		ok                    bool
	}{
		{"*[]Foo", "Foo", "*[]", "", true},
		{"map[string]Foo", "Foo", "map[string]", "", true},
		{"Foo", "Foo", "", "", true},
		{"FooBar", "Foo", "", "", false},
		{"BarFoo", "Foo", "", "", false},
		{"*example.com/api/v1.Foo", "Foo", "", "", false}, // another package's
		{"map[Foo]Foo", "Foo", "", "", false},             // twice
		{"map[Foo]FooList", "Foo", "map[", "]FooList", true},
		{"[]Foo_", "Foo", "", "", false},
	} {
		pre, post, ok := splitIdent(c.expr, c.name)
		if ok != c.ok || ok && (pre != c.pre || post != c.post) {
			t.Errorf("splitIdent(%q, %q) = %q, %q, %v; want %q, %q, %v", c.expr, c.name, pre, post, ok, c.pre, c.post, c.ok)
		}
	}
}

// TestShareTypes: a type equal in every respect to base's is replaced by
// base's (and found by name as such); one that differs in anything, a
// field's contract or the position of the type, keeps its own.
func TestShareTypes(t *testing.T) {
	mk := func(line int, omit bool) *Package {
		spec := &Type{Name: "Spec", Kind: KindStruct, Pos: Pos{File: "types.go", Line: line}, Fields: []*Field{field("A", "a", 1, "string")}}
		spec.Fields[0].Contract = &Contract{Name: "a", Type: "string", Omit: omit}
		mode := &Type{Name: "Mode", Kind: KindOther, Underlying: "string", Pos: Pos{File: "types.go", Line: 3}}
		moved := &Type{Name: "Moved", Kind: KindStruct, Pos: Pos{File: "types.go", Line: line + 10}}
		return &Package{Dir: "pkg/apis/a/v1", Types: []*Type{spec, mode, moved}}
	}
	base, head := mk(10, true), mk(10, false)
	head.Type("Spec") // the index is built before sharing
	headSpec := head.Types[0]
	if n := head.ShareTypes(base); n != 2 {
		t.Errorf("shared %d types, want 2 (Mode, Moved)", n)
	}
	if head.Type("Mode") != base.Type("Mode") || head.Types[1] != base.Types[1] {
		t.Error("Mode, the same at both, is not base's")
	}
	if head.Type("Spec") != headSpec || head.Type("Spec") == base.Type("Spec") {
		t.Error("Spec, whose field's contract differs, is not head's own")
	}
	base, head = mk(10, true), mk(12, true)
	if n := head.ShareTypes(base); n != 1 || head.Type("Moved") == base.Type("Moved") {
		t.Errorf("shared %d types, want 1 (Mode): a type at another position keeps its own", n)
	}
}

// A spec that moves its members and its inline corev1.ResourceRequirements
// into a struct of the package it embeds inline: the embedded type pairs
// with the one the struct declares, a member the struct declares is still
// promoted, and a member that left is no member of corev1's type (inlined
// at base too, so its members were the same); a type head newly inlines
// whose members are unknown may hold it.
func TestNestedInlineFlattening(t *testing.T) {
	rr := func() *Field {
		return &Field{Name: "ResourceRequirements", Embedded: true, Type: "corev1.ResourceRequirements",
			TypeID: "k8s.io/api/core/v1.ResourceRequirements", JSON: JSONTag{Present: true, Inline: true}}
	}
	inline := func(name string) *Field {
		return &Field{Name: name, Embedded: true, Type: name, TypeID: name, JSON: JSONTag{Present: true, Inline: true}}
	}
	model := func(types ...*Type) *Model {
		return &Model{Groups: []*Group{{Dir: "g", Versions: []*Package{{Dir: "g/v1", Version: "v1", Types: types}}}}}
	}
	base := model(&Type{Name: "Spec", Kind: KindStruct, Fields: []*Field{field("Replicas", "replicas", 0, "*int32"), field("Engine", "engine", 0, "string"), rr()}})
	head := model(
		&Type{Name: "Common", Kind: KindStruct, Fields: []*Field{field("Replicas", "replicas", 0, "*int32"), rr()}},
		&Type{Name: "Spec", Kind: KindStruct, Fields: []*Field{inline("Common")}},
	)
	d := Compare(base, head)
	var spec *TypeDiff
	for _, td := range d.Groups[0].Packages[0].Types {
		if td.Name() == "Spec" {
			spec = td
		}
	}
	var got []string
	for _, fd := range spec.Fields {
		b, h := "-", "-"
		if fd.Base != nil {
			b = fd.Base.Name
		}
		if fd.Head != nil {
			h = fd.Head.Name
		}
		got = append(got, b+">"+h)
	}
	if diff := cmp.Diff([]string{"Replicas>Replicas", "ResourceRequirements>ResourceRequirements", "->Common", "Engine>-"}, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	if !spec.StillInlines(spec.Base.Field("ResourceRequirements")) {
		t.Error("StillInlines(ResourceRequirements) = false: Common inlines it")
	}
	if yes, maybe := spec.StillPromoted("replicas"); !yes || maybe != "" {
		t.Errorf("StillPromoted(replicas) = %v, %q; want true", yes, maybe)
	}
	if yes, maybe := spec.StillPromoted("engine"); yes || maybe != "" {
		t.Errorf("StillPromoted(engine) = %v, %q; want false, \"\" (corev1's type was inlined at base too)", yes, maybe)
	}
	// An unresolved type that base did not inline may hold the member.
	head.Groups[0].Versions[0].Types[0].Fields = append(head.Groups[0].Versions[0].Types[0].Fields,
		&Field{Name: "Extra", Embedded: true, Type: "ext.Extra", TypeID: "example.com/ext.Extra"})
	d = Compare(base, head)
	for _, td := range d.Groups[0].Packages[0].Types {
		if td.Name() == "Spec" {
			if yes, maybe := td.StillPromoted("engine"); yes || maybe != "ext.Extra" {
				t.Errorf("with ext.Extra inlined: StillPromoted(engine) = %v, %q; want false, \"ext.Extra\"", yes, maybe)
			}
		}
	}
}

// A package that left the repository may have moved to a module head
// requires: one that holds its import path, or one of the repository
// module's owner named after a directory on the package's path.
func TestMovedToModule(t *testing.T) {
	m := &Model{
		Modules:  []string{"github.com/kyverno/kyverno", "github.com/kyverno/kyverno/sdk"},
		Requires: []string{"github.com/kyverno/api", "github.com/kyverno/kyverno/api", "github.com/other/api/v2", "k8s.io/api"},
	}
	for _, c := range []struct {
		ip, module string
		samePath   bool
	}{
		{"github.com/kyverno/kyverno/api/kyverno/v1", "github.com/kyverno/kyverno/api", true},
		{"github.com/kyverno/kyverno/pkg/api/policies/v1alpha1", "github.com/kyverno/api", false},
		{"github.com/kyverno/kyverno/sdk/api/v1", "github.com/kyverno/kyverno/api", false}, // a sibling of the sdk module
		{"github.com/kyverno/kyverno/pkg/apis/v1", "", false},                              // no "api" directory on its path
		{"example.com/elsewhere/api/v1", "", false},
	} {
		mod, same, ok := m.MovedToModule(c.ip)
		if mod != c.module || same != c.samePath || ok != (c.module != "") {
			t.Errorf("MovedToModule(%s) = %q, %v, %v; want %q, %v", c.ip, mod, same, ok, c.module, c.samePath)
		}
	}
	// Another owner's module of the same name is no destination.
	m = &Model{Modules: []string{"github.com/acme/operator"}, Requires: []string{"github.com/other/api"}}
	if mod, _, ok := m.MovedToModule("github.com/acme/operator/api/v1"); ok {
		t.Errorf("MovedToModule to another owner's module %s", mod)
	}
}
