// Package deprecations is the removal planner (`apicheck deprecations`):
// it lists every deprecated field, type and version of the API at one
// revision and says where each stands on its way out: the release that
// first shipped the deprecation, the Kubernetes version from which
// validation forbids a Shoot field, the usages left in the code base, the
// stage the deprecation is in, the next step, and whether the element may
// be removed now or from when.
//
// Everything is read from git objects (or the working tree) through the
// lifecycle analyses the rules use: the struct history over the release
// tags (lifecycle.History.StructAt) for fields, scans of one group at a
// few release tags (a binary search) for types and versions, the usage
// search (usage.Finder, syntactic unless type information is asked for)
// and the Shoot stage detectors (internal/lifecycle/shoot) with the
// supported Kubernetes versions. docs/deprecations.md describes the
// output and the decisions.
package deprecations

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Input is what the planner reads.
type Input struct {
	// Context ends the run early; nil means context.Background().
	Context context.Context
	Repo    *git.Repo
	// Snap is the revision whose deprecations are listed.
	Snap git.Snapshot
	// Scan are the scan options of the revision's configuration.
	Scan scan.Options
	// Lifecycle are the lifecycle options (release tag pattern, Shoot
	// stage files, usage exclusions, cache, type information).
	Lifecycle lifecycle.Options
	// ShootRemovals plans only the Shoot spec fields tied to a Kubernetes
	// version, and of those only what decides whether they are removable:
	// DeprecatedSince, ForbiddenFrom, Removable and RemovableFrom are a
	// full plan's; usages are not counted and stages not dated, so Next
	// and Stages may differ from a full plan's. check uses it to find the
	// fields a change of the supported Kubernetes versions makes
	// removable (NewlyRemovable).
	ShootRemovals bool
}

func (in Input) ctx() context.Context {
	if in.Context != nil {
		return in.Context
	}
	return context.Background()
}

// Kinds of deprecated elements.
const (
	KindField   = "field"
	KindType    = "type"
	KindVersion = "version"
)

// Stages a deprecation is in (Deprecation.Stage). The Shoot stages
// (shoot.Stage*) name the furthest stage of Gardener's Shoot process the
// code has.
const (
	// StageDeprecated: marked deprecated; no release shipped the
	// deprecation yet.
	StageDeprecated = "deprecated"
	// StageReleased: a release shipped the deprecation; the removal waits
	// (the deprecation is too recent, usages are left, or the profile
	// removes it in a new API version only).
	StageReleased = "released"
	// StageRemovable: may be removed now.
	StageRemovable = "removable"

	StageWarning      = "warning"
	StageValidation   = "validation"
	StageMaintenance  = "maintenance"
	StageCanonicalize = "canonicalize"
)

// Plan is the planner's answer for one revision.
type Plan struct {
	// Rev is the revision as given (a ref, or "worktree"); Commit its
	// commit (the working tree's HEAD).
	Rev    string `json:"rev"`
	Commit string `json:"commit,omitempty"`
	// NewestRelease is the newest release tag at or before the revision
	// (the release before it, as the rules read it); NextRelease the name
	// the next release is expected to have (its minor version one up).
	NewestRelease string `json:"newestRelease,omitempty"`
	NextRelease   string `json:"nextRelease,omitempty"`
	// SupportedKubernetesVersions are the versions of the supported
	// versions file at the revision, when a Shoot field needed them.
	SupportedKubernetesVersions []string `json:"supportedKubernetesVersions,omitempty"`
	// Deprecations are sorted by group, version, type and field (a
	// version's entry before its types', a type's before its fields').
	Deprecations []Deprecation `json:"deprecations"`
	// Notes say what could not be read or judged.
	Notes []string `json:"notes,omitempty"`
}

