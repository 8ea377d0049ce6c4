// Package contract computes the effective wire contract of every field
// (model.Contract) from its syntax: the json tag, the protobuf tag, the
// markers of the field and of its type, and the resolved value kind of
// its type. It is the one place that knows how kube-openapi, server-side
// apply, strategic merge patch, controller-gen and encoding/json read
// those forms; the diff and the rules only compare contracts.
//
// docs/contracts.md documents every row of "text form → contract".
package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// Normalize fills the Contract of every field of the models' packages,
// their groups', the shared and the external ones (the contract step of
// a scan): the models side by side, each package once. A group one model
// took from an earlier one (scan.Reuse) is the same package, filled in
// with the earlier model. A panic is an error (par.Do).
func Normalize(models ...*model.Model) error {
	seen := map[*model.Package]bool{}
	own := make([][]*model.Package, len(models))
	for i, m := range models {
		add := func(ps []*model.Package) {
			for _, p := range ps {
				if !seen[p] {
					seen[p] = true
					own[i] = append(own[i], p)
				}
			}
		}
		for _, g := range m.Groups {
			add(g.Packages())
		}
		add(m.Shared)
		add(m.External)
	}
	return par.Do(len(models), func(i int) error {
		NormalizePackages(own[i])
		return nil
	})
}

// NormalizePackages fills the Contract of every field of pkgs.
func NormalizePackages(pkgs []*model.Package) {
	for _, p := range pkgs {
		for _, t := range p.Types {
			list := isListKind(t)
			for _, f := range t.Fields {
				f.Contract = Field(f, p, list)
				if t.CustomJSON {
					customJSON(f.Contract)
				}
			}
		}
	}
}

// CustomJSONName is the json name of every field of a struct whose
// MarshalJSON or UnmarshalJSON method decides its JSON form.
const CustomJSONName = "(custom JSON)"

// customJSON drops from c what the json tags of a field of a struct with
// its own JSON methods would say: the methods decide the JSON form (and
// the OpenAPI schema, which such types declare themselves), so a tag
// change is no wire change (apiextensions' JSON.Raw gained json:"-" in
// v0.27.0). The protobuf and Go type parts stay.
func customJSON(c *model.Contract) {
	c.Name, c.Inline, c.Omit, c.Quoted, c.Presence = CustomJSONName, false, false, false, model.Optional
}

// isListKind reports whether t is the list type of a kind (FooList with
// Items); its Items field is exempt from list-semantics markers.
func isListKind(t *model.Type) bool {
	return t.RootKind && strings.HasSuffix(t.Name, "List") && t.Field("Items") != nil
}

// Field computes the contract of one field of package p. inListKind says
// the field's struct is a *List kind.
func Field(f *model.Field, p *model.Package, inListKind bool) *model.Contract {
	c := &model.Contract{Type: f.TypeID}
	if c.Type == "" {
		c.Type = f.Type
	}
	c.Inline = f.Inline()
	if !c.Inline {
		c.Name = f.WireName()
	}
	c.Omit = f.JSON.OmitZero || (f.JSON.OmitEmpty && f.ValueKind != model.KindStructValue && f.ValueKind != model.KindArray)
	c.Quoted = f.JSON.String && quotable(f, p)
	if !c.Inline {
		c.Presence = presence(f, p) // an inline field's members carry their own
	}
	if f.Proto != nil {
		c.Proto = &model.ProtoWire{Number: f.Proto.Number, Wire: f.Proto.Wire, Label: model.NormLabel(f.Proto.Label)}
	}
	c.PatchStrategy, c.PatchMergeKey = patch(f, c)
	c.List = listSemantics(f, p, c, inListKind)
	c.Default = defaultValue(f.Markers)
	c.DefaultJSON = defaultJSON(c.Default)
	var typeMarkers model.Markers
	if t := p.Type(model.LocalTypeName(f.Type)); t != nil && t.Kind == model.KindOther && !strings.ContainsAny(strings.TrimPrefix(f.Type, "*"), "*[]") {
		typeMarkers = t.Markers // the named type's schema is the field's (through a pointer too)
	}
	c.Validation = constraints(f.Markers, typeMarkers)
	c.Unknown = unknownMarkers(f.Markers)
	return c
}

