// Package model holds the plain-data API model that the scanner produces
// from one revision, and the diff of two such models.
//
// Nothing in this package refers to go/ast: the scanner translates syntax
// into these types once, and every later stage (diff, rules, reports) works
// on plain data only.
package model

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/quote"
)

// Pos is a repository-relative position (forward slashes, 1-based line and
// column). A zero Pos means "no position".
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"column"`
}

func (p Pos) String() string {
	if p.File == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", quote.Name(p.File), p.Line, p.Col)
}

// IsZero reports whether p carries no position.
func (p Pos) IsZero() bool { return p.File == "" }

// Profile names the policy a group is judged by (docs/profiles.md).
type Profile string

const (
	// ProfileGardener is Gardener's API change checklist (and its
	// extensions'): optional pointers with +optional and omitempty,
	// protobuf tombstones, two-step removal, the Shoot stages.
	ProfileGardener Profile = "gardener"
	// ProfileKubernetes is Kubernetes' API change and deprecation policy:
	// alpha APIs may change, beta removal only after deprecation, its own
	// tombstone and optional-field conventions.
	ProfileKubernetes Profile = "kubernetes"
	// ProfileCRD is a kubebuilder/controller-runtime CRD project:
	// kube-api-linter's optional/required conventions, no protobuf, the
	// CRD and its controller ship together.
	ProfileCRD Profile = "crd"
	// ProfileComponentConfig is a component configuration API (kinds
	// without ObjectMeta, loaded from files): removals and renames are
	// never errors.
	ProfileComponentConfig Profile = "componentconfig"
)

// Profiles lists every profile.
func Profiles() []Profile {
	return []Profile{ProfileGardener, ProfileKubernetes, ProfileCRD, ProfileComponentConfig}
}

// Maturity is the stability level of an API version.
type Maturity string

const (
	Alpha Maturity = "alpha"
	Beta  Maturity = "beta"
	GA    Maturity = "ga"
)

// Model is everything the scanner found in one revision.
type Model struct {
	// Profile is the repository's profile (configured or detected); each
	// group has its own, which defaults to this one.
	Profile Profile `json:"profile,omitempty"`
	// ProfileReason says what decided a detected profile ("CRD manifests
	// in config/crd/bases serve the kinds"); "" when it was configured.
	ProfileReason string `json:"profileReason,omitempty"`
	// Groups are sorted by Dir.
	Groups []*Group `json:"groups"`
	// Shared are the packages of the repository outside the API groups
	// whose types fields of the groups use, directly or through each
	// other (a type moved to pkg/apis/common, a shared types package, a
	// values package elsewhere in the module): read so that wire shapes
	// compare through them; sorted by import path. Compare pairs the
	// types of them that external versions reach (Diff.Shared), which the
	// rules judge as those versions' own.
	Shared []*Package `json:"shared,omitempty"`
	// External are the packages of Kubernetes' API modules (k8s.io/api,
	// k8s.io/apimachinery) whose types fields of the groups and of the
	// shared packages use, directly or through each other, read from the
	// local module cache at the version the repository requires (never
	// downloaded): read so that wire shapes compare through them; sorted
	// by import path. A package the module cache does not hold is not
	// here, and its types stay unresolved. Their Dir and file names are
	// relative to the module cache ("k8s.io/api@v0.30.0/core/v1"). Rules
	// judge no change inside them. (Not to be confused with
	// Package.External, a versioned package.)
	External []*Package `json:"external,omitempty"`
	// Notes are statements of the scanner about what it did not read
	// (e.g. a struct above the field limit), sorted.
	Notes []string `json:"notes,omitempty"`
	// Modules are the module paths of the repository's go.mod files, and
	// Requires the modules they require or replace that are not the
	// repository's (a replacement's old path: `replace x => ../x` names a
	// module of another checkout), each sorted: where a package that left
	// the repository may have gone (MovedToModule).
	Modules  []string `json:"modules,omitempty"`
	Requires []string `json:"requires,omitempty"`
}

// MovedToModule names the module of Requires that the package at
// importPath (one that m's repository does not hold) may have moved to:
// a module whose path is a prefix of importPath (samePath: the import
// path still resolves, served by that module now, as when a nested
// module left the repository), or, failing that, a module of the same
// owner as the repository's module that held the package (the same path
// but for its last element) whose last element (without a major version
// suffix) names a directory on the package's path inside that module
// (github.com/kyverno/kyverno/api/kyverno/v1 and github.com/kyverno/api,
// github.com/operator-framework/operator-lifecycle-manager/pkg/api/apis/operators/v1alpha1
// and github.com/operator-framework/api): its Go types left for another
// module, so Go imports of it break while the API may be served as it
// was. ok is false when no required module fits.
func (m *Model) MovedToModule(importPath string) (module string, samePath, ok bool) {
	for _, r := range m.Requires {
		if strings.HasPrefix(importPath, r+"/") && len(r) > len(module) {
			module = r
		}
	}
	if module != "" {
		return module, true, true
	}
	own := ""
	for _, o := range m.Modules {
		if strings.HasPrefix(importPath, o+"/") && len(o) > len(own) {
			own = o
		}
	}
	if own == "" {
		return "", false, false
	}
	dirs := strings.Split(strings.TrimPrefix(importPath, own+"/"), "/")
	dirs = dirs[:len(dirs)-1] // the version directory names no module
	owner := pathDir(withoutMajor(own))
	for _, r := range m.Requires {
		base := withoutMajor(r)
		if pathDir(base) != owner {
			continue
		}
		if slices.Contains(dirs, base[strings.LastIndexByte(base, '/')+1:]) {
			return r, false, true
		}
	}
	return "", false, false
}

// withoutMajor drops a module path's major version suffix (/v2).
func withoutMajor(mod string) string {
	i := strings.LastIndexByte(mod, '/')
	if i < 0 {
		return mod
	}
	if v := mod[i+1:]; len(v) > 1 && v[0] == 'v' && strings.Trim(v[1:], "0123456789") == "" {
		return mod[:i]
	}
	return mod
}

// pathDir is the path without its last element ("" for a single one).
func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Group is one API group: an optional internal package plus its versions.
type Group struct {
	// Dir is the repository-relative directory of the group
	// (e.g. "pkg/apis/core"); for a group without internal version it is
	// still the parent directory of the version packages.
	Dir string `json:"dir"`
	// Name is the +groupName of the versions (first one found), if any.
	Name string `json:"name,omitempty"`
	// Profile is the profile the group is judged under.
	Profile Profile `json:"profile"`
	// UntrustedProfile is the profile this revision's own detection gave
	// the group when it differs from Profile, which then comes from the
	// trusted revision (a head judged under a configuration the change
	// does not control: how strictly a change is judged is never the
	// change's to decide). "" otherwise.
	UntrustedProfile Profile `json:"untrustedProfile,omitempty"`
	// Internal is nil for CRD-style groups that only have versions.
	Internal *Package `json:"internal,omitempty"`
	// Versions are sorted by Version name.
	Versions []*Package `json:"versions"`
}

// Packages returns the internal package (if any) followed by the versions.
func (g *Group) Packages() []*Package {
	var out []*Package
	if g.Internal != nil {
		out = append(out, g.Internal)
	}
	return append(out, g.Versions...)
}

// Package is one Go package of an API group.
type Package struct {
	Dir        string `json:"dir"`
	ImportPath string `json:"importPath"`
	Name       string `json:"name"`
	// Version is "" for the internal package, otherwise e.g. "v1beta1".
	Version string `json:"version,omitempty"`
	// Maturity is the version's stability (from its name, or declared
	// stable in the configuration); "" for the internal package.
	Maturity Maturity `json:"maturity,omitempty"`
	// Deprecated is true when every kind of the version is marked
	// deprecated (+k8s:prerelease-lifecycle-gen:deprecated or a
	// "Deprecated:" paragraph).
	Deprecated bool `json:"deprecated,omitempty"`
	// GroupName is the API group the version declares: its +groupName
	// marker, else the value of its Go declaration (const GroupName, the
	// Group of SchemeGroupVersion or GroupVersion, an apiVersion constant
	// "group/version"), evaluated as Go evaluates constant expressions.
	GroupName string `json:"groupName,omitempty"`
	// GroupNameUnknown is the Go expression of the group name that could
	// not be evaluated (a constant of a package outside the repository);
	// GroupName is "" then, and the group is paired by directory only.
	GroupNameUnknown string `json:"groupNameUnknown,omitempty"`
	// Types are sorted by name.
	Types []*Type `json:"types"`
	// Files are the repository-relative Go files scanned, sorted.
	Files []string `json:"files"`
	// Consts are sorted by name.
	Consts []*Const `json:"consts,omitempty"`
	// Imports maps every import alias used in the package's files to its
	// import path, per file: Imports[file][alias] = path.
	Imports map[string]map[string]string `json:"-"`
	// Conversions are the conversion functions (Convert_...) the
	// package's hand-written files declare, by name, each with a
	// fingerprint of its source: a function new or rewritten in a change
	// shows the change's author handled a difference between versions.
	Conversions map[string]string `json:"conversions,omitempty"`
	// ConversionGen is the import path the package's +k8s:conversion-gen=
	// marker (above its package clause) names: the package conversion-gen
	// generates its conversions to and from (the internal version); ""
	// without one.
	ConversionGen string `json:"conversionGen,omitempty"`
	// DefaultOptional is true when a comment of the package that is no
	// field's carries +kubebuilder:validation:Optional: controller-gen
	// then makes every field optional that is not marked required (the
	// marker is a package marker; on a type's comment it still applies
	// to the whole package).
	DefaultOptional bool `json:"defaultOptional,omitempty"`

	byName map[string]*Type
}

// ConversionsOf returns the hand-written conversion functions declared in
// p that convert type name of the package named pkgName (p's own name,
// or another version's of the group: a hub-and-spoke API converts in the
// spoke's package, Convert_v1beta1_T_To_v1beta2_T) into or out of another
// package, conversion-gen style (Convert_<pkg>_<Type>_To_<pkg>_<Type>),
// by name, each with its fingerprint.
func (p *Package) ConversionsOf(pkgName, name string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		from, to := "_"+pkgName+"_"+name+"_To_", "_To_"+pkgName+"_"+name
		for _, n := range slices.Sorted(maps.Keys(p.Conversions)) {
			if strings.HasSuffix(n, "_"+name) && (strings.Contains(n, from) || strings.HasSuffix(n, to)) {
				if !yield(n, p.Conversions[n]) {
					return
				}
			}
		}
	}
}

// External reports whether p is a versioned package.
func (p *Package) External() bool { return p.Version != "" }

// Label is a short human name: "core/v1beta1" or "core (internal)".
func (p *Package) Label() string {
	if p.Version == "" {
		return p.Name + " (internal)"
	}
	return p.Version
}

// ShareTypes makes p hold base's type wherever the two are equal in every
// respect (fields, contracts, markers, positions): base is the same
// package at another revision, and models are read-only once scanned, so
// a type a change did not touch is held once. It returns how many types
// it shared.
func (p *Package) ShareTypes(base *Package) int {
	n := 0
	for i, t := range p.Types {
		bt := base.Type(t.Name)
		if bt == nil || bt == t || !reflect.DeepEqual(bt, t) {
			continue
		}
		p.Types[i] = bt
		if p.byName != nil {
			p.byName[t.Name] = bt
		}
		n++
	}
	return n
}

// Type looks a type up by name.
func (p *Package) Type(name string) *Type {
	if p.byName == nil {
		p.byName = make(map[string]*Type, len(p.Types))
		for _, t := range p.Types {
			p.byName[t.Name] = t
		}
	}
	return p.byName[name]
}

// HasProtobuf reports whether any field of the package carries a protobuf
// tag (CRD-style packages without protobuf are exempt from protobuf rules).
func (p *Package) HasProtobuf() bool {
	for _, t := range p.Types {
		for _, f := range t.Fields {
			if f.Proto != nil {
				return true
			}
		}
		if len(t.Tombstones) > 0 {
			return true
		}
	}
	return false
}

// TypeKind says what a named type is declared as.
type TypeKind string

const (
	KindStruct TypeKind = "struct"
	// KindOther is any non-struct type: string, map, slice, func, ...
	KindOther TypeKind = "other"
)

// Type is one named type declaration.
type Type struct {
	Name string   `json:"name"`
	Kind TypeKind `json:"kind"`
	// Underlying is the printed type expression for non-struct types
	// (e.g. "string", "map[string]string", "[]Foo").
	Underlying string `json:"underlying,omitempty"`
	// UnderlyingID is Underlying by identity (see Field.TypeID).
	UnderlyingID string `json:"underlyingID,omitempty"`
	// Alias is true for "type A = B".
	Alias bool `json:"alias,omitempty"`
	Pos   Pos  `json:"pos"`
	// End is the position of the closing brace of a struct.
	End     Pos     `json:"end"`
	Doc     string  `json:"doc,omitempty"`
	Markers Markers `json:"markers,omitempty"`
	// Own are the markers addressed to apicheck itself ("+apicheck:..."),
	// with the position of their comment line.
	Own    []LocatedMarker `json:"-"`
	Fields []*Field        `json:"fields,omitempty"`
	// Tombstones are commented-out protobuf-tagged field declarations
	// inside the struct body.
	Tombstones []*Tombstone `json:"tombstones,omitempty"`
	// RootKind is true for types embedding metav1.TypeMeta (or marked
	// +genclient / +kubebuilder:object:root=true).
	RootKind bool `json:"rootKind,omitempty"`
	// CustomJSON is true for a type whose package declares both a
	// MarshalJSON and an UnmarshalJSON method for it (on T or *T), neither
	// delegating to encoding/json's default through a local type of T, or
	// for a struct that gets the ones it does not declare from the one
	// embedded field whose type has both (Go promotes them: a wrapper of
	// metav1.Time): its methods, not its declaration (a struct's json
	// tags, a map's or slice's elements), decide its JSON form.
	CustomJSON bool `json:"customJSON,omitempty"`
	// Deprecated is true for a type marked deprecated: a
	// +k8s:prerelease-lifecycle-gen:deprecated= or removed= marker, or a
	// "Deprecated:" paragraph in its doc comment.
	Deprecated bool `json:"deprecated,omitempty"`
	// Alpha is true for a type that only alpha fields of its package use
	// (directly or through other such types): its fields and values are
	// part of an alpha feature.
	Alpha bool `json:"alpha,omitempty"`

	byName map[string]*Field // built by Model.Sort
}

// UnderlyingIdentity is the underlying type by identity, or as written
// when it was not resolved.
func (t *Type) UnderlyingIdentity() string { return cmp.Or(t.UnderlyingID, t.Underlying) }

// Field looks a field up by Go name (the first of that name).
func (t *Type) Field(name string) *Field {
	if t.byName != nil {
		return t.byName[name]
	}
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (t *Type) index() {
	if len(t.Fields) < 8 {
		t.byName = nil
		return
	}
	t.byName = make(map[string]*Field, len(t.Fields))
	for _, f := range t.Fields {
		if _, dup := t.byName[f.Name]; !dup {
			t.byName[f.Name] = f
		}
	}
}

// Nillability is the answer to "can a value of this type be nil".
type Nillability string

const (
	Nillable    Nillability = "yes"
	NotNillable Nillability = "no"
	// NillUnknown means the type could not be resolved (type from another
	// module that is neither loadable nor in the built-in table).
	NillUnknown Nillability = "unknown"
)

// ValueKind says what the values of a type are, once named types are
// followed to their definition.
type ValueKind string

const (
	KindPointer     ValueKind = "pointer"
	KindSlice       ValueKind = "slice"
	KindMap         ValueKind = "map"
	KindInterface   ValueKind = "interface"
	KindFunc        ValueKind = "func"
	KindChan        ValueKind = "chan"
	KindStructValue ValueKind = "struct"
	KindArray       ValueKind = "array"
	KindString      ValueKind = "string"
	KindNumber      ValueKind = "number"
	KindBool        ValueKind = "bool"
	// KindUnknown: the type could not be resolved.
	KindUnknown ValueKind = "unknown"
)

// ByteSlice begins the NillableWhy of a field whose type is, or names
// through a chain of named types, a byte slice: encoding/json writes it as
// a base64 string, not as a list.
const ByteSlice = "byte slice"

// Nillability says whether values of the kind can be nil.
func (k ValueKind) Nillability() Nillability {
	switch k {
	case KindPointer, KindSlice, KindMap, KindInterface, KindFunc, KindChan:
		return Nillable
	case KindUnknown, "":
		return NillUnknown
	}
	return NotNillable
}

// Field is one struct field (including embedded fields).
type Field struct {
	// Name is the Go name; for an embedded field the type name.
	Name     string `json:"name"`
	Embedded bool   `json:"embedded,omitempty"`
	// Type is the printed Go type expression, e.g. "*metav1.Duration".
	Type string `json:"type"`
	// Nillable says whether the type can be nil; resolved by the scanner.
	Nillable Nillability `json:"nillable"`
	// NillableWhy explains how Nillable was decided (for messages).
	NillableWhy string `json:"nillableWhy,omitempty"`
	// ValueKind is what the values of Type are (resolved by the scanner).
	ValueKind ValueKind `json:"valueKind,omitempty"`
	// TypeID is Type by identity: import aliases replaced by import paths,
	// type aliases resolved, the package's own names unqualified.
	TypeID string `json:"typeID,omitempty"`
	// Contract is the field's effective wire contract (internal/contract).
	Contract *Contract `json:"contract,omitempty"`
	// Tag is the raw struct tag without back quotes.
	Tag   string    `json:"tag,omitempty"`
	JSON  JSONTag   `json:"json"`
	Proto *ProtoTag `json:"protobuf,omitempty"`
	// ProtoErr is set when a protobuf tag is present but malformed.
	ProtoErr      string  `json:"protobufError,omitempty"`
	PatchStrategy string  `json:"patchStrategy,omitempty"`
	PatchMergeKey string  `json:"patchMergeKey,omitempty"`
	Markers       Markers `json:"markers,omitempty"`
	// Own are the markers addressed to apicheck itself ("+apicheck:..."),
	// with the position of their comment line.
	Own []LocatedMarker `json:"-"`
	Doc string          `json:"doc,omitempty"`
	// Promoted are the json names an inline embedded struct puts at its
	// parent's level (its members, and theirs when it inlines more), when
	// the embedded type could be resolved; nil otherwise.
	Promoted []string `json:"promoted,omitempty"`
	// PromotedKnown are, when Promoted is nil, the json names the scanner
	// resolved of an inline embedded struct some of whose own inline
	// members it could not resolve (a shared struct that inlines
	// corev1.ResourceRequirements, k8s.io/api not in the module cache);
	// PromotedUnknown are the identities of those (the embedded type
	// itself when it could not be resolved at all).
	PromotedKnown   []string `json:"promotedKnown,omitempty"`
	PromotedUnknown []string `json:"promotedUnknown,omitempty"`
	// InlinedTypes are the identities (qualified with their package) of
	// the types an inline embedded struct embeds inline in turn, at any
	// depth: their members are at the parent's level too.
	InlinedTypes []string `json:"inlinedTypes,omitempty"`
	// Deprecated is true when the doc comment has a "Deprecated:" paragraph.
	Deprecated bool `json:"deprecated,omitempty"`
	// Alpha is true for a field its markers or doc comment call alpha
	// (+k8s:alpha, "This field is alpha", "alpha-level").
	Alpha bool `json:"alpha,omitempty"`
	Pos   Pos  `json:"pos"`
}

// JSONTag is the parsed json struct tag.
type JSONTag struct {
	// Present is false when the field has no json tag at all.
	Present bool `json:"present"`
	// Name is the wire name ("" when the tag has an empty name, "-" when
	// the field is skipped).
	Name      string `json:"name,omitempty"`
	OmitEmpty bool   `json:"omitempty,omitempty"`
	OmitZero  bool   `json:"omitzero,omitempty"`
	Inline    bool   `json:"inline,omitempty"`
	// String is the ",string" option: encoding/json writes a string,
	// number or bool value (or a pointer to one) as a JSON string.
	String bool `json:"string,omitempty"`
}

// WireName returns the json name the field is serialised under, applying
// encoding/json's default (the Go name) when the tag names none.
func (f *Field) WireName() string {
	if f.JSON.Present && f.JSON.Name != "" {
		return f.JSON.Name
	}
	if f.Embedded || f.JSON.Inline {
		return ""
	}
	return f.Name
}

// Omits reports whether the json tag has omitempty or omitzero.
func (f *Field) Omits() bool { return f.JSON.OmitEmpty || f.JSON.OmitZero }

// Inline reports whether the field's members appear at the level of its
// parent on the wire: `json:",inline"`, or an embedded field without a
// json name (encoding/json promotes its fields).
func (f *Field) Inline() bool { return f.JSON.Inline || (f.Embedded && f.JSON.Name == "") }

// Optional reports whether the field carries an optional marker.
func (f *Field) Optional() bool {
	return f.Markers.Has("optional") || f.Markers.Has("k8s:optional") ||
		f.Markers.Has("kubebuilder:validation:Optional")
}

// Required reports whether the field carries a required marker.
func (f *Field) Required() bool {
	return f.Markers.Has("required") || f.Markers.Has("k8s:required") ||
		f.Markers.Has("kubebuilder:validation:Required")
}

// Default returns the default marker value ("" when none) and whether one
// is present.
func (f *Field) Default() (string, bool) {
	for _, k := range []string{"default", "kubebuilder:default", "k8s:default"} {
		if v, ok := f.Markers.Get(k); ok {
			return v, true
		}
	}
	return "", false
}

// EffectivePatchStrategy combines struct tag and marker.
func (f *Field) EffectivePatchStrategy() string {
	if f.PatchStrategy != "" {
		return f.PatchStrategy
	}
	v, _ := f.Markers.Get("patchStrategy")
	return v
}

// EffectivePatchMergeKey combines struct tag and marker.
func (f *Field) EffectivePatchMergeKey() string {
	if f.PatchMergeKey != "" {
		return f.PatchMergeKey
	}
	v, _ := f.Markers.Get("patchMergeKey")
	return v
}

// ProtoTag is a parsed `protobuf:"bytes,N,opt,name=x"` tag.
type ProtoTag struct {
	// Wire is the wire type: bytes, varint, fixed32, fixed64, zigzag32, ...
	Wire   string `json:"wire"`
	Number int    `json:"number"`
	// Label is opt, req or rep.
	Label string `json:"label"`
	Name  string `json:"name,omitempty"`
	// Options are the remaining key=value or flag options in order
	// (casttype=..., castkey=..., enum=..., proto3, packed, ...).
	Options []string `json:"options,omitempty"`
	Raw     string   `json:"raw"`
}

// Tombstone is a commented-out protobuf-tagged field declaration that
// reserves its number.
type Tombstone struct {
	// FieldName is the Go name of the commented-out declaration.
	FieldName string    `json:"fieldName"`
	Type      string    `json:"type,omitempty"`
	JSONName  string    `json:"jsonName,omitempty"`
	Proto     *ProtoTag `json:"protobuf"`
	// Explanation is the explanatory line ("X is tombstoned to show why N
	// is reserved protobuf tag."), if one precedes the declaration.
	Explanation string `json:"explanation,omitempty"`
	// Problem is non-empty when the tombstone does not follow the
	// convention; it says what is wrong.
	Problem string `json:"problem,omitempty"`
	Pos     Pos    `json:"pos"`
}

// Name names what a tombstone reserves: the Go name of its declaration,
// else the json name a marker or prose names, else its number.
func (t *Tombstone) Name() string {
	switch {
	case t.FieldName != "":
		return t.FieldName
	case t.JSONName != "":
		return fmt.Sprintf("%q", t.JSONName)
	case t.Proto != nil:
		return fmt.Sprintf("number %d", t.Proto.Number)
	}
	return "?"
}

// Const is a constant of a named type declared in an API package.
type Const struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value,omitempty"`
	// Below is the version below which the documentation says the value
	// is available ("Only available for Kubernetes versions < v1.30."
	// gives "v1.30"): a value gated on versions that will lose support.
	Below string `json:"below,omitempty"`
	Pos   Pos    `json:"pos"`
}

