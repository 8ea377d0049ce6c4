package suppress

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/glob"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/quote"
)

// AddedKind says what kind of suppression a change added.
type AddedKind int

const (
	// AddedIgnore is an ignore entry of the configuration.
	AddedIgnore AddedKind = iota + 1
	// AddedMarker is an inline +apicheck:ignore marker (one rule ID).
	AddedMarker
	// AddedDisable is rules.<ID>.enabled: false.
	AddedDisable
	// AddedLowering is rules.<ID>.severity below what base had.
	AddedLowering
	// AddedExclude is an exclude pattern that leaves API versions out.
	AddedExclude
	// AddedGroups is a groups list that leaves API versions out.
	AddedGroups
	// AddedProfile is API groups judged under another profile at head
	// than at base: head's configuration sets one, or what head holds
	// (go.mod's module path, CRD markers and manifests, protobuf files)
	// makes another one detected.
	AddedProfile
	// AddedSetting is a setting of head's configuration that can judge
	// the change less strictly than base's: versionSkew, a release tag
	// pattern, usages.exclude patterns, versions no longer listed as
	// stable.
	AddedSetting
	// AddedInvalidMarker is an invalid +apicheck:ignore marker the change
	// wrote while its markers are judged, not obeyed (a trusted
	// configuration): it suppresses nothing and is the change's error.
	AddedInvalidMarker
)

// Addition is one suppression that the head revision has and the base
// revision did not have (or had narrower): what it is, where it is
// written at head and what it hides in this run.
type Addition struct {
	Kind AddedKind
	// Pos is the configuration line or the marker's comment line at head.
	Pos model.Pos
	// Rule is the rule ID an ignore entry, marker, disable or lowering is
	// about.
	Rule string
	// Ignore is the entry (AddedIgnore); Marker the marker (AddedMarker).
	Ignore *config.Ignore
	Marker *Marker
	// Widens describes what base had when the suppression widens one of
	// base's ("" for a new one).
	Widens string
	// Pattern is the exclude pattern (AddedExclude).
	Pattern string
	// From and To are the severities of a lowering.
	From, To finding.Severity
	// Hides are the findings it suppresses, lowers or (for a disabled
	// rule) keeps from running, in report order, without those a
	// suppression of base already covered.
	Hides []finding.Finding
	// Versions are the API version directories it removes from checking
	// (AddedExclude, AddedGroups).
	Versions []string
	// InEffect is false when the suppression does not apply in this run
	// (the configuration in effect is trusted, not head's).
	InEffect bool
	// Setting is the configuration key of an AddedSetting (e.g.
	// "releases.tagPattern"); Old and New are base's and head's value
	// (of an AddedProfile: the profiles), Detail what the change to it
	// does.
	Setting, Old, New, Detail string
	// Groups are the API group directories of an AddedProfile.
	Groups []string
	// Invalid is what is wrong with an AddedInvalidMarker.
	Invalid string
}

// ProfileChange is API groups whose profile differs between base and
// head (an input of Added, made by the caller, which can judge the change
// under the other profile).
type ProfileChange struct {
	// From and To are base's and head's profile of the groups.
	From, To model.Profile
	// Groups are the group directories, sorted.
	Groups []string
	// Pos is the line of head's configuration that sets To, or a file of
	// the first group at head when detection decided it.
	Pos model.Pos
	// Configured is set when head's configuration sets To.
	Configured bool
	// InEffect is set when the groups are judged under To in this run.
	InEffect bool
	// Strict and Lax are the findings of the run under From and under
	// To (one of them is Comparison.Findings): a finding of Strict that
	// Lax has at a lower severity, or not at all, is what the change of
	// profile lowers.
	Strict, Lax []finding.Finding
}

