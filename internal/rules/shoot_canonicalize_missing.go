package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootCanonicalizeMissing is SHOOT_CANONICALIZE_MISSING.
var ShootCanonicalizeMissing = &Rule{
	ID:       "SHOOT_CANONICALIZE_MISSING",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages, InputRelease},
	Category: CatShoot,
	Severity: finding.Error,
	Summary:  "A deprecated Shoot spec field that has defaulting is removed from the API although the newest release before base did not force it to nil in Canonicalize.",
	Why: "Defaulted fields are in storage even when users never set them; without a release that forces them to nil, " +
		"Get-then-Update clients keep sending the field, and the old value lingers in storage. Whether the field has " +
		"defaulting is judged at base and at the release, not at head. A comparison spanning releases it does not see is " +
		"not judged; a note says so.",
	Fix: "Force the field to nil in Canonicalize (and update the warning) in a release before removing the field.",
	Check: func(c *Context) {
		var cases []shootCase
		for _, sc := range removedShootFields(c) {
			if sc.fd.Base.Deprecated {
				cases = append(cases, sc)
			}
		}
		if len(cases) == 0 {
			return
		}
		rel, ok := withinOneRelease(c)
		if !ok {
			return
		}
		for _, sc := range cases {
			isDef, ok := storedDefaulted(c, sc.fd, sc.f)
			if !ok {
				return
			}
			if !isDef {
				continue
			}
			st := c.ShootStages().Stage(lifecycle.RevRelease, shoot.StageStrategy, "")
			if stageSkipped(c, st) {
				return
			}
			if len(st.Hits(sc.f)) > 0 {
				continue
			}
			c.Field(sc.fd, Report{
				Message: fmt.Sprintf("the defaulted Shoot field .%s is removed, but release %s did not force it to nil in Canonicalize",
					sc.f.Path, rel.Newest.Name),
				Hint: "set the field to nil in Canonicalize (and say so in the warning) in a release before removing it",
			})
		}
	},
}
