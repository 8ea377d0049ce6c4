package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
)

// UnclassifiedChange is UNCLASSIFIED_CHANGE.
var UnclassifiedChange = &Rule{
	ID:       "UNCLASSIFIED_CHANGE",
	Category: CatMeta,
	Severity: finding.Info,
	Last:     true,
	Summary: "An API difference that no rule judged (so coverage gaps are visible, never silent): an attribute of a field " +
		"that no rule judges, a field whose type could not be resolved, a field removed where no rule that judges removals " +
		"ran for its profile (all off there, or skipped for want of an analysis).",
	Why: "apicheck reports what it could not judge instead of staying silent about it.",
	Fix: "Review the change by hand; report a rule gap if it matters.",
	Check: func(c *Context) {
		for _, n := range c.notes {
			c.Field(n.field, Report{Message: n.msg, Hint: "review by hand; add the type to a module that is downloaded (go mod download) to let apicheck resolve it"})
		}
		for fd, emb := range c.Diff.MaybeMovedFields() {
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, and %s now embeds %s inline, whose members could not be resolved "+
					"(module not in the module cache): whether the field moved into it and is still on the wire is unknown, "+
					"so the removal rules did not judge it", fd.Type.Name(), fd.Base.Name, fd.Type.Name(), emb),
				Hint: "review by hand; download the module (go mod download) to let apicheck resolve it",
			})
		}
		unjudgedRemovals(c)
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil {
					continue
				}
				for _, fd := range td.Fields {
					if fd.Base == nil || fd.Head == nil {
						continue
					}
					var open []string
					for _, a := range fd.Attrs {
						if a == model.AttrDeprecated || c.Judged(a) { // deprecation is documentation (release notes), not a contract change
							continue
						}
						if a == model.AttrOtherMarkers {
							open = append(open, markerChanges(contractOf(fd.Base).Unknown, contractOf(fd.Head).Unknown)...)
							continue
						}
						open = append(open, string(a))
					}
					if len(open) == 0 {
						continue
					}
					c.Field(fd, Report{
						Message: fmt.Sprintf("%s.%s changed (%s) and no rule judged it", td.Name(), fd.Name(), strings.Join(open, "; ")),
						Hint:    "review the change by hand",
					})
				}
			}
		}
	},
}

// removalJudges are the rules that judge a field's removal (a
// tombstone's absence is a protobuf number's matter, not the removal's).
var removalJudges = []*Rule{FieldRemovedFromServedVersion, FieldRemovedStillUsed, FieldRemovalNotReleased, FieldRemovedNotDeprecated}

// unjudgedRemovals reports the removed fields that no rule judged: none
// of removalJudges judged their group's profile in this run (all off
// there, or skipped for want of an analysis), and no finding names the
// field (in any version it was removed from).
func unjudgedRemovals(c *Context) {
	reported := map[usage.Key]bool{}
	for _, p := range c.findings {
		if p.fd != nil && p.fd.Head == nil {
			reported[usage.KeyOf(p.fd)] = true
		}
	}
	for fd := range c.Diff.RemovedFields() {
		profile := fd.Type.Pkg.Group.Profile()
		if reported[usage.KeyOf(fd)] || slices.ContainsFunc(removalJudges, func(r *Rule) bool { return c.judges(r, profile) }) {
			continue
		}
		c.Field(fd, Report{
			Message: fmt.Sprintf("%s.%s was removed and no rule judged the removal: none that judges removals under the %s profile ran",
				fd.Type.Name(), fd.Base.Name, profile),
			Hint:    "review by hand whether clients or stored objects still rely on the field",
			Related: []finding.Related{related("base", fd.Base.Pos)},
		})
	}
}

// markerChanges names the markers that differ, one "+key: a -> b" each.
func markerChanges(base, head []model.Marker) []string {
	values := func(ms []model.Marker) map[string][]string {
		out := map[string][]string{}
		for _, m := range ms {
			out[m.Key] = append(out[m.Key], m.Value)
		}
		return out
	}
	b, h := values(base), values(head)
	keys := slices.AppendSeq(slices.Collect(maps.Keys(b)), maps.Keys(h))
	slices.Sort(keys)
	keys = slices.Compact(keys)
	show := func(vs []string, ok bool) string {
		if !ok {
			return "absent"
		}
		return fmt.Sprintf("%q", strings.Join(vs, ", "))
	}
	var out []string
	for _, k := range keys {
		bv, bok := b[k]
		hv, hok := h[k]
		if bok && hok && strings.Join(bv, "\x00") == strings.Join(hv, "\x00") {
			continue
		}
		out = append(out, fmt.Sprintf("marker +%s: %s -> %s", k, show(bv, bok), show(hv, hok)))
	}
	return out
}