// Comparison is what Added compares.
type Comparison struct {
	// Base and Head are the repository's configuration at the two
	// revisions (Default when a revision has none). Head nil leaves the
	// configuration out (head's is not valid and not in effect).
	Base, Head *config.Config
	// HeadInEffect is set when head's configuration is the one in effect.
	HeadInEffect bool
	// Trusted is the configuration in effect when it is not head's (the
	// base revision's, or a file outside the repository); its ignore
	// entries count as existing suppressions.
	Trusted *config.Config
	// BaseMarkers and HeadMarkers are the markers of the two revisions
	// (Result of Apply); MarkersInEffect is set when markers the change
	// adds suppress in this run.
	BaseMarkers, HeadMarkers []Marker
	MarkersInEffect          bool
	// Findings are the run's findings with suppressions applied.
	Findings []finding.Finding
	// Original holds, by index in Findings, the severity of a finding
	// before the configuration overrode it.
	Original map[int]finding.Severity
	// Disabled are the findings of the rules the configuration in effect
	// disabled and base did not (they did not run; a separate run found
	// them).
	Disabled []finding.Finding
	// Severity is each rule's default severity, by rule ID.
	Severity map[string]finding.Severity
	// OldGroups and NewGroups are the API groups (directory to version
	// directories) discovery finds at head with base's and with head's
	// configuration; nil when their exclude and groups settings are the
	// same.
	OldGroups, NewGroups map[string][]string
	// Profiles are the groups whose profile differs between base and
	// head.
	Profiles []ProfileChange
	// SkewStrict and SkewLax are VERSION_SKEW's findings under base's and
	// head's versionSkew policy when head's configuration sets a laxer
	// one (one of them is a subset of Findings).
	SkewStrict, SkewLax []finding.Finding
	// InvalidMarkers are head's invalid markers (Result.Invalid).
	InvalidMarkers config.Errors
}

// Added lists the suppressions head adds or widens compared with base,
// sorted by position. Suppressions that base already had are not listed.
func Added(c Comparison) []Addition {
	var out []Addition
	if c.Head != nil {
		out = append(out, c.ignores()...)
		out = append(out, c.ruleSettings()...)
		out = append(out, c.discovery()...)
		out = append(out, c.settings()...)
	}
	out = append(out, c.profiles()...)
	out = append(out, c.markers()...)
	for _, e := range c.InvalidMarkers {
		out = append(out, Addition{Kind: AddedInvalidMarker, Pos: model.Pos{File: e.File, Line: e.Line, Col: e.Column}, Invalid: e.Msg})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(out[i].Rule, out[j].Rule)) < 0
	})
	return out
}

// preexisting reports whether a suppression that exists apart from the
// change (base's configuration and markers, a trusted configuration)
// covers a finding: then no added suppression hides it.
func (c *Comparison) preexisting(f *finding.Finding) bool {
	for _, cfg := range []*config.Config{c.Base, c.Trusted} {
		if cfg == nil {
			continue
		}
		for i := range cfg.Ignore {
			if Matches(&cfg.Ignore[i], f) {
				return true
			}
		}
	}
	for i := range c.BaseMarkers {
		if c.BaseMarkers[i].Matches(f) {
			return true
		}
	}
	return false
}

// hidden returns the findings of fs that match and that no existing
// suppression covers, in report order.
func (c *Comparison) hidden(fs []finding.Finding, match func(i int, f *finding.Finding) bool) []finding.Finding {
	var out []finding.Finding
	for i := range fs {
		f := &fs[i]
		if match(i, f) && !c.preexisting(f) {
			out = append(out, *f)
		}
	}
	finding.Sort(out)
	return out
}

// covers reports whether ignore entry a suppresses at least what b does:
// the same rule, and every criterion a sets is set to the same in b.
func covers(a, b *config.Ignore) bool {
	return a.Rule == b.Rule && (a.Type == "" || a.Type == b.Type) && (a.Field == "" || a.Field == b.Field) &&
		(a.APIPath == "" || a.APIPath == b.APIPath) && (a.Package == "" || a.Package == b.Package) &&
		(a.Group == "" || a.Group == b.Group)
}

func (c *Comparison) ignores() []Addition {
	var out []Addition
	for i := range c.Head.Ignore {
		e := &c.Head.Ignore[i]
		widens := ""
		old := false
		for j := range c.Base.Ignore {
			b := &c.Base.Ignore[j]
			switch {
			case covers(b, e):
				old = true
			case widens == "" && covers(e, b):
				widens = describe(b)
			}
		}
		if old {
			continue
		}
		out = append(out, Addition{
			Kind: AddedIgnore, Pos: pos(e.Pos), Rule: e.Rule, Ignore: e, Widens: widens, InEffect: c.HeadInEffect,
			Hides: c.hidden(c.Findings, func(_ int, f *finding.Finding) bool { return Matches(e, f) }),
		})
	}
	return out
}

