package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// VersionSkew is VERSION_SKEW.
var VersionSkew = &Rule{
	ID:                  "VERSION_SKEW",
	ReleasedVersionOnly: true,
	Alpha:               finding.Info,
	Category:            CatVersions,
	Severity:            finding.Error,
	Relax:               relaxedToInfo,
	Summary: "A field was added to or removed from a type in one version of a group but not in the type of another version " +
		"that agreed with it at base: the same-named type, or the struct at the same JSON path from the kind. No skew: a field " +
		"added to a version that another version already had in another struct of the same kind (same json name and type: a " +
		"backport into a restructured older version), an internal field renamed in place after an external version's name, and " +
		"same-named structs that no common kind reaches (versions serving different kinds), a member head still promotes through " +
		"an inline embedded struct. Info for a version whose hand-written conversion of the type (Convert_…, conversion-gen " +
		"style, in either direction, in its package or in another version's of the group) the change added or rewrote, or whose +k8s:conversion-gen marker the change removed, " +
		"its author handled the difference; but a warning for an external version whose new hand-written conversion leaves out a field added to the internal version " +
		"and another external version: the conversion shows intent, but its clients still lose the field on a round trip. Info for a version " +
		"that keeps a removed field marked +k8s:conversion-gen=false, and for the versions without a field added with that marker (not converted on purpose). Under the \"newest\" policy (crd profile) a field " +
		"added to the newest versions only, or removed from older versions only, is no skew: older versions are frozen.",
	Why: "Conversion between versions (and the internal version) then loses the field: round-tripping " +
		"through another version drops data.",
	Fix: "Make the same change in the internal version and every external version of the group (and adapt conversions).",
	Check: func(c *Context) {
		for _, gd := range c.Diff.Groups {
			checkSkew(c, gd)
		}
	},
}

// checkSkew judges one group: every field added to or removed from a
// struct of some of its versions (skewTypes) against the versions whose
// same struct did not change so (skewOf).
func checkSkew(c *Context, gd *model.GroupDiff) {
	g, changes := skewTypes(c, gd)
	if !changes {
		return // no field added or removed anywhere in the group: no skew
	}
	mergeByPath(c, g.byName)
	order := map[*model.PackageDiff]int{}
	for i, pd := range gd.Packages {
		order[pd] = i
	}
	for _, pvs := range g.byName {
		slices.SortStableFunc(pvs, func(a, b skewPV) int { return cmp.Compare(order[a.pd], order[b.pd]) })
	}
	names := slices.DeleteFunc(slices.Sorted(maps.Keys(g.byName)), func(n string) bool { return len(g.byName[n]) < 2 })
	for _, typ := range names {
		pvs := g.byName[typ]
		aligned := internalAlignedRenames(pvs)
		fields := map[string]bool{}
		for _, x := range pvs {
			for _, f := range x.td.Base.Fields {
				fields[f.Name] = true
			}
			for _, f := range x.td.Head.Fields {
				fields[f.Name] = true
			}
		}
		for _, fname := range slices.Sorted(maps.Keys(fields)) {
			for _, added := range []bool{true, false} {
				got := changedIn(pvs, fname, added)
				if len(got) == 0 {
					continue
				}
				if len(got) == 1 && got[0].version() == "" && aligned[fname] {
					continue // the internal version renamed a field after an external one: Go only
				}
				g.skewOf(pvs, got, fname, added)
			}
		}
	}
}

// skewGroup is what VERSION_SKEW knows of one group.
type skewGroup struct {
	c  *Context
	gd *model.GroupDiff
	// byName are the struct types present at both revisions, by name, in
	// package order.
	byName map[string][]skewPV
	// moved are, per package, the names of fields added or removed
	// anywhere in it (changeKey).
	moved   map[*model.PackageDiff]map[string]bool
	changed changedFields
	reach   kindReach
}

