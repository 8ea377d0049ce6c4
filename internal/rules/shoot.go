package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// shootCase is one Shoot field a Shoot rule judges.
type shootCase struct {
	fd   *model.FieldDiff
	path string // JSON path from the Shoot
	f    shoot.Field
}

// pairedShootFields are the Shoot fields present at both revisions for
// which keep(fd) holds.
func pairedShootFields(c *Context, keep func(fd *model.FieldDiff) bool) []shootCase {
	st := c.ShootStages()
	var out []shootCase
	for fd := range c.Diff.PairedFields() {
		if !keep(fd) {
			continue
		}
		if p, ok := st.Path(fd); ok {
			out = append(out, shootCase{fd, p, shoot.NewField(fd.Head, fd.Type.Name(), p, fd.Type.Pkg.Head)})
		}
	}
	return out
}

// newlyDeprecatedShootFields are the Shoot fields that head marks
// Deprecated and base did not.
func newlyDeprecatedShootFields(c *Context) []shootCase {
	return pairedShootFields(c, func(fd *model.FieldDiff) bool { return !fd.Base.Deprecated && fd.Head.Deprecated })
}

// removedShootFields are the Shoot fields removed from existing structs.
func removedShootFields(c *Context) []shootCase {
	st := c.ShootStages()
	var out []shootCase
	for fd := range c.Diff.RemovedFields() {
		if p, ok := st.Path(fd); ok {
			out = append(out, shootCase{fd, p, shoot.NewField(fd.Base, fd.Type.Name(), p, fd.Type.Pkg.Base)})
		}
	}
	return out
}

// stageSkipped notes a stage that cannot be judged and reports whether
// it could not.
func stageSkipped(c *Context, sc *shoot.StageCode) bool {
	if sc.Problem == "" {
		return false
	}
	c.Skip(sc.Problem)
	return true
}

// deprecationStage is the common shape of the three "newly deprecated"
// rules: the stage code at head must handle the field.
func deprecationStage(st shoot.Stage, detect func([]*shoot.File, shoot.Field) []shoot.Hit, msg, hint string) func(c *Context) {
	return func(c *Context) {
		cases := newlyDeprecatedShootFields(c)
		if len(cases) == 0 {
			return
		}
		sc := c.ShootStages().Stage(lifecycle.RevHead, st, "")
		if stageSkipped(c, sc) {
			return
		}
		for _, sc2 := range cases {
			if len(detect(sc.Files, sc2.f)) > 0 {
				continue
			}
			c.Field(sc2.fd, Report{
				Message: fmt.Sprintf(msg, "."+sc2.f.Path),
				Hint:    fmt.Sprintf(hint, "."+sc2.f.Path),
			})
		}
	}
}

// ShootDeprecationNoWarning is SHOOT_DEPRECATION_NO_WARNING.
var ShootDeprecationNoWarning = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_WARNING",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary:  "A Shoot field newly marked `Deprecated:` has no warning referring to it in the warnings code.",
	Why:      "Users only learn that a field they set is deprecated, and from which Kubernetes version it is forbidden, from the API server's warnings.",
	Fix:      "Return a warning from GetWarnings (WarningsOnCreate/WarningsOnUpdate) when the field is set, naming the Kubernetes version from which it is forbidden.",
	Check: deprecationStage(shoot.StageWarnings, shoot.Warnings,
		"the Shoot field %s is deprecated at head, but the warnings code does not mention it",
		"warn when %s is set (WarningsOnCreate/WarningsOnUpdate), saying from which Kubernetes version it is forbidden"),
}

