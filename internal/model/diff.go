package model

import (
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// Diff pairs the elements of two models. Pairing happens here, once;
// rules only judge the pairs.
type Diff struct {
	Base, Head *Model
	Groups     []*GroupDiff
	// Shared pairs the shared types packages whose types the external
	// versions reach (shared.go), sorted by import path: the walkers
	// visit them after the groups' versions.
	Shared []*PackageDiff
}

// GroupDiff pairs one group (by directory).
type GroupDiff struct {
	Dir        string
	Base, Head *Group
	// MovedFrom is base's directory when the group moved (paired by its
	// API group name); "" otherwise.
	MovedFrom string
	// Packages pairs the packages by version ("" = internal), sorted with
	// the internal package first.
	Packages []*PackageDiff
}

// Profile is head's profile, falling back to base's.
func (g *GroupDiff) Profile() Profile {
	if g.Head != nil {
		return g.Head.Profile
	}
	if g.Base != nil {
		return g.Base.Profile
	}
	return ProfileGardener
}

// PackageDiff pairs one package of a group.
type PackageDiff struct {
	Group      *GroupDiff
	Version    string
	Base, Head *Package
	// MovedFrom is base's directory when the version moved to another
	// group directory (paired by API group name and version); "" otherwise.
	MovedFrom string
	// SharedBy, for a pair of a shared types package (Diff.Shared), are
	// the directories of the version packages whose types reach it,
	// sorted; Group and Version are then the most stable of them, and
	// Base and Head the shared package as a package of that version.
	// Empty for a group's own package.
	SharedBy []string
	// Types pairs the types, sorted by head name (base name for removed).
	Types  []*TypeDiff
	Consts []*ConstDiff
}

// External reports whether this is a versioned package.
func (p *PackageDiff) External() bool { return p.Version != "" }

// Pkg returns head's package, else base's.
func (p *PackageDiff) Pkg() *Package {
	if p.Head != nil {
		return p.Head
	}
	return p.Base
}

// TypeDiff pairs one named type. Base is nil for an added type, Head is
// nil for a removed one.
type TypeDiff struct {
	Pkg        *PackageDiff
	Base, Head *Type
	// Renamed is true when the pair was matched by content (a Go rename).
	Renamed bool
	Fields  []*FieldDiff
	// Tombstones pairs tombstones by reserved number.
	Tombstones []*TombstoneDiff
}

// Name is head's name, else base's.
func (t *TypeDiff) Name() string {
	if t.Head != nil {
		return t.Head.Name
	}
	return t.Base.Name
}

// BaseName is the struct's name at base (Name for a type new in head): the
// name a type renamed in this change had at the releases.
func (t *TypeDiff) BaseName() string {
	if t.Base != nil {
		return t.Base.Name
	}
	return t.Name()
}

// FieldDiff pairs one field. Base is nil for an added field, Head nil for
// a removed one.
type FieldDiff struct {
	Type       *TypeDiff
	Base, Head *Field
	// Renamed is set when the Go name differs (matched by protobuf number
	// or json name).
	Renamed bool
	// Attrs lists what differs between Base and Head for a pair, in a
	// fixed order; rules judge attributes, the engine reports the ones
	// no rule judged.
	Attrs []Attr
}

// Name is head's Go name, else base's.
func (f *FieldDiff) Name() string {
	if f.Head != nil {
		return f.Head.Name
	}
	return f.Base.Name
}

// Has reports whether attr differs.
func (f *FieldDiff) Has(a Attr) bool {
	for _, x := range f.Attrs {
		if x == a {
			return true
		}
	}
	return false
}

// Attr is one comparable attribute of a field.
type Attr string

const (
	AttrGoName        Attr = "go name"
	AttrJSONName      Attr = "json name"
	AttrOmitEmpty     Attr = "omission of empty values"
	AttrQuoted        Attr = "json string encoding (,string)"
	AttrInline        Attr = "json inline"
	AttrProtoNumber   Attr = "protobuf number"
	AttrProtoWire     Attr = "protobuf wire type"
	AttrProtoLabel    Attr = "protobuf label"
	AttrProtoPresence Attr = "protobuf tag"
	AttrGoType        Attr = "type"
	AttrOptional      Attr = "optionality"
	AttrDefault       Attr = "default"
	AttrPatchStrategy Attr = "patch strategy"
	AttrPatchMergeKey Attr = "patch merge key"
	AttrListType      Attr = "list semantics"
	AttrEmbedded      Attr = "embedding"
	AttrOtherMarkers  Attr = "markers"
	AttrDeprecated    Attr = "deprecation"
	AttrValidation    Attr = "validation"
	// AttrUnderlying is a named type's declaration (its kind and
	// underlying type), an attribute of types rather than fields.
	AttrUnderlying Attr = "underlying type"
)

// TombstoneDiff pairs tombstones of one struct by reserved number.
type TombstoneDiff struct {
	Type       *TypeDiff
	Base, Head *Tombstone
}

// ConstDiff pairs constants by name.
type ConstDiff struct {
	Pkg        *PackageDiff
	Base, Head *Const
}

// Compare computes the diff of two models. Either may be empty; neither
// may be nil.
func Compare(base, head *Model) *Diff {
	d := &Diff{Base: base, Head: head}
	dirs := map[string]*GroupDiff{}
	for _, g := range base.Groups {
		dirs[g.Dir] = &GroupDiff{Dir: g.Dir, Base: g}
	}
	for _, g := range head.Groups {
		gd := dirs[g.Dir]
		if gd == nil {
			gd = &GroupDiff{Dir: g.Dir}
			dirs[g.Dir] = gd
		}
		gd.Head = g
	}
	pairMovedGroups(dirs)
	movedIn, movedOut := pairMovedVersions(dirs)
	for _, gd := range dirs {
		d.Groups = append(d.Groups, gd)
		comparePackages(gd, movedIn[gd], movedOut)
	}
	sort.Slice(d.Groups, func(i, j int) bool { return d.Groups[i].Dir < d.Groups[j].Dir })
	compareShared(d)
	return d
}

// pairMovedGroups pairs a group that only base has with one that only
// head has when both declare the same API group name: a group moved to
// another directory (Gardener moved pkg/controllermanager/apis/config to
// pkg/apis/config/controllermanager) is one group, not a removal and an
// addition. The pair is kept under head's directory. When several groups
// of a name moved at once (Cluster API moved api/v1beta1 to
// api/core/v1beta1 and its old versions from internal/apis/core to
// internal/api/core), a pair needs a version in common, and the pairs with
// the most versions, then the most types, in common are made first; a
// group with one candidate on each side is paired as it is.
func pairMovedGroups(dirs map[string]*GroupDiff) {
	var gone, came []*GroupDiff
	for _, gd := range dirs {
		switch {
		case gd.Base != nil && gd.Head == nil && gd.Base.Name != "":
			gone = append(gone, gd)
		case gd.Head != nil && gd.Base == nil && gd.Head.Name != "":
			came = append(came, gd)
		}
	}
	type pair struct {
		from, to            *GroupDiff
		versions, types     int
		onlyCandidateEither bool
	}
	count := func(name string, in []*GroupDiff, base bool) int {
		n := 0
		for _, gd := range in {
			g := gd.Head
			if base {
				g = gd.Base
			}
			if g.Name == name {
				n++
			}
		}
		return n
	}
	var pairs []pair
	for _, from := range gone {
		for _, to := range came {
			if from.Base.Name != to.Head.Name {
				continue
			}
			p := pair{from: from, to: to}
			p.onlyCandidateEither = count(from.Base.Name, gone, true) == 1 && count(from.Base.Name, came, false) == 1
			for _, bp := range from.Base.Versions {
				for _, hp := range to.Head.Versions {
					if bp.Version != hp.Version {
						continue
					}
					p.versions++
					for _, t := range bp.Types {
						if hp.Type(t.Name) != nil {
							p.types++
						}
					}
				}
			}
			if p.versions > 0 || p.onlyCandidateEither {
				pairs = append(pairs, p)
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if a.versions != b.versions {
			return a.versions > b.versions
		}
		if a.types != b.types {
			return a.types > b.types
		}
		if a.from.Base.Dir != b.from.Base.Dir {
			return a.from.Base.Dir < b.from.Base.Dir
		}
		return a.to.Head.Dir < b.to.Head.Dir
	})
	for _, p := range pairs {
		if p.to.Base != nil || dirs[p.from.Base.Dir] != p.from {
			continue // one side is already paired
		}
		p.to.Base = p.from.Base
		p.to.MovedFrom = p.from.Base.Dir
		delete(dirs, p.from.Base.Dir)
	}
}

// pairMovedVersions pairs a version package that base has in one group
// directory and head no longer has there with one that head has in another
// group directory and base did not have there, when both declare the same
// API group name and version: a version moved out of a group directory
// whose other packages stay (Gardener keeping the internal package in
// pkg/<component>/apis/config while v1alpha1 moved to
// pkg/apis/config/<component>/v1alpha1, a kubebuilder project moving to
// the multi-group layout one version at a time) is one version, not a
// removal and an addition. Ambiguous candidates (two of either side with
// the same name and version) are not paired. It returns the base packages
// each group diff takes over and the base packages that left their group.
func pairMovedVersions(dirs map[string]*GroupDiff) (map[*GroupDiff][]*Package, map[*Package]bool) {
	key := func(g *Group, p *Package) string {
		name := p.GroupName
		if name == "" {
			name = g.Name
		}
		if name == "" || p.Version == "" {
			return ""
		}
		return name + "\x00" + p.Version
	}
	has := func(g *Group, version string) bool {
		if g == nil {
			return false
		}
		for _, p := range g.Versions {
			if p.Version == version {
				return true
			}
		}
		return false
	}
	type side struct {
		gd *GroupDiff
		p  *Package
	}
	gone, came := map[string][]side{}, map[string][]side{}
	for _, gd := range dirs {
		if gd.Base != nil {
			for _, p := range gd.Base.Versions {
				if k := key(gd.Base, p); k != "" && !has(gd.Head, p.Version) {
					gone[k] = append(gone[k], side{gd, p})
				}
			}
		}
		if gd.Head != nil {
			for _, p := range gd.Head.Versions {
				if k := key(gd.Head, p); k != "" && !has(gd.Base, p.Version) {
					came[k] = append(came[k], side{gd, p})
				}
			}
		}
	}
	var movedIn map[*GroupDiff][]*Package
	var movedOut map[*Package]bool
	for k, from := range gone {
		to := came[k]
		if len(from) != 1 || len(to) != 1 {
			continue
		}
		if movedIn == nil {
			movedIn, movedOut = map[*GroupDiff][]*Package{}, map[*Package]bool{}
		}
		movedIn[to[0].gd] = append(movedIn[to[0].gd], from[0].p)
		movedOut[from[0].p] = true
	}
	return movedIn, movedOut
}

// comparePackages pairs the packages of a group by version; movedIn are
// base packages of other group directories that moved here, movedOut base
// packages of this one that moved away.
func comparePackages(gd *GroupDiff, movedIn []*Package, movedOut map[*Package]bool) {
	byVer := map[string]*PackageDiff{}
	var order []string
	add := func(p *Package, isHead bool) {
		pd := byVer[p.Version]
		if pd == nil {
			pd = &PackageDiff{Group: gd, Version: p.Version}
			byVer[p.Version] = pd
			order = append(order, p.Version)
		}
		if isHead {
			pd.Head = p
		} else {
			pd.Base = p
		}
	}
	if gd.Base != nil {
		for _, p := range gd.Base.Packages() {
			if !movedOut[p] {
				add(p, false)
			}
		}
	}
	for _, p := range movedIn {
		add(p, false)
		byVer[p.Version].MovedFrom = p.Dir
	}
	if gd.Head != nil {
		for _, p := range gd.Head.Packages() {
			add(p, true)
		}
	}
	sort.Strings(order) // "" (internal) sorts first
	for _, v := range order {
		pd := byVer[v]
		compareTypes(pd)
		compareConsts(pd)
		gd.Packages = append(gd.Packages, pd)
	}
}

func compareTypes(pd *PackageDiff) {
	var baseTypes, headTypes []*Type
	if pd.Base != nil {
		baseTypes = pd.Base.Types
	}
	if pd.Head != nil {
		headTypes = pd.Head.Types
	}
	headByName := map[string]*Type{}
	for _, t := range headTypes {
		headByName[t.Name] = t
	}
	matchedHead := map[*Type]bool{}
	var removed []*Type
	for _, bt := range baseTypes {
		if ht := headByName[bt.Name]; ht != nil {
			pd.Types = append(pd.Types, &TypeDiff{Pkg: pd, Base: bt, Head: ht})
			matchedHead[ht] = true
			continue
		}
		removed = append(removed, bt)
	}
	var added []*Type
	for _, ht := range headTypes {
		if !matchedHead[ht] {
			added = append(added, ht)
		}
	}
	added = pairTakenOverNames(pd, matchedHead, added)
	// A removed type and an added type with the same shape are a rename.
	// Added types are indexed by shape, so this stays linear however many
	// types a change renames.
	byShape := map[string][]*Type{}
	for _, ht := range added {
		k := shapeKey(ht)
		byShape[k] = append(byShape[k], ht)
	}
	for _, bt := range removed {
		var match *Type
		for _, ht := range byShape[shapeKey(bt)] {
			if matchedHead[ht] {
				continue
			}
			if match != nil { // ambiguous: do not guess
				match = nil
				break
			}
			match = ht
		}
		if match != nil && bt.Kind == KindStruct && len(bt.Fields) > 0 {
			matchedHead[match] = true
			pd.Types = append(pd.Types, &TypeDiff{Pkg: pd, Base: bt, Head: match, Renamed: true})
			continue
		}
		pd.Types = append(pd.Types, &TypeDiff{Pkg: pd, Base: bt})
	}
	for _, ht := range added {
		if !matchedHead[ht] {
			pd.Types = append(pd.Types, &TypeDiff{Pkg: pd, Head: ht})
		}
	}
	renames := map[string]string{}
	for _, td := range pd.Types {
		if td.Renamed {
			renames[td.Base.Name] = td.Head.Name
		}
	}
	for _, td := range pd.Types {
		compareFields(td, renames)
		compareTombstones(td)
	}
	sort.Slice(pd.Types, func(i, j int) bool { return pd.Types[i].Name() < pd.Types[j].Name() })
}

// pairTakenOverNames re-pairs a struct whose name a new type took over:
// base's T went to a new name U, and head's T is another type. Gardener
// renamed ControllerDeployment to ControllerRegistrationDeployment and
// Gardenlet to GardenletConfig, each in the change that introduced a
// kind of the old name. Paired by name, the old struct's members would
// look removed and their numbers reused; they are U's. It takes both:
//   - every field of the package that referred to T at base refers to the
//     same new type U at head, in the same position of the same type
//     expression (*T became *U), and at least one such field exists;
//   - head's T is not base's T changed: it became a root kind, or it has
//     no member of base's T (by Go or wire name).
//
// Base's T is then paired with U as a rename and head's T is new. It
// returns the head types still unpaired.
func pairTakenOverNames(pd *PackageDiff, matchedHead map[*Type]bool, added []*Type) []*Type {
	if pd.Base == nil || pd.Head == nil || len(added) == 0 {
		return added
	}
	isAdded := map[string]*Type{}
	for _, t := range added {
		isAdded[t.Name] = t
	}
	for _, td := range pd.Types {
		bt, ht := td.Base, td.Head
		if bt == nil || ht == nil || bt.Kind != KindStruct || ht.Kind != KindStruct || len(bt.Fields) == 0 {
			continue
		}
		if !(ht.RootKind && !bt.RootKind) && sharesMember(bt, ht) {
			continue
		}
		u := movedTo(pd, bt.Name, isAdded)
		if u == nil || matchedHead[u] {
			continue
		}
		matchedHead[u] = true
		td.Head, td.Renamed = u, true
		pd.Types = append(pd.Types, &TypeDiff{Pkg: pd, Head: ht})
	}
	return slices.DeleteFunc(added, func(t *Type) bool { return matchedHead[t] })
}

// sharesMember reports whether two structs have a field of the same Go
// name or the same wire name.
func sharesMember(a, b *Type) bool {
	for _, f := range a.Fields {
		for _, g := range b.Fields {
			if f.Name == g.Name || f.WireName() != "" && f.WireName() == g.WireName() {
				return true
			}
		}
	}
	return false
}

// movedTo returns the new type that every field of base's package that
// referred to type name (unqualified: the package's own) refers to at
// head instead, nil when there is none, or not one, or a field kept name.
func movedTo(pd *PackageDiff, name string, isAdded map[string]*Type) *Type {
	var to *Type
	for _, bt := range pd.Base.Types {
		for _, f := range bt.Fields {
			pre, post, ok := splitIdent(f.TypeID, name)
			if !ok {
				continue
			}
			ht := pd.Head.Type(bt.Name)
			if ht == nil {
				return nil
			}
			hf := ht.Field(f.Name)
			if hf == nil || len(hf.TypeID) <= len(pre)+len(post) ||
				!strings.HasPrefix(hf.TypeID, pre) || !strings.HasSuffix(hf.TypeID, post) {
				return nil
			}
			u := isAdded[hf.TypeID[len(pre):len(hf.TypeID)-len(post)]]
			if u == nil || to != nil && u != to {
				return nil
			}
			to = u
		}
	}
	return to
}

// splitIdent splits a type expression around the one occurrence of the
// identifier name ("*[]Foo" around Foo: "*[]", ""); ok is false when name
// occurs as an identifier not exactly once.
func splitIdent(expr, name string) (pre, post string, ok bool) {
	n := 0
	for i := strings.Index(expr, name); i >= 0; {
		end := i + len(name)
		if (i == 0 || !isIdentByte(expr[i-1])) && (end == len(expr) || !isIdentByte(expr[end])) {
			n++
			pre, post = expr[:i], expr[end:]
		}
		j := strings.Index(expr[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return pre, post, n == 1
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c == '/' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// AliasTarget follows t through the aliases of package p to a type of p
// that is not an alias (type A = B, type B = C: A is C); "" when t is no
// alias of a type declared in p.
func AliasTarget(p *Package, t *Type) string {
	name := ""
	for range 8 {
		if t == nil || !t.Alias || !token.IsIdentifier(t.Underlying) {
			break
		}
		name = t.Underlying
		t = p.Type(name)
		if t == nil {
			return ""
		}
	}
	if t == nil || t.Alias {
		return ""
	}
	return name
}

// SameShape reports whether two types have the same shape (shapeKey).
func SameShape(a, b *Type) bool { return shapeKey(a) == shapeKey(b) }

// shapeKey is equal for two types exactly when they have the same shape:
// the same kind and underlying type, and the same fields on the wire (json
// names, protobuf numbers, Go types) in the same order.
func shapeKey(t *Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%d", t.Kind, t.Underlying, len(t.Fields))
	for _, f := range t.Fields {
		fmt.Fprintf(&b, "\x00%s\x00%s\x00%d", f.WireName(), f.Type, protoNum(f))
	}
	return b.String()
}

// protoWire is a field's protobuf wire type and label ("" without a tag).
func protoWire(f *Field) string {
	if f.Proto == nil {
		return ""
	}
	return f.Proto.Wire + "," + NormLabel(f.Proto.Label)
}

func protoNum(f *Field) int {
	if f.Proto == nil {
		return 0
	}
	return f.Proto.Number
}

// compareFields pairs the fields of a type's base and head (td.Fields):
// by Go name first, then by what stays the same on the wire through a
// rename; the fields left over were removed or added.
func compareFields(td *TypeDiff, renames map[string]string) {
	p := newFieldPairing(td, renames)
	p.pairByName()
	p.pairByKeys()
	p.pairEmbeddedByProto()
	p.pairPromoted()
	p.addUnpaired()
	sortFieldDiffs(td, p.bf, p.hf)
}

// fieldPairing pairs the fields of one type diff, step by step; a field
// pairs once.
type fieldPairing struct {
	td           *TypeDiff
	renames      map[string]string
	bf, hf       []*Field // base's and head's fields
	usedB, usedH map[*Field]bool
	// tombstoned names the fields head tombstones: such a field was
	// removed, whatever took its place.
	tombstoned map[string]bool
}

func newFieldPairing(td *TypeDiff, renames map[string]string) *fieldPairing {
	p := &fieldPairing{td: td, renames: renames, usedB: map[*Field]bool{}, usedH: map[*Field]bool{}, tombstoned: map[string]bool{}}
	if td.Base != nil {
		p.bf = td.Base.Fields
	}
	if td.Head != nil {
		p.hf = td.Head.Fields
		for _, t := range td.Head.Tombstones {
			p.tombstoned[t.FieldName] = true
		}
	}
	return p
}

// pair records base field b and head field h as one field.
func (p *fieldPairing) pair(b, h *Field) {
	p.usedB[b], p.usedH[h] = true, true
	fd := &FieldDiff{Type: p.td, Base: b, Head: h, Renamed: b.Name != h.Name}
	fd.Attrs = fieldAttrs(b, h, p.renames)
	p.td.Fields = append(p.td.Fields, fd)
}

// pairByName pairs fields with the same Go name (step 1).
func (p *fieldPairing) pairByName() {
	byName := map[string][]*Field{}
	for _, h := range p.hf {
		byName[h.Name] = append(byName[h.Name], h)
	}
	for _, b := range p.bf {
		for _, h := range byName[b.Name] {
			if !p.usedH[h] && b.Embedded == h.Embedded {
				p.pair(b, h)
				break
			}
		}
	}
}

// fieldMatcher is a key (fields with different keys never match); a
// base field pairs only with a unique match. A matcher that splits its
// keys by protobuf ("true"/"false" before the json name) pairs a field
// with protobuf only with one without, and one without with either.
type fieldMatcher struct {
	key   func(f *Field) (string, bool)
	split bool
}

// pairByKeys pairs the fields that are not embedded by what a rename
// keeps (steps 2 to 4):
//
//  2. Same protobuf number and json name: a Go rename.
//  3. Same json name (no protobuf on either side or one side).
//  4. Same protobuf number and the same Go type: a rename of both names.
func (p *fieldPairing) pairByKeys() {
	baseSide := make(map[*Field]bool, len(p.bf))
	for _, b := range p.bf {
		baseSide[b] = true
	}
	// A base field only looks at the fields it may pair with and stops at
	// the second, so pairing stays linear in the number of fields.
	matchers := []fieldMatcher{
		{func(f *Field) (string, bool) {
			return fmt.Sprintf("%d\x00%s", protoNum(f), f.WireName()), f.Proto != nil
		}, false},
		{func(f *Field) (string, bool) {
			return fmt.Sprintf("%t\x00%s", f.Proto != nil, f.WireName()), f.WireName() != ""
		}, true},
		{func(f *Field) (string, bool) {
			// A base field's type through the type renames of this change:
			// CapabilitySets []CapabilitySet renamed with its element type to
			// CapabilityFlavors []MachineImageFlavor is one field.
			t := f.Type
			if baseSide[f] {
				t = RenameType(t, p.renames)
			}
			return fmt.Sprintf("%d\x00%s\x00%s", protoNum(f), protoWire(f), t), f.Proto != nil
		}, false},
	}
	for _, m := range matchers {
		p.pairByMatcher(m)
	}
}

// pairByMatcher pairs every unpaired base field with its unique unpaired
// match by m.
func (p *fieldPairing) pairByMatcher(m fieldMatcher) {
	index := map[string][]*Field{}
	for _, h := range p.hf {
		if p.usedH[h] || h.Embedded {
			continue
		}
		if k, ok := m.key(h); ok {
			index[k] = append(index[k], h)
		}
	}
	for _, b := range p.bf {
		if p.usedB[b] || b.Embedded || p.tombstoned[b.Name] {
			continue
		}
		k, ok := m.key(b)
		if !ok {
			continue
		}
		keys := []string{k}
		if m.split {
			_, name, _ := strings.Cut(k, "\x00")
			keys = []string{"false\x00" + name}
			if b.Proto == nil {
				keys = append(keys, "true\x00"+name)
			}
		}
		var cand *Field
		n := 0
	count:
		for _, k := range keys {
			for _, h := range index[k] {
				if !p.usedH[h] {
					cand = h
					if n++; n > 1 {
						break count
					}
				}
			}
		}
		if n == 1 {
			p.pair(b, cand)
		}
	}
}

// pairEmbeddedByProto pairs embedded fields with the same protobuf
// number, name, wire type and label and the same json treatment (step
// 5): the embedded type was renamed (Kubernetes 1.23 renamed Probe's
// embedded Handler to ProbeHandler); one field on the wire. Unique
// matches only.
func (p *fieldPairing) pairEmbeddedByProto() {
	embedKey := func(f *Field) (string, bool) {
		if !f.Embedded || f.Proto == nil || f.Proto.Name == "" {
			return "", false
		}
		return fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%t", f.Proto.Number, f.Proto.Name, protoWire(f), f.WireName(), f.Inline()), true
	}
	embedded := map[string][]*Field{}
	for _, h := range p.hf {
		if k, ok := embedKey(h); ok && !p.usedH[h] {
			embedded[k] = append(embedded[k], h)
		}
	}
	baseEmbedded := map[string]int{}
	for _, b := range p.bf {
		if k, ok := embedKey(b); ok && !p.usedB[b] {
			baseEmbedded[k]++
		}
	}
	for _, b := range p.bf {
		k, ok := embedKey(b)
		if !ok || p.usedB[b] || p.tombstoned[b.Name] || baseEmbedded[k] != 1 || len(embedded[k]) != 1 {
			continue
		}
		p.pair(b, embedded[k][0])
	}
}

// pairPromoted pairs a field without protobuf that head moved into a
// struct it embeds inline (step 6; prometheus-operator v0.88.0 moved
// HTTPConfig's members into an inline HTTPConfigWithoutTLS): the same
// member on the wire, and Go still promotes it. Paired with the member,
// which the embedded struct declares. An inline embedded field moved so
// pairs with the embedded field of the same type that the struct
// declares (PromotedEmbedded).
func (p *fieldPairing) pairPromoted() {
	td := p.td
	if td.Pkg == nil || td.Pkg.Head == nil || td.Head == nil {
		return
	}
	for _, b := range p.bf {
		if p.usedB[b] || b.Proto != nil || p.tombstoned[b.Name] {
			continue
		}
		if b.Embedded {
			// An inline embedded type moved into a struct head embeds
			// inline (a spec's corev1.ResourceRequirements into a shared
			// struct of the package): its members are where they were.
			if h := PromotedEmbedded(td.Pkg.Head, td.Head, b); h != nil && !p.usedH[h] && h.Proto == nil {
				p.pair(b, h)
			}
			continue
		}
		h := PromotedMember(td.Pkg.Head, td.Head, func(f *Field) bool { return f.Name == b.Name })
		if h == nil { // renamed in Go on the way (EnableHttp2 to EnableHTTP2)
			h = PromotedMember(td.Pkg.Head, td.Head, func(f *Field) bool { return f.WireName() == b.WireName() })
		}
		if h != nil && h.WireName() == b.WireName() && h.Proto == nil {
			p.pair(b, h)
		}
	}
}

// addUnpaired adds the base fields left over as removed, then head's as
// added.
func (p *fieldPairing) addUnpaired() {
	for _, b := range p.bf {
		if !p.usedB[b] {
			p.td.Fields = append(p.td.Fields, &FieldDiff{Type: p.td, Base: b})
		}
	}
	for _, h := range p.hf {
		if !p.usedH[h] {
			p.td.Fields = append(p.td.Fields, &FieldDiff{Type: p.td, Head: h})
		}
	}
}

// sortFieldDiffs orders td.Fields: head order first (source order), then
// removed fields in base order.
func sortFieldDiffs(td *TypeDiff, bf, hf []*Field) {
	index := map[*Field]int{}
	for i, h := range hf {
		index[h] = i
	}
	for i, b := range bf {
		if _, ok := index[b]; !ok {
			index[b] = len(hf) + i
		}
	}
	sort.SliceStable(td.Fields, func(i, j int) bool {
		return fieldOrder(td.Fields[i], index) < fieldOrder(td.Fields[j], index)
	})
}

func fieldOrder(fd *FieldDiff, index map[*Field]int) int {
	if fd.Head != nil {
		return index[fd.Head]
	}
	return index[fd.Base]
}

// fieldAttrs lists the attributes that differ between a paired base and
// head field: their effective contracts (ContractAttrs), and what only Go
// clients see (the Go name, embedding) or documentation (deprecation).
// Fields without a contract (a model built by hand) get one from their
// syntax alone.
func fieldAttrs(b, h *Field, renames map[string]string) []Attr {
	var out []Attr
	if b.Name != h.Name {
		out = append(out, AttrGoName)
	}
	if b.Embedded != h.Embedded {
		out = append(out, AttrEmbedded)
	}
	out = append(out, ContractAttrs(contractOf(b), contractOf(h), renames)...)
	if b.Deprecated != h.Deprecated {
		out = append(out, AttrDeprecated)
	}
	return out
}

// contractOf is f's contract, or a minimal one from its syntax when the
// scanner did not compute one.
func contractOf(f *Field) *Contract {
	if f.Contract != nil {
		return f.Contract
	}
	c := &Contract{Type: f.Type, Inline: f.Inline(), Omit: f.Omits(), Presence: Required}
	if !c.Inline {
		c.Name = f.WireName()
	}
	if f.Optional() || f.Omits() {
		c.Presence = Optional
	}
	if f.Required() {
		c.Presence = Required
	}
	if f.Proto != nil {
		c.Proto = &ProtoWire{Number: f.Proto.Number, Wire: f.Proto.Wire, Label: NormLabel(f.Proto.Label)}
	}
	if d, ok := f.Default(); ok {
		c.Default = &d
	}
	c.PatchStrategy, c.PatchMergeKey = f.EffectivePatchStrategy(), f.EffectivePatchMergeKey()
	if lt, ok := f.Markers.Get("listType"); ok {
		c.List = &ListSemantics{Type: lt, Keys: f.Markers.All("listMapKey"), From: "marker"}
	}
	return c
}

// RenameType rewrites package-local type names in a type expression
// according to renames (old -> new).
func RenameType(expr string, renames map[string]string) string {
	if len(renames) == 0 {
		return expr
	}
	var b strings.Builder
	i := 0
	for i < len(expr) {
		c := expr[i]
		if isIdentStart(c) && (i == 0 || expr[i-1] != '.') {
			j := i
			for j < len(expr) && isIdentPart(expr[j]) {
				j++
			}
			word := expr[i:j]
			qualified := j < len(expr) && expr[j] == '.'
			if nw, ok := renames[word]; ok && !qualified {
				word = nw
			}
			b.WriteString(word)
			i = j
			continue
		}
		if isIdentStart(c) { // after '.': selector, copy verbatim
			j := i
			for j < len(expr) && isIdentPart(expr[j]) {
				j++
			}
			b.WriteString(expr[i:j])
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func compareTombstones(td *TypeDiff) {
	var bt, ht []*Tombstone
	if td.Base != nil {
		bt = td.Base.Tombstones
	}
	if td.Head != nil {
		ht = td.Head.Tombstones
	}
	key := func(t *Tombstone) int {
		if t.Proto == nil {
			return -1
		}
		return t.Proto.Number
	}
	used := map[*Tombstone]bool{}
	for _, b := range bt {
		var match *Tombstone
		for _, h := range ht {
			if used[h] {
				continue
			}
			if key(b) == key(h) && (key(b) >= 0 || b.FieldName == h.FieldName) {
				match = h
				break
			}
		}
		if match == nil {
			// Same field name under another number is a changed tombstone.
			for _, h := range ht {
				if !used[h] && h.FieldName == b.FieldName {
					match = h
					break
				}
			}
		}
		if match != nil {
			used[match] = true
		}
		td.Tombstones = append(td.Tombstones, &TombstoneDiff{Type: td, Base: b, Head: match})
	}
	for _, h := range ht {
		if !used[h] {
			td.Tombstones = append(td.Tombstones, &TombstoneDiff{Type: td, Head: h})
		}
	}
}

func compareConsts(pd *PackageDiff) {
	var bc, hc []*Const
	if pd.Base != nil {
		bc = pd.Base.Consts
	}
	if pd.Head != nil {
		hc = pd.Head.Consts
	}
	hm := map[string]*Const{}
	for _, c := range hc {
		hm[c.Name] = c
	}
	seen := map[string]bool{}
	for _, b := range bc {
		pd.Consts = append(pd.Consts, &ConstDiff{Pkg: pd, Base: b, Head: hm[b.Name]})
		seen[b.Name] = true
	}
	for _, h := range hc {
		if !seen[h.Name] {
			pd.Consts = append(pd.Consts, &ConstDiff{Pkg: pd, Head: h})
		}
	}
	sort.Slice(pd.Consts, func(i, j int) bool {
		ni, nj := constName(pd.Consts[i]), constName(pd.Consts[j])
		return ni < nj
	})
}

func constName(c *ConstDiff) string {
	if c.Head != nil {
		return c.Head.Name
	}
	return c.Base.Name
}

// NormLabel treats a missing label as "opt", as go-to-protobuf does (real
// tags such as "bytes,1,name=cidr" omit it).
func NormLabel(l string) string {
	if l == "" {
		return "opt"
	}
	return l
}

// PromotedMember returns the field that match accepts that struct t of
// package p has through the structs of p it embeds inline, at any depth
// up to four: a member Go promotes and encoding/json writes at t's level.
// nil when t declares such a field itself, when no such member exists,
// or when several embedded structs have one (Go and encoding/json then
// drop it).
func PromotedMember(p *Package, t *Type, match func(*Field) bool) *Field {
	for _, f := range t.Fields {
		if !f.Embedded && match(f) {
			return nil
		}
	}
	var found []*Field
	var walk func(t *Type, depth int)
	walk = func(t *Type, depth int) {
		if depth > 4 {
			return
		}
		for _, f := range t.Fields {
			if !f.Embedded || !f.Inline() || strings.ContainsAny(strings.TrimPrefix(f.Type, "*"), ".*[]") {
				continue
			}
			e := p.Type(strings.TrimPrefix(f.Type, "*"))
			if e == nil || e.Kind != KindStruct || e == t {
				continue
			}
			if i := slices.IndexFunc(e.Fields, func(m *Field) bool { return !m.Embedded && match(m) }); i >= 0 {
				found = append(found, e.Fields[i])
				continue
			}
			walk(e, depth+1)
		}
	}
	walk(t, 1)
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// PromotedEmbedded returns the inline embedded field of the type of
// inline embedded field f (by identity, else as written) that struct t of
// package p has through the structs of p it embeds inline, at any depth
// up to four: Go and encoding/json promote its members to t's level. nil
// when t embeds the type itself, when f is no inline embedding, or when
// none or several of the embedded structs have one.
func PromotedEmbedded(p *Package, t *Type, f *Field) *Field {
	if p == nil || t == nil || !f.Embedded || !f.Inline() {
		return nil
	}
	same := func(m *Field) bool {
		return m.Embedded && m.Inline() && m.JSON.Name != "-" && fieldTypeKey(m) == fieldTypeKey(f)
	}
	if slices.ContainsFunc(t.Fields, same) {
		return nil
	}
	var found []*Field
	var walk func(t *Type, depth int)
	walk = func(t *Type, depth int) {
		if depth > 4 {
			return
		}
		for _, m := range t.Fields {
			e := localStruct(p, m)
			if !m.Embedded || !m.Inline() || e == nil || e == t {
				continue
			}
			if i := slices.IndexFunc(e.Fields, same); i >= 0 {
				found = append(found, e.Fields[i])
				continue
			}
			walk(e, depth+1)
		}
	}
	walk(t, 1)
	if len(found) != 1 {
		return nil
	}
	return found[0]
}
