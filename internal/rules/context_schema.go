package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// What the API server validates, requires and defaults of a field, beyond
// its Go tags: content without a schema (+kubebuilder:validation:Schemaless,
// CRD manifests without one), hand-written and generated CRD manifests that
// say otherwise, and whether the empty object validates.

// schemalessMarker marks a field whose content has no schema in the CRD
// (controller-gen writes an empty schema for it).
const schemalessMarker = "kubebuilder:validation:Schemaless"

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
	p, ms := pd.Head, c.Manifests()
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
	return fmt.Sprintf("the CRD manifests of %s at head (%s) give %s no schema: the API server validates, requires and defaults nothing in it",
		strings.Join(kinds, ", "), listed(files), p.Version)
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
// API server validates nothing of field fd, or handWrittenOptional that
// it does not require it, saying so.
func (c *Context) relaxNoSchema(fd *model.FieldDiff, r Report, sev finding.Severity) Report {
	return c.relaxTo(r, sev, func() (string, error) {
		if why := c.noSchema(fd); why != "" {
			return why, nil
		}
		return c.handWrittenOptional(fd), nil
	})
}

// handWrittenPlaces checks field fd at base (side 0) or head (1)
// against the CRD manifests of that revision, when they are hand-written:
// its group's policy has the schema validate (custom resources), no type
// or field of its package or of the kinds' packages carries a
// +kubebuilder: marker (the manifests are not generated from them), and
// at every place of its struct in the kinds that reach it the kind's
// manifests are hand-written (no controller-gen annotation, see
// crd.KindServed.HandWritten). holds is asked of each manifest's schema
// and the field's path there (json names from the object's root); ok is
// true when every answer is yes, with the places ("Kind a.b.c") and the
// manifests' files, listed.
func (c *Context) handWrittenPlaces(side int, fd *model.FieldDiff, holds func(s *crd.Schema, path []string) bool) (places, files string, ok bool) {
	return c.manifestPlaces(side, fd, false, holds)
}

// manifestPlaces is handWrittenPlaces, or with generated the same
// against CRD manifests that controller-gen generated from the Go
// packages (crd.KindServed.Generated): every manifest that defines a
// kind's version is generated, and the +kubebuilder markers are what
// they were generated from.
func (c *Context) manifestPlaces(side int, fd *model.FieldDiff, generated bool, holds func(s *crd.Schema, path []string) bool) (places, files string, ok bool) {
	pkg, t, f := fd.Type.Pkg.Base, fd.Type.Base, fd.Base
	if side == 1 {
		pkg, t, f = fd.Type.Pkg.Head, fd.Type.Head, fd.Head
	}
	ms := c.Manifests()
	if pkg == nil || t == nil || f == nil || ms == nil || !c.Policy(fd.Type.Pkg).SchemaValidates {
		return "", "", false
	}
	revision := [2]*crd.Manifests{ms.Base, ms.Head}[side]
	name := contractOf(f)
	if name.Inline || name.Name == "" || name.Name == "-" {
		return "", "", false
	}
	refs := c.refs(side)
	if !generated && refs.kubebuilderMarked(pkg.ImportPath) {
		return "", "", false
	}
	paths, ok := refs.pathsTo(pkg.ImportPath + "." + t.Name)
	if !ok {
		return "", "", false
	}
	var where, in []string
	for _, p := range paths {
		root := refs.types[p.root]
		rootPkg := refs.pkgs[strings.TrimSuffix(p.root, "."+root.Name)]
		if rootPkg == nil || rootPkg.GroupName == "" || rootPkg.Version == "" || !generated && refs.kubebuilderMarked(rootPkg.ImportPath) {
			return "", "", false
		}
		ks, ok := revision.KindFold(rootPkg.GroupName, root.Name)
		if !ok {
			return "", "", false
		}
		schemas, ok := ks.HandWritten(rootPkg.Version)
		if generated {
			schemas, ok = ks.Generated(rootPkg.Version)
		}
		if !ok {
			return "", "", false
		}
		path := append(slices.Clip(p.steps), name.Name)
		for _, s := range schemas {
			if !holds(s, path) {
				return "", "", false
			}
		}
		where = append(where, fmt.Sprintf("%s %s", root.Name, strings.Join(path, ".")))
		in = append(in, ks.Files...)
	}
	return listed(where), listed(in), true
}

// handWrittenOptional says why the API server does not require field
// fd at head although its Go form would be generated as required: the
// CRD manifests at head are hand-written (handWrittenPlaces) and none of
// them requires the field. "" otherwise.
func (c *Context) handWrittenOptional(fd *model.FieldDiff) string {
	where, files, ok := c.handWrittenPlaces(1, fd, func(s *crd.Schema, path []string) bool { return !s.Requires(path) })
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at head (%s) do not require %s: the API server accepts objects without it", files, where)
}

// generatedOptional says why the API server does not require field fd at
// head although it is marked required: the CRD manifests at head that
// controller-gen generated (manifestPlaces) describe the field wherever
// its kinds hold it, so they were generated with it, and none requires
// it. controller-gen before v0.16 lets omitempty win over
// +kubebuilder:validation:Required unless the package makes fields
// optional by default (Gatekeeper's Target.Code). "" otherwise.
func (c *Context) generatedOptional(fd *model.FieldDiff) string {
	where, files, ok := c.manifestPlaces(1, fd, true, func(s *crd.Schema, path []string) bool {
		return s.At(path) != nil && !s.Requires(path)
	})
	if !ok {
		return ""
	}
	return fmt.Sprintf("the CRD manifests at head, generated with the field (%s), do not require %s: the API server accepts objects without it", files, where)
}

// emptyStructValid says why the empty object that Go clients send for new
// field fd validates, where the profile takes that as the convention
// only (Policy.EmptyStructConvention): fd is an optional struct value
// (not a pointer) of a struct declared in the repository, neither the
// field nor its type has a minProperties or CEL rule, and no member of
// the struct (through inlined members too) is required. "" otherwise.
func (c *Context) emptyStructValid(fd *model.FieldDiff) string {
	f, pkg := fd.Head, fd.Type.Pkg.Head
	if f == nil || pkg == nil || f.ValueKind != model.KindStructValue || f.Nillable != model.NotNillable ||
		!c.Policy(fd.Type.Pkg).EmptyStructConvention {
		return ""
	}
	ct := contractOf(f)
	if ct.Presence != model.Optional || !emptyObjectAllowed(ct.Validation) {
		return ""
	}
	if !membersOptional(c.refs(1), qualified(pkg.ImportPath, f.TypeID), 0) {
		return ""
	}
	return fmt.Sprintf("its zero value is the empty object {}, which validates: no member of %s is required", f.Type)
}
