package rules

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

var NewFieldNotPointer = &Rule{
	ID:                  "NEW_FIELD_NOT_POINTER",
	Uses:                []Input{InputManifests},
	ReleasedVersionOnly: true,
	ReleasedStructOnly:  true,
	Alpha:               finding.Info,
	Category:            CatNewFields,
	Severity:            finding.Error,
	Relax:               relaxedToInfo,
	Summary: "A field added to an existing API struct has a non-nillable type (the new-field rules skip a struct that joins the API " +
		"with the change: no kind reached it at base, one does at head; its fields are as new as a new type's). The kubernetes profile accepts an optional " +
		"string, number or bool with omitempty (its zero value means unset); the crd profile accepts a value whose " +
		"validation rules out the zero value, a struct with omitzero (kube-api-linter's optionalfields), and a field " +
		"marked +required (its requiredfields; NEW_FIELD_NOT_OPTIONAL reports that it is required), and reports another " +
		"optional string, number or bool with omitempty, and any optional member of a kind's status (which only the controller " +
		"that ships with the CRD writes), and an optional struct value whose empty object validates (no member required, no minProperties or " +
		"CEL rule on it: clients send {}, which the API server accepts and defaults member by member; of the types outside the repository, " +
		"corev1's ResourceRequirements, Affinity, SecurityContext and PodSecurityContext, whose empty object means unset), " +
		"and, under the crd profile, a field whose default is its zero value (the API server fills it in for clients that do not send it), " +
		"as a warning (the wire is safe; the pointer is the convention); so is a field of a custom resource " +
		"where the API server validates nothing (no schema: see NEW_FIELD_NOT_OPTIONAL).",
	Why: "Objects stored before the field existed have no value for it. With a value type the server " +
		"cannot tell \"unset\" from the zero value, defaulting cannot apply, and old clients that round-trip " +
		"the object write the zero value back.",
	Fix:    "Use a pointer (or a slice/map) for the new field: `Foo *string`.",
	Before: "Replicas int32 `json:\"replicas,omitempty\"`",
	After:  "Replicas *int32 `json:\"replicas,omitempty\"`",
	Check: func(c *Context) {
		unknown, maybePromoted := 0, 0
		defer func() {
			if unknown > 0 {
				c.NoteCount(c.Rule().ID+" could not judge %d new field(s) whose type it could not resolve; "+
					"they are reported as UNCLASSIFIED_CHANGE (info) and do not fail the check", unknown)
			}
			if maybePromoted > 0 {
				c.NoteCount("the new-field rules could not judge %d added field(s) of structs that stopped embedding a type "+
					"whose members could not be resolved; they are reported as UNCLASSIFIED_CHANGE (info) and do not fail the check", maybePromoted)
			}
		}()
		for fd := range c.Diff.AddedFields() {
			if emb := unresolvedDroppedEmbedding(fd.Type); emb != "" && InNewFieldScope(fd.Type, fd.Head) {
				maybePromoted++
				c.CannotJudge(fd, fmt.Sprintf("%s.%s may be a member of %s, which %s embedded inline at base and no longer does; "+
					"its members could not be resolved (module not in the module cache), so whether the field is new is unknown",
					fd.Type.Name(), fd.Head.Name, emb, fd.Type.Name()))
			}
		}
		for fd := range newFieldsInScope(c) {
			f := fd.Head
			switch f.Nillable {
			case model.NotNillable:
				pol := c.Policy(fd.Type.Pkg)
				if acceptedValue(pol, f) {
					continue
				}
				why := ""
				if f.NillableWhy != "" && f.NillableWhy != f.Type {
					why = " (" + f.NillableWhy + ")"
				}
				r := Report{
					Message: fmt.Sprintf("new field %s.%s has non-nillable type %s%s", fd.Type.Name(), f.Name, f.Type, why),
					Hint:    fmt.Sprintf("make it a pointer: %s *%s", f.Name, f.Type),
				}
				if pol.ScalarValuesConvention && optionalScalar(f) {
					r.Severity = finding.Warning
					r.Message += "; with omitempty its zero value is never sent, so the wire is safe, but kube-api-linter's optionalfields asks for a pointer unless validation rules out the zero value"
				} else if pol.StatusByController && contractOf(f).Presence == model.Optional && c.inStatus(fd) {
					// Only the controller writes status, and it ships with
					// the CRD: no other client sends the zero value.
					r.Severity = finding.Warning
					r.Message += "; it is optional status, which only the controller that ships with the CRD writes, so no other client sends its zero value (kube-api-linter's optionalfields still asks for a pointer)"
				} else if why := c.emptyStructValid(fd); why != "" {
					r.Severity = finding.Warning
					r.Message += "; " + why + ", so the wire is safe, but kube-api-linter's optionalfields asks for a pointer (or omitzero)"
				} else if d := zeroDefault(pol, f); d != "" {
					r.Severity = finding.Warning
					r.Message += "; its default (" + d + ") is its zero value, which the API server fills in for clients that do not send it: unset and zero are one value, so the wire is safe (kube-api-linter's optionalfields still asks for a pointer)"
				}
				c.Field(fd, c.relaxNoSchema(fd, r, finding.Warning))
			case model.NillUnknown:
				unknown++
				c.CannotJudge(fd, fmt.Sprintf("cannot tell whether the type %s of new field %s.%s is nillable: %s", f.Type, fd.Type.Name(), f.Name, f.NillableWhy))
			}
		}
	},
}

