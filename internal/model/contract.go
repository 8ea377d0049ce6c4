package model

// Contract is the effective wire contract of a field: what the API
// server, server-side apply, kube-openapi and protobuf clients see of it.
// The diff compares contracts, so a text change that leaves the contract
// as it was (a list marker that states the default, an import alias
// renamed, +required on a field that was already required) is no change.
// internal/contract computes it from the field's syntax; docs/contracts.md
// is the table "text form → effective contract".
type Contract struct {
	// Name is the JSON name the field is serialised under: "" when its
	// members are inlined into the parent, "-" when encoding/json skips it.
	Name string `json:"name"`
	// Inline is true for an untagged embedded struct, json:",inline" or an
	// embedded field with an empty json name.
	Inline bool `json:"inline,omitempty"`
	// Type is the field's type by identity (Field.TypeID).
	Type string `json:"type"`
	// Presence is how the OpenAPI schema marks the field.
	Presence Presence `json:"presence"`
	// Omit is true when encoding/json leaves the field out of an object
	// whose value is empty: omitempty on a pointer, slice, map, string,
	// number or bool, or omitzero. omitempty on a struct value omits
	// nothing.
	Omit bool `json:"omit,omitempty"`
	// Quoted is true when the value travels as a JSON string: the
	// json:",string" option on a string, number or bool (or a pointer to
	// one); encoding/json ignores the option on other types.
	Quoted bool `json:"quoted,omitempty"`
	// List is the list semantics server-side apply uses; nil for a field
	// that is not a list (a []byte is a string on the wire).
	List *ListSemantics `json:"list,omitempty"`
	// PatchStrategy and PatchMergeKey are the strategic-merge-patch
	// metadata (struct tag or +patchStrategy/+patchMergeKey marker).
	PatchStrategy string `json:"patchStrategy,omitempty"`
	PatchMergeKey string `json:"patchMergeKey,omitempty"`
	// Proto is the protobuf number, wire type and label (nil without a
	// protobuf tag).
	Proto *ProtoWire `json:"protobuf,omitempty"`
	// Default is the default value (+default, +kubebuilder:default,
	// +k8s:default), normalized when it is JSON; nil without one.
	Default *string `json:"default,omitempty"`
	// DefaultJSON is Default as the API server applies it: compact JSON
	// with sorted keys, controller-gen's literal syntax ({k: v}, {a, b},
	// a bare word) read as values; "" when it reads as no value. Two
	// defaults with the same DefaultJSON are the same default.
	DefaultJSON string `json:"defaultJSON,omitempty"`
	// Validation are the schema constraints of the field and of its
	// package-local named type, sorted by kind.
	Validation []Constraint `json:"validation,omitempty"`
	// Unknown are markers no normalization understands; when they change,
	// the change is reported as unclassified, naming the marker.
	Unknown []Marker `json:"unknownMarkers,omitempty"`
	// Conflicts are contradictory forms on the field (e.g. +listType=map
	// without +listMapKey), each naming both sources.
	Conflicts []string `json:"conflicts,omitempty"`
}

// Presence is whether a field must be set.
type Presence string

const (
	Optional Presence = "optional"
	Required Presence = "required"
)

// ListSemantics is how server-side apply merges a list.
type ListSemantics struct {
	// Type is "atomic", "set" or "map".
	Type string `json:"type"`
	// Keys are the keys of a map list.
	Keys []string `json:"keys,omitempty"`
	// From says where the semantics come from: "marker", "patch strategy"
	// or "default" (a list with neither).
	From string `json:"from"`
}

// ProtoWire is the part of a protobuf tag that protobuf clients see.
type ProtoWire struct {
	Number int    `json:"number"`
	Wire   string `json:"wire"`
	Label  string `json:"label"`
}

// Constraint is one validation constraint of an OpenAPI schema.
type Constraint struct {
	// Kind is the schema keyword: minimum, maximum, exclusiveMinimum,
	// exclusiveMaximum, minLength, maxLength, minItems, maxItems,
	// minProperties, maxProperties, pattern, format, enum, uniqueItems,
	// rule (CEL), immutable.
	Kind string `json:"kind"`
	// Value is the normalized value (numbers in canonical form, enum
	// values sorted and joined by ";").
	Value string `json:"value"`
	// Marker is the marker that states it, for messages.
	Marker string `json:"marker"`
}

// ContractAttrs lists the attributes in which two contracts differ, in a
// fixed order. renames maps package-local type names renamed by the
// change (old → new).
func ContractAttrs(b, h *Contract, renames map[string]string) []Attr {
	var out []Attr
	add := func(cond bool, a Attr) {
		if cond {
			out = append(out, a)
		}
	}
	add(b.Name != h.Name && !b.Inline && !h.Inline, AttrJSONName)
	add(b.Inline != h.Inline, AttrInline)
	add(b.Omit != h.Omit, AttrOmitEmpty)
	add(b.Quoted != h.Quoted, AttrQuoted)
	switch {
	case (b.Proto == nil) != (h.Proto == nil):
		add(true, AttrProtoPresence)
	case b.Proto != nil:
		add(b.Proto.Number != h.Proto.Number, AttrProtoNumber)
		add(b.Proto.Wire != h.Proto.Wire, AttrProtoWire)
		add(b.Proto.Label != h.Proto.Label, AttrProtoLabel)
	}
	add(RenameType(b.Type, renames) != h.Type, AttrGoType)
	add(b.Presence != h.Presence, AttrOptional)
	add(!sameDefault(b, h), AttrDefault)
	add(b.PatchStrategy != h.PatchStrategy, AttrPatchStrategy)
	add(b.PatchMergeKey != h.PatchMergeKey, AttrPatchMergeKey)
	add(!sameList(b.List, h.List), AttrListType)
	add(!sameConstraints(b.Validation, h.Validation), AttrValidation)
	add(!sameMarkers(b.Unknown, h.Unknown), AttrOtherMarkers)
	return out
}

func sameDefault(b, h *Contract) bool {
	if b.Default == nil || h.Default == nil {
		return b.Default == h.Default
	}
	if b.DefaultJSON != "" && h.DefaultJSON != "" {
		return b.DefaultJSON == h.DefaultJSON
	}
	return *b.Default == *h.Default
}

func sameList(a, b *ListSemantics) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Type != b.Type || len(a.Keys) != len(b.Keys) {
		return false
	}
	for i := range a.Keys {
		if a.Keys[i] != b.Keys[i] {
			return false
		}
	}
	return true
}

func sameConstraints(a, b []Constraint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}

func sameMarkers(a, b []Marker) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
