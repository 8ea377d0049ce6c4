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

// Apply marks the findings that an ignore entry of cfg or an inline
// marker of head matches, setting Suppressed to the entry's reason (or
// "inline: <reason>" for a marker); config entries are tried first.
// Findings already suppressed are left alone. ruleIDs are the known rule
// IDs (nil: any ID is accepted in markers).
//
// The notes name ignore entries that matched no finding. An invalid
// marker (no reason, unknown rule ID) is a config.Errors naming the file
// and line of the field or type that carries it.
func Apply(fs []finding.Finding, cfg *config.Config, head *model.Model, ruleIDs []string) (notes []string, err error) {
	markers, err := collectMarkers(head, ruleIDs)
	if err != nil {
		return nil, err
	}
	var ignores []config.Ignore
	if cfg != nil {
		ignores = cfg.Ignore
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
		if reason, ok := markers.match(f); ok {
			f.Suppressed = InlinePrefix + reason
		}
	}
	for j, ig := range ignores {
		if !used[j] {
			notes = append(notes, fmt.Sprintf("ignore entry at %s:%d (rule %s, %s) matched no finding; remove it once it is no longer needed",
				ig.Pos.File, ig.Pos.Line, ig.Rule, describe(&ig)))
		}
	}
	return notes, nil
}

func describe(ig *config.Ignore) string {
	var parts []string
	switch {
	case ig.Type != "" && ig.Field != "":
		parts = append(parts, "field "+ig.Type+"."+ig.Field)
	case ig.Type != "":
		parts = append(parts, "type "+ig.Type)
	}
	if ig.APIPath != "" {
		parts = append(parts, "apiPath "+ig.APIPath)
	}
	if ig.Package != "" {
		parts = append(parts, "package "+ig.Package)
	}
	if ig.Group != "" {
		parts = append(parts, "group "+ig.Group)
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

type markerKey struct {
	pkg, typ, field, rule string
}

// markerSet maps (package, type, field, rule) to the reason; field is ""
// for a marker on the type.
type markerSet map[markerKey]string

func (m markerSet) match(f *finding.Finding) (string, bool) {
	if len(m) == 0 || f.Type == "" {
		return "", false
	}
	if f.Field != "" {
		if r, ok := m[markerKey{f.Package, f.Type, f.Field, f.Rule}]; ok {
			return r, true
		}
	}
	r, ok := m[markerKey{f.Package, f.Type, "", f.Rule}]
	return r, ok
}

// collectMarkers reads every +apicheck:ignore marker of head's API
// packages, validating each.
func collectMarkers(head *model.Model, ruleIDs []string) (markerSet, error) {
	known := map[string]bool{}
	for _, id := range ruleIDs {
		known[id] = true
	}
	set := markerSet{}
	var errs config.Errors
	add := func(pkg *model.Package, t *model.Type, f *model.Field, values []string, pos model.Pos) {
		subject := t.Name
		field := ""
		if f != nil {
			subject += "." + f.Name
			field = f.Name
		}
		for _, v := range values {
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
			for _, id := range ids {
				k := markerKey{pkg.ImportPath, t.Name, field, id}
				if _, dup := set[k]; !dup {
					set[k] = reason
				}
			}
		}
	}
	if head != nil {
		for _, g := range head.Groups {
			for _, p := range g.Packages() {
				for _, t := range p.Types {
					if vs := t.Markers.All(MarkerKey); len(vs) > 0 {
						add(p, t, nil, vs, t.Pos)
					}
					for _, f := range t.Fields {
						if vs := f.Markers.All(MarkerKey); len(vs) > 0 {
							add(p, t, f, vs, f.Pos)
						}
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool {
			if errs[i].File != errs[j].File {
				return errs[i].File < errs[j].File
			}
			return errs[i].Line < errs[j].Line
		})
		return nil, errs
	}
	return set, nil
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
		return nil, "", fmt.Errorf("+%s=%s has no reason: write // +%s=%s <why the finding is accepted>", MarkerKey, head, MarkerKey, head)
	}
	return ids, reason, nil
}
