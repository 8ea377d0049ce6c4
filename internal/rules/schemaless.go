package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// schemalessMarker marks a field whose content has no schema in the CRD
// (controller-gen writes an empty schema for it).
const schemalessMarker = "kubebuilder:validation:Schemaless"

// schemalessOnly returns the struct types, by identity, that only fields
// without a schema reach: some field refers to each, and every field
// that does is marked +kubebuilder:validation:Schemaless or belongs to
// such a type. Root kinds never are.
func (r *typeRefs) schemalessOnly() map[string]bool {
	return r.onlyThrough(func(u fieldUse) bool { return u.field.Markers.Has(schemalessMarker) })
}

// noSchema says why the API server validates, requires and defaults
// nothing of field fd at head, where its group's policy has the schema
// validate (custom resources): its struct is reached only through fields
// marked +kubebuilder:validation:Schemaless, or the CRD manifests at head
// give every kind of its package no schema for spec at its version.
// "" otherwise.
func (c *Context) noSchema(fd *model.FieldDiff) string {
	pkg, t := fd.Type.Pkg.Head, fd.Type.Head
	if pkg == nil || t == nil || !c.Policy(fd.Type.Pkg).SchemaValidates {
		return ""
	}
	if c.schemalessTypes == nil {
		c.schemalessTypes = c.refs(1).schemalessOnly()
	}
	if c.schemalessTypes[pkg.ImportPath+"."+t.Name] {
		return fmt.Sprintf("%s is reached only through fields marked +%s: the API server validates, requires and defaults nothing in it", t.Name, schemalessMarker)
	}
	return c.packageWithoutSchema(fd.Type.Pkg)
}

// packageWithoutSchema says which CRD manifests at head give every root
// kind of head's package no schema for spec at the package's version
// (apiextensions.k8s.io/v1beta1 CRDs without validation); "" when any
// kind has one, or is not known.
func (c *Context) packageWithoutSchema(pd *model.PackageDiff) string {
	p, ms := pd.Head, c.Manifests()
	if p == nil || ms == nil || !pd.External() || p.GroupName == "" {
		return ""
	}
	var kinds, files []string
	for _, k := range rootKinds(p) {
		if base, isList := strings.CutSuffix(k, "List"); isList && base != "" && p.Type(base) != nil && p.Type(base).RootKind {
			continue // goes by the kind's manifest
		}
		kindFiles, ok := kindWithoutSchema(ms, p, k)
		if !ok {
			return ""
		}
		kinds = append(kinds, k)
		files = append(files, kindFiles...)
	}
	if len(kinds) == 0 {
		return ""
	}
	return fmt.Sprintf("the CRD manifests of %s at head (%s) give %s no schema: the API server validates, requires and defaults nothing in it",
		strings.Join(kinds, ", "), listed(files), p.Version)
}

// contentWithoutSchema says why the API server validates nothing of
// field fd's value at head: the field is marked
// +kubebuilder:validation:Schemaless, or it is a kind's spec that the
// kind's CRD manifests at head give no schema, or it lies where noSchema
// says nothing is validated. "" otherwise.
func (c *Context) contentWithoutSchema(fd *model.FieldDiff) string {
	if fd.Head == nil || fd.Type.Head == nil || !c.Policy(fd.Type.Pkg).SchemaValidates {
		return ""
	}
	if fd.Head.Markers.Has(schemalessMarker) {
		return fmt.Sprintf("%s.%s is marked +%s: the API server validates, requires and defaults nothing in it", fd.Type.Name(), fd.Name(), schemalessMarker)
	}
	p, t, ms := fd.Type.Pkg.Head, fd.Type.Head, c.Manifests()
	if t.RootKind && fd.Head.WireName() == "spec" && ms != nil && fd.Type.Pkg.External() && p.GroupName != "" {
		if files, ok := kindWithoutSchema(ms, p, t.Name); ok {
			return fmt.Sprintf("the CRD manifests of %s at head (%s) give its spec at %s no schema: the API server validates, requires and defaults nothing in it",
				t.Name, listed(files), p.Version)
		}
	}
	return c.noSchema(fd)
}

