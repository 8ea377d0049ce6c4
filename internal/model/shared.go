package model

import (
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// Shared types packages: the packages of the repository outside the API
// groups (Model.Shared) whose types the external versions' types reach
// (api/<group>/common, api/shared, pkg/apis/<group>/types, a values
// package elsewhere in the module). Their types are on the wire of every
// version that reaches them, so their changes are judged as the versions'
// own: Compare pairs each such package once (Diff.Shared), under the most
// stable version that reaches it.

// typeRefID finds the named types a type identity mentions:
// "pkg/path.Name" for another package's, "Name" for the package's own.
var typeRefID = lazyre.New(`(?:[\w.~\-/]+\.)?[A-Za-z_]\w*`)

// sharedReach returns, for model m, the shared packages' types the
// external versions' types reach (by identity, "importpath.Name"), and
// for each shared package (by import path) the external version packages
// whose types reach some type of it, directly or through other shared
// types. Fields off the wire (json:"-") reach nothing.
func sharedReach(m *Model) (types map[string]bool, by map[string][]*Package) {
	shared := map[string]*Package{}
	for _, p := range m.Shared {
		shared[p.ImportPath] = p
	}
	types, by = map[string]bool{}, map[string][]*Package{}
	if len(shared) == 0 {
		return types, by
	}
	refs := func(ip string, t *Type, visit func(string)) {
		ids := []string{t.UnderlyingID}
		for _, f := range t.Fields {
			if contractOf(f).Name != "-" {
				ids = append(ids, f.TypeID)
			}
		}
		for _, id := range ids {
			for _, ref := range typeRefID.FindAllString(id, -1) {
				if !strings.Contains(ref, ".") {
					ref = ip + "." + ref
				}
				visit(ref)
			}
		}
	}
	for _, g := range m.Groups {
		for _, v := range g.Versions {
			seen := map[string]bool{}
			var queue []string
			visit := func(ref string) {
				i := strings.LastIndexByte(ref, '.')
				sp := shared[ref[:i]]
				if sp == nil || seen[ref] || sp.Type(ref[i+1:]) == nil {
					return
				}
				seen[ref] = true
				types[ref] = true
				if ps := by[sp.ImportPath]; len(ps) == 0 || ps[len(ps)-1] != v {
					by[sp.ImportPath] = append(ps, v)
				}
				queue = append(queue, ref)
			}
			for _, t := range v.Types {
				refs(v.ImportPath, t, visit)
			}
			for len(queue) > 0 {
				ref := queue[0]
				queue = queue[1:]
				i := strings.LastIndexByte(ref, '.')
				refs(ref[:i], shared[ref[:i]].Type(ref[i+1:]), visit)
			}
		}
	}
	return types, by
}

// compareShared pairs the shared packages whose types external versions
// reach at base or head (Diff.Shared): each package once, under the most
// stable version that reaches it (its group's profile and the version's
// maturity judge it; SharedBy names every version that reaches it), with
// the types paired at both revisions that a version reaches at either.
// Types added or removed in a shared package are no change of a wire
// contract by themselves: a field of a version that starts or stops
// using one changes its type, which the field's own pair shows.
func compareShared(d *Diff) {
	baseTypes, baseBy := sharedReach(d.Base)
	headTypes, headBy := sharedReach(d.Head)
	pairOf := map[*Package]*PackageDiff{}
	for _, gd := range d.Groups {
		for _, pd := range gd.Packages {
			if !pd.External() {
				continue
			}
			if pd.Base != nil {
				pairOf[pd.Base] = pd
			}
			if pd.Head != nil {
				pairOf[pd.Head] = pd
			}
		}
	}
	byPath := func(ps []*Package) map[string]*Package {
		out := map[string]*Package{}
		for _, p := range ps {
			out[p.ImportPath] = p
		}
		return out
	}
	basePkgs, headPkgs := byPath(d.Base.Shared), byPath(d.Head.Shared)
	var paths []string
	for ip := range basePkgs {
		if headPkgs[ip] != nil && (len(baseBy[ip]) > 0 || len(headBy[ip]) > 0) {
			paths = append(paths, ip)
		}
	}
	sort.Strings(paths)
	for _, ip := range paths {
		var reachers []*PackageDiff
		for _, p := range append(slices.Clone(baseBy[ip]), headBy[ip]...) {
			if pd := pairOf[p]; pd != nil && !slices.Contains(reachers, pd) {
				reachers = append(reachers, pd)
			}
		}
		if len(reachers) == 0 {
			continue
		}
		primary := slices.MaxFunc(reachers, func(a, b *PackageDiff) int {
			if c := CompareVersions(a.Version, b.Version); c != 0 {
				return c
			}
			return strings.Compare(b.Group.Dir, a.Group.Dir) // the first directory wins a tie
		})
		var by []string
		for _, pd := range reachers {
			by = append(by, pd.Pkg().Dir)
		}
		slices.Sort(by)
		spd := &PackageDiff{Group: primary.Group, Version: primary.Version, SharedBy: slices.Compact(by),
			Base: asVersion(basePkgs[ip], primary.Base, primary.Head), Head: asVersion(headPkgs[ip], primary.Head, primary.Base)}
		compareTypes(spd)
		spd.Types = slices.DeleteFunc(spd.Types, func(td *TypeDiff) bool {
			return td.Base == nil || td.Head == nil ||
				!baseTypes[ip+"."+td.Base.Name] && !headTypes[ip+"."+td.Head.Name]
		})
		if len(spd.Types) > 0 {
			d.Shared = append(d.Shared, spd)
		}
	}
}

// asVersion is shared package p as a package of version v (else, when
// the version has no package at this revision, alt): the version's name,
// maturity and API group, p's own types and files.
func asVersion(p, v, alt *Package) *Package {
	if v == nil {
		v = alt
	}
	cp := *p
	cp.Version, cp.Maturity, cp.GroupName, cp.Deprecated = v.Version, v.Maturity, v.GroupName, v.Deprecated
	return &cp
}

// IsShared reports whether the pair is of a shared types package
// (Diff.Shared) rather than of a group's own version.
func (p *PackageDiff) IsShared() bool { return len(p.SharedBy) > 0 }
