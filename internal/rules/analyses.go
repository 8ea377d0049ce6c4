package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"

	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
)

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

// require panics (caught by the engine as an internal error naming the
// rule) when a rule reads an input it did not declare: every input a rule
// reads is visible in its definition.
func (c *Context) require(in Input) {
	if !c.rule.Needs(in) && !slices.Contains(c.rule.Uses, in) {
		panic(fmt.Sprintf("rule %s reads the %s without declaring it in Requires or Uses", c.rule.ID, in))
	}
}

// Auditing reports whether the run audits one revision (see
// Analyses.Audit): rules word their findings as states, not changes.
func (c *Context) Auditing() bool { return c.analyses.Audit }

// Release is the release history (the rule must require InputRelease).
func (c *Context) Release() *lifecycle.History {
	c.require(InputRelease)
	return c.analyses.Release
}

// Manifests are the CRD manifests of the two revisions.
type Manifests struct{ Base, Head *crd.Manifests }

// Manifests are the CRD manifests at base and head, nil when the run has
// none (the rule must declare InputManifests in Requires or Uses).
func (c *Context) Manifests() *Manifests {
	c.require(InputManifests)
	return c.analyses.Manifests
}

// Usages are the usages of removed fields (the rule must require
// InputUsages).
func (c *Context) Usages() *usage.Finder {
	c.require(InputUsages)
	return c.analyses.Usages
}

// ShootStages is the code of the Shoot deprecation stages (the rule must
// require InputShootStages).
func (c *Context) ShootStages() *shoot.Stages {
	c.require(InputShootStages)
	return c.analyses.Shoot
}
