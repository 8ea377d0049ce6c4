package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
)

// The Checklist section of the Markdown report: Gardener's API change
// checklist (finding.Checklist) item by item, each rated by the findings
// of the rules about it (finding.RuleDoc.Checklist).

// Ratings of a checklist item.
const (
	mdCheckOK         = ":white_check_mark:"
	mdCheckWarning    = ":warning:"
	mdCheckError      = ":x:"
	mdCheckNA         = "n.a."
	mdCheckNotChecked = ":grey_question:"
)

const mdChecklistHeader = "\n#### Checklist\n\n| | Item | Findings |\n| --- | --- | --- |\n"

// mdChecklistLegend explains the ratings, after the table.
const mdChecklistLegend = "\n" + mdCheckOK + " no finding (or information only) · " + mdCheckWarning + " warnings, or not fully checked · " +
	mdCheckError + " errors · " + mdCheckNA + " not part of the profile's conventions · " + mdCheckNotChecked + " not checked by apicheck\n"

// noGroupsNote begins the run's note that it found no API group.
const noGroupsNote = "no API groups found"

// skipNoteRe is the engine's note about rules skipped for one reason:
// "A, B skipped: why".
var skipNoteRe = lazyre.New(`^([A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*) skipped: `)

// checklist is the Checklist section: one row per item with its rating
// and the rules behind it, each with what it found ("" when the report
// does not know the catalogue it was judged by, or judged nothing: base
// and head are one commit, or no API group was found). An item whose rules
// found errors is ❌, warnings ⚠️ (as is one whose rules were skipped),
// else ✅; an item none of the run's profiles follows is n.a., one
// apicheck does not judge says so.
func (l *linker) checklist(r *finding.Report) string {
	if len(r.Rules) == 0 || SameCommitNote(r) != "" || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, noGroupsNote) }) {
		return "" // nothing was judged
	}
	type counts struct{ errors, warnings, infos, suppressed int }
	byRule := map[string]*counts{}
	for _, f := range r.Findings {
		c := byRule[f.Rule]
		if c == nil {
			c = &counts{}
			byRule[f.Rule] = c
		}
		switch {
		case f.Suppressed != "":
			c.suppressed++
		case f.Severity == finding.Error:
			c.errors++
		case f.Severity == finding.Warning:
			c.warnings++
		default:
			c.infos++
		}
	}
	skipped := map[string]bool{}
	for _, n := range r.Notes {
		if m := skipNoteRe.FindStringSubmatch(n); m != nil {
			for _, id := range strings.Split(m[1], ", ") {
				skipped[id] = true
			}
		}
	}
	profiles := reportProfiles(r.Notes)

	var b strings.Builder
	b.WriteString(mdChecklistHeader)
	for _, it := range finding.Checklist {
		var ids []string
		for _, d := range r.Rules {
			if d.Checklist == it.Key {
				ids = append(ids, d.ID)
			}
		}
		rating, cells := mdCheckOK, []string(nil)
		errs, warns := 0, 0
		for _, id := range ids {
			c := byRule[id]
			if c == nil && !skipped[id] {
				continue
			}
			var what []string
			if c != nil {
				errs += c.errors
				warns += c.warnings
				for _, n := range []struct {
					n    int
					word string
				}{{c.errors, "error"}, {c.warnings, "warning"}, {c.infos, "info"}} {
					if n.n > 0 {
						what = append(what, plural(n.n, n.word))
					}
				}
				if c.suppressed > 0 {
					what = append(what, fmt.Sprintf("%d suppressed", c.suppressed))
				}
			}
			if skipped[id] {
				what = append(what, "skipped (see the notes)")
			}
			cells = append(cells, l.rule(id, inCell)+": "+strings.Join(what, ", "))
		}
		skip := slices.ContainsFunc(ids, func(id string) bool { return skipped[id] })
		unknown := false // the item depends on an input the run did not have
		if it.Key == finding.CheckReleaseNote {
			var note string
			note, unknown = releaseNoteCell(r.ReleaseNote)
			cells = append(cells, note)
		}
		switch {
		case it.Profiles != nil && len(profiles) > 0 && !slices.ContainsFunc(profiles, func(p string) bool { return slices.Contains(it.Profiles, p) }):
			rating, cells = mdCheckNA, []string{"not part of the " + profileNames(profiles) + " conventions"}
		case it.NotChecked != "" && len(ids) == 0:
			rating, cells = mdCheckNotChecked, []string{mdProse(it.NotChecked, inCell)}
		case errs > 0:
			rating = mdCheckError
		case warns > 0 || skip:
			rating = mdCheckWarning
		case unknown:
			rating = mdCheckNotChecked
		case len(cells) == 0:
			cells = []string{"no findings"}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", rating, it.Title, strings.Join(cells, "<br>"))
	}
	b.WriteString(mdChecklistLegend)
	return b.String()
}

// releaseNoteCell says what the run knew of the release note: the
// headers of its blocks, or that it had none (unknown).
func releaseNoteCell(n *finding.ReleaseNote) (cell string, unknown bool) {
	if n == nil {
		return "no release note given (`check --release-note`; the GitHub Action passes the pull request's description)", true
	}
	if len(n.Blocks) == 0 {
		return "the release note has no release-note block", false
	}
	var hs []string
	for _, h := range n.Blocks {
		hs = append(hs, mdCode(shorten(h, mdCellRunMax), inCell))
	}
	return "release note: " + strings.Join(hs, ", "), false
}

// reportProfiles are the profiles that judged the change, from the run's
// profile note ("profile gardener (detected); groups with their own
// profile: pkg/a: crd, ..."): the repository's, then the groups' own;
// nil when the report has no such note.
func reportProfiles(notes []string) []string {
	for _, n := range notes {
		m := profileNoteRe.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		out := []string{m[1]}
		if _, groups, ok := strings.Cut(n, "; groups with their own profile: "); ok {
			groups, _, _ = strings.Cut(groups, "; judged under ")
			for _, g := range strings.Split(groups, ", ") {
				if i := strings.LastIndex(g, ": "); i >= 0 {
					if p := strings.TrimSpace(g[i+2:]); p != "" && !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
		}
		return out
	}
	return nil
}

// profileNames names profiles for a cell: "`crd` profile's", "`crd` and
// `kubernetes` profiles'".
func profileNames(ps []string) string {
	var names []string
	for _, p := range ps {
		names = append(names, mdCode(shorten(p, mdCellRunMax), inCell))
	}
	if len(names) == 1 {
		return names[0] + " profile's"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " profiles'"
}