// skewTypes collects the structs of the group's versions (a deprecated
// version is frozen: it does not get new fields) and the fields added or
// removed in each; changes is false when no field was.
func skewTypes(c *Context, gd *model.GroupDiff) (g *skewGroup, changes bool) {
	g = &skewGroup{c: c, gd: gd, byName: map[string][]skewPV{}, moved: map[*model.PackageDiff]map[string]bool{},
		changed: changedFields{}, reach: kindReach{}}
	for _, pd := range gd.Packages {
		if (pd.Base != nil && pd.Base.Deprecated) || (pd.Head != nil && pd.Head.Deprecated) {
			continue // a deprecated version is frozen: it does not get new fields
		}
		g.moved[pd] = map[string]bool{}
		for _, td := range pd.Types {
			for _, fd := range td.Fields {
				if fd.Base == nil || fd.Head == nil {
					f := fd.Head
					if f == nil {
						f = fd.Base
					}
					g.moved[pd][changeKey(fd.Base == nil, f.Name)] = true
					g.moved[pd][changeKey(fd.Base == nil, f.WireName())] = true
				}
			}
		}
		for _, td := range pd.Types {
			if td.Base != nil && td.Head != nil && !td.Renamed && td.Head.Kind == model.KindStruct {
				g.byName[td.Head.Name] = append(g.byName[td.Head.Name], skewPV{pd, td})
			}
		}
	}
	for _, m := range g.moved {
		changes = changes || len(m) > 0
	}
	return g, changes
}

// changedIn are the versions of a type (pvs) that added field fname (or,
// with !added, removed it); a field that head may still promote through
// an inline embedded struct is not removed.
func changedIn(pvs []skewPV, fname string, added bool) []skewPV {
	var got []skewPV
	for _, x := range pvs {
		b, h := hasField(x.td.Base, fname), hasField(x.td.Head, fname)
		if !added && b && !h && promotedAtHead(x.td, fname) {
			continue // still on the wire, or may be: not removed from this version
		}
		if added && !b && h || !added && b && !h {
			got = append(got, x)
		}
	}
	return got
}

// skewOf reports the versions of a type (pvs) that did not make the
// change the versions got made to field fname (missedBy), unless the
// group's policy allows it or a conversion written by hand handles it
// (handledByHand).
func (g *skewGroup) skewOf(pvs, got []skewPV, fname string, added bool) {
	missed := g.missedBy(pvs, got, fname, added)
	if g.c.VersionSkewPolicy(g.gd) == "newest" {
		missed = newestAllows(got, missed, added)
	}
	missed, handled, handledBy, converted := handledByHand(pvs, got, missed, fname, added)
	if len(missed) == 0 && len(handled) == 0 {
		return
	}
	label := func(xs []skewPV) string {
		var out []string
		for _, x := range xs {
			l := x.pd.Pkg().Label()
			if n := x.td.Head.Name; n != got[0].td.Head.Name {
				l += " (in " + n + ")"
			}
			out = append(out, l)
		}
		return strings.Join(out, ", ")
	}
	verb, prep := "added to", "in"
	if !added {
		verb, prep = "removed from", "from"
	}
	first := got[0]
	fd := g.changed.get(first.td, fname, added)
	r := Report{
		Message: fmt.Sprintf("field %s.%s was %s %s but not %s %s", first.td.Head.Name, fname, verb, label(got), prep, label(missed)),
		Hint:    fmt.Sprintf("make the same change in %s (and adapt conversions)", label(missed)),
	}
	if len(missed) > 0 && len(handled) > 0 {
		r.Message += fmt.Sprintf(" (%s: its conversion this change handled by hand: %s)", label(handled), strings.Join(handledBy, ", "))
	}
	if len(missed) == 0 {
		r = Report{
			Severity: finding.Info,
			Message: fmt.Sprintf("field %s.%s was %s %s but not %s %s, whose conversion this change handled by hand (%s)",
				first.td.Head.Name, fname, verb, label(got), prep, label(handled), strings.Join(handledBy, ", ")),
		}
		if len(converted) > 0 {
			// The hand-written conversion shows intent, but a client of
			// that version still loses the field when it reads an object
			// and writes it back.
			r.Severity = finding.Warning
			r.Message += fmt.Sprintf("; clients of %s still lose the field when they read an object and write it back", label(converted))
			r.Hint = fmt.Sprintf("add the field to %s too, unless those versions drop it on purpose", label(converted))
		}
	}
	if fd != nil {
		g.c.Field(fd, r)
	} else {
		g.c.Type(first.td, r)
	}
}

