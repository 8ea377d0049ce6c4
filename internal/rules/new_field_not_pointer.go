package rules

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// NewFieldNotPointer is NEW_FIELD_NOT_POINTER.
var NewFieldNotPointer = &Rule{
	ID:                  "NEW_FIELD_NOT_POINTER",
	Fixable:             true,
	Uses:                []Input{InputManifests},
	ReleasedVersionOnly: true,
	ReleasedStructOnly:  true,
	Alpha:               finding.Info,
	Category:            CatNewFields,
	Severity:            finding.Error,
	Relax:               conventionInFiles,
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
		"where the API server validates nothing (no schema: see NEW_FIELD_NOT_OPTIONAL). Where the repository's kube-api-linter configuration " +
		"(.golangci-kal.yml, or kubeapilinter's settings in .golangci.yml) runs optionalfields on the field's file, the crd profile follows its " +
		"pointers.preference: Always (its default) makes a value that validation or omitzero lets pass a warning too; where the configuration does not run " +
		"optionalfields there, the warnings about that convention are info. At most a warning in a component configuration (Gardener's checklist " +
		"applies there too, but a convention break is no client break)." +
		serverWrittenSummary,
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
				pol := c.newFieldPolicy(fd)
				accepted, valueOK := acceptedValue(pol, f)
				if accepted && (valueOK == "" || pol.Linter == nil || !pol.Linter.PointersAlways) {
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
				convention := true // a warning below: the wire is safe, the pointer is the convention
				if accepted {
					// kube-api-linter's optionalfields accepts the value
					// with pointers.preference WhenRequired; the
					// repository's configuration prefers pointers always.
					r.Severity = finding.Warning
					r.Message += "; " + valueOK + ", so the wire is safe, but kube-api-linter's optionalfields, which " + pol.Linter.File +
						" enables with pointers.preference Always, asks for a pointer"
				} else if pol.ScalarValuesConvention && optionalScalar(f) {
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
				} else {
					convention = false
				}
				if convention && !accepted && pol.Linter != nil && !pol.Linter.OptionalFields {
					// The pointer is optionalfields' convention, which the
					// repository's configuration does not run here.
					r.Severity = finding.Info
					r.Message += "; " + pol.Linter.File + " does not run kube-api-linter's optionalfields on this file"
				}
				c.Field(fd, c.relaxServerWritten(fd, c.relaxNoSchema(fd, r, finding.Warning)))
			case model.NillUnknown:
				unknown++
				c.CannotJudge(fd, fmt.Sprintf("cannot tell whether the type %s of new field %s.%s is nillable: %s", f.Type, fd.Type.Name(), f.Name, f.NillableWhy))
			}
		}
	},
}

// acceptedValue reports a new non-nillable field that a profile's
// conventions accept; valueOK says why when kube-api-linter's
// optionalfields accepts it only with pointers.preference WhenRequired
// (its zero value ruled out, or a struct with omitzero).
func acceptedValue(pol Policy, f *model.Field) (accepted bool, valueOK string) {
	c := contractOf(f)
	if pol.RequiredValues && f.Required() {
		return true, "" // required at all: NEW_FIELD_NOT_OPTIONAL's; a pointer is no fix
	}
	if c.Presence != model.Optional {
		return false, "" // a required new field is NEW_FIELD_NOT_OPTIONAL's
	}
	if pol.OptionalScalarValues && optionalScalar(f) {
		return true, ""
	}
	if pol.ZeroRuledOut {
		if f.ValueKind == model.KindStructValue && f.JSON.OmitZero {
			return true, "omitzero omits its empty object"
		}
		if scalarKind(f) && c.Omit && zeroRuledOut(f.ValueKind, c.Validation) {
			return true, "its validation rules out its zero value, which omitempty omits"
		}
	}
	return false, ""
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
