package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// The profiles' conventions (Policy) and the severity caps that rules share
// (Rule.Relax).

// Off, as a rule's cap in a profile (Rule.Relax), turns the rule off in
// groups of that profile: it does not run where every group of the change
// has such a profile, and its findings in such groups are dropped.
const Off finding.Severity = -1

// Policy is what a profile decides beyond the per-rule caps in
// Rule.Relax. docs/profiles.md has the table.
type Policy struct {
	// AlphaMayBreak: alpha versions and alpha fields may change or
	// disappear; findings about them are capped at each rule's Alpha
	// severity.
	AlphaMayBreak bool
	// VersionSkew is the default VERSION_SKEW policy: "all" (every version
	// of a group gets every change) or "newest" (new fields may go to the
	// newest version only).
	VersionSkew string
	// TombstoneSentence: a tombstone's explanation must be the checklist's
	// sentence ("X is tombstoned to show why N is reserved protobuf tag.");
	// otherwise any explanatory text reserves the number.
	TombstoneSentence bool
	// OptionalScalarValues: a new optional field may be a non-pointer
	// string, number or bool with omitempty (its zero value means unset).
	OptionalScalarValues bool
	// ZeroRuledOut: a new optional field may be a non-pointer value when
	// its validation rules out the zero value (kube-api-linter's
	// optionalfields), or a struct with omitzero.
	ZeroRuledOut bool
	// ScalarValuesConvention: a new optional string, number or bool with
	// omitempty that ZeroRuledOut does not accept is a warning, not an
	// error: the zero value is never sent, so old objects and clients are
	// safe; that it should be a pointer is kube-api-linter's convention.
	ScalarValuesConvention bool
	// EmptyStructConvention: a new optional struct value whose empty
	// object validates (no member required, no minProperties or CEL rule
	// on it) is a warning, not an error: clients that do not set it send
	// {}, which the API server accepts and defaults member by member;
	// that it should be a pointer (or omitzero) is kube-api-linter's
	// convention.
	EmptyStructConvention bool
	// RequiredValues: a new field explicitly marked required may be a
	// value (kube-api-linter's requiredfields asks required fields not to
	// be pointers); that it is required at all is NEW_FIELD_NOT_OPTIONAL's.
	RequiredValues bool
	// StatusByController: the controller that writes a kind's status
	// ships with the API (a CRD and its controller): a member of the
	// status that became required binds no other client, only the
	// controller, which sends it.
	StatusByController bool
	// SchemaDefaults: the API server fills in a missing field from its
	// schema default (+kubebuilder:default, +default) before it validates
	// (CRDs' structural defaulting), so a field the schema requires but
	// defaults is satisfied for clients that do not send it.
	SchemaDefaults bool
	// DefaultsAreDocumentation: default markers document defaulting done
	// in Go code (built-in types); adding one is info.
	DefaultsAreDocumentation bool
	// DeclarativeValidationMirrors: "+k8s:" validation tags restate
	// hand-written validation, which stays authoritative while the
	// project migrates to declarative validation; a change to such tags
	// alone is info.
	DeclarativeValidationMirrors bool
	// ValidatedInGo: the API server validates the group's objects with
	// hand-written Go code and never enforces the OpenAPI schema's
	// required list (built-in types), so an explicit +required documents
	// validation instead of adding it.
	ValidatedInGo bool
	// NullIsAbsent: the API server decodes objects into Go types, which
	// read JSON null as the zero value (built-in and aggregated API
	// servers, and the components that read a component configuration),
	// so a field written as null is the absent field. A custom resource's
	// schema validation sees the null instead, and rejects it for a field
	// that is not nullable (kubernetes/kubernetes#103011: server-side
	// apply of a typed object with a nil pointer).
	NullIsAbsent bool
	// OptionalMapKeys: items of a list map may leave a key out (built-in
	// and aggregated API servers; structured-merge-diff leaves an absent
	// key out of the item's identity). A custom resource's schema must
	// make every key required or defaulted.
	OptionalMapKeys bool
	// OptionalMarker is the severity of a new field that omitempty (or a
	// package's +kubebuilder:validation:Optional) already makes optional
	// in the schema but that has no optional marker: an error where
	// Gardener's checklist asks for the marker (a component
	// configuration's is capped by the rules' Relax), information where
	// the marker is documentation (kube-openapi and controller-gen derive
	// optionality from omitempty); a warning under the crd profile where
	// the repository's kube-api-linter configuration enables
	// optionalorrequired (Context.newFieldPolicy).
	OptionalMarker finding.Severity
	// Checklist: the group follows Gardener's "Changing the API"
	// checklist as written: new fields are pointers with +optional and
	// omitempty, and an existing optional field keeps its marker.
	Checklist bool
	// Linter is what the repository's kube-api-linter configuration
	// enables for the file of the field being judged (crd profile only;
	// nil without one): Context.newFieldPolicy sets it.
	Linter *LinterConventions
	// SchemaValidates: the API server validates objects against the
	// OpenAPI schema the CRD manifests give each version (custom
	// resources), so where a manifest gives no schema, or a field is
	// marked +kubebuilder:validation:Schemaless, nothing below is
	// validated, required or defaulted by it.
	SchemaValidates bool
	// ReadFromFiles: the group's objects are files its component decodes
	// with Go's decoder (component configurations): no API server
	// validates them against a schema, the decoder requires no field and
	// reads an explicit zero value as the absent one, and what is required
	// is the component's validation code's to say.
	ReadFromFiles bool
}

