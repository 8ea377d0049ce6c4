package benchgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// tree is the in-memory description of a generated API tree. Generate
// renders it; Mutate rebuilds the same tree from the manifest, changes it
// and renders it again, so that only the files whose text changed are
// rewritten.
type tree struct {
	opts   Options
	groups []*group
}

// group is one API group: pkg/apis/<name> (internal) and
// pkg/apis/<name>/v1beta1. Both packages render the same types; the
// internal one without struct tags and tombstones, as in Gardener and
// Kubernetes.
type group struct {
	name  string
	files []*typesFile
}

// typesFile is one types_<name>.go, present in both packages.
type typesFile struct {
	name    string // file stem after "types_", lower case
	structs []*structType
	enums   []*enumType
	// order lists the declarations in file order: 's' + index into
	// structs or 'e' + index into enums.
	order []declRef
}

type declRef struct {
	enum bool
	i    int
}

type structType struct {
	name    string
	doc     []string
	markers []string // type markers in the comment group above the doc (+genclient)
	root    bool     // a root kind (TypeMeta, ObjectMeta, Spec, Status)
	list    bool     // a <Kind>List
	fields  []*field
	nextNum int // next free protobuf number
}

type field struct {
	name     string
	json     string
	typ      fieldType
	doc      []string
	markers  []string // field markers other than +optional
	optional bool
	omit     bool // omitempty
	embedded bool
	inline   bool // json:",inline"
	num      int  // protobuf number; 0 = no protobuf tag
	// tombstone renders the field, in the versioned package, as a
	// commented-out declaration with the canonical explanation, and leaves
	// it out of the internal package.
	tombstone bool
}

// fieldType is a Go type expression with what the protobuf tag and the
// deep-copy code need to know about it.
type fieldType struct {
	expr string
	wire string // bytes, varint
	kind copyKind
	elem string // element type for pointers, slices and maps
	rep  bool
	map_ bool   // map[string]string: protobuf_key/protobuf_val
	cast string // casttype / castkey options, with the leading comma
}

type copyKind int

const (
	copyNone         copyKind = iota // plain value, *out = *in copies it
	copyPtrValue                     // *T with T a value type
	copyPtrStruct                    // *T with T a struct
	copySliceValue                   // []T with T a value type
	copySliceStruct                  // []T with T a struct
	copyMap                          // map[string]string
	copyStruct                       // T struct by value
	copyResourceList                 // corev1.ResourceList
)

type enumType struct {
	name   string
	doc    []string
	values []enumValue
}

type enumValue struct {
	name, value string
	doc         []string
}

// builder holds the random source while a tree is built or changed.
type builder struct {
	r *rand.Rand
}

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

func (b *builder) intn(lo, hi int) int   { return lo + b.r.IntN(hi-lo+1) } // [lo, hi]
func (b *builder) chance(p float64) bool { return b.r.Float64() < p }
func pick[T any](b *builder, s []T) T    { return s[b.r.IntN(len(s))] }

// buildTree makes the base tree for opts; the result depends on opts only.
func buildTree(opts Options) *tree {
	b := &builder{r: newRand(opts.Seed, 0x62656e6368)}
	t := &tree{opts: opts}
	for gi := 0; gi < opts.Groups; gi++ {
		name := groupWords[gi%len(groupWords)]
		if gi >= len(groupWords) {
			name += fmt.Sprint(gi / len(groupWords))
		}
		g := &group{name: name}
		kinds := shuffled(b, kindWords)
		for fi := 0; fi < opts.TypesFiles; fi++ {
			kind := kinds[fi%len(kinds)]
			if fi >= len(kinds) {
				kind += fmt.Sprint(fi / len(kinds))
			}
			g.files = append(g.files, b.typesFile(kind, fi < opts.RootKinds))
		}
		t.groups = append(t.groups, g)
	}
	return t
}

