package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldRemovedFromServedVersion is FIELD_REMOVED_FROM_SERVED_VERSION.
var FieldRemovedFromServedVersion = &Rule{
	ID:       "FIELD_REMOVED_FROM_SERVED_VERSION",
	Category: CatRemoval,
	Severity: finding.Error,
	// Alpha versions and alpha fields may change or go away.
	Alpha: finding.Info,
	// The policy is enforced between releases: a field no release shipped,
	// or a version under development, reached no client.
	ReleasedOnly:        true,
	ReleasedVersionOnly: true,
	// Gardener removes fields in two steps (FIELD_REMOVED_STILL_USED,
	// FIELD_REMOVAL_NOT_RELEASED); a component configuration is read from
	// files, not served.
	Relax: offIn(nil, model.ProfileGardener, model.ProfileComponentConfig),
	Uses:  []Input{InputManifests},
	Summary: "A field was removed from an external version that the API server serves (kubernetes and crd profiles): " +
		"a beta or GA version, unless the CRD manifests at base serve that version for none of the kinds that reach " +
		"the field's struct, or each of those kinds is marked `+k8s:prerelease-lifecycle-gen:removed` or " +
		"`+kubebuilder:unservedversion` (info). " +
		"A removal from an alpha version, or of an alpha field, is info.",
	Why: "Kubernetes' deprecation policy (rule 1): API elements may only be removed by incrementing the version of the " +
		"API group; a field of a served beta or GA version stays for as long as that version is served, deprecated or " +
		"not. Clients that still send it lose it (the API server prunes or drops unknown fields), and stored objects " +
		"lose its value the next time they are written. Only alpha versions and alpha fields may go away without notice.",
	Fix: "Keep the field in this version (mark it deprecated and stop using it); drop it in a new version of the API " +
		"group, converting between the versions.",
	Before: "// v1\ntype WidgetSpec struct {\n\tSize *int32 `json:\"size,omitempty\"`\n}",
	After: "// v1\ntype WidgetSpec struct {\n\tSize *int32 `json:\"size,omitempty\"`\n\t// Color is ignored.\n\t//\n" +
		"\t// Deprecated: v2 has no color.\n\t// +optional\n\tColor *string `json:\"color,omitempty\"`\n}",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		var groups []string // of the removals: their manifests are read in one pass
		for _, fd := range fields {
			if p := fd.Type.Pkg.Base; p != nil && p.GroupName != "" {
				groups = append(groups, p.GroupName)
			}
		}
		loadManifests(c, groups)
		for _, fd := range fields {
			pd := fd.Type.Pkg
			gv := groupVersion(pd.Base)
			r := Report{
				Message: fmt.Sprintf("%s.%s was removed from %s", fd.Type.Name(), fd.Base.Name, gv),
				Hint:    "keep the field in this version (deprecate it); remove it in a new version of the API group",
				Related: []finding.Related{related("base", fd.Base.Pos)},
			}
			switch served, why := removalServed(c, fd); {
			case !served:
				r.Severity = finding.Info
				r.Message += "; " + why
				r.Hint = "Go clients that set the field break; the API server did not serve it at base"
			case why != "":
				r.Message += ", which " + why
			default:
				r.Message += ", " + maturityName(pd.Base.Maturity)
			}
			c.Field(fd, r)
		}
	},
}

// groupVersion names a version package as clients know it:
// "widgets.example.com/v1", or "v1" for the core group.
func groupVersion(p *model.Package) string {
	if p.GroupName == "" {
		return p.Version
	}
	return p.GroupName + "/" + p.Version
}

// maturityName is a version of maturity m as the messages say it.
func maturityName(m model.Maturity) string {
	switch m {
	case model.Alpha:
		return "an alpha version"
	case model.Beta:
		return "a beta version"
	}
	return "a GA version"
}

// removalServed says whether the API server served, at base, the field
// that fd removed: the kinds that reach its struct at base, by version.
// A kind marked +k8s:prerelease-lifecycle-gen:removed is no longer
// served, one marked +kubebuilder:unservedversion is not served at its
// version; otherwise the CRD manifests at base say whether they serve the
// kind's version, and where they say nothing (no manifests, a kind they
// do not define, a struct no kind reaches) the version is served. served
// is false when no kind that reaches the struct is served, with why; a
// served removal's why names the manifests that serve it ("" when none
// say so).
func removalServed(c *Context, fd *model.FieldDiff) (served bool, why string) {
	kinds := reachingKinds(c, fd.Type)
	if len(kinds) == 0 {
		return true, ""
	}
	var gone, unserved, serving []string
	for _, k := range kinds {
		if v, ok := k.t.Markers.Get("k8s:prerelease-lifecycle-gen:removed"); ok && v != "" {
			gone = append(gone, fmt.Sprintf("kind %s is no longer served since %s (+k8s:prerelease-lifecycle-gen:removed=%s)", k.t.Name, v, v))
			continue
		}
		if k.t.Markers.Has("kubebuilder:unservedversion") {
			gone = append(gone, fmt.Sprintf("kind %s is not served at %s (+kubebuilder:unservedversion)", k.t.Name, k.pkg.Version))
			continue
		}
		if why, ok := unservedKinds(c, c.Manifests(), k.pkg.GroupName, k.pkg, []string{k.t.Name}); ok {
			unserved = append(unserved, why)
			continue
		}
		if ms := c.Manifests(); ms != nil {
			if ks, ok := ms.Base.Kind(k.pkg.GroupName, k.t.Name); ok && slices.Contains(ks.Versions, k.pkg.Version) {
				serving = append(serving, fmt.Sprintf("the CRD manifests of %s at base serve (%s)", k.t.Name, listed(ks.Files)))
				continue
			}
		}
		return true, "" // served, as far as anything says
	}
	if len(serving) > 0 {
		return true, strings.Join(slices.Compact(serving), "; ")
	}
	return false, strings.Join(slices.Compact(append(gone, unserved...)), "; ")
}

// reachingKinds are the root kinds that reach base's struct of td at
// base (through any package of the model), with their packages, sorted
// by package and name; none when no kind reaches it, or too many paths
// do to tell.
func reachingKinds(c *Context, td *model.TypeDiff) []pkgType {
	if td.Base == nil || td.Pkg.Base == nil {
		return nil
	}
	refs := c.refs(0)
	paths, ok := refs.pathsTo(td.Pkg.Base.ImportPath + "." + td.Base.Name)
	if !ok {
		return nil
	}
	var roots []string
	for _, p := range paths {
		roots = append(roots, p.root)
	}
	slices.Sort(roots)
	var out []pkgType
	for _, id := range slices.Compact(roots) {
		i := strings.LastIndex(id, ".")
		pkg, t := refs.pkgs[id[:i]], refs.types[id]
		if pkg == nil || t == nil || pkg.Version == "" {
			continue // an internal version's kind: no client is served it
		}
		out = append(out, pkgType{pkg, t})
	}
	return out
}
