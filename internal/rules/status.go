package rules

import (
	"regexp"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// typeRef finds the named types a type identity (model.Field.TypeID)
// mentions: "pkg/path.Name" for another package's, "Name" for the
// package's own.
var typeRef = regexp.MustCompile(`(?:[\w.\-/]+\.)?[A-Za-z_]\w*`)

// typeRefs are the types of a model by identity ("importpath.Name") and
// the references between them: which fields refer to a type, and which
// types a type's fields (or, for a named slice or map, its underlying
// type) refer to (across packages).
type typeRefs struct {
	types map[string]*model.Type
	pkgs  map[string]*model.Package // import path -> package
	users map[string][]fieldUse     // referenced type -> the fields referring to it
	refs  map[string][]string       // type -> the types its fields refer to
	// paths memoizes pathsTo, marked kubebuilderMarked.
	paths  map[string][]kindPath
	marked map[string]bool
}

// fieldUse is a field that refers to a type, and the struct it belongs to.
type fieldUse struct {
	owner string
	field *model.Field
}

func refsOf(m *model.Model) *typeRefs {
	r := &typeRefs{types: map[string]*model.Type{}, pkgs: map[string]*model.Package{}, users: map[string][]fieldUse{}, refs: map[string][]string{}}
	if m == nil {
		return r
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			// The same type identities recur on many fields of a
			// package: find the types each names once.
			names := map[string][]string{}
			r.pkgs[p.ImportPath] = p
			for _, t := range p.Types {
				id := p.ImportPath + "." + t.Name
				r.types[id] = t
				if t.Kind != model.KindStruct {
					// A named slice or map (argo-workflows' type Artifacts
					// []Artifact) reaches its elements.
					for _, ref := range typeRef.FindAllString(t.UnderlyingID, -1) {
						r.refs[id] = append(r.refs[id], qualified(p.ImportPath, ref))
					}
				}
				for _, f := range t.Fields {
					if contractOf(f).Name == "-" {
						continue // off the wire (json:"-"): it reaches nothing a client sees
					}
					refs, ok := names[f.TypeID]
					if !ok {
						refs = typeRef.FindAllString(f.TypeID, -1)
						for i, ref := range refs {
							refs[i] = qualified(p.ImportPath, ref)
						}
						names[f.TypeID] = refs
					}
					for _, ref := range refs {
						r.users[ref] = append(r.users[ref], fieldUse{id, f})
						r.refs[id] = append(r.refs[id], ref)
					}
				}
			}
		}
	}
	// The repository's packages outside the groups whose types the groups
	// use (knative operator's base): their declarations, for what asks of
	// a type by identity; no kind is reached through them.
	for _, p := range m.Shared {
		if r.pkgs[p.ImportPath] != nil {
			continue
		}
		r.pkgs[p.ImportPath] = p
		for _, t := range p.Types {
			r.types[p.ImportPath+"."+t.Name] = t
		}
	}
	return r
}

// qualified is type identity id of a field of the package with import
// path ip, qualified: the package's own names carry no path in TypeID.
func qualified(ip, id string) string {
	if strings.Contains(id, ".") {
		return id
	}
	return ip + "." + id
}

// statusOnly returns the struct types, by identity, that only status
// reaches: some field refers to each, and every field that does is a
// root kind's status field or belongs to such a type. Root kinds are
// never status-only. Only the controller writes status (through the
// status subresource); where it ships with the API (a CRD and its
// controller), what status requires is the controller's to send. Fields
// of every package count, so a type another package's spec uses is not
// status-only.
func (r *typeRefs) statusOnly() map[string]bool {
	return r.onlyThrough(func(u fieldUse) bool {
		return r.types[u.owner].RootKind && u.field.WireName() == "status"
	})
}

// onlyThrough returns the struct types, by identity, that only the fields
// through says yes to reach: some field of another type refers to each,
// and every such field is one through says yes to or belongs to such a
// type (a recursive type's own fields do not decide). Root kinds never
// are.
func (r *typeRefs) onlyThrough(through func(fieldUse) bool) map[string]bool {
	out := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for id, t := range r.types {
			if out[id] || t.RootKind || t.Kind != model.KindStruct {
				continue
			}
			others, all := 0, true
			for _, u := range r.users[id] {
				if u.owner == id {
					continue
				}
				others++
				if !through(u) && !out[u.owner] {
					all = false
					break
				}
			}
			if all && others > 0 {
				out[id], changed = true, true
			}
		}
	}
	return out
}

