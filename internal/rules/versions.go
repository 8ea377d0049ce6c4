package rules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

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
		"style, in either direction, in its package or in another version's of the group) the change added or rewrote, or whose +k8s:conversion-gen marker the change removed: its author handled the difference; likewise for a version " +
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

func hasField(t *model.Type, name string) bool { return t != nil && t.Field(name) != nil }

// droppedConversionGen describes the +k8s:conversion-gen marker the
// change removed from the version's package, when it did: conversion-gen
// no longer converts the version, its author converts it by hand
// (descheduler #999 moved its internal DeschedulerPolicy to the next
// version's shape and converted v1alpha1 in code); "" otherwise.
func droppedConversionGen(x skewPV) string {
	if x.pd.Base == nil || x.pd.Head == nil || x.pd.Base.ConversionGen == "" || x.pd.Head.ConversionGen != "" {
		return ""
	}
	return "+k8s:conversion-gen=" + x.pd.Base.ConversionGen + " removed"
}

// conversionOptOut reports a version that keeps a field the change
// removed from the others, marked +k8s:conversion-gen=false at head:
// conversion-gen leaves it out on purpose, what the version still accepts
// is not converted (kOps kept v1alpha2's unused AccessLogSpec.Interval
// for existing manifests and stopped converting it).
func conversionOptOut(x skewPV, fname string) bool {
	if x.td.Head == nil {
		return false
	}
	f := x.td.Head.Field(fname)
	if f == nil {
		return false
	}
	v, ok := f.Markers.Get("k8s:conversion-gen")
	return ok && strings.Trim(v, `"`) == "false"
}

// newConversion names the hand-written conversion functions of the
// version's type that head has and base did not have in that form (new,
// or rewritten), in either direction (kubeone added v1beta2's conversion
// into the internal version beside the unchanged one out of it), declared
// in the version's package or in another version's of the group (a
// hub-and-spoke API converts in the spoke's package: CAPI RKE2's
// Convert_v1beta1_RKE2ConfigStatus_To_v1beta2_RKE2ConfigStatus is
// v1beta2's conversion too); "" when there is none.
func newConversion(x skewPV, group []skewPV) string {
	if x.pd.Head == nil {
		return ""
	}
	var fns []string
	for _, y := range group {
		if y.pd.Head == nil {
			continue
		}
		for fn, fp := range y.pd.Head.ConversionsOf(x.pd.Head.Name, x.td.Head.Name) {
			if y.pd.Base == nil || y.pd.Base.Conversions[fn] != fp {
				fns = append(fns, fn)
			}
		}
	}
	slices.Sort(fns)
	return strings.Join(slices.Compact(fns), ", ")
}

// promotedAtHead reports whether base's field of that Go name may still
// be on the wire at head, promoted through an inline embedded struct
// (model.TypeDiff.StillPromoted).
func promotedAtHead(td *model.TypeDiff, name string) bool {
	yes, maybe := td.StillPromoted(td.Base.Field(name).WireName())
	return yes || maybe != ""
}

// skewPV is one version's pair of a type VERSION_SKEW compares.
type skewPV struct {
	pd *model.PackageDiff
	td *model.TypeDiff
}

