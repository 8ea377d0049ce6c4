package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// The Shoot rules judge fields of the Shoot's spec only: status is written
// by Gardener's controllers, not by users, so there is nothing to warn
// about, forbid by Kubernetes version or reset in maintenance. The
// Kubernetes-version stages (warning, version-gated validation,
// maintenance, final removal when the last allowing version is dropped)
// apply to spec fields whose deprecation is tied to a Kubernetes version:
// their doc comment says from which version they are forbidden (or with
// which version's end they go), or validation forbids them from a version
// on. Any other deprecated field, also one the Shoot reaches through a
// type it shares with other kinds (the Seed's backup), follows the plain
// two-step removal rules only.

// shootCase is one Shoot field a Shoot rule judges.
type shootCase struct {
	fd   *model.FieldDiff
	path string // JSON path from the Shoot
	f    shoot.Field
}

// specField reports whether a Shoot field path (below the Shoot) is in its
// spec.
func specField(f shoot.Field) bool { return strings.HasPrefix(f.Path, "spec.") }

// pairedShootFields are the Shoot spec fields present at both revisions
// for which keep(fd) holds.
func pairedShootFields(c *Context, keep func(fd *model.FieldDiff) bool) []shootCase {
	st := c.ShootStages()
	var out []shootCase
	for fd := range c.Diff.PairedFields() {
		if !keep(fd) {
			continue
		}
		if p, ok := st.Path(fd); ok {
			sc := shootCase{fd, p, shoot.NewField(fd.Head, fd.Type.Name(), p, fd.Type.Pkg.Head)}
			if specField(sc.f) {
				out = append(out, sc)
			}
		}
	}
	return out
}