// ShootDeprecationNoValidation is SHOOT_DEPRECATION_NO_VALIDATION.
var ShootDeprecationNoValidation = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_VALIDATION",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary:  "A Shoot field newly marked `Deprecated:` has no validation that forbids it gated on a Kubernetes version.",
	Why: "The field can only be removed once no supported Kubernetes version allows it; that requires forbidding it " +
		"from the next minor version Gardener will support.",
	Fix: "Forbid the field (field.Forbidden) for Kubernetes versions from the next supported minor version on, e.g. under versionutils.ConstraintK8sGreaterEqual1XX.Check(v).",
	Check: deprecationStage(shoot.StageValidation, shoot.Validation,
		"the Shoot field %s is deprecated at head, but no validation forbids it from a Kubernetes version on",
		"add field.Forbidden for %s under a Kubernetes version gate (e.g. versionutils.ConstraintK8sGreaterEqual1XX.Check(v))"),
}

// ShootDeprecationNoMaintenance is SHOOT_DEPRECATION_NO_MAINTENANCE.
var ShootDeprecationNoMaintenance = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_MAINTENANCE",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Warning,
	Summary:  "A Shoot field newly marked `Deprecated:` is not set to nil by the maintenance reconciler on forced Kubernetes upgrades.",
	Why:      "A forced upgrade to a Kubernetes version that forbids the field would otherwise be rejected by validation.",
	Fix:      "In the maintenance reconciler, set the field to nil when the Shoot is forcefully upgraded to a version where it is forbidden.",
	Check: deprecationStage(shoot.StageMaintenance, shoot.Maintenance,
		"the Shoot field %s is deprecated at head, but the maintenance reconciler never sets it to nil",
		"set %s to nil in the maintenance reconciler when a forced upgrade reaches the Kubernetes version that forbids it"),
}

// defaulted reports whether a field has defaulting at a revision: a
// default marker, or a SetDefaults_* function assigning it.
func defaulted(c *Context, rev lifecycle.Rev, f *model.Field, versionDir string, sf shoot.Field) (bool, *shoot.StageCode) {
	if _, ok := f.Default(); ok {
		return true, nil
	}
	sc := c.ShootStages().Stage(rev, shoot.StageDefaults, versionDir)
	if sc.Problem != "" {
		return false, sc
	}
	return len(shoot.Defaulting(sc.Files, sf)) > 0, sc
}

// ShootCanonicalizeTooEarly is SHOOT_CANONICALIZE_TOO_EARLY.
var ShootCanonicalizeTooEarly = &Rule{
	ID:       "SHOOT_CANONICALIZE_TOO_EARLY",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages, InputRelease},
	Category: CatShoot,
	Severity: finding.Warning,
	Summary: "Canonicalize starts forcing a defaulted Shoot field to nil in the same release cycle in which it was deprecated " +
		"(no release tag reachable from base had the field marked deprecated).",
	Why: "Controllers of the previous release may still rely on the defaulted value; forcing it to nil belongs to the " +
		"release after the deprecation, when they handle nil.",
	Fix: "Ship the deprecation (and nil-safe controllers) first; force the field to nil in Canonicalize in the next release.",
	Check: func(c *Context) {
		cases := pairedShootFields(c, func(fd *model.FieldDiff) bool { return fd.Head.Deprecated })
		if len(cases) == 0 {
			return
		}
		st := c.ShootStages()
		head := st.Stage(lifecycle.RevHead, shoot.StageStrategy, "")
		if stageSkipped(c, head) {
			return
		}
		base := st.Stage(lifecycle.RevBase, shoot.StageStrategy, "")
		for _, sc := range cases {
			hits := shoot.Canonicalize(head.Files, sc.f)
			if len(hits) == 0 {
				continue
			}
			if base.Problem == "" && len(shoot.Canonicalize(base.Files, sc.f)) > 0 {
				continue // not new in this change
			}
			isDef, dc := defaulted(c, lifecycle.RevHead, sc.fd.Head, sc.fd.Type.Pkg.Head.Dir, sc.f)
			if dc != nil && stageSkipped(c, dc) {
				continue
			}
			if !isDef {
				continue
			}
			rel, prob := c.Release().Release()
			if prob != "" {
				c.Skip(prob)
				return
			}
			rf, ok, err := c.Release().ReleaseField(sc.fd)
			if err != nil {
				c.Skip(err.Error())
				return
			}
			if ok && rf.Deprecated {
				continue
			}
			c.FieldAt(sc.fd, hits[0].Pos, Report{
				Message: fmt.Sprintf("Canonicalize now forces the defaulted Shoot field .%s to nil, but no release deprecated it yet (newest release: %s)",
					sc.f.Path, rel.Newest.Name),
				Hint:    "release the deprecation first; force the field to nil in Canonicalize in the following release",
				Related: []finding.Related{related("field", c.FieldPos(sc.fd))},
			})
		}
	},
}

