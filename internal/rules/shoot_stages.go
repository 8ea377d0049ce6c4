package rules

import (
	"fmt"
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
		gates := val.Hits(sc.f)
		if !s.known && len(gates) == 0 {
			continue // not a Kubernetes-version deprecation
		}
		if len(gates) > 0 {
			s.from, s.known = lowestFrom(gates).From, true
			if len(vers) > 0 && !minVersion(vers).Less(s.from) {
				continue // forbidden for every supported version: past stage 1
			}
		}
		if strat.Problem == "" && len(strat.Hits(sc.f)) > 0 {
			continue // Canonicalize forces it to nil: past stage 1
		}
		out = append(out, s)
	}
	return out, true
}

// minVersion is the lowest of versions vs (at least one).
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
	// stage is the stage the rule looks for (StageCode.Hits runs its
	// detector).
	stage shoot.Stage
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
			if len(code.Hits(s.f)) > 0 {
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
	return len(sc.Hits(sf)) > 0, sc
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
