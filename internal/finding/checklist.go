package finding

// ChecklistItem is an item of Gardener's "Changing the API" checklist
// (and of its "Removing a Field" steps), as the reports show it: each
// rule of the catalogue names the item its findings are about
// (RuleDoc.Checklist), and the Markdown report rates every item by the
// findings behind it.
type ChecklistItem struct {
	// Key is what RuleDoc.Checklist names.
	Key string
	// Title is the item, in a few words.
	Title string
	// NotChecked says why apicheck does not judge the item at all
	// (example manifests, documentation); "" for the items it judges.
	NotChecked string
	// Profiles are the profiles whose conventions include the item; nil
	// for every profile.
	Profiles []string
}

// Keys of the checklist items.
const (
	CheckCompatible   = "compatible"
	CheckOptional     = "optional"
	CheckProtoNumbers = "protobuf-numbers"
	CheckProtoTags    = "protobuf-tags"
	CheckVersions     = "versions"
	CheckConversion   = "conversion"
	CheckDefaulting   = "defaulting"
	CheckGenerate     = "generate"
	CheckValidation   = "validation"
	CheckExamples     = "examples"
	CheckDocs         = "docs"
	CheckReleaseNote  = "release-note"
	CheckTombstone    = "tombstone"
	CheckDeprecation  = "deprecation"
	CheckTwoStep      = "two-step"
	CheckShootStages  = "shoot-stages"
	// CheckNone is the item of a rule about no item of the checklist
	// (the meta rules).
	CheckNone = "none"
)

// Checklist is the checklist in its order: the API stays compatible, the
// items of "Changing the API", then those of "Removing a Field".
var Checklist = []ChecklistItem{
	{Key: CheckCompatible, Title: "Existing fields and types stay compatible"},
	{Key: CheckOptional, Title: "New fields are optional (pointer, `+optional`, `omitempty`)"},
	{Key: CheckProtoNumbers, Title: "Existing protobuf numbers are unchanged", Profiles: []string{"gardener", "kubernetes"}},
	{Key: CheckProtoTags, Title: "Protobuf tags are generated, not copied", Profiles: []string{"gardener", "kubernetes"}},
	{Key: CheckVersions, Title: "Every external version and the internal version changed"},
	{Key: CheckConversion, Title: "Conversion logic adapted",
		NotChecked: "apicheck does not read hand-written conversions (`VERSION_SKEW` reports a field that a version lacks)"},
	{Key: CheckDefaulting, Title: "Defaulting adapted (default markers; `defaults*.go` is not read)"},
	{Key: CheckGenerate, Title: "`make generate` run"},
	{Key: CheckValidation, Title: "Validation adapted (validation markers; `validation*.go` is not read)"},
	{Key: CheckExamples, Title: "Example manifests adapted (`example/*.yaml`)", NotChecked: "not checked by apicheck"},
	{Key: CheckDocs, Title: "Documentation adapted (`docs/`)", NotChecked: "not checked by apicheck"},
	{Key: CheckReleaseNote, Title: "Release note", Profiles: []string{"gardener", "componentconfig"}},
	{Key: CheckTombstone, Title: "Removal: the protobuf number stays reserved (tombstone)", Profiles: []string{"gardener", "kubernetes"}},
	{Key: CheckDeprecation, Title: "Removal: deprecated in a release first"},
	{Key: CheckTwoStep, Title: "Removal: two steps (usages dropped and released first)"},
	{Key: CheckShootStages, Title: "Removal from the Shoot API: the deprecation stages", Profiles: []string{"gardener"}},
}

// LookupChecklist finds a checklist item by key.
func LookupChecklist(key string) (ChecklistItem, bool) {
	for _, it := range Checklist {
		if it.Key == key {
			return it, true
		}
	}
	return ChecklistItem{}, false
}