// kindWithoutSchema returns the CRD manifests at head of kind of
// package p when none of them describes its spec at p's version.
func kindWithoutSchema(ms *Manifests, p *model.Package, kind string) (files []string, ok bool) {
	ks, ok := ms.Head.Kind(p.GroupName, kind)
	if !ok || !slices.Contains(ks.NoSchema, p.Version) {
		return nil, false
	}
	return ks.Files, true
}

// relaxNoSchema caps finding r at severity sev where noSchema says the
// API server validates nothing of field fd, or handWrittenOptional that
// it does not require it, saying so.
func (c *Context) relaxNoSchema(fd *model.FieldDiff, r Report, sev finding.Severity) Report {
	return c.relaxTo(r, sev, func() (string, error) {
		if why := c.noSchema(fd); why != "" {
			return why, nil
		}
		return c.handWrittenOptional(fd), nil
	})
}

// kindPath is where a type sits in a kind's objects: the root kind (by
// identity) and the json names from the object's root down to the type
// ("*" steps into a list's items or a map's values).
type kindPath struct {
	root  string
	steps []string
}

// maxKindPaths bounds the paths pathsTo follows to one type: past it the
// type's place is not known.
const maxKindPaths = 32

// pathsTo returns the places of type id in the objects of the kinds
// that reach it; ok is false when none does or there are more than
// maxKindPaths. A field of a recursive type adds no path of its own
// (the shorter paths stand for the longer ones).
func (r *typeRefs) pathsTo(id string) (paths []kindPath, ok bool) {
	if r.paths == nil {
		r.paths = map[string][]kindPath{}
	}
	paths = r.walkPaths(id, map[string]bool{})
	return paths, len(paths) > 0 && len(paths) <= maxKindPaths
}

func (r *typeRefs) walkPaths(id string, visiting map[string]bool) []kindPath {
	if ps, ok := r.paths[id]; ok {
		return ps
	}
	t := r.types[id]
	if t == nil {
		return nil
	}
	if t.RootKind {
		ps := []kindPath{{root: id}}
		r.paths[id] = ps
		return ps
	}
	visiting[id] = true
	defer delete(visiting, id)
	var out []kindPath
	cyclic := false
	for _, u := range r.users[id] {
		if visiting[u.owner] {
			cyclic = true
			continue
		}
		steps := fieldSteps(u.field)
		for _, p := range r.walkPaths(u.owner, visiting) {
			out = append(out, kindPath{root: p.root, steps: append(slices.Clip(p.steps), steps...)})
			if len(out) > maxKindPaths {
				return out // too many: not memoized, the caller gives up
			}
		}
	}
	if !cyclic { // a path cut at a type being walked is only part of the answer
		r.paths[id] = out
	}
	return out
}

// fieldSteps are the json steps a field adds on the way to the type it
// refers to: its name (none when inlined), then "*" for each list or map
// around the type.
func fieldSteps(f *model.Field) []string {
	var steps []string
	if c := contractOf(f); !c.Inline && c.Name != "" {
		steps = append(steps, c.Name)
	}
	typ := f.TypeID
	for {
		switch {
		case strings.HasPrefix(typ, "*"):
			typ = typ[1:]
		case strings.HasPrefix(typ, "[]"):
			typ, steps = typ[2:], append(steps, "*")
		case strings.HasPrefix(typ, "map["):
			_, v, ok := splitMap(typ)
			if !ok {
				return steps
			}
			typ, steps = v, append(steps, "*")
		default:
			return steps
		}
	}
}

// kubebuilderMarked reports whether a type or field of the package with
// import path ip carries a +kubebuilder: marker: its CRD manifests are
// generated from the Go markers.
func (r *typeRefs) kubebuilderMarked(ip string) bool {
	if m, ok := r.marked[ip]; ok {
		return m
	}
	if r.marked == nil {
		r.marked = map[string]bool{}
	}
	has := func(ms model.Markers) bool {
		return slices.ContainsFunc(ms, func(m model.Marker) bool { return strings.HasPrefix(m.Key, "kubebuilder:") })
	}
	marked := r.pkgs[ip] != nil && slices.ContainsFunc(r.pkgs[ip].Types, func(t *model.Type) bool {
		return has(t.Markers) || slices.ContainsFunc(t.Fields, func(f *model.Field) bool { return has(f.Markers) })
	})
	r.marked[ip] = marked
	return marked
}