func (c *Comparison) ruleSettings() []Addition {
	var out []Addition
	for _, id := range slices.Sorted(maps.Keys(c.Head.Rules)) {
		h, b := c.Head.Rules[id], c.Base.Rules[id]
		if h.Enabled != nil && !*h.Enabled {
			if b.Enabled == nil || *b.Enabled {
				all := append(slices.Clone(c.Findings), c.Disabled...)
				out = append(out, Addition{
					Kind: AddedDisable, Pos: pos(h.Pos), Rule: id, InEffect: c.HeadInEffect,
					Hides: c.hidden(all, func(_ int, f *finding.Finding) bool { return f.Rule == id }),
				})
			}
			continue // a disabled rule has no severity
		}
		to, ok := parseSeverity(h.Severity)
		if !ok {
			continue
		}
		from, baseSets := parseSeverity(b.Severity)
		if !baseSets {
			from = c.Severity[id]
		}
		if b.Enabled != nil && !*b.Enabled || to >= from {
			continue
		}
		// What a finding's severity is under base's setting.
		before := func(i int, f *finding.Finding) finding.Severity {
			if baseSets {
				return from
			}
			if s, ok := c.Original[i]; ok {
				return s
			}
			return f.Severity
		}
		out = append(out, Addition{
			Kind: AddedLowering, Pos: pos(h.Pos), Rule: id, From: from, To: to, InEffect: c.HeadInEffect,
			Hides: c.hidden(c.Findings, func(i int, f *finding.Finding) bool { return f.Rule == id && before(i, f) > to }),
		})
	}
	return out
}

func parseSeverity(name string) (finding.Severity, bool) {
	if name == "" {
		return 0, false
	}
	s, err := finding.ParseSeverity(name)
	return s, err == nil
}

