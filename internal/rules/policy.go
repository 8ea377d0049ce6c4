package rules

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// The severity policy decides how much a finding matters. A rule reports
// what it found, at the severity it gives that (Report.Severity, else the
// rule's default); once every rule ran, applyPolicy judges each finding,
// in the order the rules reported them, in these steps:
//
//  1. the questions the rule asked about the release before base
//     (Report.ifFieldUnreleased and its siblings), in the order it asked;
//  2. for a finding about a field, the rule's release properties:
//     ReleasedVersionOnly (a version that the release before base did not
//     have, or that no CRD manifest at base serves), ReleasedStructOnly (a
//     field added to a struct that release did not have) and ReleasedOnly
//     (a field that release did not have);
//  3. the profile of the finding's group (Rule.Relax; Off drops it);
//  4. maturity, where the profile lets alpha APIs break: an alpha version,
//     field or type is capped at Rule.Alpha, and a feature-gated field
//     that the newest release introduced is at most a warning;
//  5. reach: a finding about a field of a struct that no kind reaches is
//     at most a warning;
//  6. the configuration's severity overrides (Options.Severity).
//
// A step that lowers a finding says why, after its message (steps 1, 2,
// 4 and 5: the reports show it) and in Finding.SeverityReason (every
// step). A finding At a place that is no API element belongs to no group:
// only step 6 applies to it.

// reported is a finding as its rule reported it, with what the severity
// policy needs to judge it.
type reported struct {
	finding.Finding
	rule *Rule
	// pd is the package pair of the API element the finding is about; nil
	// for a finding At a place that is no API element.
	pd *model.PackageDiff
	// fd is the field pair of a finding about a field, else nil.
	fd *model.FieldDiff
	// alpha: the element is alpha (an alpha field, or a type that only
	// alpha fields use).
	alpha bool
	// releases are the rule's questions about the release before base.
	releases []releaseQuestion
}

// verdict is a finding's severity and message while the policy judges it,
// with the reason of every step that lowered it.
type verdict struct {
	sev     finding.Severity
	message string
	reasons []string
}

// lower sets the verdict's severity to sev because of why, which follows
// the message in parentheses.
func (v *verdict) lower(sev finding.Severity, why string) {
	v.sev = sev
	v.message += " (" + why + ")"
	v.reasons = append(v.reasons, why)
}

// applyPolicy judges every finding the rules reported (the steps above)
// and returns them, without those a profile turns off, with the severity
// each had before a configured override replaced it (by index).
func (c *Context) applyPolicy(overrides map[string]finding.Severity) ([]finding.Finding, map[int]finding.Severity) {
	var out []finding.Finding
	original := map[int]finding.Severity{}
	for _, p := range c.findings {
		f, keep := c.judge(p)
		if !keep {
			continue
		}
		if s, ok := overrides[f.Rule]; ok && s != f.Severity {
			original[len(out)] = f.Severity
			f.Severity = s
			f.SeverityReason = joinReasons(f.SeverityReason, "the configuration sets the rule's severity to "+s.String())
		}
		out = append(out, f)
	}
	return out, original
}

// judge applies steps 1 to 5 to one finding; keep is false when its
// group's profile turns the rule off.
func (c *Context) judge(p reported) (_ finding.Finding, keep bool) {
	f := p.Finding
	if p.pd == nil {
		return f, true
	}
	c.rule = p.rule // an analysis that fails names the rule
	v := &verdict{sev: f.Severity, message: f.Message}
	for i := range p.releases {
		c.askRelease(v, &p.releases[i])
	}
	if p.fd != nil {
		c.releaseProperties(v, p.rule, p.fd)
	}
	profile := p.pd.Group.Profile()
	switch sev := p.rule.SeverityIn(profile, v.sev); {
	case sev == Off:
		return f, false
	case sev != v.sev:
		v.sev = sev
		v.reasons = append(v.reasons, fmt.Sprintf("the %s profile caps the rule at %s", profile, sev))
	}
	c.maturity(v, p)
	if v.sev > finding.Warning && p.fd != nil && c.unserved(p.fd.Type) {
		v.lower(finding.Warning, fmt.Sprintf("no kind of the API reaches %s, at base or head: only Go code uses its json form", f.Type))
	}
	f.Severity, f.Message, f.SeverityReason = v.sev, v.message, strings.Join(v.reasons, "; ")
	return f, true
}