// quotable reports a field encoding/json applies the ",string" option
// to: a string, number or bool, or a pointer to one (a pointer to a
// package-local named type is followed to its declaration).
func quotable(f *model.Field, p *model.Package) bool {
	switch f.ValueKind {
	case model.KindString, model.KindNumber, model.KindBool:
		return true
	case model.KindPointer:
	default:
		return false
	}
	t := f.TypeID
	if t == "" {
		t = f.Type
	}
	elem, ok := strings.CutPrefix(t, "*")
	if !ok {
		return false
	}
	if nt := p.Type(elem); nt != nil && nt.Kind == model.KindOther && !nt.Alias {
		elem = nt.Underlying
	}
	switch elem {
	case "string", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64":
		return true
	}
	return false
}

// presence is how kube-openapi and controller-gen mark the field: an
// explicit required marker wins; otherwise +optional (in any spelling),
// omitempty or omitzero make it optional, and so does controller-gen's
// package default (+kubebuilder:validation:Optional, p.DefaultOptional);
// everything else is required.
func presence(f *model.Field, p *model.Package) model.Presence {
	if f.Required() {
		return model.Required
	}
	if f.Optional() || f.JSON.OmitEmpty || f.JSON.OmitZero || p != nil && p.DefaultOptional {
		return model.Optional
	}
	return model.Required
}

// patch returns the effective strategic-merge-patch metadata: the struct
// tag, else the marker; the strategy's parts sorted ("retainKeys,merge"
// and "merge,retainKeys" are one strategy).
func patch(f *model.Field, c *model.Contract) (strategy, key string) {
	strategy = normStrategy(f.EffectivePatchStrategy())
	key = f.EffectivePatchMergeKey()
	// The struct tag is what strategic merge patch reads, the marker what
	// kube-openapi publishes: when both are written they must agree.
	if mv, ok := f.Markers.Get("patchStrategy"); ok && f.PatchStrategy != "" && normStrategy(mv) != strategy {
		c.Conflicts = append(c.Conflicts, fmt.Sprintf("struct tag patchStrategy:%q disagrees with marker +patchStrategy=%s", f.PatchStrategy, mv))
	}
	if mv, ok := f.Markers.Get("patchMergeKey"); ok && f.PatchMergeKey != "" && mv != f.PatchMergeKey {
		c.Conflicts = append(c.Conflicts, fmt.Sprintf("struct tag patchMergeKey:%q disagrees with marker +patchMergeKey=%s", f.PatchMergeKey, mv))
	}
	if key != "" && !strings.Contains(strategy, "merge") {
		src := "marker +patchMergeKey"
		if f.PatchMergeKey != "" {
			src = "struct tag patchMergeKey"
		}
		without := "no patchStrategy"
		if strategy != "" {
			without = fmt.Sprintf("patchStrategy %q", strategy)
		}
		c.Conflicts = append(c.Conflicts, fmt.Sprintf("patchMergeKey %q without patchStrategy merge (%s; %s)", key, src, without))
	}
	return strategy, key
}

