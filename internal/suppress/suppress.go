// Package suppress marks findings as accepted: by the ignore entries of
// the configuration and by inline "+apicheck:ignore" markers in the head
// revision's API code. Suppressed findings stay in every report, carry
// their reason and never count toward the exit code.
//
// It runs after every rule (and every other analysis) produced its
// findings and before the report is finalized.
package suppress

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/quote"
)

// MarkerKey is the marker that suppresses findings inline:
//
//	// +apicheck:ignore=RULE_ID why the finding is accepted
//
// on a field (findings about that field) or on a type (findings about the
// type and all its fields). Several rule IDs may be separated by commas.
const MarkerKey = "apicheck:ignore"

// InlinePrefix starts the reason of a finding suppressed by a marker.
const InlinePrefix = "inline: "

// Options are the inputs of Apply besides the findings.
type Options struct {
	// Config is the configuration in effect; nil means none.
	Config *config.Config
	// Head is the head revision's model, whose markers suppress.
	Head *model.Model
	// Base is the base revision's model. With BaseMarkersOnly, only the
	// markers of head that a marker of base already covers suppress.
	Base *model.Model
	// RuleIDs are the known rule IDs (nil: any ID is accepted in markers).
	RuleIDs []string
	// BaseMarkersOnly is set when the configuration is trusted (it does
	// not come from the change): then markers the change adds must not
	// relax its own check either.
	BaseMarkersOnly bool
}

// Result is what Apply found besides the suppressions it marked.
type Result struct {
	// Notes name ignore entries that matched no finding.
	Notes []string
	// Unused are the indices of those entries in the configuration's
	// Ignore list.
	Unused []int
	// Head and Base are the valid markers of the two models.
	Head, Base []Marker
	// Invalid are head's invalid markers when BaseMarkersOnly is set:
	// markers that the change wrote and that suppress nothing. They are
	// the change's findings (SUPPRESSION_ADDED), not an error of the run.
	Invalid config.Errors
}

// Apply marks the findings that an ignore entry of the configuration or
// an inline marker of head matches, setting Suppressed to the entry's
// reason (or "inline: <reason>" for a marker); config entries are tried
// first. Findings already suppressed are left alone.
//
// An invalid marker of head (no reason, unknown rule ID) is a
// config.Errors naming the file and line of the field or type that
// carries it, unless BaseMarkersOnly is set: then head's markers are the
// change's, judged rather than obeyed, and Result.Invalid lists them.
// Invalid markers of base are ignored.
func Apply(fs []finding.Finding, o Options) (*Result, error) {
	head, invalid := collectMarkers(o.Head, o.RuleIDs)
	if len(invalid) > 0 && !o.BaseMarkersOnly {
		return nil, invalid
	}
	base, _ := collectMarkers(o.Base, o.RuleIDs)
	res := &Result{Head: head, Base: base}
	if o.BaseMarkersOnly {
		res.Invalid = invalid
	}
	active := head
	if o.BaseMarkersOnly {
		active = nil
		for i := range head {
			if CoveredBy(&head[i], base) {
				active = append(active, head[i])
			}
		}
	}
	var ignores []config.Ignore
	if o.Config != nil {
		ignores = o.Config.Ignore
	}
	used := make([]bool, len(ignores))
	for i := range fs {
		f := &fs[i]
		if f.Suppressed != "" {
			continue
		}
		for j := range ignores {
			if Matches(&ignores[j], f) {
				f.Suppressed = ignores[j].Reason
				used[j] = true
				break
			}
		}
		if f.Suppressed != "" {
			continue
		}
		for j := range active {
			if active[j].Matches(f) {
				f.Suppressed = InlinePrefix + active[j].Reason
				break
			}
		}
	}
	for j := range ignores {
		if !used[j] {
			res.Unused = append(res.Unused, j)
			res.Notes = append(res.Notes, UnusedNote(&ignores[j]))
		}
	}
	return res, nil
}

// UnusedNote is the note about an ignore entry that matched no finding.
func UnusedNote(ig *config.Ignore) string {
	return fmt.Sprintf("ignore entry at %s:%d (rule %s, %s) matched no finding; remove it once it is no longer needed",
		quote.Name(ig.Pos.File), ig.Pos.Line, quote.Name(ig.Rule), describe(ig))
}

func describe(ig *config.Ignore) string {
	var parts []string
	switch {
	case ig.Type != "" && ig.Field != "":
		parts = append(parts, "field "+quote.Name(ig.Type+"."+ig.Field))
	case ig.Type != "":
		parts = append(parts, "type "+quote.Name(ig.Type))
	}
	if ig.APIPath != "" {
		parts = append(parts, "apiPath "+quote.Name(ig.APIPath))
	}
	if ig.Package != "" {
		parts = append(parts, "package "+quote.Name(ig.Package))
	}
	if ig.Group != "" {
		parts = append(parts, "group "+quote.Name(ig.Group))
	}
	return strings.Join(parts, ", ")
}

// Matches reports whether an ignore entry applies to a finding: the rule
// and every criterion the entry sets must match.
func Matches(ig *config.Ignore, f *finding.Finding) bool {
	if ig.Rule != f.Rule {
		return false
	}
	if ig.Type != "" && ig.Type != f.Type {
		return false
	}
	if ig.Field != "" && ig.Field != f.Field {
		return false
	}
	if ig.APIPath != "" && ig.APIPath != f.APIPath {
		return false
	}
	if ig.Group != "" && ig.Group != f.Group {
		return false
	}
	if ig.Package != "" && ig.Package != f.Package && ig.Package != packageDir(f) {
		return false
	}
	return true
}

