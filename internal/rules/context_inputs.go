package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
)

// The inputs beyond the diff that a rule declared (Rule.Requires and
// Rule.Uses), and the policy of the profile of a group.

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

// Suppressions are the suppressions the change adds (the rule must
// require InputSuppressions).
func (c *Context) Suppressions() *Suppressions {
	c.require(InputSuppressions)
	return c.analyses.Suppressions
}

// Generated is the generated code at base and head, nil when the run has
// none (the rule must declare InputGenerated in Requires or Uses).
func (c *Context) Generated() *Generated {
	c.require(InputGenerated)
	return c.analyses.Generated
}

// ReleaseNote is the pull request's release note with the change's stub,
// nil when the run has neither (the rule must declare InputReleaseNote
// in Requires or Uses).
func (c *Context) ReleaseNote() *ReleaseNote {
	c.require(InputReleaseNote)
	return c.analyses.ReleaseNote
}

// Policy is the policy of the group a package diff belongs to.
func (c *Context) Policy(pd *model.PackageDiff) Policy { return PolicyOf(pd.Group.Profile()) }

// VersionSkewPolicy is the VERSION_SKEW policy of a group: the
// configuration's, else its profile's.
func (c *Context) VersionSkewPolicy(gd *model.GroupDiff) string {
	if c.versionSkew != "" {
		return c.versionSkew
	}
	return PolicyOf(gd.Profile()).VersionSkew
}