// normStrategy is a patch strategy with its parts trimmed and sorted
// ("retainKeys,merge" and "merge, retainKeys" are one strategy).
func normStrategy(s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// isList reports whether the field is a list on the wire: a slice or
// array whose element is not byte ([]byte is a base64 string).
func isList(f *model.Field, p *model.Package) bool {
	t := f.TypeID
	if t == "" {
		t = f.Type
	}
	t = strings.TrimPrefix(t, "*")
	// A named slice of the package (type CidrBlocks []string) is a list.
	for range 4 {
		nt := p.Type(t)
		if nt == nil || nt.Kind != model.KindOther || nt.Alias {
			break
		}
		t = nt.UnderlyingIdentity()
	}
	if !strings.HasPrefix(t, "[") {
		// A named slice of another package (v2beta2's History became
		// v2.Snapshots in Flux): the scanner followed it to a slice. A
		// byte slice is a base64 string and json.RawMessage raw JSON.
		return p.Type(t) == nil && f.ValueKind == model.KindSlice && !strings.HasPrefix(f.NillableWhy, model.ByteSlice) &&
			t != "encoding/json.RawMessage"
	}
	i := strings.Index(t, "]")
	elem := t[i+1:]
	return elem != "byte" && elem != "uint8"
}

// listSemantics is the list type server-side apply uses: the +listType
// marker (with +listMapKey), else what strategic merge patch implies
// (merge with a key is a map, merge on scalars a set), else atomic.
// Items of a *List kind is exempt (nil).
func listSemantics(f *model.Field, p *model.Package, c *model.Contract, inListKind bool) *model.ListSemantics {
	if !isList(f, p) || (inListKind && f.Name == "Items") {
		return nil
	}
	lt, hasLT := markerValue(f.Markers, "listType", "k8s:listType")
	if forms := listTypeForms(f.Markers); len(forms) > 1 {
		c.Conflicts = append(c.Conflicts, "list type written twice with different values: "+strings.Join(forms, " and "))
	}
	keys := markerValues(f.Markers, "listMapKey", "k8s:listMapKey")
	sort.Strings(keys)
	keys = slices.Compact(keys)
	if hasLT {
		l := &model.ListSemantics{Type: lt, From: "marker"}
		switch lt {
		case "map":
			l.Keys = keys
			if len(keys) == 0 {
				c.Conflicts = append(c.Conflicts, "+listType=map without +listMapKey")
			}
		case "atomic", "set":
			// +k8s:unique=map with +k8s:listMapKey names the keys that
			// declarative validation keeps unique; the list stays atomic.
			_, uniqueByKey := markerValue(f.Markers, "k8s:unique")
			if len(keys) > 0 && !uniqueByKey {
				c.Conflicts = append(c.Conflicts, fmt.Sprintf("+listMapKey on a +listType=%s list", lt))
			}
		default:
			c.Conflicts = append(c.Conflicts, fmt.Sprintf("unknown +listType=%s", lt))
		}
		if c.PatchMergeKey != "" && lt == "map" && len(keys) > 0 && !slices.Contains(keys, c.PatchMergeKey) {
			c.Conflicts = append(c.Conflicts, fmt.Sprintf("patchMergeKey %q is not one of +listMapKey %s", c.PatchMergeKey, strings.Join(keys, ",")))
		}
		return l
	}
	if len(keys) > 0 {
		c.Conflicts = append(c.Conflicts, "+listMapKey without +listType=map")
	}
	if strings.Contains(c.PatchStrategy, "merge") {
		if c.PatchMergeKey != "" {
			return &model.ListSemantics{Type: "map", Keys: []string{c.PatchMergeKey}, From: "patch strategy"}
		}
		return &model.ListSemantics{Type: "set", From: "patch strategy"}
	}
	return &model.ListSemantics{Type: "atomic", From: "default"}
}

// defaultValue is the default marker's value; JSON values are compacted
// so that spacing does not matter.
func defaultValue(m model.Markers) *string {
	v, ok := markerValue(m, "default", "kubebuilder:default", "k8s:default")
	if !ok {
		return nil
	}
	v = strings.TrimSpace(v)
	var buf bytes.Buffer
	if json.Valid([]byte(v)) && json.Compact(&buf, []byte(v)) == nil {
		v = buf.String()
	}
	return &v
}

// defaultJSON is the value of a default (defaultValue) as the API server
// applies it (canonicalJSON); "" without one or when it reads as no value.
func defaultJSON(v *string) string {
	if v == nil {
		return ""
	}
	return canonicalJSON(*v)
}

// constraintMarkers maps validation markers to schema keywords.
var constraintMarkers = map[string]string{
	"kubebuilder:validation:Minimum":          "minimum",
	"kubebuilder:validation:Maximum":          "maximum",
	"kubebuilder:validation:ExclusiveMinimum": "exclusiveMinimum",
	"kubebuilder:validation:ExclusiveMaximum": "exclusiveMaximum",
	"kubebuilder:validation:MinLength":        "minLength",
	"kubebuilder:validation:MaxLength":        "maxLength",
	"kubebuilder:validation:MinItems":         "minItems",
	"kubebuilder:validation:MaxItems":         "maxItems",
	"kubebuilder:validation:MinProperties":    "minProperties",
	"kubebuilder:validation:MaxProperties":    "maxProperties",
	"kubebuilder:validation:Pattern":          "pattern",
	"kubebuilder:validation:Format":           "format",
	"kubebuilder:validation:Enum":             "enum",
	"kubebuilder:validation:UniqueItems":      "uniqueItems",
	"kubebuilder:validation:XValidation:rule": "rule",
	"k8s:minimum":            "minimum",
	"k8s:maximum":            "maximum",
	"k8s:minLength":          "minLength",
	"k8s:maxLength":          "maxLength",
	"k8s:minItems":           "minItems",
	"k8s:maxItems":           "maxItems",
	"k8s:format":             "format",
	"k8s:immutable":          "immutable",
	"k8s:update":             "update",
	"k8s:enum":               "enum",
	"k8s:unique":             "unique",
	"k8s:validation:pattern": "pattern",
	"validation:Minimum":     "minimum",
	"validation:Maximum":     "maximum",
	"validation:MinLength":   "minLength",
	"validation:MaxLength":   "maxLength",
	"validation:MinItems":    "minItems",
	"validation:MaxItems":    "maxItems",
	"validation:Pattern":     "pattern",
	"validation:Enum":        "enum",
}

// constraints collects the validation constraints of a field and of its
// package-local named type, normalized and sorted.
func constraints(field, typ model.Markers) []model.Constraint {
	var out []model.Constraint
	for _, ms := range []model.Markers{typ, field} {
		for _, m := range ms {
			m = unwrapStaged(m)
			kind, ok := constraintMarkers[m.Key]
			if !ok {
				continue
			}
			out = append(out, model.Constraint{Kind: kind, Value: normalizeConstraint(kind, m.Value), Marker: "+" + m.Key})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Value < out[j].Value
	})
	// One constraint per kind and value (field and type may repeat it).
	return slices.CompactFunc(out, func(a, b model.Constraint) bool { return a.Kind == b.Kind && a.Value == b.Value })
}

// unwrapStaged returns the tag inside a Kubernetes stability wrapper:
// "+k8s:alpha(since: "1.36")=+k8s:maxItems=32" stages the declarative
// rule +k8s:maxItems=32 behind the hand-written validation that stays
// authoritative, so it is the same constraint as the unwrapped tag.
func unwrapStaged(m model.Marker) model.Marker {
	if m.Key != "k8s:alpha" && m.Key != "k8s:beta" {
		return m
	}
	_, inner, ok := strings.Cut(m.Value, "=+")
	if !ok {
		return m
	}
	key, value, _ := strings.Cut(inner, "=")
	return model.Marker{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value)}
}

