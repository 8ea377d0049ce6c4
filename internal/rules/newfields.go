package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

var NewFieldNotPointer = &Rule{
	ID:       "NEW_FIELD_NOT_POINTER",
	Alpha:    finding.Info,
	Category: CatNewFields,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Summary: "A field added to an existing API struct has a non-nillable type. The kubernetes profile accepts an optional " +
		"string, number or bool with omitempty (its zero value means unset); the crd profile accepts a value whose " +
		"validation rules out the zero value, and a struct with omitzero (kube-api-linter's optionalfields).",
	Why: "Objects stored before the field existed have no value for it. With a value type the server " +
		"cannot tell \"unset\" from the zero value, defaulting cannot apply, and old clients that round-trip " +
		"the object write the zero value back.",
	Fix:    "Use a pointer (or a slice/map) for the new field: `Foo *string`.",
	Before: "Replicas int32 `json:\"replicas,omitempty\"`",
	After:  "Replicas *int32 `json:\"replicas,omitempty\"`",
	Check: func(c *Context) {
		unknown := 0
		defer func() {
			if unknown > 0 {
				c.Note(fmt.Sprintf("%s could not judge %d new field(s) whose type it could not resolve; "+
					"they are reported as UNCLASSIFIED_CHANGE (info) and do not fail the check", c.Rule().ID, unknown))
			}
		}()
		for fd := range newFieldsInScope(c.Diff) {
			f := fd.Head
			switch f.Nillable {
			case model.NotNillable:
				if acceptedValue(c.Policy(fd.Type.Pkg), f) {
					continue
				}
				why := ""
				if f.NillableWhy != "" && f.NillableWhy != f.Type {
					why = " (" + f.NillableWhy + ")"
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("new field %s.%s has non-nillable type %s%s", fd.Type.Name(), f.Name, f.Type, why),
					Hint:    fmt.Sprintf("make it a pointer: %s *%s", f.Name, f.Type),
				})
			case model.NillUnknown:
				unknown++
				c.CannotJudge(fd, fmt.Sprintf("cannot tell whether the type %s of new field %s.%s is nillable: %s", f.Type, fd.Type.Name(), f.Name, f.NillableWhy))
			}
		}
	},
}

var NewFieldNotOptional = &Rule{
	ID:       "NEW_FIELD_NOT_OPTIONAL",
	Alpha:    finding.Info,
	Category: CatNewFields,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Summary: "A field added to an existing API struct has no `+optional` marker (a warning when omitempty makes it optional " +
		"in the schema; info then under the kubernetes profile, where the schema is the contract and the marker documentation).",
	Why: "Existing clients do not send the new field; if it is required, every create or update from " +
		"them fails validation, and generated OpenAPI marks it required.",
	Fix:    "Add `// +optional` to the field's doc comment (or `+k8s:optional`).",
	Before: "// Foo is ...\nFoo *string `json:\"foo,omitempty\"`",
	After:  "// Foo is ...\n// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range newFieldsInScope(c.Diff) {
			f := fd.Head
			switch {
			case f.Required():
				c.Field(fd, Report{
					Message: fmt.Sprintf("new field %s.%s is marked required: a required new field breaks every existing client that does not send it", fd.Type.Name(), f.Name),
					Hint:    "replace +required with // +optional and make the field a pointer with omitempty",
				})
			case !f.Optional() && contractOf(f).Presence == model.Optional:
				// omitempty already makes it optional in the schema: the
				// marker the checklist asks for is missing, nothing else.
				r := Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("new field %s.%s has no // +optional marker (its omitempty makes it optional in the schema)", fd.Type.Name(), f.Name),
					Hint:     "add // +optional to the field's doc comment",
				}
				if !c.Policy(fd.Type.Pkg).OptionalMarker {
					r.Severity = finding.Info
					r.Message += "; the marker would document it, the contract is unchanged"
				}
				c.Field(fd, r)
			case !f.Optional():
				c.Field(fd, Report{
					Message: fmt.Sprintf("new field %s.%s has no // +optional marker", fd.Type.Name(), f.Name),
					Hint:    "add // +optional to the field's doc comment",
				})
			}
		}
	},
}

var NewFieldNoOmitempty = &Rule{
	ID:       "NEW_FIELD_NO_OMITEMPTY",
	Alpha:    finding.Info,
	Category: CatNewFields,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Summary:  "A field added to an existing API struct has no `omitempty` in its json tag.",
	Why: "Without omitempty the field is serialised as null or a zero value by every client, so objects " +
		"written by new clients differ from old ones and old servers reject or misread them.",
	Fix:    "Add `,omitempty` to the json tag (or `,omitzero`).",
	Before: "Foo *string `json:\"foo\"`",
	After:  "Foo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range newFieldsInScope(c.Diff) {
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
			c.Field(fd, Report{Message: msg, Hint: hint})
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
				if (td.Base != nil || addedToCopy(td, f)) && InNewFieldScope(td, f) {
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

// copiedFromSibling reports whether a field of a struct in a version
// package new in head already existed, with the same json tag, in the
// same-named struct of another version of the group at base, or (a member
// the copy moved between structs, as addedToCopies matches them) in any
// struct of a version at base: a new version copied from a sibling does
// not make its fields new.
func copiedFromSibling(d *model.Diff, td *model.TypeDiff, f *model.Field) bool {
	pd := td.Pkg
	if pd.Base != nil || pd.Group.Base == nil {
		return false
	}
	for _, p := range pd.Group.Base.Packages() {
		if t := p.Type(td.Name()); t != nil {
			if bf := t.Field(f.Name); bf != nil && bf.JSON == f.JSON {
				return true
			}
		}
	}
	if td.Head == nil || !siblingsAtBase(pd.Group).structs[td.Head.Name] {
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

// acceptedValue reports a new non-nillable field that a profile's
// conventions accept.
func acceptedValue(pol Policy, f *model.Field) bool {
	c := contractOf(f)
	if c.Presence != model.Optional {
		return false // a required new field is NEW_FIELD_NOT_OPTIONAL's
	}
	scalar := f.ValueKind == model.KindString || f.ValueKind == model.KindNumber || f.ValueKind == model.KindBool
	if pol.OptionalScalarValues && scalar && c.Omit {
		return true
	}
	if pol.ZeroRuledOut {
		if f.ValueKind == model.KindStructValue && f.JSON.OmitZero {
			return true
		}
		if scalar && c.Omit && zeroRuledOut(f.ValueKind, c.Validation) {
			return true
		}
	}
	return false
}

// zeroRuledOut reports validation that rejects a kind's zero value: a
// minimum length or minimum above zero, an enum without the zero value,
// a pattern that needs at least one character.
func zeroRuledOut(k model.ValueKind, cs []model.Constraint) bool {
	for _, c := range cs {
		switch c.Kind {
		case "minLength":
			if k == model.KindString && c.Value != "0" {
				return true
			}
		case "minimum", "exclusiveMinimum":
			if k == model.KindNumber && !strings.HasPrefix(c.Value, "-") && (c.Value != "0" || c.Kind == "exclusiveMinimum") {
				return true
			}
		case "enum":
			if k == model.KindString && !slices.Contains(strings.Split(c.Value, ";"), "") {
				return true
			}
		}
	}
	return false
}