// missedBy are the versions of a type (pvs) whose struct had field fname
// at base and at head as the first version that got the change had it at
// base, and that a conversion would have to carry the change to: not a
// version that made the same change elsewhere in its shape, that already
// had an added field in another struct of the kind (a backport), or whose
// struct no kind of got's reaches.
func (g *skewGroup) missedBy(pvs, got []skewPV, fname string, added bool) []skewPV {
	before := hasField(got[0].td.Base, fname)
	wire := fname
	if f := g.changed.get(got[0].td, fname, added); f != nil {
		if ff := f.Head; ff != nil {
			wire = ff.WireName()
		} else if f.Base != nil {
			wire = f.Base.WireName()
		}
	}
	var missed []skewPV
	for _, x := range pvs {
		b, h := hasField(x.td.Base, fname), hasField(x.td.Head, fname)
		if b != before || h != before {
			continue
		}
		// The same change elsewhere in that version's shape (a
		// field a version keeps in a nested struct, such as
		// Device.Basic.BindsToNode against Device.BindsToNode).
		if g.moved[x.pd][changeKey(added, fname)] || g.moved[x.pd][changeKey(added, wire)] {
			continue
		}
		if added && g.reach.holds(x.pd, got[0], fname) {
			continue // a version that already had it elsewhere: a backport
		}
		if !g.reach.sharesKind(x, got[0]) {
			continue // same-named structs of different kinds: no conversion between them
		}
		missed = append(missed, x)
	}
	return missed
}

// handledByHand moves out of missed the versions whose difference the
// change handled by hand, with what handled each: a field added with
// +k8s:conversion-gen=false, a +k8s:conversion-gen marker removed, a
// conversion of the type written by hand that the change added or
// rewrote, a removed field kept marked +k8s:conversion-gen=false.
// converted are the external versions of handled whose new hand-written
// conversion drops a field the internal version and another external
// version got (servedByInternal): their clients lose it on a round trip.
func handledByHand(pvs, got, missed []skewPV, fname string, added bool) (_, handled []skewPV, handledBy []string, converted []skewPV) {
	// A version whose hand-written conversion of the type this
	// change added or rewrote: its author handled the
	// difference (kubelet's credentialprovider v1alpha1 and
	// v1beta1 omit v1's service account token on purpose).
	//
	// A field added with +k8s:conversion-gen=false: its author
	// keeps it out of the conversions on purpose, the versions
	// without it are meant so (kubescape's storage added
	// internal-only Parts and SchemaVersion to its kinds).
	optedOut := ""
	if added {
		for _, g := range got {
			if conversionOptOut(g, fname) {
				optedOut = "+k8s:conversion-gen=false on its field in " + g.pd.Pkg().Label() + ": not converted"
				break
			}
		}
	}
	missed = slices.DeleteFunc(missed, func(x skewPV) bool {
		if optedOut != "" {
			handled = append(handled, x)
			handledBy = append(handledBy, optedOut)
			return true
		}
		if fn := droppedConversionGen(x); fn != "" {
			handled = append(handled, x)
			handledBy = append(handledBy, fn)
			return true
		}
		if fn := newConversion(x, pvs); fn != "" {
			handled = append(handled, x)
			handledBy = append(handledBy, fn)
			if added && x.version() != "" && servedByInternal(got) {
				converted = append(converted, x)
			}
			return true
		}
		if !added && conversionOptOut(x, fname) {
			handled = append(handled, x)
			handledBy = append(handledBy, "+k8s:conversion-gen=false on its field: not converted")
			return true
		}
		return false
	})
	return missed, handled, handledBy, converted
}