func shuffled(b *builder, s []string) []string {
	out := append([]string(nil), s...)
	b.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// typesFile builds the declarations of one types file: for a root kind
// the kind, its list, spec and status; otherwise a shared struct. Either
// may come with nested structs and a typed string enum.
func (b *builder) typesFile(kind string, root bool) *typesFile {
	f := &typesFile{name: strings.ToLower(kind)}
	used := map[string]bool{}
	var enum *enumType
	if b.chance(0.6) {
		enum = b.enum(kind+pick(b, []string{"Phase", "Purpose", "Mode", "Type"}), used)
		f.enums = append(f.enums, enum)
		f.order = append(f.order, declRef{enum: true, i: 0})
	}
	var nested []*structType
	if b.chance(0.3) {
		name := kind + pick(b, nestedSuffixes)
		used[name] = true
		nested = append(nested, b.plainStruct(name, b.intn(4, 8), nil, enum))
	}
	add := func(s *structType) {
		f.order = append(f.order, declRef{i: len(f.structs)})
		f.structs = append(f.structs, s)
	}
	if root {
		add(b.rootKind(kind))
		add(b.listKind(kind))
		add(b.plainStruct(kind+"Spec", b.fieldCount(), nested, enum))
		add(b.plainStruct(kind+"Status", b.intn(3, 6), nil, enum))
	} else {
		add(b.plainStruct(kind, b.fieldCount(), nested, enum))
	}
	for _, s := range nested {
		add(s)
	}
	return f
}

// fieldCount draws the number of fields of a main struct: 10 to 40,
// mostly at the low end (median 13, mean 17), as in real API packages where
// a few structs (specs of central kinds) are much larger than the rest.
func (b *builder) fieldCount() int {
	u := b.r.Float64()
	return 10 + int(30*u*u*u)
}

func (b *builder) enum(name string, used map[string]bool) *enumType {
	used[name] = true
	e := &enumType{
		name: name,
		doc: []string{
			fmt.Sprintf("%s is a string alias for the %s of %s.", name, pick(b, docAttrs), withArticle(pick(b, docNouns))),
		},
	}
	for _, w := range shuffled(b, enumValueWords)[:b.intn(3, 6)] {
		e.values = append(e.values, b.enumValue(name, w))
	}
	return e
}

func (b *builder) enumValue(typeName, word string) enumValue {
	cname := typeName + upperFirst(word)
	return enumValue{
		name:  cname,
		value: word,
		doc:   []string{fmt.Sprintf("%s is the %s value of %s.", cname, word, typeName)},
	}
}

func (b *builder) rootKind(kind string) *structType {
	s := &structType{
		name:    kind,
		root:    true,
		markers: []string{"+genclient", "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"},
		doc: []string{
			fmt.Sprintf("%s represents %s of the %s.", kind, withArticle(pick(b, docAttrs)), pick(b, docNouns)),
			pick(b, docFollowUps),
		},
	}
	s.fields = []*field{
		{name: "TypeMeta", typ: fieldType{expr: "metav1.TypeMeta"}, embedded: true, inline: true},
		{name: "ObjectMeta", json: "metadata", typ: structOf("metav1.ObjectMeta"), embedded: true, optional: true, omit: true,
			doc: []string{"Standard object metadata."}},
		{name: "Spec", json: "spec", typ: structOf(kind + "Spec"), omit: true,
			doc: []string{fmt.Sprintf("Spec contains the specification of this %s.", kind)}},
		{name: "Status", json: "status", typ: structOf(kind + "Status"), optional: true, omit: true,
			doc: []string{fmt.Sprintf("Status contains the most recently observed status of the %s.", kind)}},
	}
	s.number()
	return s
}

func (b *builder) listKind(kind string) *structType {
	s := &structType{
		name:    kind + "List",
		list:    true,
		markers: []string{"+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"},
		doc:     []string{fmt.Sprintf("%sList is a collection of %ss.", kind, kind)},
	}
	s.fields = []*field{
		{name: "TypeMeta", typ: fieldType{expr: "metav1.TypeMeta"}, embedded: true, inline: true},
		{name: "ListMeta", json: "metadata", typ: structOf("metav1.ListMeta"), embedded: true, optional: true, omit: true,
			doc: []string{"Standard list object metadata."}},
		{name: "Items", json: "items", typ: sliceOf(kind, true),
			doc: []string{fmt.Sprintf("Items is the list of %ss.", kind)}},
	}
	s.number()
	return s
}

// number gives every field with a json name a protobuf number, in order.
func (s *structType) number() {
	n := 1
	for _, f := range s.fields {
		if f.json == "" {
			continue
		}
		f.num = n
		n++
	}
	s.nextNum = n
}

// plainStruct builds a struct with n fields, some referring to nested
// structs and the file's enum; a few fields become tombstones.
func (b *builder) plainStruct(name string, n int, nested []*structType, enum *enumType) *structType {
	s := &structType{name: name}
	s.doc = b.typeDoc(name)
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		s.fields = append(s.fields, b.field(used, nested, enum, false))
	}
	// Nested structs are used by the struct that declares them.
	for _, ns := range nested {
		s.fields = append(s.fields, b.namedField(used, nestedFieldName(ns.name), ns.name))
	}
	s.number()
	// A few structs carry a tombstone: the field keeps its number and
	// becomes a comment in the versioned package.
	if len(s.fields) > 8 && b.chance(0.12) {
		f := s.fields[b.intn(2, len(s.fields)-2)]
		if !f.embedded {
			f.tombstone = true
		}
	}
	return s
}