// Deprecation is one deprecated field, type or version. Empty values
// are omitted from the JSON form, except removable (always present);
// usages is present whenever it was counted (0 included).
type Deprecation struct {
	Kind string `json:"kind"`
	// Group is the API group's name (its directory when it declares
	// none); Version the version package ("v1beta1").
	Group   string `json:"group"`
	Version string `json:"version"`
	// Type and Field are Go names ("" for a version, Field "" for a type).
	Type  string `json:"type,omitempty"`
	Field string `json:"field,omitempty"`
	// APIPath is the JSON path from a root kind ("Shoot.spec.addons"), as
	// findings name it; for a type its path (a kind's own name).
	APIPath string `json:"apiPath,omitempty"`
	// Pos is the declaration, "file:line" ("" for a version).
	Pos string `json:"pos,omitempty"`
	// Profile is the profile of the group.
	Profile string `json:"profile"`
	// DeprecatedSince is the oldest release of the run of releases up to
	// the newest that marked it deprecated; "" when no release did yet.
	DeprecatedSince string `json:"deprecatedSince,omitempty"`
	// ForbiddenFrom is, for a Shoot field, the Kubernetes version from
	// which validation forbids it (else the one its deprecation names).
	ForbiddenFrom string `json:"forbiddenFrom,omitempty"`
	// Usages counts the references left in the code base (see
	// docs/deprecations.md); nil when not counted.
	Usages *int `json:"usages,omitempty"`
	// Stage is where the deprecation stands (Stage* constants), Next the
	// next step.
	Stage string `json:"stage"`
	Next  string `json:"next"`
	// Removable says the element may be removed now; RemovableFrom, when
	// it may not, from when: a release tag (removal may merge once that
	// release is cut) or, for a Shoot field, "when Kubernetes 1.32 is
	// unsupported".
	Removable     bool   `json:"removable"`
	RemovableFrom string `json:"removableFrom,omitempty"`
	// Stages are, for a Shoot spec field, the stages of Gardener's
	// process and whether the code has them.
	Stages []StageStatus `json:"stages,omitempty"`
}

// StageStatus is one stage of a Shoot field's deprecation.
type StageStatus struct {
	Stage   string `json:"stage"`
	Present bool   `json:"present"`
	// Since is the oldest release of the run of releases up to the
	// newest that had the stage ("" when none had it yet). A stage
	// older than the deprecation shows the deprecation's release.
	Since string `json:"since,omitempty"`
	// At is where the code has it, "file:line".
	At string `json:"at,omitempty"`
}

// Summary counts the deprecations by outcome.
type Summary struct {
	Total, Removable, Later, NextAPIVersion int
}

// Summary counts the plan's deprecations: removable now, removable later
// (a release or a Kubernetes version named), and to be removed in the
// next API version.
func (p *Plan) Summary() Summary {
	var s Summary
	for _, d := range p.Deprecations {
		s.Total++
		switch {
		case d.Removable:
			s.Removable++
		case d.Next == NextAPIVersion:
			s.NextAPIVersion++
		default:
			s.Later++
		}
	}
	return s
}

// NextAPIVersion is the next step of a deprecated element of a served
// version under the kubernetes and crd profiles.
const NextAPIVersion = "remove in the next API version"

// Find plans the removals of the deprecated elements of in.Snap.
func Find(in Input) (*Plan, error) {
	m, err := scan.Scan(in.Snap, in.Scan)
	if err != nil {
		return nil, fmt.Errorf("scanning %s: %w", in.Snap.Ref(), err)
	}
	if err := in.ctx().Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	r := newRun(in, m)
	defer r.close()
	plan := &Plan{Rev: in.Snap.Ref(), Commit: in.Snap.Commit()}
	items := collect(m)
	spec := r.shootSpecFields(items)
	if in.ShootRemovals {
		items = spec
	}
	r.releases(len(items) > 0)
	if len(items) > 0 {
		r.fieldHistory(items)
		if err := r.stop(); err != nil {
			return nil, err
		}
		if !in.ShootRemovals {
			r.typeHistory(items)
			if err := r.stop(); err != nil {
				return nil, err
			}
			r.usages(items)
			if err := r.stop(); err != nil {
				return nil, err
			}
		}
		r.shootStages(spec)
		if err := r.stop(); err != nil {
			return nil, err
		}
		for _, it := range items {
			r.judge(it)
		}
		holdTypes(items)
	}
	if in.ShootRemovals {
		items = slices.DeleteFunc(items, func(it *item) bool { return !it.shoot.tied })
	}
	plan.NewestRelease, plan.NextRelease = r.newest, r.next
	for _, v := range r.supported {
		plan.SupportedKubernetesVersions = append(plan.SupportedKubernetesVersions, v.String())
	}
	for _, it := range items {
		plan.Deprecations = append(plan.Deprecations, it.d)
	}
	slices.SortStableFunc(plan.Deprecations, compare)
	plan.Notes = r.notes
	if err := r.stop(); err != nil {
		return nil, err
	}
	return plan, nil
}