// handWrittenPlaces checks field fd at base (side 0) or head (1)
// against the CRD manifests of that revision, when they are hand-written:
// its group's policy has the schema validate (custom resources), no type
// or field of its package or of the kinds' packages carries a
// +kubebuilder: marker (the manifests are not generated from them), and
// at every place of its struct in the kinds that reach it the kind's
// manifests are hand-written (no controller-gen annotation, see
// crd.KindServed.HandWritten). holds is asked of each manifest's schema
// and the field's path there (json names from the object's root); ok is
// true when every answer is yes, with the places ("Kind a.b.c") and the
// manifests' files, listed.
func (c *Context) handWrittenPlaces(side int, fd *model.FieldDiff, holds func(s *crd.Schema, path []string) bool) (places, files string, ok bool) {
	return c.manifestPlaces(side, fd, false, holds)
}

// manifestPlaces is handWrittenPlaces, or with generated the same
// against CRD manifests that controller-gen generated from the Go
// packages (crd.KindServed.Generated): every manifest that defines a
// kind's version is generated, and the +kubebuilder markers are what
// they were generated from.
func (c *Context) manifestPlaces(side int, fd *model.FieldDiff, generated bool, holds func(s *crd.Schema, path []string) bool) (places, files string, ok bool) {
	pkg, t, f := fd.Type.Pkg.Base, fd.Type.Base, fd.Base
	if side == 1 {
		pkg, t, f = fd.Type.Pkg.Head, fd.Type.Head, fd.Head
	}
	ms := c.Manifests()
	if pkg == nil || t == nil || f == nil || ms == nil || !c.Policy(fd.Type.Pkg).SchemaValidates {
		return "", "", false
	}
	revision := [2]*crd.Manifests{ms.Base, ms.Head}[side]
	name := contractOf(f)
	if name.Inline || name.Name == "" || name.Name == "-" {
		return "", "", false
	}
	refs := c.refs(side)
	if !generated && refs.kubebuilderMarked(pkg.ImportPath) {
		return "", "", false
	}
	paths, ok := refs.pathsTo(pkg.ImportPath + "." + t.Name)
	if !ok {
		return "", "", false
	}
	var where, in []string
	for _, p := range paths {
		root := refs.types[p.root]
		rootPkg := refs.pkgs[strings.TrimSuffix(p.root, "."+root.Name)]
		if rootPkg == nil || rootPkg.GroupName == "" || rootPkg.Version == "" || !generated && refs.kubebuilderMarked(rootPkg.ImportPath) {
			return "", "", false
		}
		ks, ok := revision.KindFold(rootPkg.GroupName, root.Name)
		if !ok {
			return "", "", false
		}
		schemas, ok := ks.HandWritten(rootPkg.Version)
		if generated {
			schemas, ok = ks.Generated(rootPkg.Version)
		}
		if !ok {
			return "", "", false
		}
		path := append(slices.Clip(p.steps), name.Name)
		for _, s := range schemas {
			if !holds(s, path) {
				return "", "", false
			}
		}
		where = append(where, fmt.Sprintf("%s %s", root.Name, strings.Join(path, ".")))
		in = append(in, ks.Files...)
	}
	return listed(where), listed(in), true
}

// handWrittenOptional says why the API server does not require field
// fd at head although its Go form would be generated as required: the
// CRD manifests at head are hand-written (handWrittenPlaces) and none of
// them requires the field. "" otherwise.
func (c *Context) handWrittenOptional(fd *model.FieldDiff) string {
	where, files, ok := c.handWrittenPlaces(1, fd, func(s *crd.Schema, path []string) bool { return !s.Requires(path) })
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at head (%s) do not require %s: the API server accepts objects without it", files, where)
}

// generatedOptional says why the API server does not require field fd at
// head although it is marked required: the CRD manifests at head that
// controller-gen generated (manifestPlaces) describe the field wherever
// its kinds hold it, so they were generated with it, and none requires
// it. controller-gen before v0.16 lets omitempty win over
// +kubebuilder:validation:Required unless the package makes fields
// optional by default (Gatekeeper's Target.Code). "" otherwise.
func (c *Context) generatedOptional(fd *model.FieldDiff) string {
	where, files, ok := c.manifestPlaces(1, fd, true, func(s *crd.Schema, path []string) bool {
		return s.At(path) != nil && !s.Requires(path)
	})
	if !ok {
		return ""
	}
	return fmt.Sprintf("the CRD manifests at head, generated with the field (%s), do not require %s: the API server accepts objects without it", files, where)
}

