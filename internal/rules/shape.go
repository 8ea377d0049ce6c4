package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Wire shapes: what a type looks like in JSON once Go names are gone. Two
// types with the same shape are the same to every non-Go client: a type
// moved to another package, a named type swapped for its underlying type,
// a pointer for a value, or a struct wrapped by one that inlines it.

// shapeMatch is how a head type's wire shape relates to the base type's.
type shapeMatch int

const (
	shapeDifferent shapeMatch = iota
	// shapeUnknown: a type outside the repository that apicheck could not
	// resolve (not in the module cache), or a type of the repository whose
	// own JSON methods decide its form against one whose declaration does
	// (shapeResult.custom), stands on one side; nothing else differs.
	shapeUnknown
	// shapeDropsReserved: head lacks members of base, each reserved by a
	// tombstone in head's struct (a deliberate removal) or deprecated at
	// base (an announced one), and is otherwise the same or a superset.
	shapeDropsReserved
	// shapeSuperset: head accepts everything base did and adds only
	// optional members.
	shapeSuperset
	shapeSame
)

// typeSide is a type identity as seen from a package of a model.
type typeSide struct {
	m   *model.Model
	pkg *model.Package
	id  string
}

// shapeOpts relax a shape comparison.
type shapeOpts struct {
	// alphaGoes lets base's alpha members go or change
	// (shapeResult.alphaGone).
	alphaGoes bool
	// statusWritten: the types compared are status, which only the
	// controller writes: a member that became required is no difference
	// (shapeResult.required).
	statusWritten bool
	// unvalidated: the API server validates nothing of the values
	// compared (no schema): a member that became required, or a new
	// required one, is no difference (shapeResult.required).
	unvalidated bool
}

// compareShapes compares the wire shapes of a base and a head type.
func compareShapes(b, h typeSide, o shapeOpts) shapeMatch {
	return compareShapesDropped(b, h, o).match
}

// shapeResult is what compareShapesDropped found.
type shapeResult struct {
	match shapeMatch
	// dropped are the members head dropped under tombstones (for
	// shapeDropsReserved), sorted.
	dropped []string
	// deprecated are the members head dropped that base deprecated (also
	// shapeDropsReserved: an announced removal), sorted.
	deprecated []string
	// why is, for shapeDifferent, the first difference found, in a few
	// words.
	why string
	// alphaGone are base's alpha members that head lacks or changed,
	// sorted: with alphaGoes they make no difference (alpha fields may
	// change or go away).
	alphaGone []string
	// required are members that became required, sorted: with
	// statusWritten they make no difference.
	required []string
	// custom, for shapeUnknown, names a type of the repository whose own
	// MarshalJSON and UnmarshalJSON decide its JSON form, when one was
	// met ("" when only unresolved types made the shapes unknown).
	custom string
}

// compareShapesDropped is compareShapes that says what it found.
func compareShapesDropped(b, h typeSide, o shapeOpts) shapeResult {
	s := &shaper{seen: map[[2]string]bool{}, shapeOpts: o}
	m := s.compare(b, h)
	r := shapeResult{match: m}
	slices.Sort(s.dropped)
	r.dropped = slices.Compact(s.dropped)
	slices.Sort(s.deprecated)
	r.deprecated = slices.Compact(s.deprecated)
	if m == shapeDifferent {
		r.why = s.why
	}
	slices.Sort(s.alphaGone)
	r.alphaGone = slices.Compact(s.alphaGone)
	slices.Sort(s.required)
	r.required = slices.Compact(s.required)
	if m == shapeUnknown {
		r.custom = s.custom
	}
	return r
}

// namedContainer returns a type side's underlying slice or map type when
// it names a non-alias type of its package declared as one.
func namedContainer(x typeSide) (typeSide, bool) {
	t, _ := x.resolve()
	if t == nil || t.t.Kind != model.KindOther || t.t.Alias {
		return x, false
	}
	u := t.t.UnderlyingIdentity()
	if !strings.HasPrefix(u, "[]") && !strings.HasPrefix(u, "map[") {
		return x, false
	}
	return t.with(u), true
}

