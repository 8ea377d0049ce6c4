package rules

import (
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/releasenote"
	"github.com/apicheck/apicheck/internal/suppress"
)

// The analyses beyond the diff that rules read, and their inputs.

// Input names an analysis beyond the diff that a rule reads (as
// golang.org/x/tools/go/analysis analyzers declare what they require).
type Input string

const (
	// InputRelease is the release history: the release before base (and
	// head), its model, and the struct history over earlier releases
	// (protobuf numbers, deprecations).
	InputRelease Input = "release history"
	// InputUsages are the usages of removed fields at base and at the
	// newest release.
	InputUsages Input = "usages"
	// InputShootStages is the code of the Shoot deprecation stages.
	InputShootStages Input = "Shoot stage code"
	// InputSuppressions are the suppressions the change adds, with what
	// each hides. They exist only after every other rule ran and the
	// suppressions were applied, so check runs the rules that require
	// them in a second pass.
	InputSuppressions Input = "suppressions added by the change"
	// InputManifests are the CRD manifests at base and head: which
	// versions of a kind the API server serves. Rules use them when the
	// run has them (Rule.Uses), and judge without them otherwise.
	InputManifests Input = "CRD manifests"
	// InputGenerated is the code the generators wrote at base and head
	// (generated.proto, zz_generated.*.go, OpenAPI definitions), read as
	// text.
	InputGenerated Input = "generated code"
	// InputReleaseNote is the pull request's release note (check
	// --release-note) with the release-note stub of the change, drafted
	// from the findings as the report has them. Rules read it when the
	// run has it (Rule.Uses).
	InputReleaseNote Input = "release note"
)

// Analyses are the typed inputs of the rules that need more than the
// diff. check builds them once per comparison; each runs lazily, when a
// rule first asks. A nil field is an analysis this run cannot provide.
type Analyses struct {
	Release *lifecycle.History
	Usages  *usage.Finder
	Shoot   *shoot.Stages
	// Suppressions are the suppressions the change adds.
	Suppressions *Suppressions
	// Manifests are the CRD manifests at base and at head.
	Manifests *Manifests
	// Generated is the generated code at base and at head.
	Generated *Generated
	// ReleaseNote is the release note and the change's stub (nil: the
	// run has neither).
	ReleaseNote *ReleaseNote
	// Unavailable says why the absent analyses are absent, e.g. "audit
	// reads a single revision".
	Unavailable string
	// Audit is set when the run audits one revision (`apicheck audit`):
	// base is empty, so every field of head is new to the diff, and a
	// finding is about what the revision is, not what a change did.
	Audit bool
}

// missing says why the run cannot provide all of ins ("" when it can).
func (a Analyses) missing(ins []Input) string {
	var absent []string
	for _, in := range ins {
		var ok bool
		switch in {
		case InputRelease:
			ok = a.Release != nil
		case InputUsages:
			ok = a.Usages != nil
		case InputShootStages:
			ok = a.Shoot != nil
		case InputSuppressions:
			ok = a.Suppressions != nil
		case InputManifests:
			ok = a.Manifests != nil
		case InputGenerated:
			ok = a.Generated != nil
		case InputReleaseNote:
			ok = a.ReleaseNote != nil
		}
		if !ok {
			absent = append(absent, string(in))
		}
	}
	if len(absent) == 0 {
		return ""
	}
	why := "needs " + strings.Join(absent, " and ") + ", which this run does not have"
	if a.Unavailable != "" {
		why += " (" + a.Unavailable + ")"
	}
	return why
}

// Manifests are the CRD manifests of the two revisions.
type Manifests struct{ Base, Head *crd.Manifests }

// Generated is the generated code of the two revisions. Worktree says
// that head is the working tree, where a change may not have run the
// generators yet.
type Generated struct {
	Base, Head *gencode.Files
	Worktree   bool
	// prefetched is closed when what GENERATED_CODE_STALE's Ahead
	// started to read is read (nil: nothing was started).
	prefetched chan struct{}
}

// ReleaseNote is the input of RELEASE_NOTE_MISSING.
type ReleaseNote struct {
	// Note is the pull request's release note; nil when the run was
	// given none.
	Note *releasenote.Note
	// Findings are the findings of the other rules, as the report has
	// them (suppressed ones marked).
	Findings []finding.Finding
	// Draft drafts the blocks `apicheck release-notes` writes for the
	// groups of d, from Findings.
	Draft func(d *model.Diff) []releasenote.Block
}

// Suppressions are the input of SUPPRESSION_ADDED: what the change adds,
// with what each hides in this run.
type Suppressions struct {
	Added []suppress.Addition
	// NotInEffect says why the change's own configuration does not apply
	// in this run, e.g. "the configuration is read from the base
	// revision"; "" when it does.
	NotInEffect string
}