// Markers are the +key=value comment markers of a declaration, in the
// order they appear. Keys are the tag names as gengo extracts them
// (e.g. "optional", "k8s:optional", "listType", "kubebuilder:default").
type Markers []Marker

// Marker is one +key[=value] line.
type Marker struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// LocatedMarker is a marker and the position of its comment line.
type LocatedMarker struct {
	Marker
	Pos Pos
}

// Has reports whether key is present.
func (m Markers) Has(key string) bool {
	_, ok := m.Get(key)
	return ok
}

// Get returns the first value of key.
func (m Markers) Get(key string) (string, bool) {
	for _, mk := range m {
		if mk.Key == key {
			return mk.Value, true
		}
	}
	return "", false
}

// All returns every value of key in order.
func (m Markers) All(key string) []string {
	var out []string
	for _, mk := range m {
		if mk.Key == key {
			out = append(out, mk.Value)
		}
	}
	return out
}

// Sort puts the model into its canonical order. The scanner calls it; it
// is idempotent.
func (m *Model) Sort() {
	sort.Slice(m.Groups, func(i, j int) bool { return m.Groups[i].Dir < m.Groups[j].Dir })
	for _, g := range m.Groups {
		sort.Slice(g.Versions, func(i, j int) bool { return g.Versions[i].Version < g.Versions[j].Version })
		for _, p := range g.Packages() {
			sort.Slice(p.Types, func(i, j int) bool { return p.Types[i].Name < p.Types[j].Name })
			sort.Slice(p.Consts, func(i, j int) bool { return p.Consts[i].Name < p.Consts[j].Name })
			p.Reindex()
		}
	}
}

