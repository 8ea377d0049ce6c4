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

// WireShapeKept reports whether a paired field whose Go type changed kept
// its wire shape (or only added optional members): a pointer for a value,
// a named type for its underlying type, a type moved to another package.
// Go clients break, the wire does not; FIELD_TYPE_CHANGED judges such a
// change as a warning. It is false for a field whose type did not change.
func WireShapeKept(d *model.Diff, fd *model.FieldDiff) bool {
	if fd.Base == nil || fd.Head == nil || !fd.Has(model.AttrGoType) {
		return false
	}
	base := typeSide{m: d.Base, pkg: fd.Type.Pkg.Base, id: contractOf(fd.Base).Type}
	head := typeSide{m: d.Head, pkg: fd.Type.Pkg.Head, id: contractOf(fd.Head).Type}
	return compareShapes(base, head, shapeOpts{}) >= shapeSuperset
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

// shaper compares wire shapes (compareShapesDropped), recording what it
// let pass and the first difference it found.
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

// compare compares the wire shapes of a base and a head type: the same
// identity; containers element by element (compareContainers); the JSON
// form a type declares or its own JSON methods decide (compareForms);
// types outside the model (compareUnresolved) or on one side only
// (compareOneResolved); non-struct declarations by their underlying
// types; structs member by member (compareStructs).
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
	if m, ok := s.compareContainers(b, h); ok {
		return m
	}
	bt, bs := b.resolve()
	ht, hs := h.resolve()
	if m, ok := s.compareForms(b, h, bt, ht, bs, hs); ok {
		return m
	}
	switch {
	case bt == nil && ht == nil:
		return s.compareUnresolved(bs, hs)
	case bt == nil || ht == nil:
		return s.compareOneResolved(b, h, bt, ht, bs, hs)
	}
	if bt.t.Kind != model.KindStruct || ht.t.Kind != model.KindStruct {
		// A defined type over another named type (admissionregistration
		// v1alpha1's `type MatchCondition v1.MatchCondition`) has that
		// type's shape: a struct on one side compares with what the other
		// side's declaration names.
		switch {
		case bt.t.Kind == model.KindStruct && ht.t.Kind == model.KindOther && namesType(ht.t):
			return s.compare(b, ht.with(ht.t.UnderlyingIdentity()))
		case ht.t.Kind == model.KindStruct && bt.t.Kind == model.KindOther && namesType(bt.t):
			return s.compare(bt.with(bt.t.UnderlyingIdentity()), h)
		}
		if bt.t.Kind == model.KindStruct || ht.t.Kind == model.KindStruct {
			return s.differ("%s became %s", b.id, h.id)
		}
		return s.compare(bt.with(bt.t.UnderlyingIdentity()), ht.with(ht.t.UnderlyingIdentity()))
	}
	return s.compareStructs(bt, ht)
}

// namesType reports whether a non-struct declaration's underlying type is
// a named type (`type A B`, `type A pkg.B`), not a built-in, a pointer or
// a container.
func namesType(t *model.Type) bool {
	u := t.UnderlyingIdentity()
	return u != "" && !isBuiltinID(u) && !strings.ContainsAny(u, "*[]{}() ") && !strings.HasPrefix(u, "map[")
}

// compareContainers compares two sides of which one is a slice or a map
// (ok is false when neither is): element-wise, and a named container type
// of the package (type CidrBlocks []string) against a container as its
// underlying type.
func (s *shaper) compareContainers(b, h typeSide) (_ shapeMatch, ok bool) {
	for _, pre := range []string{"[]", "map["} {
		if strings.HasPrefix(b.id, pre) == strings.HasPrefix(h.id, pre) {
			continue
		}
		if nb, ok := namedContainer(b); ok && strings.HasPrefix(h.id, pre) {
			return s.compare(nb, h), true
		}
		if nh, ok := namedContainer(h); ok && strings.HasPrefix(b.id, pre) {
			return s.compare(b, nh), true
		}
		// A type of another project that was not resolved is most likely
		// a struct, a JSON object as a map is, or a map type: against a
		// map its shape is unknown (Rancher Fleet's GenericMap, a struct
		// whose JSON methods write an object, became
		// map[string]runtime.RawExtension). Against a slice, a JSON array,
		// it differs, as a struct would (Cluster API's FailureDomains, a
		// map type, became a list).
		if pre == "map[" && (unknownOutside(b) || unknownOutside(h)) {
			return shapeUnknown, true
		}
		return s.differ("%s became %s", b.id, h.id), true
	}
	if strings.HasPrefix(b.id, "[]") {
		return min(s.compare(b.with(b.id[2:]), h.with(h.id[2:])), shapeSame), true
	}
	if !strings.HasPrefix(b.id, "map[") {
		return 0, false
	}
	bk, bv, ok1 := splitMap(b.id)
	hk, hv, ok2 := splitMap(h.id)
	if !ok1 || !ok2 {
		return s.differ("map key %s became %s", bk, hk), true
	}
	// A key type outside the repository that was not resolved is
	// unknown, as a value would be (Kubeflow's
	// commonv1.ReplicaType became its own string ReplicaType).
	km := s.compare(b.with(bk), h.with(hk))
	if km != shapeSame && km != shapeUnknown {
		return s.differ("map key %s became %s", bk, hk), true
	}
	return min(km, s.compare(b.with(bv), h.with(hv))), true
}

