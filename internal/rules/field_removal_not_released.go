package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldRemovalNotReleased is FIELD_REMOVAL_NOT_RELEASED.
var FieldRemovalNotReleased = &Rule{
	ID:       "FIELD_REMOVAL_NOT_RELEASED",
	Alpha:    finding.Info,
	Category: CatLifecycle,
	Severity: finding.Error,
	Relax:    offIn(relaxedToInfo, model.ProfileCRD),
	Requires: []Input{InputRelease, InputUsages, InputShootStages},
	UsagesAt: []lifecycle.Rev{lifecycle.RevBase, lifecycle.RevRelease},
	Summary:  "A field removed from an external version had usages at the release before base (step 1 not yet released).",
	Why: "The release that dropped the usages must be the one running before the field disappears; otherwise the " +
		"previous release's components still use a field the new API server no longer has.",
	Fix: "Keep the field until a release without its usages has been tagged; remove it after that release.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		rel, prob := c.Release().Release()
		if prob != "" {
			c.Skip(prob)
			return
		}
		atBase, err := c.Usages().At(lifecycle.RevBase)
		if err != nil {
			c.skipErr("cannot scan usages at base: ", err)
			return
		}
		u, err := c.Usages().At(lifecycle.RevRelease)
		if err != nil {
			c.skipErr(fmt.Sprintf("cannot scan usages at release %s: ", rel.Newest.Name), err)
			return
		}
		usageNote(c, u)
		for _, fds := range removalGroups(fields) {
			// Usages still at base are FIELD_REMOVED_STILL_USED's finding.
			if atBase.Of(fds[0]).Len() > 0 {
				continue
			}
			// A field the release did not have was never released: what
			// matched there is not a usage of it.
			if released, err := releasedAny(c, fds); c.failed(err) || !released {
				continue
			}
			r := removedUsage(c, fds, u, "release "+rel.Newest.Name, ": the release dropping the usages has not shipped yet",
				fmt.Sprintf("keep the field until a release after %s (which contains the removal of its usages) is tagged", rel.Newest.Name))
			if r != nil {
				c.Field(fds[0], *r)
			}
		}
	},
}

// releasedAny reports whether the release before base had the removed
// field in any of the version packages it was removed from.
func releasedAny(c *Context, fds []*model.FieldDiff) (bool, error) {
	for _, fd := range fds {
		_, released, err := c.Release().ReleaseField(fd)
		if err != nil || released {
			return released, err
		}
	}
	return false, nil
}
