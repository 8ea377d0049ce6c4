package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootCanonicalizeTooEarly is SHOOT_CANONICALIZE_TOO_EARLY.
var ShootCanonicalizeTooEarly = &Rule{
	ID:       "SHOOT_CANONICALIZE_TOO_EARLY",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages, InputRelease},
	Category: CatShoot,
	Severity: finding.Warning,
	Summary: "Canonicalize starts forcing a defaulted Shoot spec field to nil in the same release cycle in which it was deprecated " +
		"(the newest release before base did not mark it deprecated). Info when every such assignment is guarded by a test " +
		"that the value holds no setting (`!*x`, a member tested off): a normalization that keeps set values.",
	Why: "Controllers of the previous release may still rely on the defaulted value; forcing it to nil belongs to the " +
		"release after the deprecation, when they handle nil. Whether the field has defaulting is judged at base and at the " +
		"release, where stored objects come from: dropping the defaulting in the same change does not drop stored values. " +
		"A comparison spanning releases it does not see (release v1.120.0 with v1.149.0) is not judged; a note says so.",
	Fix: "Ship the deprecation (and nil-safe controllers) first; force the field to nil in Canonicalize in the next release.",
	Check: func(c *Context) {
		cases := pairedShootFields(c, func(fd *model.FieldDiff) bool { return fd.Head.Deprecated })
		if len(cases) == 0 {
			return
		}
		st := c.ShootStages()
		var fresh []shootCase
		var hits [][]shoot.Hit
		for _, sc := range cases {
			head := st.Stage(lifecycle.RevHead, shoot.StageStrategy, "")
			if stageSkipped(c, head) {
				return
			}
			h := head.Hits(sc.f)
			if len(h) == 0 {
				continue
			}
			base := st.Stage(lifecycle.RevBase, shoot.StageStrategy, "")
			if base.Problem == "" && len(base.Hits(sc.f)) > 0 {
				continue // not new in this change
			}
			fresh = append(fresh, sc)
			hits = append(hits, h)
		}
		if len(fresh) == 0 {
			return
		}
		rel, ok := withinOneRelease(c)
		if !ok {
			return
		}
		for i, sc := range fresh {
			isDef, ok := storedDefaulted(c, sc.fd, sc.f)
			if !ok {
				return
			}
			if !isDef {
				continue
			}
			rf, found, err := c.Release().ReleaseField(sc.fd)
			if err != nil {
				c.skipErr("", err)
				return
			}
			if found && rf.Deprecated {
				continue
			}
			r := Report{
				Message: fmt.Sprintf("Canonicalize now forces the defaulted Shoot field .%s to nil, but no release deprecated it yet (newest release: %s)",
					sc.f.Path, rel.Newest.Name),
				Hint:    "release the deprecation first; force the field to nil in Canonicalize in the following release",
				Related: []finding.Related{related("field", c.FieldPos(sc.fd))},
			}
			if !slices.ContainsFunc(hits[i], func(h shoot.Hit) bool { return !h.WhenUnset }) {
				// Every assignment is guarded by a test that the value
				// holds no setting: the defaulted empty value is normalized
				// away, a set value stays.
				r.Severity = finding.Info
				r.Message = fmt.Sprintf("Canonicalize now clears the defaulted Shoot field .%s when it holds no setting (a normalization; set values stay), in the release cycle that deprecates it (newest release: %s)",
					sc.f.Path, rel.Newest.Name)
				r.Hint = "confirm that controllers of the previous release handle the field being nil"
			}
			c.FieldAt(sc.fd, hits[i][0].Pos, r)
		}
	},
}