// Reindex rebuilds the package's lookup indexes as Model.Sort leaves
// them: for a package that was decoded, whose order is kept.
func (p *Package) Reindex() {
	p.byName = nil
	for _, t := range p.Types {
		t.index()
	}
}

// Group looks a group up by directory.
func (m *Model) Group(dir string) *Group {
	for _, g := range m.Groups {
		if g.Dir == dir {
			return g
		}
	}
	return nil
}

// Version looks a package of the group up by version ("" = internal).
func (g *Group) Version(v string) *Package {
	if v == "" {
		return g.Internal
	}
	for _, p := range g.Versions {
		if p.Version == v {
			return p
		}
	}
	return nil
}

// APIPaths maps every struct type of p that is reachable from a root kind
// to its JSON path from that kind, e.g. "ShootSpec" -> "Shoot.spec".
// Root kinds map to their own name. Non-List kinds are tried first, in
// name order, and breadth-first, so each type gets its shortest path from
// the first kind that reaches it. The result is deterministic.
func (p *Package) APIPaths() map[string]string {
	paths := map[string]string{}
	var roots []*Type
	for _, t := range p.Types {
		if t.RootKind && !strings.HasSuffix(t.Name, "List") {
			roots = append(roots, t)
		}
	}
	for _, t := range p.Types {
		if t.RootKind && strings.HasSuffix(t.Name, "List") {
			roots = append(roots, t)
		}
	}
	type item struct {
		t    *Type
		path string
	}
	for _, r := range roots {
		if _, ok := paths[r.Name]; ok {
			continue
		}
		paths[r.Name] = r.Name
		queue := []item{{r, r.Name}}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			for _, f := range it.t.Fields {
				name := LocalTypeName(f.Type)
				if name == "" {
					continue
				}
				ft := p.Type(name)
				if ft == nil || ft.Kind != KindStruct {
					continue
				}
				if _, seen := paths[ft.Name]; seen {
					continue
				}
				path := it.path
				if w := f.WireName(); w != "" && !f.Inline() {
					path += "." + w
				}
				paths[ft.Name] = path
				queue = append(queue, item{ft, path})
			}
		}
	}
	return paths
}

