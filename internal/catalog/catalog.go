// Package catalog is the one explicit list of every apicheck rule. It
// feeds the engine, `apicheck rules`, the SARIF rule table,
// docs/rules.md and `apicheck fix` (the rules marked Fixable). Rules are
// listed, never self-registered; a new rule is one file in internal/rules
// named after its ID (holding the rule value) plus one line here.
package catalog

import "github.com/apicheck/apicheck/internal/rules"

// All returns every rule in catalogue order (the order of rules.md).
func All() []*rules.Rule {
	return []*rules.Rule{
		// New fields
		rules.NewFieldNotPointer,
		rules.NewFieldNotOptional,
		rules.NewFieldNoOmitempty,
		rules.OptionalWithoutOmitempty,
		// Protobuf numbers
		rules.ProtoNumberChanged,
		rules.ProtoWireChanged,
		rules.ProtoNumberDuplicate,
		rules.ProtoNumberReused,
		rules.ProtoNumberPreviouslyUsed,
		rules.ProtoTagMissing,
		rules.ProtoTagMalformed,
		// Removal and tombstones
		rules.FieldRemovedFromServedVersion,
		rules.FieldRemovedWithoutTombstone,
		rules.TombstoneRemoved,
		rules.TombstoneChanged,
		rules.TombstonedFieldRestored,
		rules.TombstoneMalformed,
		// Wire and source compatibility of existing fields
		rules.JSONNameChanged,
		rules.FieldTypeChanged,
		rules.TypeUnderlyingChanged,
		rules.FieldBecameRequired,
		rules.FieldRenamed,
		rules.FieldDefaultChanged,
		rules.PatchStrategyChanged,
		rules.ListTypeChanged,
		rules.TypeRemoved,
		rules.TypeRenamed,
		rules.EnumValueRemoved,
		rules.ValidationTightened,
		rules.ValidationLoosened,
		rules.ConflictingMarkers,
		// Versions of one group
		rules.VersionSkew,
		rules.VersionRemoved,
		// Lifecycle across releases
		rules.FieldRemovedStillUsed,
		rules.FieldRemovalNotReleased,
		rules.FieldRemovedNotDeprecated,
		// Shoot deprecation stages
		rules.ShootDeprecationNoWarning,
		rules.ShootDeprecationNoValidation,
		rules.ShootDeprecationNoMaintenance,
		rules.ShootCanonicalizeTooEarly,
		rules.ShootCanonicalizeMissing,
		rules.ShootFieldRemovedTooEarly,
		// Meta
		rules.UnclassifiedChange,
		rules.SuppressionAdded,
		rules.GeneratedCodeStale,
		rules.ReleaseNoteMissing,
	}
}
