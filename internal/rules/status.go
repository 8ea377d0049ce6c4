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

// statusOnly returns the struct types of model m, by import path and name
// ("example.com/api/v1.Artifact"), that only status reaches: some field of
// m refers to each, and every field that does is a root kind's status
// field or belongs to such a type. Root kinds are never status-only. Only
// the controller writes status (through the status subresource); where
// it ships with the API (a CRD and its controller), what status requires
// is the controller's to send. Fields of every package count, so a type
// another package's spec uses is not status-only.
func statusOnly(m *model.Model) map[string]bool {
	type use struct {
		status bool   // a root kind's status field
		owner  string // the struct the field belongs to
	}
	users := map[string][]use{}
	types := map[string]*model.Type{}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			for _, t := range p.Types {
				id := p.ImportPath + "." + t.Name
				types[id] = t
				for _, f := range t.Fields {
					u := use{status: t.RootKind && f.WireName() == "status", owner: id}
					for _, ref := range typeRef.FindAllString(f.TypeID, -1) {
						if !strings.Contains(ref, ".") {
							ref = p.ImportPath + "." + ref
						}
						users[ref] = append(users[ref], u)
					}
				}
			}
		}
	}
	out := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for id, t := range types {
			if out[id] || t.RootKind || t.Kind != model.KindStruct {
				continue
			}
			others, all := 0, true
			for _, u := range users[id] {
				if u.owner == id {
					continue // a recursive type's own fields do not decide
				}
				others++
				if !u.status && !out[u.owner] {
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
		c.statusTypes = statusOnly(c.Diff.Head)
	}
	return c.statusTypes[pkg.ImportPath+"."+t.Name]
}

// reachable returns the types of model m, by import path and name, that
// a kind reaches: its root kinds, and every type a field of a reached
// type refers to (by identity, across packages).
func reachable(m *model.Model) map[string]bool {
	if m == nil {
		return map[string]bool{}
	}
	types := map[string]*model.Package{} // type -> its package
	var queue []string
	out := map[string]bool{}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			for _, t := range p.Types {
				id := p.ImportPath + "." + t.Name
				types[id] = p
				if t.RootKind {
					out[id] = true
					queue = append(queue, id)
				}
			}
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		p := types[id]
		t := p.Type(id[len(p.ImportPath)+1:])
		for _, f := range t.Fields {
			for _, ref := range typeRef.FindAllString(f.TypeID, -1) {
				if !strings.Contains(ref, ".") {
					ref = p.ImportPath + "." + ref
				}
				if _, ok := types[ref]; ok && !out[ref] {
					out[ref] = true
					queue = append(queue, ref)
				}
			}
		}
	}
	return out
}

// unserved reports a struct that no kind of the API reaches, at base or
// at head, in a package that has kinds: only Go code (a controller's
// in-memory specs) uses its json form, so what the rules say of the wire
// is at most a warning. A package without kinds is not judged so (what
// serves its types is unknown).
func (c *Context) unserved(td *model.TypeDiff) bool {
	for i, side := range []struct {
		m   *model.Model
		pkg *model.Package
		t   *model.Type
	}{{c.Diff.Base, td.Pkg.Base, td.Base}, {c.Diff.Head, td.Pkg.Head, td.Head}} {
		if side.pkg == nil || side.t == nil {
			continue
		}
		if !slices.ContainsFunc(side.pkg.Types, func(t *model.Type) bool { return t.RootKind }) {
			return false
		}
		if c.reached[i] == nil {
			c.reached[i] = reachable(side.m)
		}
		if c.reached[i][side.pkg.ImportPath+"."+side.t.Name] {
			return false
		}
	}
	return td.Base != nil || td.Head != nil
}