// removedShootFields are the Shoot spec fields removed from existing
// structs.
func removedShootFields(c *Context) []shootCase {
	st := c.ShootStages()
	var out []shootCase
	for fd := range c.Diff.RemovedFields() {
		if p, ok := st.Path(fd); ok {
			sc := shootCase{fd, p, shoot.NewField(fd.Base, fd.Type.Name(), p, fd.Type.Pkg.Base)}
			if specField(sc.f) {
				out = append(out, sc)
			}
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

// lowestFrom is the lowest version from which any of the hits forbids the
// field.
func lowestFrom(hits []shoot.Hit) shoot.Hit {
	best := hits[0]
	for _, h := range hits[1:] {
		if h.From.Less(best.From) {
			best = h
		}
	}
	return best
}

// stageOne is a Shoot spec field newly deprecated (at head, not at base)
// whose deprecation is tied to a Kubernetes version and that is still in
// the first stage of the removal: some supported Kubernetes version still
// allows it and Canonicalize does not force it to nil yet.
type stageOne struct {
	shootCase
	from  shoot.Version // the version from which it is (to be) forbidden
	known bool          // whether from is known
}

// newlyDeprecatedStageOne classifies the Shoot spec fields newly
// deprecated by the change. It returns false when the rule cannot judge (a
// note says why).
func newlyDeprecatedStageOne(c *Context) ([]stageOne, bool) {
	cases := pairedShootFields(c, func(fd *model.FieldDiff) bool { return fd.Head.Deprecated && !fd.Base.Deprecated })
	if len(cases) == 0 {
		return nil, true
	}
	st := c.ShootStages()
	val := st.Stage(lifecycle.RevHead, shoot.StageValidation, "")
	if stageSkipped(c, val) {
		return nil, false
	}
	strat := st.Stage(lifecycle.RevHead, shoot.StageStrategy, "")
	vers, _ := st.SupportedVersions()
	var out []stageOne
	for _, sc := range cases {
		s := stageOne{shootCase: sc}
		s.from, s.known = shoot.ForbiddenFrom(sc.fd.Head.Doc)
		gates := shoot.Validation(val.Files, sc.f)
		if !s.known && len(gates) == 0 {
			continue // not a Kubernetes-version deprecation
		}
		if len(gates) > 0 {
			s.from, s.known = lowestFrom(gates).From, true
			if len(vers) > 0 && !minVersion(vers).Less(s.from) {
				continue // forbidden for every supported version: past stage 1
			}
		}
		if strat.Problem == "" && len(shoot.Canonicalize(strat.Files, sc.f)) > 0 {
			continue // Canonicalize forces it to nil: past stage 1
		}
		out = append(out, s)
	}
	return out, true
}

func minVersion(vs []shoot.Version) shoot.Version {
	m := vs[0]
	for _, v := range vs[1:] {
		if v.Less(m) {
			m = v
		}
	}
	return m
}

// stageRule describes one of the stages of the first release.
type stageRule struct {
	stage  shoot.Stage
	detect func([]*shoot.File, shoot.Field) []shoot.Hit
	// missing says what is missing ("no warning mentions it").
	missing string
	// hint says how to add it; %s is the field's path.
	hint string
}

// deprecationStage is the common shape of the three first-release rules.
// They judge the fields deprecated by the change (marked deprecated at
// head, not at base) that are still in stage 1 at head. Gardener ships the
// stages of a deprecation in several pull requests, so a pull request that
// only announces a deprecation is not wrong: the stages must be complete in
// the release that ships it. When base..head crosses a release (head is,
// or contains, a release tag that base does not), a missing stage is a
// finding at the rule's severity; otherwise it is an info-level checklist
// item.
func deprecationStage(r stageRule) func(c *Context) {
	return func(c *Context) {
		fields, ok := newlyDeprecatedStageOne(c)
		if !ok || len(fields) == 0 {
			return
		}
		st := c.ShootStages()
		rel, prob := st.HeadRelease()
		if prob != "" {
			c.Skip(prob)
			return
		}
		code := st.Stage(lifecycle.RevHead, r.stage, "")
		if stageSkipped(c, code) {
			return
		}
		for _, s := range fields {
			if len(r.detect(code.Files, s.f)) > 0 {
				continue
			}
			p := "." + s.f.Path
			forbidden := ""
			if s.known {
				forbidden = fmt.Sprintf(" (forbidden from Kubernetes %s)", s.from)
			}
			if rel != "" {
				c.Field(s.fd, Report{
					Message: fmt.Sprintf("the Shoot field %s%s is deprecated in release %s, but %s", p, forbidden, rel, r.missing),
					Hint:    fmt.Sprintf(r.hint, p),
				})
				continue
			}
			c.Field(s.fd, Report{
				Severity: finding.Info,
				Message: fmt.Sprintf("checklist: the Shoot field %s%s is newly deprecated and %s yet; the release that ships the deprecation needs it",
					p, forbidden, r.missing),
				Hint: fmt.Sprintf(r.hint, p) + " (in this or a later pull request, before the next release)",
			})
		}
	}
}

// stagesWhy is the part of the Why shared by the first-release rules.
const stagesWhy = " The stages may come in separate pull requests: a pull request that only announces a deprecation gets an " +
	"info-level checklist of what is still missing; the rule reports at its severity when base..head crosses a release (head is " +
	"or contains a release tag that base does not) that ships a deprecation without the stage. Judged are the Shoot spec fields " +
	"newly marked deprecated in base..head whose deprecation names a Kubernetes version, or that validation forbids from a " +
	"version on; a field already forbidden for every supported version, or forced to nil by Canonicalize, is past stage 1."

// ShootDeprecationNoWarning is SHOOT_DEPRECATION_NO_WARNING.
var ShootDeprecationNoWarning = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_WARNING",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A release ships a Shoot spec field deprecated for a Kubernetes version without a warning referring to it " +
		"(info on a pull request that newly deprecates it).",
	Why: "Users only learn that a field they set is deprecated, and from which Kubernetes version it is forbidden, from the API server's warnings." +
		stagesWhy,
	Fix: "Return a warning from GetWarnings (WarningsOnCreate/WarningsOnUpdate) when the field is set, naming the Kubernetes version from which it is forbidden.",
	Check: deprecationStage(stageRule{
		stage: shoot.StageWarnings, detect: shoot.Warnings,
		missing: "no warning mentions it",
		hint:    "warn when %s is set (WarningsOnCreate/WarningsOnUpdate), saying from which Kubernetes version it is forbidden",
	}),
}

// ShootDeprecationNoValidation is SHOOT_DEPRECATION_NO_VALIDATION.
var ShootDeprecationNoValidation = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_VALIDATION",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A release ships a Shoot spec field whose deprecation names a Kubernetes version without validation that forbids it " +
		"from a Kubernetes version on (info on a pull request that newly deprecates it).",
	Why: "The field can only be removed once no supported Kubernetes version allows it; that requires forbidding it " +
		"from the next minor version Gardener will support." + stagesWhy,
	Fix: "Forbid the field (field.Forbidden) for Kubernetes versions from the next supported minor version on, e.g. under versionutils.ConstraintK8sGreaterEqual1XX.Check(v).",
	Check: deprecationStage(stageRule{
		stage: shoot.StageValidation, detect: shoot.Validation,
		missing: "no validation forbids it from a Kubernetes version on",
		hint:    "add field.Forbidden for %s under a Kubernetes version gate (e.g. versionutils.ConstraintK8sGreaterEqual1XX.CheckVersion(v))",
	}),
}

// ShootDeprecationNoMaintenance is SHOOT_DEPRECATION_NO_MAINTENANCE.
var ShootDeprecationNoMaintenance = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_MAINTENANCE",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Warning,
	Summary: "A release ships a Shoot spec field deprecated for a Kubernetes version that the maintenance reconciler does not set " +
		"to nil on forced Kubernetes upgrades (info on a pull request that newly deprecates it).",
	Why: "A forced upgrade to a Kubernetes version that forbids the field would otherwise be rejected by validation." + stagesWhy,
	Fix: "In the maintenance reconciler, set the field to nil when the Shoot is forcefully upgraded to a version where it is forbidden.",
	Check: deprecationStage(stageRule{
		stage: shoot.StageMaintenance, detect: shoot.Maintenance,
		missing: "the maintenance reconciler never sets it to nil",
		hint:    "set %s to nil in the maintenance reconciler when a forced upgrade reaches the Kubernetes version that forbids it",
	}),
}