type shaper struct {
	seen       map[[2]string]bool // pairs being compared (recursive types)
	dropped    []string           // members dropped under a tombstone
	deprecated []string           // members dropped that base deprecated
	why        string             // the first difference found
	shapeOpts
	alphaGone []string // alpha members gone or changed (alphaGoes)
	required  []string // members that became required (statusWritten)
	custom    string   // the first type with its own JSON methods met (shapeUnknown)
}

// differ records why two shapes differ (the first reason wins: the
// innermost, as comparisons return on the first difference).
func (s *shaper) differ(format string, args ...any) shapeMatch {
	if s.why == "" {
		s.why = fmt.Sprintf(format, args...)
	}
	return shapeDifferent
}

func (s *shaper) compare(b, h typeSide) shapeMatch {
	b.id, h.id = wireID(b.id), wireID(h.id)
	if b.id == h.id && b.pkg != nil && h.pkg != nil && (isBuiltinID(b.id) || b.pkg.ImportPath == h.pkg.ImportPath || strings.Contains(b.id, ".")) {
		return shapeSame
	}
	key := [2]string{pkgPath(b.pkg) + " " + b.id, pkgPath(h.pkg) + " " + h.id}
	if s.seen[key] {
		return shapeSame // assume equal while comparing (coinductive)
	}
	s.seen[key] = true
	// Containers compare element-wise; a named container type of the
	// package (type CidrBlocks []string) against a container is its
	// underlying type.
	for _, pre := range []string{"[]", "map["} {
		if strings.HasPrefix(b.id, pre) == strings.HasPrefix(h.id, pre) {
			continue
		}
		if nb, ok := namedContainer(b); ok && strings.HasPrefix(h.id, pre) {
			return s.compare(nb, h)
		}
		if nh, ok := namedContainer(h); ok && strings.HasPrefix(b.id, pre) {
			return s.compare(b, nh)
		}
		// A type of another project that was not resolved is most likely
		// a struct, a JSON object as a map is, or a map type: against a
		// map its shape is unknown (Rancher Fleet's GenericMap, a struct
		// whose JSON methods write an object, became
		// map[string]runtime.RawExtension). Against a slice, a JSON array,
		// it differs, as a struct would (Cluster API's FailureDomains, a
		// map type, became a list).
		if pre == "map[" && (unknownOutside(b) || unknownOutside(h)) {
			return shapeUnknown
		}
		return s.differ("%s became %s", b.id, h.id)
	}
	if strings.HasPrefix(b.id, "[]") {
		return min(s.compare(b.with(b.id[2:]), h.with(h.id[2:])), shapeSame)
	}
	if strings.HasPrefix(b.id, "map[") {
		bk, bv, ok1 := splitMap(b.id)
		hk, hv, ok2 := splitMap(h.id)
		if !ok1 || !ok2 {
			return s.differ("map key %s became %s", bk, hk)
		}
		// A key type outside the repository that was not resolved is
		// unknown, as a value would be (Kubeflow's
		// commonv1.ReplicaType became its own string ReplicaType).
		km := s.compare(b.with(bk), h.with(hk))
		if km != shapeSame && km != shapeUnknown {
			return s.differ("map key %s became %s", bk, hk)
		}
		return min(km, s.compare(b.with(bv), h.with(hv)))
	}
	bt, bs := b.resolve()
	ht, hs := h.resolve()
	// A type that declares its schema type (+kubebuilder:validation:Type,
	// beside its own JSON methods: kube-ovn's BigInt is a number) is that
	// type on the wire.
	if mb, mh := declaredScalar(bt), declaredScalar(ht); mb != "" || mh != "" {
		kb, kh := mb, mh
		if kb == "" && bt == nil {
			kb = jsonKind(bs)
		}
		if kh == "" && ht == nil {
			kh = jsonKind(hs)
		}
		switch {
		case kb != "" && kb == kh:
			return shapeSame
		case kb != "" && kh != "":
			return s.differ("%s (a JSON %s) became %s (a JSON %s)", b.id, kb, h.id, kh)
		}
	}
	// A type of the repository whose own MarshalJSON and UnmarshalJSON
	// decide its JSON form (and that declares no schema type, above)
	// has a form apicheck does not know: Koordinator's Float64OrString,
	// a struct whose methods read and write a number or a string, took
	// over from a string. Two such types compare by their declarations
	// below (the same type moved to another package keeps its form).
	if bc, hc := bt != nil && bt.t.CustomJSON, ht != nil && ht.t.CustomJSON; bc != hc {
		custom := ht
		if bc {
			custom = bt
		}
		if s.custom == "" {
			s.custom = custom.id
		}
		return shapeUnknown
	}
	switch {
	case bt == nil && ht == nil:
		if bs != "" && (bs == hs || platformInt[bs] == hs || platformInt[hs] == bs) {
			return shapeSame
		}
		// Basic types compare by name (int32 and int64 differ in range);
		// a well-known type by its JSON form.
		if kb, kh := jsonKind(bs), jsonKind(hs); kb != "" && kh != "" && !(isBuiltinID(bs) && isBuiltinID(hs)) {
			if kb == kh {
				return shapeSame
			}
			return s.differ("%s (a JSON %s) became %s (a JSON %s)", bs, kb, hs, kh)
		}
		if unresolvedNamed(bs) || unresolvedNamed(hs) {
			return shapeUnknown
		}
		return s.differ("%s became %s", bs, hs)
	case bt == nil || ht == nil:
		// A named non-struct type against its underlying type.
		if bt == nil && ht.t.Kind == model.KindOther && !ht.t.Alias {
			return s.compare(b, ht.with(ht.t.UnderlyingIdentity()))
		}
		if ht == nil && bt.t.Kind == model.KindOther && !bt.t.Alias {
			return s.compare(bt.with(bt.t.UnderlyingIdentity()), h)
		}
		if unresolvedNamed(bs) || unresolvedNamed(hs) {
			return shapeUnknown
		}
		return s.differ("%s became %s", b.id, h.id)
	}
	if bt.t.Kind != model.KindStruct || ht.t.Kind != model.KindStruct {
		if bt.t.Kind == model.KindStruct || ht.t.Kind == model.KindStruct {
			return s.differ("%s became %s", b.id, h.id)
		}
		return s.compare(bt.with(bt.t.UnderlyingIdentity()), ht.with(ht.t.UnderlyingIdentity()))
	}
	bm, bu, bok := s.members(bt)
	hm, hu, hok := s.members(ht)
	if !bok || !hok {
		return shapeUnknown
	}
	// Inline members that could not be resolved (types of a module
	// outside the module cache) bring members nobody knows. The same ones
	// on both sides bring the same members, and the others still compare
	// (Gardener's resource-manager configuration inlined component-base's
	// ClientConnectionConfiguration on both sides and lost its own
	// "namespace"); different ones make a member only one side has of
	// unknown origin.
	slices.Sort(bu)
	slices.Sort(hu)
	partial, unknown := !slices.Equal(slices.Compact(bu), slices.Compact(hu)), false
	result := shapeSame
	// In name order: the first difference is the one a message names.
	for _, name := range slices.Sorted(maps.Keys(bm)) {
		bf := bm[name]
		hf, ok := hm[name]
		alphaGoes := s.alphaGoes && bf.alpha
		if !ok {
			switch {
			case reserves(ht.t, name): // a deliberate removal, whatever the member was
				s.dropped = append(s.dropped, name)
				result = min(result, shapeDropsReserved)
			case bf.deprecated: // an announced removal
				s.deprecated = append(s.deprecated, name)
				result = min(result, shapeDropsReserved)
			case alphaGoes:
				s.alphaGone = append(s.alphaGone, name)
			case partial:
				unknown = true // maybe in an inline member of head's
			default:
				return s.differ("member %q is gone", name)
			}
			continue
		}
		if bf.presence != hf.presence && hf.presence == model.Required {
			switch {
			case alphaGoes:
				s.alphaGone = append(s.alphaGone, name)
				continue
			case s.statusWritten || s.unvalidated:
				s.required = append(s.required, name) // the controller sends it, or nothing enforces it
			default:
				return s.differ("member %q became required", name)
			}
		}
		why, seen := s.why, s.seen
		if alphaGoes {
			// A pair compared below an alpha member and found different
			// must not count as the same when a stable member meets it
			// again (seen answers "same" for pairs already visited).
			s.seen = maps.Clone(seen)
		}
		m := s.compare(bf.side, hf.side)
		if m == shapeDifferent && alphaGoes {
			s.why, s.seen = why, seen // the alpha member's difference is not the type's
			s.alphaGone = append(s.alphaGone, name)
			continue
		}
		result = min(result, m)
		if result == shapeDifferent {
			return shapeDifferent
		}
	}
	for _, name := range slices.Sorted(maps.Keys(hm)) {
		hf := hm[name]
		if _, ok := bm[name]; !ok {
			switch {
			case partial:
				unknown = true // maybe in an inline member of base's
			case hf.presence == model.Required && s.unvalidated:
				s.required = append(s.required, name) // nothing enforces it
			case hf.presence == model.Required:
				return s.differ("new member %q is required", name)
			}
			result = min(result, shapeSuperset)
		}
	}
	if unknown {
		result = min(result, shapeUnknown)
	}
	return result
}

