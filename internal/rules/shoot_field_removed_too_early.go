package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootFieldRemovedTooEarly is SHOOT_FIELD_REMOVED_TOO_EARLY.
var ShootFieldRemovedTooEarly = &Rule{
	ID:       "SHOOT_FIELD_REMOVED_TOO_EARLY",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A Shoot spec field forbidden from a Kubernetes version on is removed while supported-kubernetes-versions.yaml at head " +
		"still lists a version below it.",
	Why: "Shoots on a still supported Kubernetes version may legitimately have the field set; removing it from the API " +
		"drops their data. The version is the one from which validation at base forbids the field, else the one its " +
		"deprecation names. Fields never tied to a Kubernetes version are left to the two-step removal rules.",
	Fix: "Keep the field until Gardener drops support for the last Kubernetes version that allows it.",
	Check: func(c *Context) {
		cases := removedShootFields(c)
		if len(cases) == 0 {
			return
		}
		st := c.ShootStages()
		val := st.Stage(lifecycle.RevBase, shoot.StageValidation, "")
		for _, sc := range cases {
			textFrom, tied := shoot.ForbiddenFrom(sc.fd.Base.Doc)
			var hits []shoot.Hit
			switch {
			case val.Problem == "":
				hits = val.Hits(sc.f)
			case !tied:
				// Without validation code nothing says whether the field
				// was forbidden from a version on.
				c.Skip(val.Problem)
				continue
			}
			if len(hits) == 0 && !tied {
				continue // not tied to a Kubernetes version
			}
			vers, prob := st.SupportedVersions()
			if prob != "" {
				c.Skip(prob)
				return
			}
			from, why, rel := textFrom, "its deprecation says it is forbidden from "+textFrom.String(), []finding.Related(nil)
			if len(hits) > 0 {
				h := lowestFrom(hits)
				from, why = h.From, "validation at base forbids it only from "+h.From.String()
				rel = []finding.Related{related("validation at base", h.Pos)}
			}
			var allowing []string
			for _, v := range vers {
				if v.Less(from) {
					allowing = append(allowing, v.String())
				}
			}
			if len(allowing) == 0 {
				continue
			}
			verb := "allow"
			if len(allowing) == 1 {
				verb = "allows"
			}
			c.Field(sc.fd, Report{
				Message: fmt.Sprintf("the Shoot field .%s is removed, but %s still lists Kubernetes %s, which %s it (%s)",
					sc.f.Path, st.SupportedVersionsFile(), strings.Join(allowing, ", "), verb, why),
				Hint:    fmt.Sprintf("keep the field until support for Kubernetes versions below %s is dropped", from),
				Related: rel,
			})
		}
	},
}