// joinReasons joins the reasons that are not "".
func joinReasons(reasons ...string) string {
	return strings.Join(slices.DeleteFunc(reasons, func(s string) bool { return s == "" }), "; ")
}

// releaseProperties is step 2: the release properties of rule r for a
// finding about field pair fd.
func (c *Context) releaseProperties(v *verdict, r *Rule, fd *model.FieldDiff) {
	if r.ReleasedVersionOnly {
		c.askRelease(v, versionUnreleased(fd.Type.Pkg))
		c.unservedVersion(v, fd.Type.Pkg)
	}
	if r.ReleasedStructOnly && fd.Base == nil {
		c.askRelease(v, typeUnreleased(fd.Type))
	}
	if r.ReleasedOnly {
		c.askRelease(v, fieldUnreleased(fd, "the field"))
	}
}

// maturity is step 4: where the profile of the finding's group lets
// alpha APIs break (Policy.AlphaMayBreak), a finding about an alpha
// version, field or type has at most the rule's Alpha severity, and one
// above warning about a feature-gated field that the newest release
// introduced is a warning (see gatedNew).
func (c *Context) maturity(v *verdict, p reported) {
	r := p.rule
	if r.Alpha == 0 || !PolicyOf(p.pd.Group.Profile()).AlphaMayBreak {
		return
	}
	switch {
	case v.sev > r.Alpha && (p.alpha || isAlpha(p.pd)):
		v.lower(r.Alpha, "alpha API: may change")
	case v.sev > finding.Warning:
		if tag := c.gatedNew(p.fd); tag != "" {
			v.lower(finding.Warning, fmt.Sprintf("feature-gated field first released in %s: alpha if its gate is, and then it may change", tag))
		}
	}
}

// relax lowers the verdict to severity sev when it is above sev and
// because (asked only then) gives a reason; it reports whether it did. An
// analysis that failed leaves the verdict as it is (and an interrupted
// one ends the run, see failed). It is the one skeleton of the
// relaxations that ask a question beyond the diff, the policy's and the
// rules' own (relaxTo).
func (c *Context) relax(v *verdict, sev finding.Severity, because func() (string, error)) bool {
	if v.sev <= sev {
		return false
	}
	why, err := because()
	if c.failed(err) || why == "" {
		return false
	}
	v.lower(sev, why)
	return true
}

// releaseQuestion is a question about the release before base that the
// severity policy asks of a finding: when the answer makes the finding no
// break, the finding is information.
type releaseQuestion struct {
	// noBreak answers, from the release history, whether the release
	// before base makes the finding no break.
	noBreak func(h *lifecycle.History) (bool, error)
	// why says so after the message; rel is the release before base.
	why func(rel lifecycle.Release) string
}

// ask adds a question for the severity policy to ask; nil adds none.
func (r Report) ask(q *releaseQuestion) Report {
	if q != nil {
		r.releases = append(slices.Clip(r.releases), *q)
	}
	return r
}

// ifFieldUnreleased asks the severity policy to make the finding, when
// it is above info, information if the release before base did not have
// base's field fd (what names that field in the message): until a
// release ships a field, nothing outside the repository depends on it.
// Without release history, or for a field base did not have, the finding
// keeps its severity.
func (r Report) ifFieldUnreleased(fd *model.FieldDiff, what string) Report {
	return r.ask(fieldUnreleased(fd, what))
}

// ifTypeUnreleased asks the severity policy to make the finding about
// base's type of td, when it is above info, information if the release
// before base did not have the type in its version package: a type added
// and removed again within one release cycle (a revert) never reached a
// client.
func (r Report) ifTypeUnreleased(td *model.TypeDiff) Report { return r.ask(typeUnreleased(td)) }