// defaulted reports whether a field has defaulting at a revision: a
// default marker, or a SetDefaults_* function assigning it. The problem is
// set when the defaulting code cannot be read.
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

// storedDefaulted reports whether stored Shoots may hold a defaulted value
// of the field: it has defaulting at base or at the newest release before
// base (not at head: a change that drops the defaulting does not drop the
// values already stored). ok is false when the rule cannot judge (a note
// says why).
func storedDefaulted(c *Context, fd *model.FieldDiff, sf shoot.Field) (isDef, ok bool) {
	isDef, dc := defaulted(c, lifecycle.RevBase, fd.Base, fd.Type.Pkg.Base.Dir, sf)
	if dc != nil && stageSkipped(c, dc) {
		return false, false
	}
	if isDef {
		return true, true
	}
	rf, found, err := c.Release().ReleaseField(fd)
	if err != nil {
		c.skipErr("", err)
		return false, false
	}
	if !found {
		return false, true
	}
	isDef, dc = defaulted(c, lifecycle.RevRelease, rf, fd.Type.Pkg.Base.Dir, sf)
	if dc != nil && stageSkipped(c, dc) {
		return false, false
	}
	return isDef, true
}

// spansReleases notes, and reports, that base..head spans releases it does
// not see (a comparison of release v1.120.0 with release v1.149.0): which of
// them shipped a deprecation, a Canonicalize or a removal first is only
// judged release by release.
func spansReleases(c *Context, baseRelease string) bool {
	st := c.ShootStages()
	if _, prob := st.HeadRelease(); prob != "" {
		c.Skip(prob)
		return true
	}
	between := st.ReleasesBetween(baseRelease)
	if len(between) == 0 {
		return false
	}
	span := between[0]
	if len(between) > 1 {
		span += " … " + between[len(between)-1]
	}
	c.Skip(fmt.Sprintf("base..head spans releases (%s) between %s and head; the order of the Canonicalize stage is judged release by release",
		span, baseRelease))
	return true
}

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
			h := shoot.Canonicalize(head.Files, sc.f)
			if len(h) == 0 {
				continue
			}
			base := st.Stage(lifecycle.RevBase, shoot.StageStrategy, "")
			if base.Problem == "" && len(shoot.Canonicalize(base.Files, sc.f)) > 0 {
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
				hits = shoot.Validation(val.Files, sc.f)
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

// withinOneRelease reports whether the release history is available (a
// skip note says why when it is not) and the change lies within one
// release cycle; the stage rules judge only such changes.
func withinOneRelease(c *Context) (lifecycle.Release, bool) {
	rel, prob := c.Release().Release()
	if prob != "" {
		c.Skip(prob)
		return rel, false
	}
	return rel, !spansReleases(c, rel.Newest.Name)
}
