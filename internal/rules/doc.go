// Package rules holds the rule catalogue and the engine that runs it.
//
// A rule is plain data (ID, category, default severity, documentation)
// plus one Check function. Rules never pair elements themselves: the diff
// (model.Compare) hands them matched (base, head) pairs. A rule says what
// it found; the engine stamps rule ID, position and subject, and the
// severity policy says how much it matters.
//
// The package's files are of four kinds:
//
//   - The engine: rule.go (Rule, Category, the rule documentation),
//     engine.go (Run, Options, Result, the notes of runs over parts),
//     analyses.go (the inputs beyond the diff), profile.go (the profiles'
//     conventions, Policy, and the severity caps rules share) and policy.go
//     (the severity policy: one pass over the findings once every rule
//     ran, for profiles, maturity, the release history and reach).
//   - The Context, what a rule's Check sees, and its methods: context.go
//     (notes, skips, interruptions), context_report.go (Report and the
//     methods that report a finding), context_inputs.go (the analyses a
//     rule declared, the profile's Policy), context_positions.go (where a
//     finding is reported, JSON paths from the root kind),
//     context_relax.go (a rule's own relaxations), context_reach.go (which
//     types a kind or only status reaches), context_writers.go (which
//     fields only the server writes) and context_schema.go (what the
//     API server validates of a field: schemaless content, hand-written and
//     generated CRD manifests). Only these files and policy.go define
//     methods of Context.
//   - One file per rule, named after its ID in lower case
//     (new_field_not_pointer.go holds NewFieldNotPointer, the rule
//     NEW_FIELD_NOT_POINTER): the Rule value, its Check and the helpers
//     only it uses, as functions (taking the Context when they need it).
//     Its fixtures are in testdata/<RULE_ID>/.
//   - Helpers that several rules use, in files named for what they do:
//     contract.go (a field's contract and its unset value), empty_object.go
//     (whether the API server accepts {}), new_field_scope.go (the fields
//     the NEW_FIELD_* rules judge), wire_shape.go and wire_types.go
//     (comparing types as JSON sees them), type_refs.go (the references
//     between a model's types), server_written.go (the kinds no client
//     sends: read-only clients, webhook reviews' requests),
//     type_mentions.go, crd_serving.go (which
//     versions CRD manifests serve), list_semantics.go,
//     protobuf_numbers.go, validation_changes.go, removed_usages.go,
//     shoot_stages.go and messages.go. checklist.go is the one table of
//     the checklist item each rule's findings are about. Two hold what one rule alone uses,
//     apart from its file to keep that readable: integer_types.go
//     (FIELD_TYPE_CHANGED) and kind_reach.go (VERSION_SKEW).
//
// catalog.All (internal/catalog) lists the rules; nothing registers
// itself.
package rules
