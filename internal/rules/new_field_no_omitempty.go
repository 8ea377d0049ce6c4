package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// NewFieldNoOmitempty is NEW_FIELD_NO_OMITEMPTY.
var NewFieldNoOmitempty = &Rule{
	ID:                  "NEW_FIELD_NO_OMITEMPTY",
	Fixable:             true,
	Uses:                []Input{InputManifests},
	ReleasedVersionOnly: true,
	ReleasedStructOnly:  true,
	Alpha:               finding.Info,
	Category:            CatNewFields,
	Severity:            finding.Error,
	Relax:               conventionInFiles,
	Summary: "A field added to an existing API struct has no `omitempty` in its json tag (a warning under the crd profile " +
		"for a member of a kind's status whose zero value is not null: only the controller that ships with the CRD writes it; for an " +
		"optional struct value whose empty object validates, which encoding/json sends with or without omitempty (see NEW_FIELD_NOT_POINTER); for a field " +
		"whose default the API server fills in under the crd profile when what Go clients send for it unset is that default (its zero value) or null (a pointer, " +
		"which the server replaces with the default); for an optional field that Go writes as null when unset (a nil pointer, slice or map) and that is neither " +
		"nullable nor defaulted, under the crd profile: the API server prunes that null before it validates; and where " +
		"the API server validates nothing, see NEW_FIELD_NOT_OPTIONAL). At most a warning in a component configuration (Gardener's checklist " +
		"applies there too, but a convention break is no client break)." +
		serverWrittenSummary,
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
			c.Field(fd, c.relaxServerWritten(fd, c.relaxNoSchema(fd, r, finding.Warning)))
		}
	},
}
