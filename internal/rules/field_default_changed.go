package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldDefaultChanged is FIELD_DEFAULT_CHANGED.
var FieldDefaultChanged = &Rule{
	ID:           "FIELD_DEFAULT_CHANGED",
	Uses:         []Input{InputManifests},
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Warning,
	Judges:       []model.Attr{model.AttrDefault},
	ReleaseNote:  fixedNote("default changed"),
	Summary: "The default (`+default=`, `+kubebuilder:default=`, `+k8s:default=`) of an existing field was added, removed or changed. " +
		"A zero-value default added to a field that cannot be nil is no change. Info where the CRD manifests are hand-written (see " +
		"NEW_FIELD_NOT_OPTIONAL) and gave the field the new default already (or, for a removed marker, still give the old one): " +
		"the API server applies what the manifests say. One default change is one finding: an object default (of a struct-valued field, " +
		"`+default={replicas: 2}`) whose every difference is a member's default changed to the same value is not reported apart; the " +
		"member's finding names it.",
	Why: "Defaults are applied when objects are read from storage: changing one silently changes existing objects.",
	Fix: "Keep the default; if it must change, handle it through a new field or version.",
	Check: func(c *Context) {
		var found []defaultChange
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrDefault) {
				continue
			}
			bd, hd := contractOf(fd.Base).Default, contractOf(fd.Head).Default
			var msg string
			switch {
			case bd == nil:
				if isZeroDefault(*hd, fd.Head) {
					continue // the zero value of a non-nillable field: what an absent value decodes to anyway
				}
				msg = fmt.Sprintf("default %s was added to existing field %s.%s", *hd, fd.Type.Name(), fd.Name())
				if c.Policy(fd.Type.Pkg).DefaultsAreDocumentation {
					// Built-in types are defaulted in Go code; the marker
					// usually documents a default that was applied already.
					found = append(found, defaultChange{fd, Report{Severity: finding.Info, Message: msg + " (a default marker on a built-in type documents Go defaulting; confirm the defaulter applied it before)",
						Hint: "fine when the defaulting code already set this value"}})
					continue
				}
			case hd == nil:
				if isZeroDefault(*bd, fd.Base) {
					continue
				}
				msg = fmt.Sprintf("default %s was removed from field %s.%s", *bd, fd.Type.Name(), fd.Name())
			default:
				msg = fmt.Sprintf("default of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), *bd, *hd)
			}
			r := Report{Message: msg, Hint: "changing a default changes existing stored objects when they are read; keep it or add a new field"}
			same, differs := manifestDefault(c, fd)
			r.Message += differs
			found = append(found, defaultChange{fd, c.relaxTo(r, finding.Info, func() (string, error) { return same, nil })})
		}
		for _, d := range oneFindingPerDefault(c, found) {
			c.Field(d.fd, d.r)
		}
	},
}

// defaultChange is a default change FIELD_DEFAULT_CHANGED found, and what
// it says of it.
type defaultChange struct {
	fd *model.FieldDiff
	r  Report
}

// oneFindingPerDefault drops the change of an object default (a default
// of a struct-valued field: +default={replicas: 2}) that restates what
// the defaults of the struct's own members changed: one default change is
// one finding, the member's, which names the object default beside it.
// An object default that changes anything its members' defaults do not
// is reported as it is.
func oneFindingPerDefault(c *Context, found []defaultChange) []defaultChange {
	byMember := map[string]int{}
	for i, d := range found {
		if p := d.fd.Type.Pkg.Head; p != nil {
			byMember[qualified(p.ImportPath, d.fd.Type.Head.Name)+"\x00"+d.fd.Head.WireName()] = i
		}
	}
	drop := map[int]bool{}
	for i, d := range found {
		members, ok := restatedByMembers(c, d.fd, found, byMember)
		if !ok {
			continue
		}
		drop[i] = true
		for _, m := range members {
			found[m].r.Related = append(slices.Clip(found[m].r.Related),
				related(fmt.Sprintf("object default of %s.%s, changed with it", d.fd.Type.Name(), d.fd.Name()), c.fieldPos(d.fd)))
		}
	}
	var out []defaultChange
	for i, d := range found {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return out
}

// restatedByMembers reports whether every difference between the object
// defaults of struct-valued field fd at base and at head (a missing
// default counts as the empty object) is the default of a member of the
// struct (or, for a nested object, of a member's member) changed to the
// same value by a change of found (indexed by byMember); members are
// those changes, by index.
func restatedByMembers(c *Context, fd *model.FieldDiff, found []defaultChange, byMember map[string]int) (members []int, ok bool) {
	b, okb := objectDefault(fd.Base)
	h, okh := objectDefault(fd.Head)
	if !okb || !okh || fd.Type.Pkg.Head == nil {
		return nil, false
	}
	seen := map[int]bool{}
	var walk func(typeID string, b, h map[string]any, depth int) bool
	walk = func(typeID string, b, h map[string]any, depth int) bool {
		t := c.refs(1).types[typeID]
		if t == nil || t.Kind != model.KindStruct || depth > 8 {
			return false
		}
		for _, key := range slices.Sorted(maps.Keys(mergeKeys(b, h))) {
			bv, inB := b[key]
			hv, inH := h[key]
			if inB == inH && reflect.DeepEqual(bv, hv) {
				continue
			}
			if i, ok := byMember[typeID+"\x00"+key]; ok && memberDefaultIs(found[i].fd.Head, hv, inH) {
				if !seen[i] {
					seen[i] = true
					members = append(members, i)
				}
				continue
			}
			bm, _ := bv.(map[string]any)
			hm, _ := hv.(map[string]any)
			f := memberByWire(t, key)
			if bm == nil && inB || hm == nil && inH || f == nil {
				return false
			}
			pkg := typeID[:strings.LastIndex(typeID, ".")]
			if !walk(qualified(pkg, wireID(f.TypeID)), bm, hm, depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(qualified(fd.Type.Pkg.Head.ImportPath, wireID(fd.Head.TypeID)), b, h, 0) || len(members) == 0 {
		return nil, false
	}
	return members, true
}

// objectDefault is field f's default as a JSON object: the empty object
// without a default; ok is false for a default that is no object.
func objectDefault(f *model.Field) (map[string]any, bool) {
	d := contractOf(f).DefaultJSON
	if contractOf(f).Default == nil {
		return map[string]any{}, true
	}
	var m map[string]any
	if d == "" || json.Unmarshal([]byte(d), &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// memberDefaultIs reports whether member f's default is v (no default,
// when present is false).
func memberDefaultIs(f *model.Field, v any, present bool) bool {
	d := contractOf(f).DefaultJSON
	if !present {
		return contractOf(f).Default == nil
	}
	var x any
	return d != "" && json.Unmarshal([]byte(d), &x) == nil && reflect.DeepEqual(x, v)
}

// memberByWire is the member of struct t with that json name.
func memberByWire(t *model.Type, name string) *model.Field {
	for _, f := range t.Fields {
		if !f.Inline() && f.WireName() == name {
			return f
		}
	}
	return nil
}

// mergeKeys is the union of two objects' keys.
func mergeKeys(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// manifestDefault compares a default that field fd's markers add at
// head (or drop from it) with what the hand-written CRD manifests
// (handWrittenPlaces) give: those at base for an added or changed
// default, those at head for a dropped one. same says why the API server
// applies the same default as before (the manifests gave it already, or
// still give it); otherwise differs names the one default every place
// of the manifests gave at base, when the marker adds another. Both ""
// when the manifests do not say.
func manifestDefault(c *Context, fd *model.FieldDiff) (same, differs string) {
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