// reserves reports whether a struct holds a tombstone for a JSON member
// name.
func reserves(t *model.Type, name string) bool {
	for _, tb := range t.Tombstones {
		if tb.JSONName == name {
			return true
		}
	}
	return false
}

type member struct {
	side     typeSide
	presence model.Presence
	alpha    bool // the field is alpha (model.Field.Alpha)
	// deprecated: the field's doc comment deprecates it.
	deprecated bool
}

// members are a struct's JSON members, inline fields flattened, and the
// identities of the inline members that could not be resolved (their
// members are unknown); ok is false when an inline member is no struct or
// the nesting is too deep.
func (s *shaper) members(t *resolvedType) (_ map[string]member, unresolved []string, ok bool) {
	out := map[string]member{}
	var walk func(t *resolvedType, depth int) bool
	walk = func(t *resolvedType, depth int) bool {
		if depth > 16 {
			return false
		}
		for _, f := range t.t.Fields {
			c := f.Contract
			if c == nil || c.Name == "-" {
				continue
			}
			if c.Inline {
				it, _ := t.with(c.Type).resolve()
				if it == nil || it.t.Kind != model.KindStruct {
					if strings.HasSuffix(c.Type, "TypeMeta") || strings.HasSuffix(c.Type, "ObjectMeta") {
						out["\x00"+c.Type] = member{side: t.with(c.Type), presence: model.Optional}
						continue
					}
					if it == nil {
						unresolved = append(unresolved, c.Type)
						continue
					}
					return false
				}
				if !walk(it, depth+1) {
					return false
				}
				continue
			}
			out[c.Name] = member{side: t.with(c.Type), presence: c.Presence, alpha: f.Alpha, deprecated: f.Deprecated}
		}
		return true
	}
	if !walk(t, 0) {
		return nil, nil, false
	}
	return out, unresolved, true
}

