package deprecations

import (
	"strings"

	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// The Shoot process (Gardener's docs/development/changing-the-api.md): in
// the release that deprecates a Shoot spec field, a warning, validation
// that forbids the field from a Kubernetes version on, and the
// maintenance reconciler setting it to nil on forced upgrades; for a
// defaulted field, in a later release, Canonicalize forcing it to nil;
// the field goes once no supported Kubernetes version allows it. As in
// the rules, only spec fields (users set them) whose deprecation is tied
// to a Kubernetes version (validation forbids them from one, or their
// deprecation names one) follow it; the others follow the two-step
// removal, with their stages shown for information.

// shootField is what the stage detectors found about a Shoot spec field.
type shootField struct {
	f shoot.Field
	// from is the Kubernetes version from which the field is forbidden
	// (validation's, else the doc comment's); tied is set when either
	// names one.
	from      shoot.Version
	tied      bool
	defaulted bool
	stages    []*stageHit
}

// stageHit is one stage of a Shoot field.
type stageHit struct {
	name    string
	st      shoot.Stage
	present bool
	at      model.Pos
	since   string
}

// shootSpecFields marks the Shoot spec fields of gardener-profile groups
// (item.shoot) and returns them.
func (r *run) shootSpecFields(items []*item) []*item {
	var fields []*item
	for _, it := range items {
		if it.d.Kind != KindField || it.group.Profile != model.ProfileGardener {
			continue
		}
		p, ok := r.stages.Path(it.fd)
		if !ok {
			continue
		}
		sf := shoot.NewField(it.field, it.typ.Name, p, it.pkg)
		if !strings.HasPrefix(sf.Path, "spec.") {
			continue
		}
		it.shoot = &shootField{f: sf}
		fields = append(fields, it)
	}
	return fields
}

// shootStages runs the stage detectors on the Shoot spec fields
// (shootSpecFields) and dates the stages found (not for
// Input.ShootRemovals: what the stages are and when they came does not
// decide removability).
func (r *run) shootStages(fields []*item) {
	if len(fields) == 0 {
		return
	}
	hitsOf := func(st shoot.Stage, f shoot.Field) []shoot.Hit {
		sc := r.stages.Stage(lifecycle.RevHead, st, "")
		if sc.Problem != "" {
			r.note("Shoot stages: %s", sc.Problem)
			return nil
		}
		return sc.Hits(f)
	}
	anyTied := false
	for _, it := range fields {
		s := it.shoot
		s.stages = []*stageHit{
			{name: StageWarning, st: shoot.StageWarnings},
			{name: StageValidation, st: shoot.StageValidation},
			{name: StageMaintenance, st: shoot.StageMaintenance},
			{name: StageCanonicalize, st: shoot.StageStrategy},
		}
		for _, h := range s.stages {
			hits := hitsOf(h.st, s.f)
			if len(hits) == 0 {
				continue
			}
			h.present, h.at = true, hits[0].Pos
			if h.st == shoot.StageValidation {
				low := hits[0]
				for _, x := range hits[1:] {
					if x.From.Less(low.From) {
						low = x
					}
				}
				h.at, s.from, s.tied = low.Pos, low.From, true
			}
		}
		if !s.tied {
			s.from, s.tied = shoot.ForbiddenFrom(it.field.Doc)
		}
		if !r.in.ShootRemovals {
			s.defaulted = r.defaulted(it)
		}
		if !s.defaulted && !s.stages[3].present {
			s.stages = s.stages[:3] // Canonicalize is a stage of defaulted fields
		}
		if s.tied {
			it.d.ForbiddenFrom = s.from.String()
			anyTied = true
		}
		for _, h := range s.stages {
			if h.present && !r.in.ShootRemovals {
				r.stageSince(it, h)
			}
			it.d.Stages = append(it.d.Stages, StageStatus{Stage: h.name, Present: h.present, Since: h.since, At: pos(h.at)})
		}
	}
	if anyTied {
		r.supportedVersions()
	}
}

// defaulted reports whether stored Shoots may hold a defaulted value of
// the field: a default marker, or a SetDefaults_* function assigning it
// at the revision or at the newest release.
func (r *run) defaulted(it *item) bool {
	if _, ok := it.field.Default(); ok {
		return true
	}
	sc := r.stages.Stage(lifecycle.RevHead, shoot.StageDefaults, it.pkg.Dir)
	if sc.Problem == "" && len(sc.Hits(it.shoot.f)) > 0 {
		return true
	}
	if !r.relOK || it.span == 0 {
		return false
	}
	p, err := r.probeAt(0)
	if err != nil {
		return false
	}
	sc = p.stages.Stage(lifecycle.RevHead, shoot.StageDefaults, it.pkg.Dir)
	return sc.Problem == "" && len(sc.Hits(it.shoot.f)) > 0
}

// supportedVersions reads the supported Kubernetes versions, once.
func (r *run) supportedVersions() {
	if r.versRead {
		return
	}
	r.versRead = true
	r.supported, r.versProb = r.stages.SupportedVersions()
	if r.versProb != "" {
		r.note("Shoot fields: %s; no Shoot field forbidden from a Kubernetes version is judged removable", r.versProb)
	}
}

// stageSince dates a stage the revision has: a binary search over the
// releases that had the deprecation (over those that had the field when
// no release had the deprecation yet), each step reading the stage's code
// at one release tag.
func (r *run) stageSince(it *item, h *stageHit) {
	if !r.relOK {
		return
	}
	n := it.span
	if it.sinceIdx >= 0 {
		n = it.sinceIdx + 1
	}
	idx, err := r.lastTrue(n, func(i int) (bool, error) {
		p, err := r.probeAt(i)
		if err != nil {
			return false, err
		}
		sc := p.stages.Stage(lifecycle.RevHead, h.st, "")
		return sc.Problem == "" && len(sc.Hits(it.shoot.f)) > 0, nil
	})
	if err != nil {
		r.note("cannot date the %s stage of %s: %v", h.name, describe(it), err)
		return
	}
	if idx >= 0 {
		h.since = r.rel.All[idx].Name
	}
}

// probe reads the Shoot stage code at one release.
type probe struct {
	hist   *lifecycle.History
	stages *shoot.Stages
}

// probeAt prepares the stage reader of release i, once.
func (r *run) probeAt(i int) (*probe, error) {
	if p, ok := r.probes[i]; ok {
		return p, nil
	}
	snap, err := r.snapAt(i)
	if err != nil {
		return nil, err
	}
	h := lifecycle.NewHistory(lifecycle.Input{Repo: r.in.Repo, Base: snap, Head: snap, Scan: r.scan, Options: r.in.Lifecycle})
	p := &probe{hist: h, stages: shoot.NewStages(h)}
	r.probes[i] = p
	return p, nil
}

// minSupported is the lowest supported Kubernetes version.
func (r *run) minSupported() (shoot.Version, bool) {
	if len(r.supported) == 0 {
		return shoot.Version{}, false
	}
	m := r.supported[0]
	for _, v := range r.supported[1:] {
		if v.Less(m) {
			m = v
		}
	}
	return m, true
}