// LocalTypeName returns the package-local type name a type expression
// refers to after stripping pointers, slices, arrays and map values
// ("*[]Foo" -> "Foo", "map[string]Bar" -> "Bar"); "" for qualified or
// built-in element types.
func LocalTypeName(expr string) string {
	for {
		switch {
		case strings.HasPrefix(expr, "*"):
			expr = expr[1:]
		case strings.HasPrefix(expr, "[]"):
			expr = expr[2:]
		case strings.HasPrefix(expr, "["):
			i := strings.Index(expr, "]")
			if i < 0 {
				return ""
			}
			expr = expr[i+1:]
		case strings.HasPrefix(expr, "map["):
			depth, i := 0, 3
			for ; i < len(expr); i++ {
				if expr[i] == '[' {
					depth++
				} else if expr[i] == ']' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if i >= len(expr) {
				return ""
			}
			expr = expr[i+1:]
		default:
			if expr == "" || strings.ContainsAny(expr, ".{( ") || builtinTypes[expr] {
				return ""
			}
			return expr
		}
	}
}

var builtinTypes = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true, "error": true, "any": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// IsBuiltin reports whether name is a predeclared Go type.
func IsBuiltin(name string) bool { return builtinTypes[name] }

// QualifyLocal qualifies the unqualified (package-local, non-builtin)
// type names of a type identity with pkg: "[]Foo" in package example.com/a
// becomes "[]example.com/a.Foo".
func QualifyLocal(id, pkg string) string {
	var b strings.Builder
	i := 0
	for i < len(id) {
		c := id[i]
		if isIdentStart(c) {
			j := i
			for j < len(id) && (isIdentPart(id[j]) || id[j] == '.' || id[j] == '/' || id[j] == '-') {
				j++
			}
			word := id[i:j]
			if !strings.ContainsAny(word, "./") && !IsBuiltin(word) && word != "map" && word != "any" && word != "error" &&
				word != "func" && word != "chan" && word != "interface" && word != "struct" {
				word = pkg + "." + word
			}
			b.WriteString(word)
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// CompareVersions orders Kubernetes API versions by the priority the API
// server gives them (the preferred version is the greatest), as
// k8s.io/apimachinery's version.CompareKubeAwareVersionStrings does: GA
// versions above beta above alpha; within a level, the higher major
// first, then the higher stage number, so
// v2 > v1 > v11beta2 > v10beta3 > v3beta1 > v12alpha1 > v11alpha2. Names
// that do not look like versions (vMAJOR[(alpha|beta)N]) rank below every
// version and among themselves in reverse lexical order, so that sorting
// by descending priority lists them after the versions, alphabetically.
// The result is negative when a ranks below b, positive when above, 0 when
// a == b.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	ka, oka := parseVersion(a)
	kb, okb := parseVersion(b)
	switch {
	case !oka && !okb:
		return strings.Compare(b, a)
	case !oka:
		return -1
	case !okb:
		return 1
	}
	return cmp.Or(cmp.Compare(ka.stage, kb.stage), cmp.Compare(ka.major, kb.major), cmp.Compare(ka.n, kb.n))
}

// VersionLess reports whether API version a ranks below b by
// CompareVersions.
func VersionLess(a, b string) bool { return CompareVersions(a, b) < 0 }

// versionKey is a parsed API version.
type versionKey struct {
	// stage is 0 for alpha, 1 for beta, 2 for GA; n is the stage's
	// number (0 for GA).
	major, stage, n int
}

// parseVersion splits vMAJOR[(alpha|beta)N] into major, stage and the
// stage's number; ok is false for other names and for numbers beyond int.
func parseVersion(v string) (k versionKey, ok bool) {
	rest, found := strings.CutPrefix(v, "v")
	if !found {
		return versionKey{}, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err := strconv.Atoi(rest[:i])
	if i == 0 || err != nil {
		return versionKey{}, false
	}
	rest = rest[i:]
	if rest == "" {
		return versionKey{major: major, stage: 2}, true
	}
	stage := 0
	if r, ok := strings.CutPrefix(rest, "alpha"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(rest, "beta"); ok {
		stage, rest = 1, r
	} else {
		return versionKey{}, false
	}
	if rest == "" || strings.Trim(rest, "0123456789") != "" {
		return versionKey{}, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return versionKey{}, false
	}
	return versionKey{major: major, stage: stage, n: n}, true
}

// JSONNameFor is the json name the Kubernetes conventions give a Go field
// name: its first letter lower-cased ("Replicas" -> "replicas").
func JSONNameFor(goName string) string {
	if goName == "" {
		return goName
	}
	b := []byte(goName)
	if b[0] >= 'A' && b[0] <= 'Z' {
		b[0] += 'a' - 'A'
	}
	return string(b)
}