// compare orders deprecations by group, version, type and field.
func compare(a, b Deprecation) int {
	for _, c := range [][2]string{{a.Group, b.Group}, {a.Version, b.Version}, {a.Type, b.Type}, {a.Field, b.Field}, {a.Pos, b.Pos}} {
		if n := strings.Compare(c[0], c[1]); n != 0 {
			return n
		}
	}
	return 0
}

// item is one deprecated element with what the run found about it.
type item struct {
	d     Deprecation
	group *model.Group
	pkg   *model.Package
	typ   *model.Type  // nil for a version
	field *model.Field // nil for a type or a version
	fd    *model.FieldDiff

	// sinceIdx is the index in the release list of DeprecatedSince (-1:
	// no release); span is how many newest releases had the field.
	sinceIdx, span int
	usages         int
	counted        bool

	shoot *shootField // set for a Shoot spec field of the gardener profile
}

// collect lists the deprecated elements of the external versions: every
// deprecated version, every deprecated type (but the kinds of a
// deprecated version, which the version stands for) and every deprecated
// field.
func collect(m *model.Model) []*item {
	var out []*item
	for _, g := range m.Groups {
		gd := &model.GroupDiff{Dir: g.Dir, Base: g, Head: g}
		name := g.Name
		if name == "" {
			name = g.Dir
		}
		for _, p := range g.Versions {
			pd := &model.PackageDiff{Group: gd, Version: p.Version, Base: p, Head: p}
			base := Deprecation{Group: name, Version: p.Version, Profile: string(g.Profile)}
			if p.Deprecated {
				d := base
				d.Kind = KindVersion
				out = append(out, &item{d: d, group: g, pkg: p, sinceIdx: -1})
			}
			var paths map[string]string
			for _, t := range p.Types {
				if t.Deprecated && !(p.Deprecated && t.RootKind) {
					if paths == nil {
						paths = p.APIPaths()
					}
					d := base
					d.Kind, d.Type, d.APIPath, d.Pos = KindType, t.Name, paths[t.Name], pos(t.Pos)
					out = append(out, &item{d: d, group: g, pkg: p, typ: t, sinceIdx: -1})
				}
				var td *model.TypeDiff
				for _, f := range t.Fields {
					if !f.Deprecated {
						continue
					}
					if paths == nil {
						paths = p.APIPaths()
					}
					if td == nil {
						td = &model.TypeDiff{Pkg: pd, Base: t, Head: t}
					}
					fd := &model.FieldDiff{Type: td, Base: f, Head: f}
					d := base
					d.Kind, d.Type, d.Field, d.Pos = KindField, t.Name, f.Name, pos(f.Pos)
					d.APIPath = fieldAPIPath(paths, t.Name, f)
					out = append(out, &item{d: d, group: g, pkg: p, typ: t, field: f, fd: fd, sinceIdx: -1})
				}
			}
		}
	}
	return out
}

// fieldAPIPath is a field's JSON path from its root kind, as findings
// name it: the struct's path (its name when no kind reaches it) and the
// field's wire name (its Go name when it has none).
func fieldAPIPath(paths map[string]string, typ string, f *model.Field) string {
	p, ok := paths[typ]
	if !ok {
		p = typ
	}
	if w := f.WireName(); w != "" && w != "-" && !f.Inline() {
		return p + "." + w
	}
	return p + "." + f.Name
}

func pos(p model.Pos) string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}