var NewFieldNotOptional = &Rule{
	ID:                  "NEW_FIELD_NOT_OPTIONAL",
	Uses:                []Input{InputManifests},
	ReleasedVersionOnly: true,
	ReleasedStructOnly:  true,
	Alpha:               finding.Info,
	Category:            CatNewFields,
	Severity:            finding.Error,
	Relax:               relaxedToInfo,
	Summary: "A field added to an existing API struct has no `+optional` marker (a warning when omitempty, or controller-gen's " +
		"package default +kubebuilder:validation:Optional, makes it optional in the schema; info then under the kubernetes profile, where the schema is the contract and the marker documentation; " +
		"a warning under the crd profile when the field has a default, which the API server fills in before it validates, " +
		"whether or not it is marked required). Info for a field of a custom resource where the API server validates nothing: a struct " +
		"reached only through fields marked `+kubebuilder:validation:Schemaless`, or a version whose CRD manifests at head give no kind of " +
		"the package a schema for spec (apiextensions.k8s.io/v1beta1 without validation, or spec keeping unknown fields). Info too " +
		"where the CRD manifests are hand-written (no controller-gen annotation, and no +kubebuilder marker in the Go packages) and " +
		"none of them requires the field where its kinds hold it: the manifests, not the Go markers, say what the API server requires. " +
		"A warning for a field marked required that the CRD manifests at head, generated by controller-gen with the field, do not require " +
		"(before v0.16 controller-gen lets omitempty win over +kubebuilder:validation:Required): the API server accepts objects without it, " +
		"but a newer generator would require it.",
	Why: "Existing clients do not send the new field; if it is required, every create or update from " +
		"them fails validation, and generated OpenAPI marks it required.",
	Fix:    "Add `// +optional` to the field's doc comment (or `+k8s:optional`).",
	Before: "// Foo is ...\nFoo *string `json:\"foo,omitempty\"`",
	After:  "// Foo is ...\n// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range newFieldsInScope(c) {
			f := fd.Head
			emit := func(r Report) { c.Field(fd, c.relaxNoSchema(fd, r, finding.Info)) }
			genWhy := "" // a required field the generated manifests do not require
			if f.Required() {
				genWhy = c.generatedOptional(fd)
			}
			switch {
			case f.Required() && contractOf(f).Default != nil && c.Policy(fd.Type.Pkg).SchemaDefaults:
				// Required, but the API server fills in the default
				// before it validates: old clients that do not send it
				// pass (CAPO's OpenStackIdentityReference.Type).
				emit(Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("new field %s.%s is marked required; its default (%s) is filled in for clients that do not send it, so none breaks",
						fd.Type.Name(), f.Name, *contractOf(f).Default),
					Hint: "replace the required marker with // +optional: a defaulted field is optional to its clients",
				})
			case genWhy != "":
				emit(Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("new field %s.%s is marked required, but %s (omitempty wins over the marker in controller-gen before v0.16); "+
						"generated by a controller-gen that honours the marker, the manifests would require it and break every existing client that does not send it",
						fd.Type.Name(), f.Name, genWhy),
					Hint: "replace the required marker with // +optional, which is what the manifests say",
				})
			case f.Required():
				emit(Report{
					Message: fmt.Sprintf("new field %s.%s is marked required: a required new field breaks every existing client that does not send it", fd.Type.Name(), f.Name),
					Hint:    "replace +required with // +optional and make the field a pointer with omitempty",
				})
			case !f.Optional() && contractOf(f).Presence == model.Optional:
				// omitempty already makes it optional in the schema: the
				// marker the checklist asks for is missing, nothing else.
				why := "its omitempty makes it optional in the schema"
				if !f.Omits() {
					why = "its package's +kubebuilder:validation:Optional makes it optional in the schema"
				}
				r := Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("new field %s.%s has no // +optional marker (%s)", fd.Type.Name(), f.Name, why),
					Hint:     "add // +optional to the field's doc comment",
				}
				if !c.Policy(fd.Type.Pkg).OptionalMarker {
					r.Severity = finding.Info
					r.Message += "; the marker would document it, the contract is unchanged"
				}
				emit(r)
			case !f.Optional() && contractOf(f).Default != nil && c.Policy(fd.Type.Pkg).SchemaDefaults:
				// Required in the schema, but the API server fills in the
				// default first: old clients that do not send it pass.
				emit(Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("new field %s.%s has no // +optional marker, so the schema requires it; its default (%s) is filled in for clients that do not send it, so none breaks",
						fd.Type.Name(), f.Name, *contractOf(f).Default),
					Hint: "add // +optional to the field's doc comment: a defaulted field is optional to its clients",
				})
			case !f.Optional():
				emit(Report{
					Message: fmt.Sprintf("new field %s.%s has no // +optional marker", fd.Type.Name(), f.Name),
					Hint:    "add // +optional to the field's doc comment",
				})
			}
		}
	},
}