// servedByInternal reports whether the versions that got a change are
// the internal version and at least one external version: the field is
// stored, and clients use it. (A field only the internal version got
// reached no client; one a spoke version got maps to the hub's fields.)
func servedByInternal(got []skewPV) bool {
	internal, external := false, false
	for _, x := range got {
		if x.version() == "" {
			internal = true
		} else {
			external = true
		}
	}
	return internal && external
}

// hasField reports whether struct t (nil: none) has a field of that Go
// name.
func hasField(t *model.Type, name string) bool { return t != nil && t.Field(name) != nil }

// promotedAtHead reports whether base's field of that Go name may still
// be on the wire at head, promoted through an inline embedded struct
// (model.TypeDiff.StillPromoted; for an inline embedded field,
// model.TypeDiff.StillInlines).
func promotedAtHead(td *model.TypeDiff, name string) bool {
	f := td.Base.Field(name)
	if f.Embedded && f.Inline() {
		// An inline embedded type moved into a struct of the package
		// that head embeds inline: its members are where they were.
		return td.StillInlines(f)
	}
	yes, maybe := td.StillPromoted(f.WireName())
	return yes || maybe != ""
}

// skewPV is one version's pair of a type VERSION_SKEW compares.
type skewPV struct {
	pd *model.PackageDiff
	td *model.TypeDiff
}

// version is the version of x's package ("" for the internal version).
func (x skewPV) version() string { return x.pd.Version }

// changeKey keys a field name by the change: "+name" added, "-name"
// removed.
func changeKey(added bool, name string) string {
	if added {
		return "+" + name
	}
	return "-" + name
}

// newestAllows drops, under the "newest" policy, the versions whose
// difference the policy allows: for an added field, the versions older
// than the newest version that got it (older versions are frozen); for a
// removed one, the versions newer than every version it was removed from
// (Karpenter removed TerminationGracePeriod from v1beta1 and kept it in
// v1: a newer version may have fields the older ones lack, and the
// removal itself is the removal rules' to judge). The internal version
// still must follow.
func newestAllows(got, missed []skewPV, added bool) []skewPV {
	newest := ""
	for _, g := range got {
		if v := g.version(); v != "" && (newest == "" || model.VersionLess(newest, v)) {
			newest = v
		}
	}
	if newest == "" {
		return missed
	}
	var out []skewPV
	for _, m := range missed {
		v := m.version()
		allowed := v != "" && (added && model.VersionLess(v, newest) || !added && model.VersionLess(newest, v))
		if !allowed {
			out = append(out, m)
		}
	}
	return out
}

// changedFields indexes the added and removed field pairs of a type by
// Go name.
type changedFields map[*model.TypeDiff]map[string][2]*model.FieldDiff

// get is the field pair of td named name that was added (or removed); nil
// when there is none.
func (m changedFields) get(td *model.TypeDiff, name string, added bool) *model.FieldDiff {
	idx, ok := m[td]
	if !ok {
		idx = map[string][2]*model.FieldDiff{}
		for _, x := range td.Fields {
			e := idx[x.Name()]
			switch {
			case x.Base == nil:
				e[0] = x
			case x.Head == nil:
				e[1] = x
			}
			idx[x.Name()] = e
		}
		m[td] = idx
	}
	if added {
		return idx[name][0]
	}
	return idx[name][1]
}