// compareForms compares the sides by the JSON form a type of the
// repository declares or has its own methods decide (ok is false when
// neither side has one): bt and ht are the sides' declarations (nil for
// a type outside the model), bs and hs the identities resolve gave those.
func (s *shaper) compareForms(b, h typeSide, bt, ht *resolvedType, bs, hs string) (_ shapeMatch, ok bool) {
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
			return shapeSame, true
		case kb != "" && kh != "":
			return s.differ("%s (a JSON %s) became %s (a JSON %s)", b.id, kb, h.id, kh), true
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
		return shapeUnknown, true
	}
	return 0, false
}

// compareUnresolved compares two types that resolve found in no package
// of the model, by their identities bs and hs: basic types by name (int32
// and int64 differ in range), well-known types by their JSON form.
func (s *shaper) compareUnresolved(bs, hs string) shapeMatch {
	if bs != "" && (bs == hs || platformInt[bs] == hs || platformInt[hs] == bs) {
		return shapeSame
	}
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
}

// compareOneResolved compares two sides of which only one resolved to a
// declaration of the model (bt or ht): a named non-struct type against
// its underlying type.
func (s *shaper) compareOneResolved(b, h typeSide, bt, ht *resolvedType, bs, hs string) shapeMatch {
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

// compareStructs compares two structs by their JSON members, inline
// fields flattened: base's members (compareBaseMembers), then the members
// head adds, which may be optional only.
func (s *shaper) compareStructs(bt, ht *resolvedType) shapeMatch {
	bm, bu, bi, bok := s.members(bt, nil)
	hm, hu, hi, hok := s.members(ht, nil)
	if opaque := oneSided(bu, hi, hu, bi); len(opaque) > 0 {
		// An inline type resolved on one side only (the module cache
		// holds the version one revision requires, not the other's): its
		// members are unknown on both, as the same type brings the same
		// members.
		bm, bu, _, bok = s.members(bt, opaque)
		hm, hu, _, hok = s.members(ht, opaque)
	}
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
	partial := !slices.Equal(slices.Compact(bu), slices.Compact(hu))
	result, unknown := s.compareBaseMembers(ht, bm, hm, partial)
	if result == shapeDifferent {
		return shapeDifferent
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

// compareBaseMembers compares each of base's members bm with head's of
// the same name (hm; ht is head's struct), in name order, so that the
// first difference is the one a message names: a member head lacks is a
// difference unless a tombstone reserves it, base deprecated it, it is
// alpha where alpha members may go, or partial (an inline member that
// could not be resolved on one side) may hold it, which makes unknown
// true.
func (s *shaper) compareBaseMembers(ht *resolvedType, bm, hm map[string]member, partial bool) (result shapeMatch, unknown bool) {
	result = shapeSame
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
				return s.differ("member %q is gone", name), unknown
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
				return s.differ("member %q became required", name), unknown
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
			return shapeDifferent, unknown
		}
	}
	return result, unknown
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

// member is one JSON member of a struct, as a shape comparison sees it.
type member struct {
	side     typeSide
	presence model.Presence
	alpha    bool // the field is alpha (model.Field.Alpha)
	// deprecated: the field's doc comment deprecates it.
	deprecated bool
}

// oneSided returns the inline type identities that one side could not
// resolve (bu, hu) and the other flattened (hi, bi).
func oneSided(bu, hi, hu, bi []string) map[string]bool {
	var out map[string]bool
	add := func(unresolved, inlined []string) {
		for _, id := range unresolved {
			if slices.Contains(inlined, id) {
				if out == nil {
					out = map[string]bool{}
				}
				out[id] = true
			}
		}
	}
	add(bu, hi)
	add(hu, bi)
	return out
}

// members are a struct's JSON members, inline fields flattened (but for
// the identities in opaque, which count as not resolved), the identities
// of the inline members that could not be resolved (their members are
// unknown) and those of the inline members flattened; ok is false when
// an inline member is no struct or the nesting is too deep.
func (s *shaper) members(t *resolvedType, opaque map[string]bool) (_ map[string]member, unresolved, inlined []string, ok bool) {
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
				if opaque[c.Type] {
					it = nil
				}
				if it == nil || it.t.Kind != model.KindStruct {
					if strings.HasSuffix(c.Type, "TypeMeta") || strings.HasSuffix(c.Type, "ObjectMeta") {
						// apimachinery's metadata, unresolved: a member
						// of its own, the same type on both sides the
						// same member.
						out["\x00"+c.Type] = member{side: t.with(c.Type), presence: model.Optional}
						unresolved = append(unresolved, c.Type)
						continue
					}
					if it == nil {
						unresolved = append(unresolved, c.Type)
						continue
					}
					return false
				}
				inlined = append(inlined, c.Type)
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
		return nil, nil, nil, false
	}
	return out, unresolved, inlined, true
}
