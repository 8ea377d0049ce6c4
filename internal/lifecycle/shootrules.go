package lifecycle

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
)

// shootCase is one Shoot field a Shoot rule judges.
type shootCase struct {
	fd   *model.FieldDiff
	path string // JSON path from the Shoot
	f    shoot.Field
}

// newlyDeprecatedShootFields are the Shoot fields that head marks
// Deprecated and base did not.
func newlyDeprecatedShootFields(c *rules.Context, e *Env) []shootCase {
	var out []shootCase
	e.forShootFields(c, func(fd *model.FieldDiff, p string) {
		if fd.Base != nil && fd.Head != nil && !fd.Base.Deprecated && fd.Head.Deprecated {
			out = append(out, shootCase{fd, p, ShootField(fd.Head, fd.Type.Name(), p, fd.Type.Pkg.Head)})
		}
	})
	return out
}

// removedShootFields are the Shoot fields removed from existing structs.
func removedShootFields(c *rules.Context, e *Env) []shootCase {
	var out []shootCase
	for _, fd := range e.RemovedFields() {
		if p, ok := e.shootPath(fd); ok {
			out = append(out, shootCase{fd, p, ShootField(fd.Base, fd.Type.Name(), p, fd.Type.Pkg.Base)})
		}
	}
	return out
}

func (e *Env) forShootFields(c *rules.Context, fn func(fd *model.FieldDiff, path string)) {
	for _, g := range c.Diff.Groups {
		for _, pd := range g.Packages {
			if !pd.External() {
				continue
			}
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil || td.Head.Kind != model.KindStruct {
					continue
				}
				for _, fd := range td.Fields {
					if p, ok := e.shootPath(fd); ok {
						fn(fd, p)
					}
				}
			}
		}
	}
}

// stageNote reports a stage that cannot be judged.
func stageNote(c *rules.Context, rule string, sc *StageCode) bool {
	if sc.Problem == "" {
		return false
	}
	c.Note(fmt.Sprintf("%s skipped: %s", rule, sc.Problem))
	return true
}

// deprecationStage is the common shape of the three "newly deprecated"
// rules: the stage code at head must handle the field.
func deprecationStage(id string, st Stage, detect func([]*shoot.File, shoot.Field) []shoot.Hit, msg, hint string) func(c *rules.Context) {
	return func(c *rules.Context) {
		e := envOf(c)
		if e == nil {
			return
		}
		cases := newlyDeprecatedShootFields(c, e)
		if len(cases) == 0 {
			return
		}
		sc := e.Stage(RevHead, st, "")
		if stageNote(c, id, sc) {
			return
		}
		for _, sc2 := range cases {
			if len(detect(sc.Files, sc2.f)) > 0 {
				continue
			}
			c.Field(sc2.fd, rules.Report{
				Message: fmt.Sprintf(msg, "."+sc2.f.Path),
				Hint:    fmt.Sprintf(hint, "."+sc2.f.Path),
			})
		}
	}
}

// ShootDeprecationNoWarning is SHOOT_DEPRECATION_NO_WARNING.
var ShootDeprecationNoWarning = &rules.Rule{
	ID:       "SHOOT_DEPRECATION_NO_WARNING",
	Category: rules.CatShoot,
	Severity: finding.Error,
	Summary:  "A Shoot field newly marked `Deprecated:` has no warning referring to it in the warnings code.",
	Why:      "Users only learn that a field they set is deprecated, and from which Kubernetes version it is forbidden, from the API server's warnings.",
	Fix:      "Return a warning from GetWarnings (WarningsOnCreate/WarningsOnUpdate) when the field is set, naming the Kubernetes version from which it is forbidden.",
	Check: deprecationStage("SHOOT_DEPRECATION_NO_WARNING", StageWarnings, shoot.Warnings,
		"the Shoot field %s is deprecated at head, but the warnings code does not mention it",
		"warn when %s is set (WarningsOnCreate/WarningsOnUpdate), saying from which Kubernetes version it is forbidden"),
}

