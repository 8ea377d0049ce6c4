package rules

import (
	"github.com/apicheck/apicheck/internal/model"
)

// A field's contract (model.Contract, what its tags and markers make of it
// on the wire), and what it says of the field's unset value: the zero value a
// default may equal, the null a client sends, the null a custom resource's API
// server prunes. The new-field rules and FIELD_BECAME_REQUIRED ask these.

// contractOf is a field's contract (computed by the scanner).
func contractOf(f *model.Field) *model.Contract {
	if f.Contract != nil {
		return f.Contract
	}
	return &model.Contract{Name: f.WireName(), Inline: f.Inline(), Type: f.Type}
}

// isZeroDefault reports a default that equals the zero value of a field
// whose type cannot be nil (so an absent value already decodes to it).
func isZeroDefault(v string, f *model.Field) bool {
	if f.Nillable != model.NotNillable {
		return false
	}
	switch f.ValueKind {
	case model.KindString:
		return v == `""` || v == ""
	case model.KindNumber:
		return v == "0" || v == "0.0"
	case model.KindBool:
		return v == "false"
	}
	return false
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

// nullWhenEmpty are the types outside the repository whose MarshalJSON
// writes their zero value as JSON null, and whose UnmarshalJSON reads null
// as the zero value.
var nullWhenEmpty = map[string]bool{
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                       true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                          true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                     true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":      true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON": true,
}

// emptyIsNull reports whether a field's empty value is written as JSON
// null: a nil pointer or interface, or the zero value of a type that
// marshals it as null (Gardener's ManagedSeed went from
// *runtime.RawExtension to runtime.RawExtension, omitempty kept). Where
// the API server decodes into Go types (Policy.NullIsAbsent), that is
// the absent field it was.
func emptyIsNull(f *model.Field) bool {
	switch f.ValueKind {
	case model.KindPointer, model.KindInterface:
		return true
	case model.KindStructValue:
		return nullWhenEmpty[f.TypeID]
	}
	return false
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