// normalizeConstraint puts a value in a canonical form: numbers as exact
// decimals, enum values sorted, strings unquoted.
func normalizeConstraint(kind, v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return "true" // a flag such as +k8s:immutable
	}
	switch kind {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
		"minItems", "maxItems", "minProperties", "maxProperties":
		if r, ok := new(big.Rat).SetString(v); ok {
			return r.RatString()
		}
	case "enum":
		// controller-tools accepts a;b;c and the slice form {a,b,c}.
		sep := ";"
		if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
			v, sep = v[1:len(v)-1], ","
		}
		vals := strings.Split(v, sep)
		for i := range vals {
			vals[i] = unquote(strings.TrimSpace(vals[i]))
		}
		sort.Strings(vals)
		return strings.Join(slices.Compact(vals), ";")
	case "pattern", "format":
		return unquote(v)
	case "rule":
		// +kubebuilder:validation:XValidation:rule="...",message="...": the
		// rule is the constraint, the message only words the error.
		if q, err := strconv.QuotedPrefix(v); err == nil {
			if r, err := strconv.Unquote(q); err == nil {
				return r
			}
		}
	}
	return v
}

// unquote removes a marker value's quotes. Double-quoted values are Go
// string literals in both marker grammars ("^\\d+$" is the pattern ^\d+$).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '`' && s[len(s)-1] == '`') {
		return s[1 : len(s)-1]
	}
	return s
}