// ShootDeprecationNoValidation is SHOOT_DEPRECATION_NO_VALIDATION.
var ShootDeprecationNoValidation = &rules.Rule{
	ID:       "SHOOT_DEPRECATION_NO_VALIDATION",
	Category: rules.CatShoot,
	Severity: finding.Error,
	Summary:  "A Shoot field newly marked `Deprecated:` has no validation that forbids it gated on a Kubernetes version.",
	Why: "The field can only be removed once no supported Kubernetes version allows it; that requires forbidding it " +
		"from the next minor version Gardener will support.",
	Fix: "Forbid the field (field.Forbidden) for Kubernetes versions from the next supported minor version on, e.g. under versionutils.ConstraintK8sGreaterEqual1XX.Check(v).",
	Check: deprecationStage("SHOOT_DEPRECATION_NO_VALIDATION", StageValidation, shoot.Validation,
		"the Shoot field %s is deprecated at head, but no validation forbids it from a Kubernetes version on",
		"add field.Forbidden for %s under a Kubernetes version gate (e.g. versionutils.ConstraintK8sGreaterEqual1XX.Check(v))"),
}

// ShootDeprecationNoMaintenance is SHOOT_DEPRECATION_NO_MAINTENANCE.
var ShootDeprecationNoMaintenance = &rules.Rule{
	ID:       "SHOOT_DEPRECATION_NO_MAINTENANCE",
	Category: rules.CatShoot,
	Severity: finding.Warning,
	Summary:  "A Shoot field newly marked `Deprecated:` is not set to nil by the maintenance reconciler on forced Kubernetes upgrades.",
	Why:      "A forced upgrade to a Kubernetes version that forbids the field would otherwise be rejected by validation.",
	Fix:      "In the maintenance reconciler, set the field to nil when the Shoot is forcefully upgraded to a version where it is forbidden.",
	Check: deprecationStage("SHOOT_DEPRECATION_NO_MAINTENANCE", StageMaintenance, shoot.Maintenance,
		"the Shoot field %s is deprecated at head, but the maintenance reconciler never sets it to nil",
		"set %s to nil in the maintenance reconciler when a forced upgrade reaches the Kubernetes version that forbids it"),
}

// defaulted reports whether a field has defaulting at a revision: a
// default marker, or a SetDefaults_* function assigning it.
func (e *Env) defaulted(rev string, f *model.Field, versionDir string, sf shoot.Field) (bool, *StageCode) {
	if _, ok := f.Default(); ok {
		return true, nil
	}
	sc := e.Stage(rev, StageDefaults, versionDir)
	if sc.Problem != "" {
		return false, sc
	}
	return len(shoot.Defaulting(sc.Files, sf)) > 0, sc
}