// mergeByPath joins to a type's versions the differently named struct
// that holds the same JSON path from the kind in a version lacking a type
// of that name (v1beta1's Kubernetes is v1's KubernetesSettings when both
// are Shoot.spec.kubernetes): VERSION_SKEW compares what the wire sees,
// not Go type names. Paths are compared ignoring case, so the internal
// version (Go names, no json tags) matches too. A struct joins only when
// it is the one struct at that path in its version and its own name never
// appears beside the type's name in one version (then both are types of
// their own); the joined name's entries move under the type's name.
func mergeByPath(c *Context, byName map[string][]skewPV) {
	pathOf := func(x skewPV) string {
		if p, ok := c.apiPaths(x.pd.Head)[x.td.Head.Name]; ok {
			return strings.ToLower(p)
		}
		return ""
	}
	// The entries per version and path; a path two structs of one version
	// share is ambiguous.
	type pkgPath struct {
		pd   *model.PackageDiff
		path string
	}
	at := map[pkgPath]string{}
	byPath := map[string][]pkgPath{}
	for n, pvs := range byName {
		for _, x := range pvs {
			if p := pathOf(x); p != "" {
				k := pkgPath{x.pd, p}
				if _, dup := at[k]; dup {
					at[k] = ""
				} else {
					at[k] = n
					byPath[p] = append(byPath[p], k)
				}
			}
		}
	}
	// The name with more versions absorbs the other (ties by name), so the
	// result does not depend on map order.
	names := slices.SortedFunc(maps.Keys(byName), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(byName[b]), len(byName[a])), strings.Compare(a, b))
	})
	for _, n := range names {
		pvs := byName[n]
		if len(pvs) == 0 {
			continue // absorbed
		}
		in := map[*model.PackageDiff]bool{}
		paths := map[string]bool{}
		for _, x := range pvs {
			in[x.pd] = true
			if p := pathOf(x); p != "" {
				paths[p] = true
			}
		}
		if len(paths) == 0 {
			continue
		}
		var join []string
		for p := range paths {
			for _, k := range byPath[p] {
				if m := at[k]; m != "" && m != n && !in[k.pd] && !slices.Contains(join, m) {
					join = append(join, m)
				}
			}
		}
		slices.Sort(join)
		for _, m := range join {
			other := byName[m]
			ok := len(other) > 0
			for _, y := range other {
				if in[y.pd] {
					ok = false // both names in one version: two types
				}
			}
			if !ok {
				continue
			}
			for _, y := range other {
				in[y.pd] = true
			}
			byName[n] = append(byName[n], other...)
			byName[m] = nil
		}
	}
	for n, pvs := range byName {
		if len(pvs) == 0 {
			delete(byName, n)
		}
	}
}

// internalAlignedRenames returns the names of the fields the internal
// version of a type renamed to the name an external version gives the
// field (cert-manager's internal CertificateSpec.URISANs became URIs, v1's
// name, while v1alpha2 kept URISANs): the internal version has no wire
// form, conversions map the names, so neither the removal nor the
// addition reaches another version. A pair is a removed and an added
// field of the same type in the same place (the same index in the struct
// at base and at head), and the new name is a field of some external
// version's type at base.
func internalAlignedRenames(pvs []skewPV) map[string]bool {
	var in *model.TypeDiff
	for _, x := range pvs {
		if x.version() == "" {
			in = x.td
		}
	}
	if in == nil {
		return nil
	}
	var out map[string]bool
	for i, r := range in.Base.Fields {
		if i >= len(in.Head.Fields) {
			break
		}
		a := in.Head.Fields[i]
		if a.Type != r.Type || a.Embedded || r.Embedded || hasField(in.Head, r.Name) || hasField(in.Base, a.Name) {
			continue
		}
		for _, x := range pvs {
			if x.version() != "" && hasField(x.td.Base, a.Name) {
				if out == nil {
					out = map[string]bool{}
				}
				out[a.Name], out[r.Name] = true, true
				break
			}
		}
	}
	return out
}