// packageDir is the repository-relative directory of the finding's
// package: the group directory, or its version sub-directory.
func packageDir(f *finding.Finding) string {
	switch {
	case f.Version == "":
		return f.Group
	case f.Group == "" || f.Group == ".":
		return f.Version
	}
	return f.Group + "/" + f.Version
}

// Marker is one rule ID of a +apicheck:ignore marker on a type or field.
type Marker struct {
	// Package is the import path of the package; Group and Version place
	// it in its API group.
	Package, Group, Version string
	Type                    string
	// Field is "" for a marker on the type.
	Field  string
	Rule   string
	Reason string
	// Pos is the marker's comment line (the type's or field's position
	// when the model does not know it).
	Pos model.Pos
}

// Subject is "Type.Field" or "Type".
func (m *Marker) Subject() string {
	if m.Field == "" {
		return m.Type
	}
	return m.Type + "." + m.Field
}

// Matches reports whether the marker suppresses a finding: same rule,
// package and type, and (for a marker on a field) the same field.
func (m *Marker) Matches(f *finding.Finding) bool {
	return f.Type != "" && f.Rule == m.Rule && f.Package == m.Package && f.Type == m.Type &&
		(m.Field == "" || m.Field == f.Field)
}

// covers reports whether m suppresses at least what n does.
func (m *Marker) covers(n *Marker) bool {
	return m.Rule == n.Rule && m.Package == n.Package && m.Type == n.Type && (m.Field == "" || m.Field == n.Field)
}

// CoveredBy reports whether a marker of ms suppresses at least what m does.
func CoveredBy(m *Marker, ms []Marker) bool {
	for i := range ms {
		if ms[i].covers(m) {
			return true
		}
	}
	return false
}

// collectMarkers reads every +apicheck:ignore marker of a model's API
// packages, one Marker per rule ID, the first of equal ones, and the
// invalid ones as errors sorted by position.
func collectMarkers(m *model.Model, ruleIDs []string) ([]Marker, config.Errors) {
	known := map[string]bool{}
	for _, id := range ruleIDs {
		known[id] = true
	}
	var out []Marker
	seen := map[Marker]bool{}
	var errs config.Errors
	add := func(g *model.Group, pkg *model.Package, t *model.Type, f *model.Field, values []string, own []model.LocatedMarker, pos model.Pos) {
		subject := t.Name
		field := ""
		if f != nil {
			subject += "." + f.Name
			field = f.Name
		}
		var located []model.LocatedMarker
		for _, lm := range own {
			if lm.Key == MarkerKey {
				located = append(located, lm)
			}
		}
		for i, v := range values {
			ids, reason, err := ParseMarker(v)
			if err == nil && ruleIDs != nil {
				for _, id := range ids {
					if !known[id] {
						err = fmt.Errorf("unknown rule ID %q (rule IDs are listed in docs/rules.md)", id)
						break
					}
				}
			}
			if err != nil {
				errs = append(errs, &config.Error{File: pos.File, Line: pos.Line, Column: pos.Col,
					Key: "+" + MarkerKey, Msg: fmt.Sprintf("on %s: %v", subject, err)})
				continue
			}
			at := pos
			if len(located) == len(values) {
				at = located[i].Pos
			}
			for _, id := range ids {
				mk := Marker{Package: pkg.ImportPath, Group: g.Dir, Version: pkg.Version, Type: t.Name, Field: field, Rule: id}
				if seen[mk] {
					continue
				}
				seen[mk] = true
				mk.Reason, mk.Pos = reason, at
				out = append(out, mk)
			}
		}
	}
	if m != nil {
		for _, g := range m.Groups {
			for _, p := range g.Packages() {
				for _, t := range p.Types {
					if vs := t.Markers.All(MarkerKey); len(vs) > 0 {
						add(g, p, t, nil, vs, t.Own, t.Pos)
					}
					for _, f := range t.Fields {
						if vs := f.Markers.All(MarkerKey); len(vs) > 0 {
							add(g, p, t, f, vs, f.Own, f.Pos)
						}
					}
				}
			}
		}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].File != errs[j].File {
			return errs[i].File < errs[j].File
		}
		return errs[i].Line < errs[j].Line
	})
	return out, errs
}

// ParseMarker splits a marker value "RULE_ID[,RULE_ID...] reason" into
// rule IDs and reason; a missing rule ID or reason is an error.
func ParseMarker(value string) (ids []string, reason string, err error) {
	value = strings.TrimSpace(value)
	head, rest := value, ""
	if i := strings.IndexFunc(value, unicode.IsSpace); i >= 0 {
		head, rest = value[:i], value[i:]
	}
	reason = strings.TrimSpace(rest)
	for _, id := range strings.Split(head, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		return nil, "", fmt.Errorf("no rule ID: write // +%s=RULE_ID <why the finding is accepted>", MarkerKey)
	case reason == "":
		head = quote.Name(head)
		return nil, "", fmt.Errorf("+%s=%s has no reason: write // +%s=%s <why the finding is accepted>", MarkerKey, head, MarkerKey, head)
	}
	return ids, reason, nil
}
