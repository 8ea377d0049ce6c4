package rules

import "github.com/apicheck/apicheck/internal/finding"

// The item of Gardener's API change checklist (finding.Checklist) that
// each rule's findings are about, for the reports that rate the checklist
// item by item. One table for the whole catalogue, so that the mapping
// reads as one; a rule about no item says finding.CheckNone.

// ChecklistItem is the key of the checklist item a rule's findings are
// about ("" for a rule the table does not list yet: a test asks every
// rule of the catalogue for one).
func ChecklistItem(r *Rule) string {
	switch r {
	case JSONNameChanged, FieldTypeChanged, TypeUnderlyingChanged, FieldBecameRequired, FieldRenamed,
		PatchStrategyChanged, ListTypeChanged, TypeRemoved, TypeRenamed, EnumValueRemoved, ConflictingMarkers,
		VersionRemoved:
		return finding.CheckCompatible
	case NewFieldNotPointer, NewFieldNotOptional, NewFieldNoOmitempty, OptionalWithoutOmitempty:
		return finding.CheckOptional
	case ProtoNumberChanged, ProtoWireChanged:
		return finding.CheckProtoNumbers
	case ProtoNumberDuplicate, ProtoTagMissing, ProtoTagMalformed:
		return finding.CheckProtoTags
	case VersionSkew:
		return finding.CheckVersions
	case FieldDefaultChanged:
		return finding.CheckDefaulting
	case GeneratedCodeStale:
		return finding.CheckGenerate
	case ValidationTightened, ValidationLoosened:
		return finding.CheckValidation
	case ReleaseNoteMissing:
		return finding.CheckReleaseNote
	case FieldRemovedWithoutTombstone, TombstoneRemoved, TombstoneChanged, TombstonedFieldRestored, TombstoneMalformed,
		ProtoNumberReused, ProtoNumberPreviouslyUsed:
		return finding.CheckTombstone
	case FieldRemovedNotDeprecated, FieldRemovedFromServedVersion:
		return finding.CheckDeprecation
	case FieldRemovedStillUsed, FieldRemovalNotReleased:
		return finding.CheckTwoStep
	case ShootDeprecationNoWarning, ShootDeprecationNoValidation, ShootDeprecationNoMaintenance,
		ShootCanonicalizeTooEarly, ShootCanonicalizeMissing, ShootFieldRemovedTooEarly:
		return finding.CheckShootStages
	case UnclassifiedChange, SuppressionAdded:
		return finding.CheckNone
	}
	return ""
}