// ifVersionUnreleased asks the severity policy to make the finding, when
// it is above info, information if the release before base did not have
// the version package of pd (a version under development).
func (r Report) ifVersionUnreleased(pd *model.PackageDiff) Report {
	return r.ask(versionUnreleased(pd))
}

// ifReleaseSays asks the severity policy to make the finding, when it is
// above info, information if the release before base makes it no break:
// noBreak answers that from the release history, why says how, after the
// message.
func (r Report) ifReleaseSays(noBreak func(h *lifecycle.History) (bool, error), why func(rel lifecycle.Release) string) Report {
	return r.ask(&releaseQuestion{noBreak: noBreak, why: why})
}

// fieldUnreleased is ifFieldUnreleased's question (nil for a field base
// did not have).
func fieldUnreleased(fd *model.FieldDiff, what string) *releaseQuestion {
	if fd == nil || fd.Base == nil {
		return nil
	}
	return &releaseQuestion{
		noBreak: func(h *lifecycle.History) (bool, error) {
			released, err := h.Released(fd)
			return !released, err
		},
		why: func(rel lifecycle.Release) string {
			return fmt.Sprintf("never released: release %s did not have %s", rel.Newest.Name, what)
		},
	}
}

// typeUnreleased is ifTypeUnreleased's question (nil for a type base did
// not have).
func typeUnreleased(td *model.TypeDiff) *releaseQuestion {
	if td.Base == nil {
		return nil
	}
	return &releaseQuestion{
		noBreak: func(h *lifecycle.History) (bool, error) {
			released, err := h.TypeReleased(td.Pkg, td.Base.Name)
			return !released, err
		},
		why: func(rel lifecycle.Release) string {
			return fmt.Sprintf("never released: release %s did not have the type", rel.Newest.Name)
		},
	}
}

// versionUnreleased is ifVersionUnreleased's question (nil for a package
// that is no external version).
func versionUnreleased(pd *model.PackageDiff) *releaseQuestion {
	if !pd.External() {
		return nil
	}
	return &releaseQuestion{
		noBreak: func(h *lifecycle.History) (bool, error) {
			released, err := h.VersionReleased(pd)
			return !released, err
		},
		why: func(rel lifecycle.Release) string {
			return fmt.Sprintf("version under development: release %s did not have %s", rel.Newest.Name, pd.Version)
		},
	}
}

// askRelease lowers the verdict to information when it is above info,
// the release before base is known and q (asked only then) says that
// release makes the finding no break. Base older than the repository's
// first release had nothing released: the finding is information too.
func (c *Context) askRelease(v *verdict, q *releaseQuestion) {
	if q == nil {
		return
	}
	c.relax(v, finding.Info, func() (string, error) {
		rel, ok := c.releaseToJudge()
		if !ok {
			if first, before := c.analyses.Release.BeforeFirstRelease(); before {
				return "never released: base predates the first release, " + first, nil
			}
			return "", nil
		}
		if yes, err := q.noBreak(c.analyses.Release); err != nil || !yes {
			return "", err
		}
		return q.why(rel), nil
	})
}

// releaseToJudge returns the release before base, which a finding may
// be relaxed by; ok is false when there is no release to ask.
func (c *Context) releaseToJudge() (lifecycle.Release, bool) {
	if c.analyses.Release == nil {
		return lifecycle.Release{}, false
	}
	rel, problem := c.analyses.Release.Release()
	return rel, problem == ""
}

// unservedVersion lowers the verdict to information, when it is above
// info, if the CRD manifests at base define every root kind of the
// version and none serves it (Knative Eventing's v1beta3 EventType before
// its CRD listed it): no client of the API server had the version at
// base, so what changes in it is design. Without manifests, or for a
// version without kinds, the verdict stays.
func (c *Context) unservedVersion(v *verdict, pd *model.PackageDiff) {
	c.relax(v, finding.Info, func() (string, error) {
		ms := c.analyses.Manifests
		if !pd.External() || pd.Base == nil || ms == nil {
			return "", nil
		}
		kinds := rootKinds(pd.Base)
		if len(kinds) == 0 {
			return "", nil
		}
		why, _ := unservedKinds(c, ms, pd.Base.GroupName, pd.Base, kinds)
		return why, nil
	})
}