// understood are the markers some part of the contract (or nothing on the
// wire) accounts for. Markers not listed here and not validation markers
// are "unknown": a change of them is reported as unclassified.
var understood = map[string]bool{
	// optionality
	"optional": true, "k8s:optional": true, "kubebuilder:validation:Optional": true,
	"required": true, "k8s:required": true, "kubebuilder:validation:Required": true,
	// defaults
	"default": true, "kubebuilder:default": true, "k8s:default": true,
	// list and patch semantics
	"listType": true, "listMapKey": true, "k8s:listType": true, "k8s:listMapKey": true,
	"patchStrategy": true, "patchMergeKey": true,
	// documentation and code generation only: nothing on the wire
	"featureGate": true, "k8s:alpha": true, "k8s:beta": true, "k8s:openapi-gen": true,
	"k8s:deepcopy-gen": true, "k8s:conversion-gen": true, "k8s:protobuf": true, "protobuf": true,
	"protobuf.nullable": true, "protobuf.options.(gogoproto.goproto_stringer)": true,
	"genclient": true, "k8s:deepcopy-gen:interfaces": true, "k8s:prerelease-lifecycle-gen": true,
	"deprecated": true, "k8s:deprecated": true, "k8s:subfield": true, "k8s:optional-unset": true,
	"kubebuilder:printcolumn": true, "kubebuilder:validation:EmbeddedResource": true,
	"kubebuilder:pruning:PreserveUnknownFields": true, "kubebuilder:validation:Schemaless": true,
	"structType": true, "mapType": true, "nullable": true, "k8s:unionMember": true, "k8s:unionDiscriminator": true,
	"unionDiscriminator": true, "union": true, "k8s:ifEnabled": true, "k8s:ifDisabled": true,
	"k8s:eachVal": true, "k8s:eachKey": true, "k8s:item": true, "k8s:zeroOrOneOfMember": true,
	"k8s:opaqueType": true, "k8s:declarativeValidationNative": true, "k8s:alpha(since)": true,
	// k8s.io/api's union documentation (+oneOf=NodeSelection,
	// +zeroOrOneOf=ResourceSliceType: read by no generator) and the
	// declarative-validation note that hand-written code checks uniqueness
	"oneOf": true, "zeroOrOneOf": true, "k8s:customUnique": true,
}

// docPrefixes are marker families that never change the wire.
var docPrefixes = []string{"k8s:prerelease-lifecycle-gen:", "apicheck:", "kubebuilder:printcolumn", "kubebuilder:object:",
	"kubebuilder:subresource", "kubebuilder:resource", "kubebuilder:storageversion", "kubebuilder:skip",
	"genclient:", "k8s:deepcopy-gen:", "k8s:conversion-gen", "k8s:defaulter-gen", "groupName", "k8s:validation-gen",
	"kubebuilder:metadata", "kubebuilder:deprecatedversion", "kubebuilder:unservedversion", "kubebuilder:ac:",
	"kubebuilder:validation:XValidation:message", "kubebuilder:validation:XValidation:messageExpression",
	"kubebuilder:validation:XValidation:reason", "kubebuilder:validation:XValidation:fieldPath",
	"kubebuilder:validation:XValidation:optionalOldSelf"}

// unknownMarkers are the field's markers no part of the contract knows.
func unknownMarkers(ms model.Markers) []model.Marker {
	var out []model.Marker
	for _, m := range ms {
		if understood[m.Key] || constraintMarkers[m.Key] != "" || hasDocPrefix(m.Key) {
			continue
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Value < out[j].Value
	})
	return out
}

func hasDocPrefix(key string) bool {
	for _, p := range docPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// listTypeForms are the distinct list types the +listType and
// +k8s:listType markers of a field write, each as its marker; one or none
// when they agree.
func listTypeForms(m model.Markers) []string {
	var forms []string
	seen := map[string]bool{}
	for _, k := range []string{"listType", "k8s:listType"} {
		for _, v := range m.All(k) {
			if v = strings.TrimSpace(v); !seen[v] {
				seen[v] = true
				forms = append(forms, "+"+k+"="+v)
			}
		}
	}
	return forms
}

func markerValue(m model.Markers, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := m.Get(k); ok {
			return v, true
		}
	}
	return "", false
}

func markerValues(m model.Markers, keys ...string) []string {
	var out []string
	for _, k := range keys {
		for _, v := range m.All(k) {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
		}
	}
	return out
}
