package rules

import (
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldRemovedStillUsed is FIELD_REMOVED_STILL_USED.
var FieldRemovedStillUsed = &Rule{
	ID: "FIELD_REMOVED_STILL_USED",
	// A field no release shipped is unknown to the previous release's
	// components: its usages go with it in the same change.
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatLifecycle,
	Severity:     finding.Error,
	// A CRD's controller ships with it: its usages at base are where the
	// removal bites (FIELD_REMOVED_FROM_SERVED_VERSION judges the
	// removal), not a step of a two-step removal.
	Relax:    stillUsedCaps,
	Requires: []Input{InputUsages, InputShootStages},
	UsagesAt: []lifecycle.Rev{lifecycle.RevBase},
	Summary:  "A field removed from an external version still has usages at base (step 1 of the two-step removal not done).",
	Why: "Components of the previous release keep running next to an API server that no longer knows the field " +
		"(gardener-apiserver is upgraded first), so code that still reads or writes it breaks: nil pointers, lost data. " +
		"A usage is a selector or composite-literal key whose receiver type-checks to the field's struct (any version of its group), " +
		"outside the group and the code excluded by usages.exclude (tests, mocks, generated code, code that runs in or with the API server); " +
		"a receiver of unresolved type whose selector chain matches the field's path is a possible usage, one severity lower. " +
		"A Shoot field that validation at base forbids for every Kubernetes version head supports is removed in its final step: info. " +
		"Under the crd profile a warning: the controller ships with the CRD, so its usages at base show what the removal takes from " +
		"objects that set the field (FIELD_REMOVED_FROM_SERVED_VERSION judges the removal itself).",
	Fix: "Remove every usage of the field in one release; remove the field from the API in the next release.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		u, err := c.Usages().At(lifecycle.RevBase)
		if err != nil {
			c.skipErr("cannot scan usages at base: ", err)
			return
		}
		usageNote(c, u)
		for _, fds := range removalGroups(fields) {
			r := removedUsage(c, fds, u, "base", "", "drop the usages first and ship them in a release; remove the field after that release")
			if r != nil {
				c.Field(fds[0], *r)
			}
		}
	},
}

// stillUsedCaps are FIELD_REMOVED_STILL_USED's caps: information for a
// component configuration, a warning for a CRD.
var stillUsedCaps = map[model.Profile]finding.Severity{model.ProfileComponentConfig: finding.Info, model.ProfileCRD: finding.Warning}
