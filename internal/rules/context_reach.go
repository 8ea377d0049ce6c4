package rules

import (
	"cmp"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// What the Context knows of where a type sits among the kinds, at base
// and at head (type_refs.go, memoised per run): status only the controller
// writes, structs no kind reaches, structs that join the wire.

// refs are the type references of base's (0) or head's (1) model,
// computed once.
func (c *Context) refs(side int) *typeRefs {
	if c.typeRefs[side] == nil {
		c.typeRefs[side] = refsOf([2]*model.Model{c.Diff.Base, c.Diff.Head}[side])
	}
	return c.typeRefs[side]
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

// sharedUsers lists the fields of the model of side (0 base, 1 head),
// in any package, whose type refers to type name of shared types package
// p (by identity), each with its struct's name, sorted by position.
func (c *Context) sharedUsers(side int, p *model.Package, name string) []typeUser {
	var out []typeUser
	for _, u := range c.refs(side).users[p.ImportPath+"."+name] {
		out = append(out, typeUser{typ: u.owner[strings.LastIndexByte(u.owner, '.')+1:], owner: u.owner, field: u.field})
	}
	slices.SortFunc(out, func(a, b typeUser) int {
		return cmp.Or(strings.Compare(a.field.Pos.File, b.field.Pos.File), cmp.Compare(a.field.Pos.Line, b.field.Pos.Line))
	})
	return slices.CompactFunc(out, func(a, b typeUser) bool { return a.field == b.field })
}