// resolvedType is a type declaration found in a model.
type resolvedType struct {
	typeSide
	t *model.Type
}

func (r *resolvedType) with(id string) typeSide { return typeSide{m: r.m, pkg: r.pkg, id: id} }

func (t typeSide) with(id string) typeSide { return typeSide{m: t.m, pkg: t.pkg, id: id} }

// resolve finds the declaration of a named type in the model; for a type
// outside the model it returns nil and the fully qualified identity.
func (t typeSide) resolve() (*resolvedType, string) {
	id := t.id
	if isBuiltinID(id) {
		return nil, id
	}
	pkg := t.pkg
	name := id
	if i := strings.LastIndex(id, "."); i >= 0 {
		path := id[:i]
		name = id[i+1:]
		pkg = findPackage(t.m, path)
		if pkg == nil {
			return nil, id
		}
	}
	if pkg == nil {
		return nil, id
	}
	decl := pkg.Type(name)
	if decl == nil {
		return nil, pkg.ImportPath + "." + name
	}
	return &resolvedType{typeSide: typeSide{m: t.m, pkg: pkg, id: name}, t: decl}, ""
}

func findPackage(m *model.Model, importPath string) *model.Package {
	if m == nil {
		return nil
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			if p.ImportPath == importPath {
				return p
			}
		}
	}
	for _, p := range m.Shared {
		if p.ImportPath == importPath {
			return p
		}
	}
	return nil
}