var NewFieldNoOmitempty = &Rule{
	ID:                  "NEW_FIELD_NO_OMITEMPTY",
	Uses:                []Input{InputManifests},
	ReleasedVersionOnly: true,
	ReleasedStructOnly:  true,
	Alpha:               finding.Info,
	Category:            CatNewFields,
	Severity:            finding.Error,
	Relax:               relaxedToInfo,
	Summary: "A field added to an existing API struct has no `omitempty` in its json tag (a warning under the crd profile " +
		"for a member of a kind's status whose zero value is not null: only the controller that ships with the CRD writes it; for an " +
		"optional struct value whose empty object validates, which encoding/json sends with or without omitempty (see NEW_FIELD_NOT_POINTER); for a field " +
		"whose default the API server fills in under the crd profile when what Go clients send for it unset is that default (its zero value) or null (a pointer, " +
		"which the server replaces with the default); for an optional field that Go writes as null when unset (a nil pointer, slice or map) and that is neither " +
		"nullable nor defaulted, under the crd profile: the API server prunes that null before it validates; and where " +
		"the API server validates nothing, see NEW_FIELD_NOT_OPTIONAL).",
	Why: "Without omitempty the field is serialised as null or a zero value by every client, so objects " +
		"written by new clients differ from old ones and old servers reject or misread them.",
	Fix:    "Add `,omitempty` to the json tag (or `,omitzero`).",
	Before: "Foo *string `json:\"foo\"`",
	After:  "Foo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range newFieldsInScope(c) {
			f := fd.Head
			if f.Omits() {
				continue
			}
			hint := fmt.Sprintf("use `json:\"%s,omitempty\"`", f.WireName())
			msg := fmt.Sprintf("new field %s.%s has no omitempty in its json tag", fd.Type.Name(), f.Name)
			if !f.JSON.Present {
				msg = fmt.Sprintf("new field %s.%s has no json tag (serialised as %q without omitempty)", fd.Type.Name(), f.Name, f.Name)
				hint = fmt.Sprintf("add `json:\"%s,omitempty\"`", model.JSONNameFor(f.Name))
			}
			if f.ValueKind == model.KindStructValue && f.JSON.Present {
				// encoding/json never omits a struct value for omitempty:
				// the fix is a pointer, or omitzero.
				msg += " (omitempty alone would not omit it: encoding/json never omits a struct value)"
				hint = fmt.Sprintf("make it a pointer with `json:\"%s,omitempty\"`, or use `json:\"%s,omitzero\"`", f.WireName(), f.WireName())
			}
			r := Report{Message: msg, Hint: hint}
			statusValue := f.Nillable == model.NotNillable && !emptyIsNull(f) && c.Policy(fd.Type.Pkg).StatusByController && c.inStatus(fd)
			if why := c.emptyStructValid(fd); why != "" && !statusValue {
				r.Severity = finding.Warning
				r.Message += "; " + why + ", so the wire is safe"
			} else if d := contractOf(f).Default; unsetBecomesDefault(c.Policy(fd.Type.Pkg), f) {
				// What a Go client sends for an unset field is what the
				// API server makes of an absent one: its zero value, the
				// default itself, or null, which the server replaces with
				// the default (Vault Secrets Operator's Destination.Overwrite).
				r.Severity = finding.Warning
				if emptyIsNull(f) {
					r.Message += fmt.Sprintf("; Go clients send null for it when unset, which the API server replaces with its default (%s), so the wire is safe", *d)
				} else {
					r.Message += fmt.Sprintf("; Go clients send its zero value when unset, which is its default (%s), so the wire is safe", *d)
				}
			} else if c.Policy(fd.Type.Pkg).SchemaValidates && prunedNull(f) {
				// A custom resource's API server prunes a null it may
				// neither keep nor default before it validates (Kubernetes
				// 1.20 and later): what a Go client sends for an unset
				// field is the absent field (KubeVirt HCO's optional
				// mediatedDeviceTypes []string).
				r.Severity = finding.Warning
				r.Message += "; Go clients send null for it when unset, which the API server prunes before it validates " +
					"(a custom resource's optional field that is neither nullable nor defaulted), so the wire is safe"
			} else if statusValue {
				// Only the controller writes status, and it ships with
				// the CRD; its zero value is a valid JSON value of the
				// field's type.
				r.Severity = finding.Warning
				r.Message += "; it is status, which only the controller that ships with the CRD writes, and its zero value is a value of the field's type"
			}
			c.Field(fd, c.relaxNoSchema(fd, r, finding.Warning))
		}
	},
}