func (b *builder) typeDoc(name string) []string {
	doc := []string{fmt.Sprintf("%s contains the %s for the %s.", name, pick(b, docAttrs), pick(b, docNouns))}
	for n := b.intn(0, 2); n > 0; n-- {
		doc = append(doc, pick(b, docFollowUps))
	}
	return doc
}

// fieldName returns an unused exported field name.
func (b *builder) fieldName(used map[string]bool) string {
	for i := 0; ; i++ {
		name := pick(b, fieldPrefixes) + pick(b, fieldNouns)
		if i > 50 {
			name += fmt.Sprint(i)
		}
		if !used[name] {
			used[name] = true
			return name
		}
	}
}

// field draws a field of a random type. pointerOnly restricts the draw to
// nillable types (what a well-behaved new field uses).
func (b *builder) field(used map[string]bool, nested []*structType, enum *enumType, pointerOnly bool) *field {
	name := b.fieldName(used)
	var typ fieldType
	for {
		typ = b.fieldType(nested, enum)
		if !pointerOnly || typ.nillable() {
			break
		}
	}
	return b.finishField(name, typ)
}

// nestedFieldName names the field that holds a nested struct after the
// struct's suffix: ShootWindow -> Window.
func nestedFieldName(typeName string) string {
	for _, suf := range nestedSuffixes {
		if strings.HasSuffix(typeName, suf) {
			return suf
		}
	}
	return typeName
}

func (b *builder) namedField(used map[string]bool, name, typeName string) *field {
	for used[name] {
		name += "Spec"
	}
	used[name] = true
	return b.finishField(name, ptrStruct(typeName))
}

func (b *builder) finishField(name string, typ fieldType) *field {
	f := &field{name: name, json: lowerCamel(name), typ: typ}
	f.doc = b.fieldDoc(name)
	if typ.nillable() || b.chance(0.3) {
		f.optional, f.omit = true, true
	} else if b.chance(0.5) {
		f.omit = true
	}
	switch {
	case typ.kind == copySliceStruct && b.chance(0.5):
		f.markers = append(f.markers, "+patchMergeKey=name", "+patchStrategy=merge")
	case typ.kind == copySliceValue && b.chance(0.3):
		f.markers = append(f.markers, "+listType=atomic")
	}
	return f
}