// gatedNew returns the release that introduced the field fd had at base,
// when the field carries a feature gate (+featureGate=) and that release
// is of the line of the release before base: a field behind a gate that
// one release shipped is alpha (Kubernetes features enter as alpha, and
// the gate's stage lives outside the API types, in the feature gate
// list), and alpha fields may still change; for a field without a gate,
// the release gatedStruct finds. "" otherwise.
func (c *Context) gatedNew(fd *model.FieldDiff) string {
	if fd == nil || fd.Base == nil || c.analyses.Release == nil {
		return ""
	}
	if !fd.Base.Markers.Has("featureGate") {
		return c.gatedStruct(fd.Type, map[*model.TypeDiff]bool{})
	}
	rel, problem := c.analyses.Release.Release()
	if problem != "" {
		return ""
	}
	tag, ok, err := c.analyses.Release.FieldIntroduced(fd)
	if c.failed(err) || !ok {
		return ""
	}
	v, ok1 := git.TagVersion(tag)
	newest, ok2 := git.TagVersion(rel.Newest.Name)
	if !ok1 || !ok2 || semver.MajorMinor(v) != semver.MajorMinor(newest) {
		return ""
	}
	return tag
}

// gatedStruct returns the release that introduced the feature-gated
// fields through which alone base's struct of td is reached (see
// gatedNew), directly or through structs reached so: the struct is the
// gate's (Kubernetes' DRA NodeAllocatableResourceClaimStatus, reached
// only through the gated PodStatus.NodeAllocatableResourceClaimStatuses),
// and its fields are as alpha as the gate. "" otherwise, and for a struct
// on a cycle of references (seen: the structs on the way).
func (c *Context) gatedStruct(td *model.TypeDiff, seen map[*model.TypeDiff]bool) string {
	if td.Base == nil || td.Base.RootKind || td.Pkg.Base == nil || seen[td] {
		return ""
	}
	seen[td] = true
	tag := ""
	for _, u := range c.refs(0).users[td.Pkg.Base.ImportPath+"."+td.Base.Name] {
		ufd := c.fieldPairOf(u.field)
		if ufd == nil || ufd.Base == nil {
			return ""
		}
		t := ""
		if ufd.Base.Markers.Has("featureGate") {
			t = c.gatedNew(ufd)
		} else {
			t = c.gatedStruct(ufd.Type, seen)
		}
		if t == "" {
			return ""
		}
		tag = t
	}
	return tag
}

// fieldPairOf is the field pair of the diff whose base side is f (nil
// when f is no field of an external version's struct at base).
func (c *Context) fieldPairOf(f *model.Field) *model.FieldDiff {
	for pd := range c.Diff.ExternalPackages() {
		for _, td := range pd.Types {
			for _, fd := range td.Fields {
				if fd.Base == f {
					return fd
				}
			}
		}
	}
	return nil
}

// isAlpha reports an alpha version: alpha at base (what clients may rely
// on) or, for a version new in head, at head.
func isAlpha(pd *model.PackageDiff) bool {
	if pd.Base != nil {
		return pd.Base.Maturity == model.Alpha
	}
	return pd.Head != nil && pd.Head.Maturity == model.Alpha
}

// fieldAlpha reports a field marked alpha at base (or, when new, at head).
func fieldAlpha(fd *model.FieldDiff) bool {
	if fd.Base != nil {
		return fd.Base.Alpha || fd.Type.Base != nil && fd.Type.Base.Alpha
	}
	return fd.Head != nil && (fd.Head.Alpha || fd.Type.Head != nil && fd.Type.Head.Alpha)
}

// typeAlpha reports a type that only alpha fields use, at base (or, when
// new, at head).
func typeAlpha(td *model.TypeDiff) bool {
	if td.Base != nil {
		return td.Base.Alpha
	}
	return td.Head != nil && td.Head.Alpha
}