var OptionalWithoutOmitempty = &Rule{
	ID:       "OPTIONAL_WITHOUT_OMITEMPTY",
	Category: CatNewFields,
	Severity: finding.Warning,
	Relax:    offIn(relaxedToInfo, model.ProfileKubernetes),
	Judges:   []model.Attr{model.AttrOptional, model.AttrOmitEmpty},
	Summary: "A new field marked `+optional` has no `omitempty`/`omitzero` (fields of new struct types included; not a field " +
		"that only became optional, not a struct value, where omitempty omits nothing, and not a field a new version " +
		"package copied from a sibling version).",
	Why:    "An optional field that is always serialised cannot be told apart from an explicit zero value.",
	Fix:    "Add `,omitempty` (or `,omitzero`) to the json tag.",
	Before: "// +optional\nFoo *string `json:\"foo\"`",
	After:  "// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			for _, fd := range td.Fields {
				f := fd.Head
				if f == nil || fd.Base != nil || !f.Optional() || f.Omits() || f.Inline() || f.JSON.Name == "-" {
					continue
				}
				if f.ValueKind == model.KindStructValue || f.ValueKind == model.KindArray {
					continue // omitempty would omit nothing; omitzero is a style choice
				}
				// Fields added to existing structs are NEW_FIELD_NO_OMITEMPTY's.
				if (td.Base != nil || addedToCopy(td, f)) && InNewFieldScope(td, f) || td.Base != nil && promotedAtBase(td, f) {
					continue
				}
				if copiedFromSibling(c.Diff, td, f) {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("optional field %s.%s has no omitempty in its json tag", td.Name(), f.Name),
					Hint:    fmt.Sprintf("use `json:\"%s,omitempty\"`", f.WireName()),
				})
			}
		}
	},
}