// reachable returns the types, by identity, that a kind reaches: the
// root kinds, and every type a field of a reached type refers to.
func (r *typeRefs) reachable() map[string]bool {
	out := map[string]bool{}
	var queue []string
	for id, t := range r.types {
		if t.RootKind {
			out[id] = true
			queue = append(queue, id)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, ref := range r.refs[id] {
			if _, ok := r.types[ref]; ok && !out[ref] {
				out[ref] = true
				queue = append(queue, ref)
			}
		}
	}
	return out
}

// inStatus reports whether a field belongs to the status of a kind at
// head: it is a root kind's status field, or a field of a type only
// status reaches (statusOnly).
func (c *Context) inStatus(fd *model.FieldDiff) bool {
	pkg, t := fd.Type.Pkg.Head, fd.Type.Head
	if pkg == nil || t == nil || fd.Head == nil {
		return false
	}
	if t.RootKind && fd.Head.WireName() == "status" {
		return true
	}
	if c.statusTypes == nil {
		c.statusTypes = c.refs(1).statusOnly()
	}
	return c.statusTypes[pkg.ImportPath+"."+t.Name]
}

// refs are the type references of base's (0) or head's (1) model,
// computed once.
func (c *Context) refs(side int) *typeRefs {
	if c.typeRefs[side] == nil {
		c.typeRefs[side] = refsOf([2]*model.Model{c.Diff.Base, c.Diff.Head}[side])
	}
	return c.typeRefs[side]
}

// unserved reports a struct that no kind of the API reaches, at base or
// at head, in a package that has kinds, or whose other types a kind of
// the repository reaches (a package of shared types, as ECK's common/v1,
// whose AssociationConf only goes into annotations): only Go code (a
// controller's in-memory specs) uses its json form, so what the rules say
// of the wire is at most a warning. A package without kinds that no kind
// reaches is not judged so (what serves its types is unknown: another
// repository's kinds may).
func (c *Context) unserved(td *model.TypeDiff) bool {
	for i, side := range sidesOf(td) {
		if side.pkg == nil || side.t == nil {
			continue
		}
		if reached, known := c.reach(i, side.pkg, side.t); reached || !known {
			return false
		}
	}
	return td.Base != nil || td.Head != nil
}

// newToTheWire reports a struct that a kind reaches at head and no kind
// reached at base, in a package whose reach can be judged (see unserved):
// it joins the wire with this change, so a field added to it is new to no
// stored object and no client, as a new type's fields are. Code
// generators reuse a type name that way (provider-upjet-aws v2.6.0 gave
// the empty, unused eks IdentityParameters the fields of the new
// Capability kind's identity block). A struct no kind reaches at either
// revision is unserved's.
func (c *Context) newToTheWire(td *model.TypeDiff) bool {
	if td.Base == nil || td.Head == nil || td.Base.RootKind || td.Pkg.Base == nil || td.Pkg.Head == nil {
		return false
	}
	if reached, known := c.reach(0, td.Pkg.Base, td.Base); reached || !known {
		return false
	}
	reached, _ := c.reach(1, td.Pkg.Head, td.Head)
	return reached
}

// pkgType is a type of a package at one revision.
type pkgType struct {
	pkg *model.Package
	t   *model.Type
}

// sidesOf is a type pair's base (0) and head (1) sides.
func sidesOf(td *model.TypeDiff) [2]pkgType {
	return [2]pkgType{{td.Pkg.Base, td.Base}, {td.Pkg.Head, td.Head}}
}

// reach reports whether a kind of base's (0) or head's (1) model reaches
// type t of package pkg; known is false when what serves the package is
// unknown: it has no kind and no kind of the repository reaches any of
// its types (another repository's kinds may).
func (c *Context) reach(side int, pkg *model.Package, t *model.Type) (reached, known bool) {
	if c.reached[side] == nil {
		c.reached[side] = c.refs(side).reachable()
	}
	known = slices.ContainsFunc(pkg.Types, func(t *model.Type) bool { return t.RootKind }) || reachesPackage(c.reached[side], pkg)
	return c.reached[side][pkg.ImportPath+"."+t.Name], known
}

// reachesPackage reports whether a kind reaches some type of package p
// (reached: type identities, as reachable returns them).
func reachesPackage(reached map[string]bool, p *model.Package) bool {
	for _, t := range p.Types {
		if reached[p.ImportPath+"."+t.Name] {
			return true
		}
	}
	return false
}
