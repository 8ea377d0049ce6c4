package rules

import (
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
)

// The references between the types of a model, by identity: which fields
// refer to a type, what a kind reaches, what only status or only fields
// without a schema reach, and where a type sits in a kind's objects. The
// Context keeps one index per revision (context_reach.go).

// typeRef finds the named types a type identity (model.Field.TypeID)
// mentions: "pkg/path.Name" for another package's, "Name" for the
// package's own.
var typeRef = lazyre.New(`(?:[\w.\-/]+\.)?[A-Za-z_]\w*`)

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

// refsOf indexes the types of model m and the references between them
// (an empty index for a nil model).
func refsOf(m *model.Model) *typeRefs {
	r := &typeRefs{types: map[string]*model.Type{}, pkgs: map[string]*model.Package{}, users: map[string][]fieldUse{}, refs: map[string][]string{}}
	if m == nil {
		return r
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			r.index(p)
		}
	}
	// The repository's packages outside the groups whose types the groups
	// use (knative operator's base, a shared types package): kinds reach
	// their types, and through them other types, as their own.
	for _, p := range m.Shared {
		if r.pkgs[p.ImportPath] == nil {
			r.index(p)
		}
	}
	// Kubernetes' own packages read from the module cache (corev1): their
	// declarations, for what asks of a type by identity; no kind of the
	// repository is reached through them.
	for _, p := range m.External {
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

// index adds package p's types and the references of their fields.
func (r *typeRefs) index(p *model.Package) {
	// The same type identities recur on many fields of a package: find
	// the types each names once.
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

// schemalessOnly returns the struct types, by identity, that only fields
// without a schema reach: some field refers to each, and every field
// that does is marked +kubebuilder:validation:Schemaless or belongs to
// such a type. Root kinds never are.
func (r *typeRefs) schemalessOnly() map[string]bool {
	return r.onlyThrough(func(u fieldUse) bool { return u.field.Markers.Has(schemalessMarker) })
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

// walkPaths is pathsTo's walk from type id up its users to the root
// kinds; visiting are the types on the way, whose paths are not known
// yet.
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