// ShootCanonicalizeTooEarly is SHOOT_CANONICALIZE_TOO_EARLY.
var ShootCanonicalizeTooEarly = &rules.Rule{
	ID:       "SHOOT_CANONICALIZE_TOO_EARLY",
	Category: rules.CatShoot,
	Severity: finding.Warning,
	Summary: "Canonicalize starts forcing a defaulted Shoot field to nil in the same release cycle in which it was deprecated " +
		"(no release tag reachable from base had the field marked deprecated).",
	Why: "Controllers of the previous release may still rely on the defaulted value; forcing it to nil belongs to the " +
		"release after the deprecation, when they handle nil.",
	Fix: "Ship the deprecation (and nil-safe controllers) first; force the field to nil in Canonicalize in the next release.",
	Check: func(c *rules.Context) {
		e := envOf(c)
		if e == nil {
			return
		}
		var cases []shootCase
		e.forShootFields(c, func(fd *model.FieldDiff, p string) {
			if fd.Base != nil && fd.Head != nil && fd.Head.Deprecated {
				cases = append(cases, shootCase{fd, p, ShootField(fd.Head, fd.Type.Name(), p, fd.Type.Pkg.Head)})
			}
		})
		if len(cases) == 0 {
			return
		}
		head := e.Stage(RevHead, StageStrategy, "")
		if stageNote(c, "SHOOT_CANONICALIZE_TOO_EARLY", head) {
			return
		}
		base := e.Stage(RevBase, StageStrategy, "")
		for _, sc := range cases {
			hits := shoot.Canonicalize(head.Files, sc.f)
			if len(hits) == 0 {
				continue
			}
			if base.Problem == "" && len(shoot.Canonicalize(base.Files, sc.f)) > 0 {
				continue // not new in this change
			}
			isDef, dc := e.defaulted(RevHead, sc.fd.Head, sc.fd.Type.Pkg.Head.Dir, sc.f)
			if dc != nil && stageNote(c, "SHOOT_CANONICALIZE_TOO_EARLY", dc) {
				continue
			}
			if !isDef {
				continue
			}
			rel, prob := e.Release()
			if prob != "" {
				c.Note(prob)
				return
			}
			rf, ok, err := e.ReleaseField(sc.fd)
			if err != nil {
				c.Note("SHOOT_CANONICALIZE_TOO_EARLY skipped: " + err.Error())
				return
			}
			if ok && rf.Deprecated {
				continue
			}
			c.FieldAt(sc.fd, hits[0].Pos, rules.Report{
				Message: fmt.Sprintf("Canonicalize now forces the defaulted Shoot field .%s to nil, but no release deprecated it yet (newest release: %s)",
					sc.f.Path, rel.Newest.Name),
				Hint:    "release the deprecation first; force the field to nil in Canonicalize in the following release",
				Related: []string{"field " + c.FieldPos(sc.fd).String()},
			})
		}
	},
}

// ShootCanonicalizeMissing is SHOOT_CANONICALIZE_MISSING.
var ShootCanonicalizeMissing = &rules.Rule{
	ID:       "SHOOT_CANONICALIZE_MISSING",
	Category: rules.CatShoot,
	Severity: finding.Error,
	Summary:  "A deprecated Shoot field that has defaulting is removed from the API although no release tag before base forced it to nil in Canonicalize.",
	Why: "Defaulted fields are in storage even when users never set them; without a release that forces them to nil, " +
		"Get-then-Update clients keep sending the field, and the old value lingers in storage.",
	Fix: "Force the field to nil in Canonicalize (and update the warning) in a release before removing the field.",
	Check: func(c *rules.Context) {
		e := envOf(c)
		if e == nil {
			return
		}
		var cases []shootCase
		for _, sc := range removedShootFields(c, e) {
			if sc.fd.Base.Deprecated {
				cases = append(cases, sc)
			}
		}
		if len(cases) == 0 {
			return
		}
		for _, sc := range cases {
			isDef, dc := e.defaulted(RevBase, sc.fd.Base, sc.fd.Type.Pkg.Base.Dir, sc.f)
			if dc != nil && stageNote(c, "SHOOT_CANONICALIZE_MISSING", dc) {
				continue
			}
			if !isDef {
				continue
			}
			rel, prob := e.Release()
			if prob != "" {
				c.Note(prob)
				return
			}
			st := e.Stage(RevRelease, StageStrategy, "")
			if stageNote(c, "SHOOT_CANONICALIZE_MISSING", st) {
				return
			}
			if len(shoot.Canonicalize(st.Files, sc.f)) > 0 {
				continue
			}
			c.Field(sc.fd, rules.Report{
				Message: fmt.Sprintf("the defaulted Shoot field .%s is removed, but release %s did not force it to nil in Canonicalize",
					sc.f.Path, rel.Newest.Name),
				Hint: "set the field to nil in Canonicalize (and say so in the warning) in a release before removing it",
			})
		}
	},
}