// ShootCanonicalizeMissing is SHOOT_CANONICALIZE_MISSING.
var ShootCanonicalizeMissing = &Rule{
	ID:       "SHOOT_CANONICALIZE_MISSING",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages, InputRelease},
	Category: CatShoot,
	Severity: finding.Error,
	Summary:  "A deprecated Shoot field that has defaulting is removed from the API although no release tag before base forced it to nil in Canonicalize.",
	Why: "Defaulted fields are in storage even when users never set them; without a release that forces them to nil, " +
		"Get-then-Update clients keep sending the field, and the old value lingers in storage.",
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
		for _, sc := range cases {
			isDef, dc := defaulted(c, lifecycle.RevBase, sc.fd.Base, sc.fd.Type.Pkg.Base.Dir, sc.f)
			if dc != nil && stageSkipped(c, dc) {
				continue
			}
			if !isDef {
				continue
			}
			rel, prob := c.Release().Release()
			if prob != "" {
				c.Skip(prob)
				return
			}
			st := c.ShootStages().Stage(lifecycle.RevRelease, shoot.StageStrategy, "")
			if stageSkipped(c, st) {
				return
			}
			if len(shoot.Canonicalize(st.Files, sc.f)) > 0 {
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

// ShootFieldRemovedTooEarly is SHOOT_FIELD_REMOVED_TOO_EARLY.
var ShootFieldRemovedTooEarly = &Rule{
	ID:       "SHOOT_FIELD_REMOVED_TOO_EARLY",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A Shoot field is removed while supported-kubernetes-versions.yaml at head still lists a Kubernetes version " +
		"below the version from which validation (as of base) forbids the field.",
	Why: "Shoots on a still supported Kubernetes version may legitimately have the field set; removing it from the API " +
		"drops their data.",
	Fix: "Keep the field until Gardener drops support for the last Kubernetes version that allows it.",
	Check: func(c *Context) {
		cases := removedShootFields(c)
		if len(cases) == 0 {
			return
		}
		st := c.ShootStages()
		vers, prob := st.SupportedVersions()
		if prob != "" {
			c.Skip(prob)
			return
		}
		val := st.Stage(lifecycle.RevBase, shoot.StageValidation, "")
		if stageSkipped(c, val) {
			return
		}
		for _, sc := range cases {
			hits := shoot.Validation(val.Files, sc.f)
			if len(hits) == 0 {
				c.Field(sc.fd, Report{
					Message: fmt.Sprintf("the Shoot field .%s is removed, but validation at base never forbids it for any Kubernetes version", sc.f.Path),
					Hint:    "forbid the field from a Kubernetes version on first, and remove it once no supported version allows it",
				})
				continue
			}
			from := hits[0]
			for _, h := range hits[1:] {
				if h.From.Less(from.From) {
					from = h
				}
			}
			var allowing []string
			for _, v := range vers {
				if v.Less(from.From) {
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
				Message: fmt.Sprintf("the Shoot field .%s is removed, but %s still lists Kubernetes %s, which %s it (validation forbids it only from %s)",
					sc.f.Path, st.SupportedVersionsFile(), strings.Join(allowing, ", "), verb, from.From),
				Hint:    fmt.Sprintf("keep the field until support for Kubernetes versions below %s is dropped", from.From),
				Related: []finding.Related{related("validation at base", from.Pos)},
			})
		}
	},
}