func (x skewPV) version() string { return x.pd.Version }

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
	var names []string
	for n := range byName {
		names = append(names, n)
	}
	// The name with more versions absorbs the other (ties by name), so the
	// result does not depend on map order.
	sort.Slice(names, func(i, j int) bool {
		if li, lj := len(byName[names[i]]), len(byName[names[j]]); li != lj {
			return li > lj
		}
		return names[i] < names[j]
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
		sort.Strings(join)
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

func checkSkew(c *Context, gd *model.GroupDiff) {
	// Struct types present at both revisions, by name, in package order.
	type pv = skewPV
	byName := map[string][]pv{}
	moved := map[*model.PackageDiff]map[string]bool{} // names of fields added or removed anywhere in the package
	for _, pd := range gd.Packages {
		if (pd.Base != nil && pd.Base.Deprecated) || (pd.Head != nil && pd.Head.Deprecated) {
			continue // a deprecated version is frozen: it does not get new fields
		}
		moved[pd] = map[string]bool{}
		for _, td := range pd.Types {
			for _, fd := range td.Fields {
				if fd.Base == nil || fd.Head == nil {
					f := fd.Head
					if f == nil {
						f = fd.Base
					}
					moved[pd][changeKey(fd.Base == nil, f.Name)] = true
					moved[pd][changeKey(fd.Base == nil, f.WireName())] = true
				}
			}
		}
		for _, td := range pd.Types {
			if td.Base != nil && td.Head != nil && !td.Renamed && td.Head.Kind == model.KindStruct {
				byName[td.Head.Name] = append(byName[td.Head.Name], pv{pd, td})
			}
		}
	}
	changes := false
	for _, m := range moved {
		changes = changes || len(m) > 0
	}
	if !changes {
		return // no field added or removed anywhere in the group: no skew
	}
	mergeByPath(c, byName)
	order := map[*model.PackageDiff]int{}
	for i, pd := range gd.Packages {
		order[pd] = i
	}
	for _, pvs := range byName {
		sort.SliceStable(pvs, func(i, j int) bool { return order[pvs[i].pd] < order[pvs[j].pd] })
	}
	var names []string
	for n, pvs := range byName {
		if len(pvs) >= 2 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	changed := changedFields{}
	reach := kindReach{}
	for _, typ := range names {
		pvs := byName[typ]
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
		var fnames []string
		for f := range fields {
			fnames = append(fnames, f)
		}
		sort.Strings(fnames)
		for _, fname := range fnames {
			for _, added := range []bool{true, false} {
				var got, missed []pv
				for _, x := range pvs {
					b, h := hasField(x.td.Base, fname), hasField(x.td.Head, fname)
					if !added && b && !h && promotedAtHead(x.td, fname) {
						continue // still on the wire, or may be: not removed from this version
					}
					if added && !b && h || !added && b && !h {
						got = append(got, x)
					}
				}
				if len(got) == 0 {
					continue
				}
				if len(got) == 1 && got[0].version() == "" && aligned[fname] {
					continue // the internal version renamed a field after an external one: Go only
				}
				before := hasField(got[0].td.Base, fname)
				wire := fname
				if f := changed.get(got[0].td, fname, added); f != nil {
					if ff := f.Head; ff != nil {
						wire = ff.WireName()
					} else if f.Base != nil {
						wire = f.Base.WireName()
					}
				}
				for _, x := range pvs {
					b, h := hasField(x.td.Base, fname), hasField(x.td.Head, fname)
					if b != before || h != before {
						continue
					}
					// The same change elsewhere in that version's shape (a
					// field a version keeps in a nested struct, such as
					// Device.Basic.BindsToNode against Device.BindsToNode).
					if moved[x.pd][changeKey(added, fname)] || moved[x.pd][changeKey(added, wire)] {
						continue
					}
					if added && reach.holds(x.pd, got[0], fname) {
						continue // a version that already had it elsewhere: a backport
					}
					if !reach.sharesKind(x, got[0]) {
						continue // same-named structs of different kinds: no conversion between them
					}
					missed = append(missed, x)
				}
				if c.VersionSkewPolicy(gd) == "newest" {
					missed = newestAllows(got, missed, added)
				}
				// A version whose hand-written conversion of the type this
				// change added or rewrote: its author handled the
				// difference (kubelet's credentialprovider v1alpha1 and
				// v1beta1 omit v1's service account token on purpose).
				var handled []pv
				var handledBy []string
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
				missed = slices.DeleteFunc(missed, func(x pv) bool {
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
						return true
					}
					if !added && conversionOptOut(x, fname) {
						handled = append(handled, x)
						handledBy = append(handledBy, "+k8s:conversion-gen=false on its field: not converted")
						return true
					}
					return false
				})
				if len(missed) == 0 && len(handled) == 0 {
					continue
				}
				label := func(xs []pv) string {
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
				fd := changed.get(first.td, fname, added)
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
				}
				if fd != nil {
					c.Field(fd, r)
				} else {
					c.Type(first.td, r)
				}
			}
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

// kindReach memoises, per package, the root kinds from which each struct
// type is reachable.
type kindReach map[*model.Package]map[string]map[string]bool

// of returns the root kinds that reach each struct type of p.
func (k kindReach) of(p *model.Package) map[string]map[string]bool {
	if m, ok := k[p]; ok {
		return m
	}
	m := map[string]map[string]bool{}
	for _, r := range p.Types {
		if !r.RootKind || strings.HasSuffix(r.Name, "List") {
			continue
		}
		seen := map[string]bool{r.Name: true}
		queue := []*model.Type{r}
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			if m[t.Name] == nil {
				m[t.Name] = map[string]bool{}
			}
			m[t.Name][r.Name] = true
			for _, f := range t.Fields {
				if ft := p.Type(model.LocalTypeName(f.Type)); ft != nil && ft.Kind == model.KindStruct && !seen[ft.Name] {
					seen[ft.Name] = true
					queue = append(queue, ft)
				}
			}
		}
	}
	k[p] = m
	return m
}

// sharesKind reports whether the structs of two versions can be converted
// into each other: some root kind reaches both (by name), or either is
// reached by no kind at all (then nothing says they differ).
// prometheus-operator's v1 HTTPConfig (of ServiceMonitor, PodMonitor,
// Probe) and v1alpha1 HTTPConfig (of ScrapeConfig) only share a name.
func (k kindReach) sharesKind(a, b skewPV) bool {
	if a.pd.Head == nil || b.pd.Head == nil {
		return true
	}
	ka, kb := k.of(a.pd.Head)[a.td.Head.Name], k.of(b.pd.Head)[b.td.Head.Name]
	if len(ka) == 0 || len(kb) == 0 {
		return true
	}
	for kind := range ka {
		if kb[kind] {
			return true
		}
	}
	return false
}

// qualifier matches the package qualifiers of a type expression.
var qualifier = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.`)

// holds reports whether version x already had, at base and at head, the
// field that version g added to its type fname, in another struct of a
// kind that also reaches g's type: the same json name and the same type
// but for package qualifiers (Cluster API's v1beta2 keeps
// KubeadmControlPlane's taints in spec.machineTemplate.spec, and a change
// adds them to v1beta1's spec.machineTemplate afterwards, a backport).
// Type names, not wire shapes: versions reshape their types (v1beta2's
// UnhealthyMachineCondition counts seconds where v1beta1's holds a
// duration) and conversions map them.
func (k kindReach) holds(x *model.PackageDiff, g skewPV, fname string) bool {
	f := g.td.Head.Field(fname)
	if f == nil || x.Base == nil || x.Head == nil {
		return false
	}
	kinds := k.of(g.pd.Head)[g.td.Head.Name]
	if len(kinds) == 0 {
		return false
	}
	wire, shape := f.WireName(), qualifier.ReplaceAllString(f.Type, "")
	has := func(p *model.Package) bool {
		reach := k.of(p)
		for _, t := range p.Types {
			if !slices.ContainsFunc(t.Fields, func(o *model.Field) bool {
				return o.WireName() == wire && qualifier.ReplaceAllString(o.Type, "") == shape
			}) {
				continue
			}
			for kind := range reach[t.Name] {
				if kinds[kind] {
					return true
				}
			}
		}
		return false
	}
	return has(x.Base) && has(x.Head)
}

var UnclassifiedChange = &Rule{
	ID:       "UNCLASSIFIED_CHANGE",
	Category: CatMeta,
	Severity: finding.Info,
	Last:     true,
	Summary:  "An API difference that no rule judged (so coverage gaps are visible, never silent).",
	Why:      "apicheck reports what it could not judge instead of staying silent about it.",
	Fix:      "Review the change by hand; report a rule gap if it matters.",
	Check: func(c *Context) {
		for _, n := range c.notes {
			c.Field(n.field, Report{Message: n.msg, Hint: "review by hand; add the type to a module that is downloaded (go mod download) to let apicheck resolve it"})
		}
		for fd, emb := range c.Diff.MaybeMovedFields() {
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, and %s now embeds %s inline, whose members could not be resolved "+
					"(module not in the module cache): whether the field moved into it and is still on the wire is unknown, "+
					"so the removal rules did not judge it", fd.Type.Name(), fd.Base.Name, fd.Type.Name(), emb),
				Hint: "review by hand; download the module (go mod download) to let apicheck resolve it",
			})
		}
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil {
					continue
				}
				for _, fd := range td.Fields {
					if fd.Base == nil || fd.Head == nil {
						continue
					}
					var open []string
					for _, a := range fd.Attrs {
						if a == model.AttrDeprecated || c.Judged(a) { // deprecation is documentation (release notes), not a contract change
							continue
						}
						if a == model.AttrOtherMarkers {
							open = append(open, markerChanges(contractOf(fd.Base).Unknown, contractOf(fd.Head).Unknown)...)
							continue
						}
						open = append(open, string(a))
					}
					if len(open) == 0 {
						continue
					}
					c.Field(fd, Report{
						Message: fmt.Sprintf("%s.%s changed (%s) and no rule judged it", td.Name(), fd.Name(), strings.Join(open, "; ")),
						Hint:    "review the change by hand",
					})
				}
			}
		}
	},
}

// typeDesc describes a type declaration in a few words: never a dump of
// a long interface or struct literal.
func typeDesc(t *model.Type) string {
	if t.Kind == model.KindStruct {
		return "struct"
	}
	u := t.UnderlyingIdentity()
	switch {
	case strings.HasPrefix(u, "interface{"):
		return "an interface (its method set changed)"
	case strings.HasPrefix(u, "struct{"):
		return "an unnamed struct"
	case strings.HasPrefix(u, "func("):
		return "a func type"
	case len(u) > 80:
		return u[:77] + "..."
	}
	return u
}

// markerChanges names the markers that differ, one "+key: a -> b" each.
func markerChanges(base, head []model.Marker) []string {
	values := func(ms []model.Marker) map[string][]string {
		out := map[string][]string{}
		for _, m := range ms {
			out[m.Key] = append(out[m.Key], m.Value)
		}
		return out
	}
	b, h := values(base), values(head)
	var keys []string
	for k := range b {
		keys = append(keys, k)
	}
	for k := range h {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	show := func(vs []string, ok bool) string {
		if !ok {
			return "absent"
		}
		return fmt.Sprintf("%q", strings.Join(vs, ", "))
	}
	var out []string
	for _, k := range keys {
		bv, bok := b[k]
		hv, hok := h[k]
		if bok && hok && strings.Join(bv, "\x00") == strings.Join(hv, "\x00") {
			continue
		}
		out = append(out, fmt.Sprintf("marker +%s: %s -> %s", k, show(bv, bok), show(hv, hok)))
	}
	return out
}

var VersionRemoved = &Rule{
	ID:       "VERSION_REMOVED",
	Uses:     []Input{InputManifests},
	Category: CatVersions,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Alpha:    finding.Info,
	Summary: "An API version package (or a whole group) present at base is gone at head: deleted, or no longer " +
		"declaring its group. A version whose every kind was marked deprecated at base is a warning (the removal " +
		"was announced); an alpha version in a profile that lets alpha APIs break is info. A group moved to another " +
		"directory with the same group name is not a removal, and a version that head serves, with every kind of it, " +
		"from another directory of the same group (moved or merged) is info, and so is a version that the CRD manifests " +
		"at base did not serve for any of its kinds (a conversion package, a leftover); a version whose every kind head's CRD " +
		"manifests still serve (its Go types moved to another module) is a warning; a version the release before base did not " +
		"have (added and removed within one release cycle) is info.",
	Why: "Every client and every stored object of that version stops working; with protobuf, clients still " +
		"hold its message definitions.",
	Fix: "Keep serving the version until its deprecation period is over; announce the removal by deprecating its kinds first.",
	Check: func(c *Context) {
		var groups []string // of the removed versions: their manifests are read in one pass
		for _, gd := range c.Diff.Groups {
			for _, pd := range gd.Packages {
				if pd.External() && pd.Base != nil && pd.Head == nil {
					groups = append(groups, pd.Base.GroupName)
				}
			}
		}
		loadManifests(c, groups)
		for _, gd := range c.Diff.Groups {
			for _, pd := range gd.Packages {
				if !pd.External() || pd.Base == nil || pd.Head != nil {
					continue
				}
				what := fmt.Sprintf("API version %s", pd.Base.Label())
				if gd.Base != nil && gd.Base.Name != "" {
					what = fmt.Sprintf("API version %s/%s", gd.Base.Name, pd.Version)
				}
				r := Report{
					Message: what + " was removed (" + pd.Base.Dir + ")",
					Hint:    "keep serving the version until its deprecation period is over",
				}
				if gd.Head == nil {
					r.Message = what + " was removed together with its group (" + pd.Base.Dir + ")"
				}
				if gd.Base != nil && gd.Base.Name != "" {
					// The same group version may still be served from
					// another directory: its kinds moved (Cluster API merged
					// exp/api/v1beta1 into api/core/v1beta1). Only kinds
					// that head serves nowhere are removed.
					if dirs, missing := servedElsewhere(c.Diff.Head, gd.Base.Name, pd.Base); len(dirs) > 0 {
						if len(missing) == 0 {
							c.Package(pd, versionPos(gd, pd), Report{
								Severity: finding.Info,
								Message: fmt.Sprintf("%s left %s; head still serves it, with every kind of it, from %s",
									what, pd.Base.Dir, strings.Join(dirs, ", ")),
							})
							continue
						}
						r.Message = fmt.Sprintf("%s left %s, and head serves it from %s without kind(s) %s",
							what, pd.Base.Dir, strings.Join(dirs, ", "), strings.Join(missing, ", "))
						r.Hint = "keep serving the kinds until their deprecation period is over"
					}
				}
				kinds := rootKinds(pd.Base)
				if why, ok := unservedKinds(c, c.Manifests(), pd.Base.GroupName, pd.Base, kinds); ok {
					r.Severity = finding.Info
					r.Message += "; " + why
					r.Hint = "Go clients referring to its types break; the API server did not serve the version at base"
				} else if why, ok := servedAtHead(c, pd.Base.GroupName, pd.Base, kinds, "Go package"); ok {
					r.Severity = finding.Warning
					r.Message += "; " + why
					r.Hint = "Go clients that import " + pd.Base.ImportPath + " break: tell them where the types went; if the manifests are stale, regenerate them (then this removes a served version)"
				} else if pd.Base.Deprecated {
					r.Severity = finding.Warning
					r.Message += "; every kind of it was deprecated at base, so the removal was announced"
					r.Hint = "confirm the deprecation period is over and the removal is in the release note"
				}
				// A version the release before base did not have was
				// never served by a release (external-secrets reverted
				// main's new v1 to v0.15's API).
				c.Package(pd, versionPos(gd, pd), c.unreleasedVersion(pd, r))
			}
		}
	},
}

// unservedKinds says why root kinds of base package p of group were not
// served at p's version at base: the CRD manifests at base define every
// one of them and none serves that version. A list kind (XList beside
// kind X) goes by X's manifest. ok is false when anything is unknown: no
// manifests in the run, a kind without a manifest, a version served. ms
// are the run's manifests: a rule's declared input (c.Manifests()), or
// what the ReleasedVersionOnly property reads.
func unservedKinds(c *Context, ms *Manifests, group string, p *model.Package, kinds []string) (why string, ok bool) {
	defined, served, files, ok := manifestsServe(c, ms, false, group, p, kinds, false)
	if !ok {
		return "", false
	}
	serves := "no version"
	if len(served) > 0 {
		serves = strings.Join(served, ", ") + " only"
	}
	return fmt.Sprintf("base did not serve %s/%s: the CRD manifests of %s at base (%s) serve %s",
		group, p.Version, strings.Join(defined, ", "), strings.Join(files, ", "), serves), true
}

// rootKinds are the names of p's root kinds, in p's order.
func rootKinds(p *model.Package) []string {
	var kinds []string
	for _, t := range p.Types {
		if t.RootKind {
			kinds = append(kinds, t.Name)
		}
	}
	return kinds
}

// servedAtHead says how head still serves the root kinds of base package
// p of group at p's version although what (the Go package or type) is
// gone: head's CRD manifests define every one of them and serve that
// version (the Go types moved out of the repository, as Kyverno's to its
// kyverno/api module). ok is false when anything is unknown or not served.
func servedAtHead(c *Context, group string, p *model.Package, kinds []string, what string) (why string, ok bool) {
	defined, _, files, ok := manifestsServe(c, c.Manifests(), true, group, p, kinds, true)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("head's CRD manifests of %s (%s) still serve %s/%s: the %s left the repository, not the API (unless the manifests are stale)",
		strings.Join(defined, ", "), strings.Join(files, ", "), group, p.Version, what), true
}

// loadManifests reads the CRD manifests of groups at base and head in one
// pass each (a lookup reads one group at a time otherwise).
func loadManifests(c *Context, groups []string) {
	if ms := c.Manifests(); ms != nil && len(groups) > 0 {
		ms.Base.Load(groups...)
		ms.Head.Load(groups...)
	}
}

// manifestsServe checks that the CRD manifests at base (at head with
// atHead) define every root kind of package p of group (a list kind,
// XList beside kind X, goes by X's) and that each serves p's version
// (want: every manifest of it) or none does (!want). It returns the kinds, the versions they
// serve and the manifests (at most maxListed named), sorted; ok is false
// when anything is unknown or differs: no manifests in the run, no group,
// no kinds, a kind without a manifest.
func manifestsServe(c *Context, ms *Manifests, atHead bool, group string, p *model.Package, kinds []string, want bool) (defined, served, files []string, ok bool) {
	if ms == nil || group == "" || len(kinds) == 0 {
		return nil, nil, nil, false
	}
	m, rev := ms.Base, "base"
	if atHead {
		m, rev = ms.Head, "head"
	}
	defer func() {
		if why := m.Unread(); why != "" {
			c.Note(fmt.Sprintf("the CRD manifests at %s were not read (%s): which versions of the kinds were served there is unknown", rev, why))
		}
	}()
	for _, k := range kinds {
		if base, isList := strings.CutSuffix(k, "List"); isList && base != "" && p.Type(base) != nil && p.Type(base).RootKind {
			k = base
		}
		if slices.Contains(defined, k) {
			continue
		}
		ks, ok := m.Kind(group, k)
		// Not served: no manifest serves it. Served (head still serving
		// what left the repository): every manifest does, so that a copy
		// not regenerated yet (a chart's) cannot hide a removal.
		if !ok || !want && slices.Contains(ks.Versions, p.Version) || want && !slices.Contains(ks.Everywhere, p.Version) {
			return nil, nil, nil, false
		}
		defined = append(defined, k)
		served = append(served, ks.Versions...)
		files = append(files, ks.Files...)
	}
	sort.Strings(served)
	sort.Strings(files)
	files = slices.Compact(files)
	if len(files) > maxListed {
		files = append(files[:maxListed:maxListed], fmt.Sprintf("and %d more", len(files)-maxListed))
	}
	return defined, slices.Compact(served), files, true
}

// servedElsewhere returns the directories of head's packages of the same
// group name and version as base package p, and the root kinds of p that
// none of them has.
func servedElsewhere(head *model.Model, group string, p *model.Package) (dirs, missing []string) {
	var pkgs []*model.Package
	for _, g := range head.Groups {
		if g.Name != group {
			continue
		}
		for _, hp := range g.Versions {
			if hp.Version == p.Version {
				pkgs = append(pkgs, hp)
				dirs = append(dirs, hp.Dir)
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	for _, t := range p.Types {
		if !t.RootKind {
			continue
		}
		if !slices.ContainsFunc(pkgs, func(hp *model.Package) bool { return hp.Type(t.Name) != nil }) {
			missing = append(missing, t.Name)
		}
	}
	sort.Strings(dirs)
	sort.Strings(missing)
	return dirs, missing
}

// versionPos is where a removed version is reported: a file of the group
// that head still has, else the version's first file at base.
func versionPos(gd *model.GroupDiff, pd *model.PackageDiff) model.Pos {
	if gd.Head != nil {
		for _, p := range gd.Head.Packages() {
			if len(p.Files) > 0 {
				return model.Pos{File: p.Files[0], Line: 1, Col: 1}
			}
		}
	}
	if len(pd.Base.Files) > 0 {
		return model.Pos{File: pd.Base.Files[0], Line: 1, Col: 1}
	}
	return model.Pos{File: pd.Base.Dir}
}