// Policies are the profiles' policies.
var Policies = map[model.Profile]Policy{
	model.ProfileGardener: {VersionSkew: "all", TombstoneSentence: true, OptionalMarker: finding.Error, Checklist: true, NullIsAbsent: true, OptionalMapKeys: true},
	model.ProfileComponentConfig: {VersionSkew: "all", TombstoneSentence: true, OptionalMarker: finding.Error, NullIsAbsent: true, OptionalMapKeys: true,
		ReadFromFiles: true},
	model.ProfileKubernetes: {AlphaMayBreak: true, VersionSkew: "all", OptionalScalarValues: true, OptionalMarker: finding.Info,
		DefaultsAreDocumentation: true, DeclarativeValidationMirrors: true, ValidatedInGo: true, NullIsAbsent: true,
		OptionalMapKeys: true},
	model.ProfileCRD: {AlphaMayBreak: true, VersionSkew: "newest", ZeroRuledOut: true, ScalarValuesConvention: true, EmptyStructConvention: true, RequiredValues: true, OptionalMarker: finding.Info,
		SchemaDefaults: true, StatusByController: true, SchemaValidates: true},
}

// PolicyOf is a profile's policy (Gardener's for an unknown one).
func PolicyOf(p model.Profile) Policy {
	if pol, ok := Policies[p]; ok {
		return pol
	}
	return Policies[model.ProfileGardener]
}

// offIn builds a Relax map that turns a rule off in the given profiles,
// on top of caps.
func offIn(caps map[model.Profile]finding.Severity, profiles ...model.Profile) map[model.Profile]finding.Severity {
	out := map[model.Profile]finding.Severity{}
	for p, s := range caps {
		out[p] = s
	}
	for _, p := range profiles {
		out[p] = Off
	}
	return out
}

// Relaxations shared by several rules (rules.md "Profiles"): the
// component-config profile never errs on removals and renames, and only
// warns about new-field conventions.
var (
	relaxedToInfo    = map[model.Profile]finding.Severity{model.ProfileComponentConfig: finding.Info}
	relaxedToWarning = map[model.Profile]finding.Severity{model.ProfileComponentConfig: finding.Warning}
	// conventionInFiles: Gardener's checklist applies to component
	// configurations too, but a new field that breaks it breaks a
	// convention, not a client (the component decodes its file and
	// defaults what is missing): a warning, which does not fail the gate.
	conventionInFiles = relaxedToWarning
	// protobufInert: custom resources are served as JSON only (the API
	// server has no protobuf encoding for them) and component configs are
	// read from files, so protobuf tags there, often copied from built-in
	// types, reach no client.
	protobufInert = map[model.Profile]finding.Severity{model.ProfileCRD: finding.Info, model.ProfileComponentConfig: finding.Info}
	// patchInert: the API server refuses strategic merge patches of custom
	// resources (415 Unsupported Media Type; they are decoded as
	// unstructured, without the Go tags), and server-side apply merges by
	// +listType/+listMapKey, so patchStrategy and patchMergeKey on CRD
	// types reach no server.
	patchInert = map[model.Profile]finding.Severity{model.ProfileCRD: finding.Info}
)