func (b *builder) fieldDoc(name string) []string {
	doc := []string{fmt.Sprintf("%s is the %s of the %s.", name, pick(b, docAttrs), pick(b, docNouns))}
	// Most fields have a one-line doc, some a paragraph.
	switch u := b.r.Float64(); {
	case u < 0.08:
		doc = append(doc, pick(b, docFollowUps), pick(b, docFollowUps))
	case u < 0.33:
		doc = append(doc, pick(b, docFollowUps))
	}
	return doc
}

func (b *builder) fieldType(nested []*structType, enum *enumType) fieldType {
	for {
		switch b.r.IntN(20) {
		case 0, 1:
			return ptrValue("string", "bytes")
		case 2:
			return value("string", "bytes")
		case 3:
			return ptrValue("int32", "varint")
		case 4:
			return value("int32", "varint")
		case 5:
			return ptrValue("int64", "varint")
		case 6:
			return ptrValue("bool", "varint")
		case 7:
			return value("bool", "varint")
		case 8:
			return sliceOf("string", false)
		case 9:
			return fieldType{expr: "map[string]string", wire: "bytes", kind: copyMap, rep: true, map_: true}
		case 10:
			return structOf("metav1.Time")
		case 11:
			return ptrStruct("metav1.Time")
		case 12:
			return ptrStruct("metav1.Duration")
		case 13:
			return fieldType{expr: "corev1.ResourceList", wire: "bytes", kind: copyResourceList, rep: true,
				cast: ",casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"}
		case 14:
			return sliceOf("corev1.Toleration", true)
		case 15:
			return ptrStruct("corev1.LocalObjectReference")
		case 16:
			if len(nested) > 0 {
				return sliceOf(pick(b, nested).name, true)
			}
			return ptrStruct("metav1.LabelSelector")
		case 17:
			return ptrStruct("runtime.RawExtension")
		case 18, 19:
			if enum == nil {
				continue
			}
			if b.chance(0.5) {
				t := ptrValue(enum.name, "bytes")
				t.cast = ",casttype=" + enum.name
				return t
			}
			t := value(enum.name, "bytes")
			t.cast = ",casttype=" + enum.name
			return t
		}
	}
}

func value(expr, wire string) fieldType { return fieldType{expr: expr, wire: wire} }
func ptrValue(elem, wire string) fieldType {
	return fieldType{expr: "*" + elem, elem: elem, wire: wire, kind: copyPtrValue}
}
func ptrStruct(elem string) fieldType {
	return fieldType{expr: "*" + elem, elem: elem, wire: "bytes", kind: copyPtrStruct}
}
func structOf(expr string) fieldType {
	return fieldType{expr: expr, elem: expr, wire: "bytes", kind: copyStruct}
}
func sliceOf(elem string, isStruct bool) fieldType {
	k := copySliceValue
	if isStruct {
		k = copySliceStruct
	}
	return fieldType{expr: "[]" + elem, elem: elem, wire: "bytes", kind: k, rep: true}
}

func (t fieldType) nillable() bool {
	switch t.kind {
	case copyPtrValue, copyPtrStruct, copySliceValue, copySliceStruct, copyMap, copyResourceList:
		return true
	}
	return false
}

// withArticle prefixes a noun phrase with "a" or "an".
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// lowerCamel turns a Go field name into its json name the way Kubernetes
// spells them: "Replicas" -> "replicas", "CABundle" -> "caBundle",
// "URL" -> "url", "DNSName" -> "dnsName".
func lowerCamel(s string) string {
	n := 0
	for n < len(s) && s[n] >= 'A' && s[n] <= 'Z' {
		n++
	}
	switch {
	case n == 0:
		return s
	case n == 1 || n == len(s):
		return strings.ToLower(s[:n]) + s[n:]
	default:
		// "CABundle": the last capital starts the next word.
		return strings.ToLower(s[:n-1]) + s[n-1:]
	}
}
