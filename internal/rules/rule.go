package rules

import (
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// The rule: its data, its documentation, and the categories of the
// catalogue.

// Category groups rules as rules.md does.
type Category string

const (
	CatNewFields Category = "new-fields"
	CatProtobuf  Category = "protobuf"
	CatRemoval   Category = "removal"
	CatCompat    Category = "compatibility"
	CatVersions  Category = "versions"
	CatLifecycle Category = "lifecycle"
	CatShoot     Category = "shoot-deprecation"
	CatMeta      Category = "meta"
)

// Title is the category's section title in docs/rules.md.
func (c Category) Title() string {
	switch c {
	case CatNewFields:
		return "New fields"
	case CatProtobuf:
		return "Protobuf numbers"
	case CatRemoval:
		return "Removal and tombstones"
	case CatCompat:
		return "Wire and source compatibility of existing fields"
	case CatVersions:
		return "Versions of one group"
	case CatLifecycle:
		return "Lifecycle across releases"
	case CatShoot:
		return "Shoot deprecation stages"
	case CatMeta:
		return "Meta"
	case "":
		return "Other"
	}
	return string(c)
}

// Rule is one entry of the catalogue. Everything apicheck knows about a
// rule is a field here: the engine, `apicheck rules`, SARIF, docs/rules.md,
// `apicheck audit`, `apicheck fix` and the release-note stubs all read
// these fields, so a new rule is one value of this type, in a file named
// after its ID (NEW_FIELD_NOT_POINTER: new_field_not_pointer.go), plus its
// entry in catalog.All. The fields that cap a finding's severity (Relax,
// Alpha, ReleasedOnly, ReleasedVersionOnly, ReleasedStructOnly) are the
// severity policy's (policy.go), which applies them once every rule ran.
type Rule struct {
	ID       string
	Category Category
	// Severity is the default severity: what Check reports at unless its
	// Report says otherwise.
	Severity finding.Severity
	// Relax caps the severity of the rule's findings in groups of a
	// profile (docs/profiles.md): a finding in a group of profile p has at
	// most severity Relax[p]; Off turns the rule off there. Profiles not
	// listed keep Severity.
	Relax map[model.Profile]finding.Severity
	// Alpha caps the severity of findings about alpha versions and alpha
	// fields in profiles whose policy lets alpha APIs break (0: no cap).
	Alpha finding.Severity
	// Audit marks a single-revision invariant that `apicheck audit` runs
	// over every struct of one revision.
	Audit bool
	// AuditHistory marks an invariant over a revision and its release
	// history that `apicheck audit --history` runs: every field of the
	// revision is judged against the earlier releases.
	AuditHistory bool
	// Fixable: `apicheck fix` resolves the rule's findings (internal/fix
	// plans the edits, docs/fix.md); fix.Rules lists the rules so marked.
	Fixable bool
	// Requires lists the analyses beyond the diff that Check reads; the
	// engine runs the rule only when the run can provide all of them and
	// otherwise says so in a note.
	Requires []Input
	// Uses lists the analyses beyond the diff that Check reads when the
	// run has them; without them the rule still runs (e.g. the CRD
	// manifests that tell a removed version was not served).
	Uses []Input
	// UsagesAt are the revisions whose usages of the removed fields
	// Check asks for (InputUsages): the engine has the searches start
	// side by side, before the first rule runs, when the run has removed
	// fields.
	UsagesAt []lifecycle.Rev
	// Ahead, when set, starts in the background the analyses Check will
	// ask for (e.g. History.ProtoHistoryAhead), so that they run beside
	// the rules before it. It must not report, and it only starts work
	// whose answer Check then asks for in the same terms (the same
	// memoised result). The engine calls it before the first rule runs,
	// when the run provides what the rule Requires.
	Ahead func(d *model.Diff, a Analyses)
	// Judges lists the field attributes whose differences this rule
	// judges. The union over the whole catalogue (disabled rules included)
	// is what UNCLASSIFIED_CHANGE does not report.
	Judges []model.Attr
	// ReleasedOnly: the rule protects what a release shipped. A finding
	// about a field that the release before base did not contain (added
	// since, never released) is information: until a release ships it,
	// nothing outside the repository depends on it. Without release
	// history every finding keeps its severity.
	ReleasedOnly bool
	// ReleasedVersionOnly: the rule protects the versions a release
	// shipped. A finding about a field of a version package that the
	// release before base did not have (a version under development, such
	// as Cluster API's v1beta2 before v1.11) is information. Without
	// release history every finding keeps its severity.
	ReleasedVersionOnly bool
	// ReleasedStructOnly: the rule judges fields added to structs that
	// clients already know. A finding about a field added to a struct that
	// the release before base did not have (a struct added since, which
	// this change extends before any release ships it) is information: the
	// struct reaches clients with the field, as if it had been there from
	// the start. Without release history every finding keeps its severity.
	ReleasedStructOnly bool
	// Last makes the engine run the rule after every other rule (the meta
	// rule, which reports what no rule judged).
	Last bool
	// ReleaseNote, when set, makes the rule's unsuppressed error findings
	// on fields and types that exist at both revisions "breaking" release
	// notes, and says in a few words what changed (fd is nil for a
	// finding about a type).
	ReleaseNote func(fd *model.FieldDiff) string
	// Summary is one line: what fires the rule.
	Summary string
	// Why explains the compatibility risk.
	Why string
	// Fix says how to resolve a finding.
	Fix string
	// Before and After are a short failing and passing Go example.
	Before, After string
	// Check judges the diff and reports findings through the context.
	Check func(c *Context)
}

// SeverityIn is the severity a finding of severity s gets in a group of
// profile p.
func (r *Rule) SeverityIn(p model.Profile, s finding.Severity) finding.Severity {
	if max, ok := r.Relax[p]; ok && s > max {
		return max
	}
	return s
}

// offEverywhere reports whether the rule is off in every profile of the
// change's groups (then it does not run at all).
func (r *Rule) offEverywhere(d *model.Diff) bool {
	if len(d.Groups) == 0 {
		return false
	}
	for _, g := range d.Groups {
		if r.Relax[g.Profile()] != Off {
			return false
		}
	}
	return true
}

// relevant is d without the groups whose profile turns the rule off: the
// rule judges, and skips for want of an analysis, only where it is on
// (d itself when it is on everywhere). A tree judged part by part then
// skips a rule in the parts where it has something to judge, as the
// whole tree's run does.
func (r *Rule) relevant(d *model.Diff) *model.Diff {
	off := func(g *model.GroupDiff) bool { return r.Relax[g.Profile()] == Off }
	if !slices.ContainsFunc(d.Groups, off) {
		return d
	}
	cp := *d
	cp.Groups = slices.DeleteFunc(slices.Clone(d.Groups), off)
	return &cp
}

// Needs reports whether the rule requires an input.
func (r *Rule) Needs(in Input) bool { return slices.Contains(r.Requires, in) }

// Doc is the rule's documentation as the reports see it.
func (r *Rule) Doc() finding.RuleDoc {
	why := r.Why
	if r.ReleasedOnly {
		why += " A finding about a field that the release before base did not contain (never released) is info, " +
			"as is every such finding when base predates the repository's first release."
	}
	if r.ReleasedVersionOnly {
		why += " A finding about a version that the release before base did not have, or that no CRD manifest at base serves " +
			"(under development, or no longer served), is info, as is every such finding when base predates the repository's first release."
	}
	if r.ReleasedStructOnly {
		why += " A finding about a field added to a struct that the release before base did not have (a struct not released yet) is info: " +
			"the struct reaches clients with the field."
	}
	return finding.RuleDoc{
		ID: r.ID, Category: string(r.Category), CategoryTitle: r.Category.Title(), Severity: r.Severity,
		Summary: r.Summary, Why: why, Fix: r.Fix, Before: r.Before, After: r.After,
		Requires: inputNames(r.Requires), Checklist: ChecklistItem(r),
	}
}

// Docs returns the documentation of rules, in order.
func Docs(rs []*Rule) []finding.RuleDoc {
	out := make([]finding.RuleDoc, len(rs))
	for i, r := range rs {
		out[i] = r.Doc()
	}
	return out
}

// inputNames are the names of inputs, for the rule documentation.
func inputNames(ins []Input) []string {
	var out []string
	for _, in := range ins {
		out = append(out, string(in))
	}
	return out
}

// Lookup finds a rule by ID in a list.
func Lookup(rs []*Rule, id string) *Rule {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// fixedNote is a ReleaseNote that says the same for every finding.
func fixedNote(text string) func(*model.FieldDiff) string {
	return func(*model.FieldDiff) string { return text }
}
