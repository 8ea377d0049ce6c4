package rules

import (
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
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
	Relax:        offIn(relaxedToInfo, model.ProfileCRD),
	Requires:     []Input{InputUsages, InputShootStages},
	UsagesAt:     []lifecycle.Rev{lifecycle.RevBase},
	Summary:      "A field removed from an external version still has usages at base (step 1 of the two-step removal not done).",
	Why: "Components of the previous release keep running next to an API server that no longer knows the field " +
		"(gardener-apiserver is upgraded first), so code that still reads or writes it breaks: nil pointers, lost data. " +
		"A usage is a selector or composite-literal key whose receiver type-checks to the field's struct (any version of its group), " +
		"outside the group and the code excluded by usages.exclude (tests, mocks, generated code, code that runs in or with the API server); " +
		"a receiver of unresolved type whose selector chain matches the field's path is a possible usage, one severity lower. " +
		"A Shoot field that validation at base forbids for every Kubernetes version head supports is removed in its final step: info.",
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
		for _, fds := range usage.Groups(fields) {
			r := removedUsage(c, fds, u, "base", "", "drop the usages first and ship them in a release; remove the field after that release")
			if r != nil {
				c.Field(fds[0], *r)
			}
		}
	},
}