// handWrittenRequiresNothing says why the API server requires no member
// of field fd's value at head, whatever its Go tags say: the CRD
// manifests at head are hand-written (handWrittenPlaces) and none of
// them requires anything in the field's value, where its kinds hold it
// (ClickHouse operator's reconciling settings). "" otherwise.
func (c *Context) handWrittenRequiresNothing(fd *model.FieldDiff) string {
	where, files, ok := c.handWrittenPlaces(1, fd, func(s *crd.Schema, path []string) bool { return !s.RequiresBelow(path) })
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at head (%s) require nothing in %s", files, where)
}

// schemaHeld says why the API server held only values of the JSON form
// of field fd's type at head although its Go type at base had another:
// the field is a scalar at both revisions, and the hand-written CRD
// manifests at base (handWrittenPlaces) give it that JSON type (Zalando's
// postgres-operator: a Duration that Go wrote as an integer, under a
// manifest that accepted only strings, became metav1.Duration). "" when
// not so.
func (c *Context) schemaHeld(fd *model.FieldDiff) string {
	if fd.Base == nil || fd.Head == nil {
		return ""
	}
	bt, ht := strings.TrimLeft(contractOf(fd.Base).Type, "*"), strings.TrimLeft(contractOf(fd.Head).Type, "*")
	kind := jsonKind(ht)
	switch {
	case kind != "string" && kind != "integer" && kind != "number" && kind != "boolean",
		strings.HasPrefix(bt, "[]"), strings.HasPrefix(bt, "map["):
		return ""
	}
	where, files, ok := c.handWrittenPlaces(0, fd, func(s *crd.Schema, path []string) bool {
		n := s.At(path)
		return n != nil && n.Type == kind
	})
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at base (%s) give %s type %s, the JSON form of the new type: the API server held no other values",
		files, where, kind)
}

// manifestDefault compares a default that field fd's markers add at
// head (or drop from it) with what the hand-written CRD manifests
// (handWrittenPlaces) give: those at base for an added or changed
// default, those at head for a dropped one. same says why the API server
// applies the same default as before (the manifests gave it already, or
// still give it); otherwise differs names the one default every place
// of the manifests gave at base, when the marker adds another. Both ""
// when the manifests do not say.
func (c *Context) manifestDefault(fd *model.FieldDiff) (same, differs string) {
	bd, hd := contractOf(fd.Base).Default, contractOf(fd.Head).Default
	side, want, at := 0, hd, "base"
	if hd == nil {
		side, want, at = 1, bd, "head"
	}
	if want == nil {
		return "", ""
	}
	value := contractOf(fd.Head).DefaultJSON
	if side == 1 {
		value = contractOf(fd.Base).DefaultJSON
	}
	given := "" // the one default of every place, once one has one
	where, files, ok := c.handWrittenPlaces(side, fd, func(s *crd.Schema, path []string) bool {
		n := s.At(path)
		if n == nil || n.Default == "" || given != "" && string(n.Default) != given {
			return false
		}
		given = string(n.Default)
		return true
	})
	switch {
	case !ok || value == "":
		return "", ""
	case given == value:
		return fmt.Sprintf("the hand-written CRD manifests at %s (%s) give %s the default %s: the API server applies the same default", at, files, where, *want), ""
	case side == 0:
		return "", fmt.Sprintf("; the hand-written CRD manifests at base (%s) gave %s the default %s, so the API server's default changes from %s to %s",
			files, where, given, given, *want)
	}
	return "", ""
}

// listed joins a sorted, duplicate-free copy of items, at most maxListed
// of them.
func listed(items []string) string {
	items = slices.Clone(items)
	slices.Sort(items)
	items = slices.Compact(items)
	if len(items) > maxListed {
		items = append(items[:maxListed:maxListed], fmt.Sprintf("and %d more", len(items)-maxListed))
	}
	return strings.Join(items, ", ")
}