// discovery reports exclude patterns and a groups list of head that
// leave API versions out of the check that base's configuration checks.
func (c *Comparison) discovery() []Addition {
	if c.OldGroups == nil || c.NewGroups == nil {
		return nil
	}
	type lost struct{ group, version string }
	var gone []lost
	for _, g := range slices.Sorted(maps.Keys(c.OldGroups)) {
		for _, v := range c.OldGroups[g] {
			if !slices.Contains(c.NewGroups[g], v) {
				gone = append(gone, lost{g, v})
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	var out []Addition
	basePatterns := map[string]bool{}
	for _, g := range c.Base.Exclude {
		basePatterns[g.Pattern] = true
	}
	if len(c.Head.Groups) == 0 {
		// Exclude patterns only apply to discovery.
		for _, g := range c.Head.Exclude {
			if basePatterns[g.Pattern] {
				continue
			}
			var vs []string
			for _, l := range gone {
				if glob.Match(g.Pattern, l.version) {
					vs = append(vs, l.version)
				}
			}
			if len(vs) > 0 {
				out = append(out, Addition{Kind: AddedExclude, Pos: pos(g.Pos), Pattern: g.Pattern, Versions: vs, InEffect: c.HeadInEffect})
			}
		}
		return out
	}
	listed := map[string]bool{}
	for _, g := range c.Head.Groups {
		listed[g.Dir] = true
	}
	var vs []string
	for _, l := range gone {
		if !listed[l.group] {
			vs = append(vs, l.version)
		}
	}
	if len(vs) > 0 {
		out = append(out, Addition{Kind: AddedGroups, Pos: pos(c.Head.GroupsPos), Versions: vs, InEffect: c.HeadInEffect})
	}
	return out
}

// profiles reports the groups whose profile the change changes, with the
// findings that the other profile lowers.
func (c *Comparison) profiles() []Addition {
	var out []Addition
	for _, p := range c.Profiles {
		in := map[string]bool{}
		for _, g := range p.Groups {
			in[g] = true
		}
		hides := c.hidden(lowered(p.Strict, p.Lax), func(_ int, f *finding.Finding) bool { return in[f.Group] })
		detail := "detected from what head holds (go.mod's module path, CRD markers and manifests, protobuf files)"
		if p.Configured {
			detail = "set in head's configuration"
		}
		out = append(out, Addition{
			Kind: AddedProfile, Pos: p.Pos, Old: string(p.From), New: string(p.To), Groups: p.Groups,
			Detail: detail, InEffect: p.InEffect, Hides: hides,
		})
	}
	return out
}

// lowered returns the findings of strict that lax has at a lower
// severity or not at all (matched by fingerprint), as in strict.
func lowered(strict, lax []finding.Finding) []finding.Finding {
	laxSev := map[string]finding.Severity{}
	for i := range lax {
		if s, ok := laxSev[lax[i].Fingerprint]; !ok || lax[i].Severity > s {
			laxSev[lax[i].Fingerprint] = lax[i].Severity
		}
	}
	var out []finding.Finding
	for i := range strict {
		if s, ok := laxSev[strict[i].Fingerprint]; !ok || s < strict[i].Severity {
			out = append(out, strict[i])
		}
	}
	return out
}

// settings reports the settings of head's configuration, other than
// suppressions, rule settings, discovery and profiles, that can judge the
// change less strictly than base's.
func (c *Comparison) settings() []Addition {
	var out []Addition
	add := func(p config.Pos, key, old, new, detail string, hides []finding.Finding) {
		out = append(out, Addition{Kind: AddedSetting, Pos: pos(p), Setting: key, Old: old, New: new, Detail: detail, InEffect: c.HeadInEffect, Hides: hides})
	}
	if skew := func(s string) string { return cmp.Or(s, "the profile's default") }; c.Head.VersionSkew == "newest" && c.Base.VersionSkew != "newest" {
		add(c.Head.VersionSkewPos, "versionSkew", skew(c.Base.VersionSkew), c.Head.VersionSkew,
			fmt.Sprintf("changed from %q to %q: new fields may go to a group's newest version only; older versions are not held to them",
				skew(c.Base.VersionSkew), c.Head.VersionSkew),
			c.hidden(lowered(c.SkewStrict, c.SkewLax), func(int, *finding.Finding) bool { return true }))
	}
	if b, h := c.Base.Releases.TagPattern, c.Head.Releases.TagPattern; b != h {
		add(c.Head.Releases.Pos, "releases.tagPattern", b, h,
			fmt.Sprintf("changed from %q to %q: ", b, h)+"other tags count as releases: the release-aware rules (two-step removal, protobuf numbers of earlier releases, "+
				"severities of unreleased fields) judge against other releases", nil)
	}
	var added []string
	for _, g := range c.Head.Usages.Exclude {
		if !slices.Contains(c.Base.Usages.Exclude, g) {
			added = append(added, g)
		}
	}
	if len(added) > 0 {
		add(c.Head.Usages.Pos, "usages.exclude", strings.Join(c.Base.Usages.Exclude, ", "), strings.Join(c.Head.Usages.Exclude, ", "),
			"adds "+strings.Join(quoteAll(added), ", ")+": code there no longer counts as a usage of a removed field", nil)
	}
	for _, h := range c.Head.Groups {
		for _, b := range c.Base.Groups {
			if b.Dir != h.Dir {
				continue
			}
			var dropped []string
			for _, v := range b.Stable {
				if !slices.Contains(h.Stable, v) {
					dropped = append(dropped, v)
				}
			}
			if len(dropped) > 0 {
				add(h.Pos, "groups["+h.Dir+"].stable", strings.Join(b.Stable, ", "), strings.Join(h.Stable, ", "),
					"no longer lists "+strings.Join(dropped, ", ")+": judged by the maturity their names say", nil)
			}
		}
	}
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func (c *Comparison) markers() []Addition {
	var out []Addition
	for i := range c.HeadMarkers {
		m := &c.HeadMarkers[i]
		if CoveredBy(m, c.BaseMarkers) {
			continue
		}
		widens := ""
		for j := range c.BaseMarkers {
			if b := &c.BaseMarkers[j]; m.covers(b) {
				widens = "marker on " + b.Subject()
				break
			}
		}
		out = append(out, Addition{
			Kind: AddedMarker, Pos: m.Pos, Rule: m.Rule, Marker: m, Widens: widens, InEffect: c.MarkersInEffect,
			Hides: c.hidden(c.Findings, func(_ int, f *finding.Finding) bool { return m.Matches(f) }),
		})
	}
	return out
}

func pos(p config.Pos) model.Pos {
	return model.Pos{File: p.File, Line: p.Line, Col: p.Col}
}

// Describe says in a few words what an ignore entry matches, e.g.
// "field ShootSpec.Purpose, group pkg/apis/core".
func Describe(ig *config.Ignore) string { return describe(ig) }

// FindingLabel names a finding by rule and subject, e.g.
// "NEW_FIELD_NOT_POINTER ShootSpec.Replicas (v1beta1)".
func FindingLabel(f *finding.Finding) string {
	subject := f.Type
	if f.Field != "" {
		subject += "." + f.Field
	}
	if subject == "" {
		return fmt.Sprintf("%s %s:%d", f.Rule, quote.Name(f.Path), f.Line)
	}
	switch {
	case f.Version != "":
		subject += " (" + f.Version + ")"
	case f.Group != "":
		subject += " (internal)"
	}
	return f.Rule + " " + subject
}

// List joins up to max labels and says how many more there are.
func List(labels []string, max int) string {
	if len(labels) <= max {
		return strings.Join(labels, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(labels[:max], ", "), len(labels)-max)
}
