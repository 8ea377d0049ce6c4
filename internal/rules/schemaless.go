package rules

import (
	"fmt"
	"slices"
	"strings"

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
	p, ms := pd.Head, c.analyses.Manifests
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
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) > maxListed {
		files = append(files[:maxListed:maxListed], fmt.Sprintf("and %d more", len(files)-maxListed))
	}
	return fmt.Sprintf("the CRD manifests of %s at head (%s) give %s no schema: the API server validates, requires and defaults nothing in it",
		strings.Join(kinds, ", "), strings.Join(files, ", "), p.Version)
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
	p, t, ms := fd.Type.Pkg.Head, fd.Type.Head, c.analyses.Manifests
	if t.RootKind && fd.Head.WireName() == "spec" && ms != nil && fd.Type.Pkg.External() && p.GroupName != "" {
		if files, ok := kindWithoutSchema(ms, p, t.Name); ok {
			return fmt.Sprintf("the CRD manifests of %s at head (%s) give its spec at %s no schema: the API server validates, requires and defaults nothing in it",
				t.Name, strings.Join(files, ", "), p.Version)
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
// API server validates nothing of field fd, saying so.
func (c *Context) relaxNoSchema(fd *model.FieldDiff, r Report, sev finding.Severity) Report {
	return c.relaxTo(r, sev, func() (string, error) { return c.noSchema(fd), nil })
}
