package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/suppress"
)

// SuppressionAdded is SUPPRESSION_ADDED.
var SuppressionAdded = &Rule{
	ID:       "SUPPRESSION_ADDED",
	Category: CatMeta,
	Severity: finding.Warning,
	Requires: []Input{InputSuppressions},
	Summary: "The change adds or widens a suppression: an ignore entry, an inline +apicheck:ignore marker, a " +
		"disabled rule, a lowered severity, an exclude pattern or groups list that leaves API versions out, " +
		"another profile for API groups (set in the configuration, or detected from what head holds: go.mod's " +
		"module path, CRD markers and manifests, protobuf files), or a laxer setting (versionSkew: newest, " +
		"another releases.tagPattern, new usages.exclude patterns, versions no longer listed as stable). " +
		"An invalid +apicheck:ignore marker that the change adds while its markers are judged, not obeyed " +
		"(--trusted-config base), is an error: it suppresses nothing.",
	Why: "The configuration and markers of a pull request are written by its author: a change that silences " +
		"the findings it causes passes without the reviewer seeing them. This finding shows the reviewer each " +
		"new suppression and what it hides in this run. Suppressions that base already had are not reported, " +
		"and the rule's own settings (enabled, severity, ignore entries) come from the base revision's " +
		"configuration (or the trusted one), so a change cannot silence it either.",
	Fix: "Make sure the suppression is intended and its reason holds; otherwise fix the findings it hides. " +
		"CI gates can run `apicheck check --trusted-config base` (or `--config` with a file outside the " +
		"repository) so that a change never relaxes its own check.",
	Check: func(c *Context) {
		s := c.Suppressions()
		for i := range s.Added {
			a := &s.Added[i]
			r := Report{Message: additionMessage(a), Hint: additionHint(a, s.NotInEffect)}
			if a.Kind == suppress.AddedInvalidMarker {
				r.Severity = finding.Error
			}
			f := finding.Finding{Path: a.Pos.File, Line: a.Pos.Line, Column: a.Pos.Col}
			if m := a.Marker; m != nil {
				f.Package, f.Group, f.Version, f.Type, f.Field = m.Package, m.Group, m.Version, m.Type, m.Field
			}
			c.At(f, additionKey(a), r)
		}
	},
}

// maxHidden bounds the findings a SUPPRESSION_ADDED message names.
const maxHidden = 10

// additionMessage says what was added and what it hides.
func additionMessage(a *suppress.Addition) string {
	var what string
	switch a.Kind {
	case suppress.AddedIgnore:
		what = fmt.Sprintf("ignore entry for %s (%s)", a.Rule, suppress.Describe(a.Ignore))
	case suppress.AddedMarker:
		what = fmt.Sprintf("+%s=%s on %s", suppress.MarkerKey, a.Rule, a.Marker.Subject())
	case suppress.AddedDisable:
		what = "rule " + a.Rule + " disabled"
	case suppress.AddedLowering:
		what = fmt.Sprintf("severity of %s lowered from %s to %s", a.Rule, a.From, a.To)
	case suppress.AddedExclude:
		what = fmt.Sprintf("exclude pattern %q", a.Pattern)
	case suppress.AddedGroups:
		what = "groups list"
	case suppress.AddedInvalidMarker:
		return fmt.Sprintf("invalid +%s marker added %s; it suppresses nothing", suppress.MarkerKey, a.Invalid)
	case suppress.AddedProfile:
		what = fmt.Sprintf("profile %s instead of base's %s for %s (%s)", a.New, a.Old,
			countAndList(len(a.Groups), "API group", a.Groups), a.Detail)
	case suppress.AddedSetting:
		what = a.Setting + " " + a.Detail
		if a.Setting != "versionSkew" {
			// What such a setting hides needs a run under base's: it is
			// named, not counted.
			return what
		}
	}
	switch {
	case a.Widens != "":
		what += " widens base's " + a.Widens
	case a.Kind == suppress.AddedIgnore || a.Kind == suppress.AddedMarker || a.Kind == suppress.AddedExclude:
		what += " added"
	}
	verb, none := "hides", "hides no finding in this run"
	if !a.InEffect {
		verb, none = "would hide", "would hide no finding in this run"
	}
	if a.Kind == suppress.AddedLowering || a.Kind == suppress.AddedProfile || a.Kind == suppress.AddedSetting {
		verb, none = "lowers", "lowers no finding in this run"
		if !a.InEffect {
			verb, none = "would lower", "would lower no finding in this run"
		}
	}
	switch {
	case a.Kind == suppress.AddedExclude || a.Kind == suppress.AddedGroups:
		v := "leaves out"
		if !a.InEffect {
			v = "would leave out"
		}
		list := countAndList(len(a.Versions), "API version", a.Versions)
		if a.Kind == suppress.AddedGroups {
			list = strings.Replace(list, ":", " that base's configuration checks:", 1)
		}
		return fmt.Sprintf("%s: %s %s", what, v, list)
	case len(a.Hides) == 0:
		return what + ": " + none
	}
	labels := make([]string, len(a.Hides))
	for i := range a.Hides {
		labels[i] = suppress.FindingLabel(&a.Hides[i])
	}
	return fmt.Sprintf("%s: %s %s", what, verb, countAndList(len(labels), "finding", labels))
}

// countAndList counts items as noun(s) and lists the first maxHidden:
// "2 findings: a, b".
func countAndList(n int, noun string, items []string) string {
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s: %s", n, noun, suppress.List(items, maxHidden))
}

// additionHint is the hint of the finding about addition a; notInEffect
// says why the change's configuration does not apply in this run.
func additionHint(a *suppress.Addition, notInEffect string) string {
	hint := "a reviewer should confirm this suppression"
	switch a.Kind {
	case suppress.AddedIgnore, suppress.AddedMarker:
		hint += " and its reason"
	case suppress.AddedExclude, suppress.AddedGroups:
		hint = "API versions left out are not checked at all; a reviewer should confirm this"
	case suppress.AddedProfile, suppress.AddedSetting:
		hint = "a reviewer should confirm that the change is to be judged less strictly"
	case suppress.AddedInvalidMarker:
		return "fix or remove the marker: write // +" + suppress.MarkerKey + "=RULE_ID <why the finding is accepted>"
	}
	if !a.InEffect && notInEffect != "" {
		return hint + "; it does not apply in this run (" + notInEffect + ") and takes effect once merged"
	}
	return hint + "; CI can use --trusted-config base so that a change cannot relax its own check"
}

// additionKey identifies an addition for the finding's fingerprint: what
// it is, never what it hides or where it is.
func additionKey(a *suppress.Addition) string {
	switch a.Kind {
	case suppress.AddedIgnore:
		return "ignore\x00" + a.Rule + "\x00" + suppress.Describe(a.Ignore)
	case suppress.AddedMarker:
		return "marker\x00" + a.Rule
	case suppress.AddedExclude:
		return "exclude\x00" + a.Pattern
	case suppress.AddedGroups:
		return "groups"
	case suppress.AddedProfile:
		return "profile\x00" + a.Old + "\x00" + a.New + "\x00" + strings.Join(a.Groups, ",")
	case suppress.AddedSetting:
		return "setting\x00" + a.Setting + "\x00" + a.New
	case suppress.AddedInvalidMarker:
		return "invalid\x00" + a.Invalid
	}
	return fmt.Sprintf("rule\x00%d\x00%s", a.Kind, a.Rule)
}