// ShootFieldRemovedTooEarly is SHOOT_FIELD_REMOVED_TOO_EARLY.
var ShootFieldRemovedTooEarly = &rules.Rule{
	ID:       "SHOOT_FIELD_REMOVED_TOO_EARLY",
	Category: rules.CatShoot,
	Severity: finding.Error,
	Summary: "A Shoot field is removed while supported-kubernetes-versions.yaml at head still lists a Kubernetes version " +
		"below the version from which validation (as of base) forbids the field.",
	Why: "Shoots on a still supported Kubernetes version may legitimately have the field set; removing it from the API " +
		"drops their data.",
	Fix: "Keep the field until Gardener drops support for the last Kubernetes version that allows it.",
	Check: func(c *rules.Context) {
		e := envOf(c)
		if e == nil {
			return
		}
		cases := removedShootFields(c, e)
		if len(cases) == 0 {
			return
		}
		vers, prob := e.SupportedVersions()
		if prob != "" {
			c.Note("SHOOT_FIELD_REMOVED_TOO_EARLY skipped: " + prob)
			return
		}
		val := e.Stage(RevBase, StageValidation, "")
		if stageNote(c, "SHOOT_FIELD_REMOVED_TOO_EARLY", val) {
			return
		}
		for _, sc := range cases {
			hits := shoot.Validation(val.Files, sc.f)
			if len(hits) == 0 {
				c.Field(sc.fd, rules.Report{
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
			c.Field(sc.fd, rules.Report{
				Message: fmt.Sprintf("the Shoot field .%s is removed, but %s still lists Kubernetes %s, which %s it (validation forbids it only from %s)",
					sc.f.Path, e.opts.Shoot.SupportedVersions, strings.Join(allowing, ", "), verb, from.From),
				Hint:    fmt.Sprintf("keep the field until support for Kubernetes versions below %s is dropped", from.From),
				Related: []string{"validation at base " + from.Pos.String()},
			})
		}
	},
}

// shootPath returns the JSON path of a field from the Shoot root kind of
// its version package ("Shoot.spec.x.y") when the Shoot reaches the
// field's struct. Unlike a finding's API path (where the first root kind
// in name order wins), a struct the Shoot shares with another kind counts
// too.
func (e *Env) shootPath(fd *model.FieldDiff) (string, bool) {
	pd := fd.Type.Pkg
	if !pd.External() {
		return "", false
	}
	pkg, typ, f := pd.Head, fd.Type.Name(), fd.Head
	if f == nil {
		pkg, typ, f = pd.Base, fd.Type.Base.Name, fd.Base
	}
	if pkg == nil {
		return "", false
	}
	p, ok := e.shootPaths(pkg)[typ]
	if !ok {
		return "", false
	}
	if w := f.WireName(); w != "" && w != "-" && !f.Inline() {
		p += "." + w
	}
	return p, true
}

// shootPaths maps every struct type the package's Shoot root kind reaches
// to its shortest JSON path from it (breadth-first, as model.APIPaths).
func (e *Env) shootPaths(p *model.Package) map[string]string {
	if m, ok := e.shootPathMemo[p]; ok {
		return m
	}
	paths := map[string]string{}
	e.shootPathMemo[p] = paths
	root := p.Type("Shoot")
	if root == nil || !root.RootKind {
		return paths
	}
	paths[root.Name] = root.Name
	queue := []*model.Type{root}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, f := range t.Fields {
			ft := p.Type(model.LocalTypeName(f.Type))
			if ft == nil || ft.Kind != model.KindStruct {
				continue
			}
			if _, seen := paths[ft.Name]; seen {
				continue
			}
			path := paths[t.Name]
			if w := f.WireName(); w != "" && !f.Inline() {
				path += "." + w
			}
			paths[ft.Name] = path
			queue = append(queue, ft)
		}
	}
	return paths
}