func pkgPath(p *model.Package) string {
	if p == nil {
		return ""
	}
	return p.ImportPath
}

// wireID drops what JSON does not see of a type: pointers.
func wireID(id string) string { return strings.TrimLeft(id, "*") }

func isBuiltinID(id string) bool { return model.IsBuiltin(id) || id == "any" || id == "error" }

// splitMap splits "map[K]V" into K and V.
func splitMap(id string) (k, v string, ok bool) {
	depth := 0
	for i := 3; i < len(id); i++ {
		switch id[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return id[4:i], id[i+1:], true
			}
		}
	}
	return "", "", false
}

// platformInt maps Go's platform-sized integers to their size on every
// platform an API server or controller runs on (64-bit): int and int64
// hold the same values, so a field that changes from one to the other
// carries the same numbers (OpenShift's BuildConfigStatus.LastVersion,
// int to int64, when it gained protobuf tags). int to int32 narrows.
var platformInt = map[string]string{"int": "int64", "uint": "uint64"}

// jsonKinds are the JSON forms of the types outside the repository whose
// wire shape every Kubernetes API knows, and of Go's basic types.
var jsonKinds = map[string]string{
	"string": "string", "bool": "boolean", "float32": "number", "float64": "number",
	"int": "integer", "int8": "integer", "int16": "integer", "int32": "integer", "int64": "integer",
	"uint": "integer", "uint8": "integer", "uint16": "integer", "uint32": "integer", "uint64": "integer",
	"time.Duration": "integer",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "string",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "string",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "string",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "int-or-string",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "int-or-string",
}

// declaredScalar is the scalar schema type (string, number, integer,
// boolean) a type of the repository declares with
// +kubebuilder:validation:Type, "" without one (object and array say
// nothing of the members: the shapes compare as before).
func declaredScalar(t *resolvedType) string {
	if t == nil {
		return ""
	}
	v, _ := t.t.Markers.Get("kubebuilder:validation:Type")
	switch v = strings.Trim(v, `"`); v {
	case "string", "number", "integer", "boolean":
		return v
	}
	return ""
}

// jsonKind is a type's JSON form when it is a basic or well-known type,
// else "".
func jsonKind(id string) string { return jsonKinds[id] }

// unknownOutside reports a side that is no container and names a type of
// another project (neither the standard library's nor Kubernetes', whose
// forms are known) that resolve found in no package of the model.
func unknownOutside(x typeSide) bool {
	if strings.HasPrefix(x.id, "[]") || strings.HasPrefix(x.id, "map[") {
		return false
	}
	t, id := x.resolve()
	if t != nil || !unresolvedNamed(id) || jsonKind(id) != "" || strings.HasPrefix(id, "k8s.io/") {
		return false
	}
	first, _, _ := strings.Cut(id, "/")
	return strings.Contains(first, ".")
}

// unresolvedNamed reports a qualified type identity that resolve found in
// no package of the model: its declaration is unknown.
func unresolvedNamed(id string) bool {
	return id != "" && strings.Contains(id, ".") && !isBuiltinID(id)
}

// quoteList quotes names and joins them: `"a"`, `"a" and "b"`.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