// copiedFromSibling reports whether a field of a struct new in head
// already existed, with the same json tag, in the same-named struct of
// another package of the API group at base (a new version copied from a
// sibling version, or a struct that moved to another directory of the
// same group version: Cluster API merged exp/api/v1beta1 into
// api/core/v1beta1), or, for a struct of a version package new in head
// (a member the copy moved between structs, as addedToCopies matches
// them), in any struct of a version at base: a copy does not make its
// fields new.
func copiedFromSibling(d *model.Diff, td *model.TypeDiff, f *model.Field) bool {
	pd := td.Pkg
	if td.Base != nil || pd.Group.Base == nil && pd.Group.Head == nil {
		return false
	}
	var groups []*model.Group
	if pd.Group.Base != nil {
		groups = append(groups, pd.Group.Base)
	}
	if pd.Group.Head != nil && pd.Group.Head.Name != "" && d.Base != nil {
		name := pd.Group.Head.Name
		for _, g := range d.Base.Groups {
			if g.Name == name && g != pd.Group.Base {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		for _, p := range g.Packages() {
			if pd.Base != nil && p == pd.Base {
				continue // the struct is new in its own package
			}
			if t := p.Type(td.Name()); t != nil {
				if bf := t.Field(f.Name); bf != nil && bf.JSON == f.JSON {
					return true
				}
			}
		}
	}
	if pd.Group.Base == nil || td.Head == nil || !siblingsAtBase(pd.Group).structs[td.Head.Name] {
		return false
	}
	for _, p := range pd.Group.Base.Versions {
		for _, t := range p.Types {
			if bf := t.Field(f.Name); bf != nil && bf.JSON == f.JSON {
				return true
			}
		}
	}
	return false
}

// scalarKind reports a string, number or bool.
func scalarKind(f *model.Field) bool {
	return f.ValueKind == model.KindString || f.ValueKind == model.KindNumber || f.ValueKind == model.KindBool
}

// optionalScalar reports an optional string, number or bool that
// encoding/json omits when zero.
func optionalScalar(f *model.Field) bool {
	c := contractOf(f)
	return scalarKind(f) && c.Omit && c.Presence == model.Optional
}

// zeroDefault returns the default of non-nillable field f when the API
// server fills it in (pol.SchemaDefaults) and it is f's zero value, ""
// otherwise: then a client that sends the zero value and one that sends
// nothing store the same object.
func zeroDefault(pol Policy, f *model.Field) string {
	d := contractOf(f).Default
	if d == nil || !pol.SchemaDefaults || !isZeroDefault(*d, f) {
		return ""
	}
	return *d
}

// unsetBecomesDefault reports a field whose default the API server
// fills in (pol.SchemaDefaults) where what a Go client sends for it unset
// ends up as that default: null (a nil pointer's empty value), which the
// server replaces with the default, or the zero value, which is the
// default.
func unsetBecomesDefault(pol Policy, f *model.Field) bool {
	d := contractOf(f).Default
	return d != nil && pol.SchemaDefaults && (emptyIsNull(f) || isZeroDefault(*d, f))
}

// acceptedValue reports a new non-nillable field that a profile's
// conventions accept.
func acceptedValue(pol Policy, f *model.Field) bool {
	c := contractOf(f)
	if pol.RequiredValues && f.Required() {
		return true // required at all: NEW_FIELD_NOT_OPTIONAL's; a pointer is no fix
	}
	if c.Presence != model.Optional {
		return false // a required new field is NEW_FIELD_NOT_OPTIONAL's
	}
	if pol.OptionalScalarValues && optionalScalar(f) {
		return true
	}
	if pol.ZeroRuledOut {
		if f.ValueKind == model.KindStructValue && f.JSON.OmitZero {
			return true
		}
		if scalarKind(f) && c.Omit && zeroRuledOut(f.ValueKind, c.Validation) {
			return true
		}
	}
	return false
}

// zeroRuledOut reports validation that rejects a kind's zero value: a
// minimum length above zero, an enum without the zero value, a minimum
// above zero or a maximum below it (or a bound of zero made exclusive by
// +kubebuilder:validation:ExclusiveMinimum/ExclusiveMaximum, which are
// flags on the bound in OpenAPI v3.0).
func zeroRuledOut(k model.ValueKind, cs []model.Constraint) bool {
	var exclMin, exclMax bool
	var minimum, maximum *big.Rat
	for _, c := range cs {
		switch c.Kind {
		case "minLength":
			if k == model.KindString && c.Value != "0" {
				return true
			}
		case "enum":
			if k == model.KindString && !slices.Contains(strings.Split(c.Value, ";"), "") {
				return true
			}
		case "minimum", "maximum":
			if r, ok := new(big.Rat).SetString(c.Value); ok {
				if c.Kind == "minimum" {
					minimum = r
				} else {
					maximum = r
				}
			}
		case "exclusiveMinimum":
			exclMin = c.Value != "false"
		case "exclusiveMaximum":
			exclMax = c.Value != "false"
		}
	}
	if k != model.KindNumber {
		return false
	}
	if minimum != nil && (minimum.Sign() > 0 || minimum.Sign() == 0 && exclMin) {
		return true
	}
	return maximum != nil && (maximum.Sign() < 0 || maximum.Sign() == 0 && exclMax)
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

// emptyObjectAllowed reports constraints that leave {} valid: no
// minProperties above zero and no CEL rule (which may reject it).
func emptyObjectAllowed(cs []model.Constraint) bool {
	for _, k := range cs {
		switch k.Kind {
		case "rule":
			return false
		case "minProperties":
			if k.Value != "0" {
				return false
			}
		}
	}
	return true
}

// membersOptional reports whether struct id of the repository exists and
// has no required member, inlined members' members included, and no
// minProperties or CEL rule of its own.
func membersOptional(refs *typeRefs, id string, depth int) bool {
	rejects, unknown := emptyObjectRejects(refs, id, false, depth)
	return len(rejects) == 0 && len(unknown) == 0
}

// prunedNull reports an optional field whose unset value Go writes as
// null (a nil pointer, slice, map or interface, or a type that marshals
// its zero value as null) and that is neither nullable nor defaulted:
// the API server of a custom resource prunes that null.
func prunedNull(f *model.Field) bool {
	c := contractOf(f)
	if c.Presence != model.Optional || c.Default != nil || f.Markers.Has("nullable") || f.Markers.Has("kubebuilder:validation:Nullable") {
		return false
	}
	return emptyIsNull(f) || f.ValueKind == model.KindSlice || f.ValueKind == model.KindMap
}

// emptyMeansUnset are the well-known structs outside the repository whose
// schema requires no member, and whose empty object means what their
// absence does (no requests or limits, no affinity, the default security
// settings). Not a selector (an empty LabelSelector selects everything),
// a reference, a probe or a claim template, where an empty object says
// something an absent one does not.
var emptyMeansUnset = map[string]bool{
	"k8s.io/api/core/v1.ResourceRequirements": true,
	"k8s.io/api/core/v1.Affinity":             true,
	"k8s.io/api/core/v1.SecurityContext":      true,
	"k8s.io/api/core/v1.PodSecurityContext":   true,
}

// emptyObjectRejects lists what may reject the empty object {} as a value
// of struct id of the repository: its required members (`required "name"`,
// inlined members' included; with defaults, not those the schema
// defaults), and "a minProperties rule" or "a CEL rule" of its own;
// unknown lists the types it could not read (declared outside the
// repository, not a struct, skipped by the scan, or nested too deep).
// None for the well-known types of emptyMeansUnset.
func emptyObjectRejects(refs *typeRefs, id string, defaults bool, depth int) (rejects, unknown []string) {
	if emptyMeansUnset[id] {
		return nil, nil
	}
	t := refs.types[id]
	if t == nil || t.Kind != model.KindStruct || depth > 8 {
		return nil, []string{id}
	}
	for _, m := range t.Markers {
		switch {
		case strings.HasPrefix(m.Key, "kubebuilder:validation:XValidation"):
			rejects = append(rejects, "a CEL rule")
		case m.Key == "kubebuilder:validation:MinProperties" && m.Value != "0":
			rejects = append(rejects, "a minProperties rule")
		}
	}
	for _, m := range t.Fields {
		ct := contractOf(m)
		switch {
		case ct.Name == "-":
		case ct.Inline:
			ip := id[:max(strings.LastIndex(id, "."), 0)] // the struct's package
			r, u := emptyObjectRejects(refs, qualified(ip, strings.TrimPrefix(m.TypeID, "*")), defaults, depth+1)
			rejects, unknown = append(rejects, r...), append(unknown, u...)
		case ct.Presence != model.Optional && !(defaults && ct.Default != nil):
			rejects = append(rejects, "required "+strconv.Quote(ct.Name))
		}
	}
	return rejects, unknown
}
