package rules

// Core returns the rules that judge a diff alone, in documented order.
// The complete catalogue (with the lifecycle rules, which need release
// history) is catalog.All(): that one list feeds the engine,
// `apicheck rules`, the SARIF rule table and docs/rules.md.
func Core() []*Rule {
	return []*Rule{
		// New fields
		newFieldNotPointer,
		newFieldNotOptional,
		newFieldNoOmitempty,
		optionalWithoutOmitempty,
		// Protobuf numbers
		protoNumberChanged,
		protoWireChanged,
		protoNumberDuplicate,
		protoNumberReused,
		protoTagMissing,
		protoTagMalformed,
		// Removal and tombstones
		fieldRemovedWithoutTombstone,
		tombstoneRemoved,
		tombstoneChanged,
		tombstonedFieldRestored,
		tombstoneMalformed,
		// Wire and source compatibility
		jsonNameChanged,
		fieldTypeChanged,
		fieldBecameRequired,
		fieldRenamed,
		fieldDefaultChanged,
		patchStrategyChanged,
		listTypeChanged,
		typeRemoved,
		typeRenamed,
		enumValueRemoved,
		// Versions of one group
		versionSkew,
		// Meta
		unclassifiedChange,
	}
}
