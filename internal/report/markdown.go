package report

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
)

// MarkdownLimit is the most bytes the Markdown report may take. GitHub
// rejects comments over 65,536 characters; counting bytes (never fewer
// than characters) and keeping a margin leaves room for a bot to wrap the
// report in a heading of its own.
const MarkdownLimit = 64000

// MarkdownMarker is the first line of every Markdown report: a hidden
// HTML comment by which a bot finds its earlier comment on a pull request
// and updates it instead of adding another.
const MarkdownMarker = "<!-- apicheck -->"

// Bounds that keep one finding from using up the comment.
const (
	mdMessageMax = 400  // characters of one message, reason or prose hint
	mdCodeMax    = 3000 // characters of one code hint
	mdRelatedMax = 10   // related positions listed per field
	mdNotesMax   = 20   // run notes listed
)

// Markdown writes the report as a pull-request comment, without links to
// the repository's files (MarkdownWith sets a link base).
//
// The comment starts with MarkdownMarker and a heading with the summary
// line (or, when base and head are one commit, SameCommitNote), then the
// compared revisions, the release used and the profile in one line each.
// Findings are grouped by what they are about (package, type and field,
// or API path): one table row per group, in three columns that fit a
// comment's width, with its highest severity, where it is, and every
// rule's message followed by the combined fix; hints that are code, the
// suggested changes of its fixes (one per run of lines, see
// groupSuggestions), related positions and other positions of the group
// follow the table, per group. Suppressed findings and the other run
// notes are in collapsed sections. The comment never exceeds
// MarkdownLimit bytes: when findings do not fit, groups with errors are
// kept before warnings before infos before suppressed ones, kept groups
// stay in report order (finding.Sort), and a line says how many findings
// were left out.
func Markdown(w io.Writer, r *finding.Report) error {
	return MarkdownWith(Options{})(w, r)
}

// MarkdownWith is the Markdown writer with options (links).
func MarkdownWith(o Options) Writer {
	return func(w io.Writer, r *finding.Report) error {
		_, err := io.WriteString(w, markdownReport(r, o, MarkdownLimit))
		return err
	}
}

// mdGroup is the findings about one thing, in report order.
type mdGroup struct {
	findings   []finding.Finding
	suppressed bool
	severity   finding.Severity
	row        string // the table row
	details    string // what follows the table ("" when nothing)
}

// mdGroupKey identifies what a finding is about: package, type and field,
// else the API path; a finding about neither is a group of its own.
func mdGroupKey(i int, f finding.Finding) string {
	sup := strconv.FormatBool(f.Suppressed != "")
	switch {
	case f.Type != "" || f.Field != "":
		return strings.Join([]string{sup, "t", f.Package, f.Type, f.Field}, "\x00")
	case f.APIPath != "":
		return strings.Join([]string{sup, "p", f.Package, f.APIPath}, "\x00")
	}
	return sup + "\x00#" + strconv.Itoa(i)
}

func mdGroups(fs []finding.Finding) []*mdGroup {
	var out []*mdGroup
	byKey := map[string]*mdGroup{}
	for i, f := range fs {
		k := mdGroupKey(i, f)
		g := byKey[k]
		if g == nil {
			g = &mdGroup{suppressed: f.Suppressed != ""}
			byKey[k] = g
			out = append(out, g)
		}
		g.findings = append(g.findings, f)
		g.severity = max(g.severity, f.Severity)
	}
	return out
}

// The tables have three narrow columns, which fit a pull-request
// comment (about 760 px wide): severity, where (the subject and the file
// name with its line), and the findings' messages with their combined
// fix (or reason). Messages wrap; names and positions are bounded by
// mdCellRunMax (see cellName, cellPosition).
const (
	mdActiveHeader     = "\n| Severity | Where | Finding and fix |\n| --- | --- | --- |\n"
	mdSuppressedHeader = "\n<details>\n<summary>Suppressed findings (%d)</summary>\n\n| Severity | Where | Finding and reason |\n| --- | --- | --- |\n"
	mdDetailsHeader    = "\n#### Details\n"
	mdSectionEnd       = "\n</details>\n"
)

func markdownReport(r *finding.Report, o Options, limit int) string {
	l := newLinker(o, r)
	var head strings.Builder
	head.WriteString(MarkdownMarker + "\n")
	if same := SameCommitNote(r); same != "" {
		// A run that compared a commit with itself says so first: "0
		// errors" would read as a pass.
		head.WriteString("### apicheck: " + mdText(same, inText) + "\n\n")
		head.WriteString(SummaryLine(r) + ".\n")
	} else {
		head.WriteString("### apicheck: " + SummaryLine(r) + "\n\n")
	}
	// Ref names come from the command line or the CI environment: no
	// bound but ours keeps them from taking the comment.
	fmt.Fprintf(&head, "Compared %s with %s.\n", mdCode(shorten(revLabel(r.Base), mdMessageMax), inText),
		mdCode(shorten(revLabel(r.Head), mdMessageMax), inText))
	if u := r.Releases.Used(); u != "" {
		// Tag names come from the repository: escaped and bounded too.
		fmt.Fprintf(&head, "%s.\n", mdLine(shorten(strings.ToUpper(u[:1])+u[1:], mdMessageMax)))
	}
	profile, otherNotes := profileLine(r.Notes)
	if profile != "" {
		head.WriteString(profile + "\n")
	}
	if len(r.Findings) == 0 {
		head.WriteString("\nNo API compatibility findings.\n")
	}
	notes := mdNotes(otherNotes, limit/4)
	checklist := l.checklist(r)

	groups := mdGroups(r.Findings)
	var active, suppressed []*mdGroup
	nSuppressed := 0
	for _, g := range groups {
		if g.suppressed {
			suppressed = append(suppressed, g)
			nSuppressed += len(g.findings)
		} else {
			active = append(active, g)
		}
		g.row, g.details = l.groupRow(g), l.groupDetails(g)
	}

	// Choose groups by priority until the budget is spent. The budget
	// reserves the section frames and the longest possible final line.
	budget := limit - head.Len() - len(notes) - len(checklist) - len(mdActiveHeader) - len(mdDetailsHeader) -
		len(fmt.Sprintf(mdSuppressedHeader, nSuppressed)) - len(mdSectionEnd) - len(leftOutLine(len(r.Findings)))
	order := append(append([]*mdGroup(nil), active...), suppressed...)
	rank := func(g *mdGroup) int {
		if g.suppressed {
			return 0
		}
		return int(g.severity)
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(order[a]) > rank(order[b]) })
	keep := map[*mdGroup]bool{}
	left := 0
	full := -1 // the rank of the first group that did not fit
	for _, g := range order {
		if cost := len(g.row) + len(g.details); (full < 0 || rank(g) == full) && cost <= budget {
			budget -= cost
			keep[g] = true
			continue
		}
		// Keep trying: a later, smaller group of the same rank may
		// still fit, but none of a lower rank while one is left out.
		if full < 0 {
			full = rank(g)
		}
		left += len(g.findings)
	}

	var b strings.Builder
	b.WriteString(head.String())
	if kept := keptOf(active, keep); len(kept) > 0 {
		b.WriteString(mdActiveHeader)
		for _, g := range kept {
			b.WriteString(g.row)
		}
		first := true
		for _, g := range kept {
			if g.details == "" {
				continue
			}
			if first {
				b.WriteString(mdDetailsHeader)
				first = false
			}
			b.WriteString(g.details)
		}
	}
	if left > 0 {
		b.WriteString(leftOutLine(left))
	}
	b.WriteString(checklist)
	if kept := keptOf(suppressed, keep); len(kept) > 0 {
		fmt.Fprintf(&b, mdSuppressedHeader, nSuppressed)
		for _, g := range kept {
			b.WriteString(g.row)
		}
		b.WriteString(mdSectionEnd)
	}
	b.WriteString(notes)
	return b.String()
}

func keptOf(gs []*mdGroup, keep map[*mdGroup]bool) []*mdGroup {
	var out []*mdGroup
	for _, g := range gs {
		if keep[g] {
			out = append(out, g)
		}
	}
	return out
}

// leftOutLine says how many findings did not fit.
func leftOutLine(n int) string {
	what := "findings"
	if n == 1 {
		what = "finding"
	}
	return fmt.Sprintf("\n**%d more %s not shown** (GitHub's comment size limit); see the SARIF or JSON report "+
		"(`--report sarif=FILE`, `--format json`) for all of them.\n", n, what)
}

// mdNotes is the collapsed section of run notes, at most budget bytes.
func mdNotes(notes []string, budget int) string {
	if len(notes) == 0 {
		return ""
	}
	head := fmt.Sprintf("\n<details>\n<summary>Notes (%d)</summary>\n\n", len(notes))
	var b strings.Builder
	b.WriteString(head)
	for i, n := range notes {
		item := "- " + mdLine(shorten(n, mdMessageMax*2)) + "\n"
		more := fmt.Sprintf("- … %d more notes not shown.\n", len(notes)-i)
		if i == mdNotesMax || b.Len()+len(item)+len(more)+len(mdSectionEnd) > budget {
			b.WriteString(more)
			break
		}
		b.WriteString(item)
	}
	b.WriteString(mdSectionEnd)
	return b.String()
}

// profileNoteRe is the run note naming the profile that judged the
// change: "profile gardener (detected; set profile in .apicheck.yaml to
// choose another)", "profile kubernetes (configured)", either followed
// by "; groups with their own profile: DIR: PROFILE, ..." and "; judged
// under base's profiles (...), not head's own (...)".
var profileNoteRe = lazyre.New(`^profile (\S+) \((detected|configured)[;)]`)

// profileLine says in one line which profile judged the change
// ("Profile: `gardener` (detected)."), taking the profile note out of
// the notes; what a profile is and how to choose one is for --help and
// docs/profiles.md, not for every comment.
func profileLine(notes []string) (line string, rest []string) {
	for i, n := range notes {
		m := profileNoteRe.FindStringSubmatch(n)
		if m == nil || line != "" {
			continue
		}
		how := []string{m[2]}
		if _, groups, ok := strings.Cut(n, "; groups with their own profile: "); ok {
			groups, _, _ = strings.Cut(groups, "; judged under ")
			k := strings.Count(groups, ", ") + 1
			how = append(how, plural(k, "group")+" with a profile of its own")
			if k > 1 {
				how[len(how)-1] = plural(k, "group") + " with profiles of their own"
			}
		}
		if strings.Contains(n, "; judged under base's profiles") {
			how = append(how, "judged under base's profiles")
		}
		line = "Profile: " + mdCode(shorten(m[1], mdMessageMax), inText) + " (" + strings.Join(how, "; ") + ")."
		rest = append(append(rest, notes[:i]...), notes[i+1:]...)
	}
	if line == "" {
		return "", notes
	}
	return line, rest
}

func mdSeverity(s finding.Severity) string {
	switch s {
	case finding.Error:
		return ":x: error"
	case finding.Warning:
		return ":warning: warning"
	case finding.Info:
		return ":information_source: info"
	}
	return mdText(s.String(), inCell)
}

// mdSubject names what a group is about: "v1beta1.ShootSpec.Purpose" (the
// version, or the package name for an internal package, then the Go type
// and field), else the API path; "" when the findings name neither.
func mdSubject(f finding.Finding) string {
	if f.Type == "" && f.Field == "" {
		return f.APIPath
	}
	name := f.Type
	if f.Field != "" {
		name = strings.TrimPrefix(name+"."+f.Field, ".")
	}
	pkg := f.Version
	if pkg == "" && f.Package != "" {
		pkg = path.Base(f.Package)
	}
	if pkg != "" && pkg != "." && pkg != "/" {
		name = pkg + "." + name
	}
	return name
}

// groupRow is a group's table row: severity, where, and what with the
// fix (the reason, for suppressed findings).
func (l *linker) groupRow(g *mdGroup) string {
	f0 := g.findings[0]
	var where []string
	if s := mdSubject(f0); s != "" {
		where = append(where, cellName(s))
	}
	if loc, _ := l.cellPosition(mdPos{path: f0.Path, line: f0.Line, rev: revHead}); loc != "" {
		where = append(where, loc)
	}
	var what []string
	for _, f := range g.findings {
		what = append(what, l.rule(f.Rule, inCell)+" "+mdProse(breakable(shorten(f.Message, mdMessageMax)), inCell))
	}
	if g.suppressed {
		var reasons []string
		for _, f := range g.findings {
			reasons = appendNew(reasons, mdProse(breakable(shorten(f.Suppressed, mdMessageMax)), inCell))
		}
		what = append(what, "**Suppressed:** "+strings.Join(reasons, "<br>"))
	} else {
		prose, code := groupFix(g)
		note := groupNoteBlocks(g)
		var fix []string
		for _, p := range prose {
			switch {
			case code != "" && strings.HasSuffix(p, ":"):
				// "make it a pointer:" introduced the code below.
				p = strings.TrimSuffix(p, ":") + " (code below)"
			case note != "" && strings.HasSuffix(p, ":"):
				p = strings.TrimSuffix(p, ":") + " (release note below)"
			}
			fix = append(fix, mdProse(breakable(shorten(p, mdMessageMax)), inCell))
		}
		switch {
		case len(fix) == 1:
			what = append(what, "**Fix:** "+fix[0])
		case len(fix) > 1:
			for i := range fix {
				fix[i] = "• " + fix[i]
			}
			what = append(what, "**Fix:**<br>"+strings.Join(fix, "<br>"))
		case code != "":
			what = append(what, "**Fix:** see the code below")
		}
		if code == "" && len(l.extraPositions(g)) > 0 {
			what = append(what, "*Related positions below.*")
		}
	}
	return fmt.Sprintf("| %s | %s | %s |\n", mdSeverity(g.severity), strings.Join(where, "<br>"), strings.Join(what, "<br>"))
}

// mdCellRunMax bounds the names and positions of a table cell: a code
// span does not wrap, and a longer one would widen its column beyond a
// pull-request comment's width.
const mdCellRunMax = 48

// cellName renders a name ("v1beta1.ShootSpec.Replicas") for a cell: a
// code span, split at dots into lines of at most mdCellRunMax
// characters when it is longer (and a part without dots shortened).
func cellName(s string) string {
	if utf8.RuneCountInString(s) <= mdCellRunMax {
		return mdCode(s, inCell)
	}
	var parts []string
	cur := ""
	for i, seg := range strings.SplitAfter(s, ".") {
		if i > 0 && cur != "" && utf8.RuneCountInString(cur+seg) > mdCellRunMax {
			parts = append(parts, cur)
			cur = ""
		}
		cur += seg
	}
	parts = append(parts, cur)
	for i, p := range parts {
		parts[i] = mdCode(shorten(p, mdCellRunMax), inCell)
	}
	return strings.Join(parts, "<br>")
}

// cellPosition renders a file position for a cell: the file's name and
// line linked to the full path, or without a link the path; either
// shortened from the left to mdCellRunMax characters when longer
// ("…/v1beta1/types.go:7"). shortened says that an unlinked cell does
// not show the whole path (the group's details then do).
func (l *linker) cellPosition(p mdPos) (loc string, shortened bool) {
	if p.path == "" {
		return "", false
	}
	u := l.file(p)
	text := p.path
	if u != "" {
		text = path.Base(p.path)
	}
	if p.line > 0 {
		text += ":" + strconv.Itoa(p.line)
	}
	if utf8.RuneCountInString(text) > mdCellRunMax {
		segs := strings.Split(text, "/")
		tail := segs[len(segs)-1]
		for i := len(segs) - 2; i >= 0 && utf8.RuneCountInString("…/"+segs[i]+"/"+tail) <= mdCellRunMax; i-- {
			tail = segs[i] + "/" + tail
		}
		if rs := []rune(tail); len(rs) > mdCellRunMax-1 {
			tail = "…" + string(rs[len(rs)-(mdCellRunMax-1):])
		} else {
			tail = "…/" + tail
		}
		text, shortened = tail, u == ""
	}
	if u == "" {
		return mdCode(text, inCell), shortened
	}
	return "[" + mdLinkText(text, inCell) + "](" + u + ")", false
}

// zwsp (U+200B ZERO WIDTH SPACE) lets a line break where it is.
const zwsp = "\u200b"

// breakable puts a zwsp into every word of prose (outside backticks)
// that is longer than mdCellRunMax, after its dots and slashes and else
// every mdCellRunMax characters, so that a long name in a message
// ("ControllerInstallationSpec.SeedSelectorRequirements") wraps in its
// cell instead of widening the column.
func breakable(s string) string {
	if utf8.RuneCountInString(s) <= mdCellRunMax {
		return s
	}
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return s // unbalanced backticks: mdProse escapes it all
	}
	for i := 0; i < len(parts); i += 2 {
		words := strings.Split(parts[i], " ")
		for j, w := range words {
			// A marker ("+kubebuilder:validation:...") is a code span of
			// its own (mdProse): left whole.
			if utf8.RuneCountInString(w) > mdCellRunMax && !markerStart(w) {
				words[j] = breakWord(w)
			}
		}
		parts[i] = strings.Join(words, " ")
	}
	return strings.Join(parts, "`")
}

func markerStart(w string) bool {
	m := markerRe.FindStringIndex(w)
	return m != nil && m[0] == 0
}

func breakWord(w string) string {
	var b strings.Builder
	run := 0
	for _, r := range w {
		if run == mdCellRunMax {
			b.WriteString(zwsp)
			run = 0
		}
		b.WriteRune(r)
		run++
		if (r == '.' || r == '/') && run > 1 {
			b.WriteString(zwsp)
			run = 0
		}
	}
	return b.String()
}

// groupFix combines the hints of a group's findings: their prose, each
// sentence once, and their code, each block once.
func groupFix(g *mdGroup) (prose []string, code string) {
	var blocks []string
	for _, f := range g.findings {
		h, _ := hintNoteBlocks(f.Hint)
		p, c := splitHint(h)
		for _, s := range p {
			prose = appendNew(prose, s)
		}
		if c != "" {
			blocks = appendNew(blocks, c)
		}
	}
	return prose, strings.Join(blocks, "\n\n")
}

// mdSuggestionsMax bounds the suggested changes shown for one group.
const mdSuggestionsMax = 5

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// groupDetails is what follows the table for a group (unsuppressed only):
// the code of its fix in a fenced block, its suggested changes (one per
// run of lines, see groupSuggestions), and its related and other
// positions as a list; "" when it has none of these and its row shows
// its whole position.
func (l *linker) groupDetails(g *mdGroup) string {
	if g.suppressed {
		return ""
	}
	_, code := groupFix(g)
	note := groupNoteBlocks(g)
	positions := l.extraPositions(g)
	suggestions, unsuggested := groupSuggestions(g)
	f0 := g.findings[0]
	_, shortened := l.cellPosition(mdPos{path: f0.Path, line: f0.Line, rev: revHead})
	if code == "" && note == "" && len(positions) == 0 && len(suggestions) == 0 && len(unsuggested) == 0 && !shortened {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n")
	title := mdSubject(f0)
	if title == "" {
		title = f0.Path
	}
	b.WriteString("**" + mdCode(title, inText) + "**")
	if f0.APIPath != "" && f0.APIPath != title {
		b.WriteString(" · " + mdCode(f0.APIPath, inText))
	}
	if loc := l.position(mdPos{path: f0.Path, line: f0.Line, rev: revHead}, inText); loc != "" {
		b.WriteString(" · " + loc)
	}
	b.WriteString("\n\n")
	if code != "" {
		b.WriteString("- Fix:\n\n")
		b.WriteString(mdFence(shorten(code, mdCodeMax), "  "))
	}
	if note != "" {
		b.WriteString("- Release note to add to the pull request's description:\n\n")
		b.WriteString(mdFenceLang(shorten(note, mdCodeMax), "markdown", "  "))
	}
	for i, sg := range suggestions {
		if i == mdSuggestionsMax {
			fmt.Fprintf(&b, "- … %d more suggested changes (see `apicheck fix --dry-run`)\n", len(suggestions)-i)
			break
		}
		what := "(what `apicheck fix` writes)"
		if len(sg.fixes) > 1 {
			what = fmt.Sprintf("(what `apicheck fix` writes; it applies all %d fixes: %s)", len(sg.fixes), fixList(sg.fixes))
		}
		b.WriteString("- Suggested change, " + mdCode(sg.Path, inText) + " " + lineRange(sg.StartLine, sg.EndLine) + " " + what + ":\n\n")
		b.WriteString(mdFenceLang(shorten(sg.Text, mdCodeMax), "suggestion", "  "))
	}
	for _, u := range unsuggested {
		fmt.Fprintf(&b, "- %d fixes change %s %s, and could not be combined into one suggested change here: "+
			"`apicheck fix` applies them together (%s)\n", len(u.fixes), mdCode(u.path, inText), lineRange(u.start, u.end), fixList(u.fixes))
	}
	if len(positions) > 0 {
		b.WriteString("- Related positions:\n")
		for i, p := range positions {
			if i == mdRelatedMax {
				fmt.Fprintf(&b, "  - … %d more\n", len(positions)-i)
				break
			}
			b.WriteString("  - " + l.related(p) + "\n")
		}
	}
	return b.String()
}

// lineRange is "line 12" or "lines 20–22".
func lineRange(start, end int) string {
	if end > start {
		return fmt.Sprintf("lines %d–%d", start, end)
	}
	return fmt.Sprintf("line %d", start)
}

// fixList lists fix descriptions (which name fields of the repository)
// as escaped running text.
func fixList(descs []string) string {
	out := make([]string, len(descs))
	for i, d := range descs {
		out[i] = mdProse(shorten(d, mdMessageMax), inText)
	}
	return strings.Join(out, "; ")
}

// extraPositions are the positions a group's row does not show: the
// positions of its other findings, and every finding's related ones.
func (l *linker) extraPositions(g *mdGroup) []mdPos {
	var out []mdPos
	seen := map[mdPos]bool{}
	add := func(p mdPos) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	f0 := g.findings[0]
	seen[mdPos{path: f0.Path, line: f0.Line, rev: revHead}] = true
	for _, f := range g.findings {
		if f.Path != "" {
			add(mdPos{path: f.Path, line: f.Line, rev: revHead})
		}
		for _, p := range relatedPositions(f) {
			add(p)
		}
	}
	return out
}

// Revisions a position can be at.
const (
	revHead = "\x00head"
	revBase = "\x00base"
)

// mdPos is a position worth showing: a label ("usage at base") and, when
// known, a file position at a revision (revHead, revBase or a tag name).
type mdPos struct {
	label string
	path  string
	line  int
	rev   string
}

// relatedPositions is the one place that reads finding.Related: it turns
// each entry into an mdPos at the revision its label names (see
// relatedRev). An entry without a path keeps its text as the label.
func relatedPositions(f finding.Finding) []mdPos {
	var out []mdPos
	for _, rel := range f.Related {
		if rel.Path == "" {
			out = append(out, mdPos{label: rel.String()})
			continue
		}
		out = append(out, mdPos{label: rel.Label, path: rel.Path, line: rel.Line, rev: relatedRev(rel.Label)})
	}
	return out
}

// relatedRev is the revision a related position's label names: "base"
// and "... at base" are at base; "... at v1.2.0", "... at release
// v1.2.0" and a bare tag ("v1.2.0") at that tag; anything else ("field",
// "tombstone", "also removed from v1", no label) at head.
func relatedRev(label string) string {
	switch {
	case label == "base" || strings.HasSuffix(label, " at base"):
		return revBase
	case strings.Contains(label, " at "):
		return strings.TrimPrefix(label[strings.LastIndex(label, " at ")+4:], "release ")
	case label != "" && label != "field" && label != "tombstone" && !strings.ContainsAny(label, " /"):
		return label
	}
	return revHead
}

// related renders one related position as a list item's text.
func (l *linker) related(p mdPos) string {
	loc := l.position(p, inText)
	switch {
	case loc == "":
		return mdLine(shorten(p.label, mdMessageMax))
	case p.label == "":
		return loc
	}
	return mdLine(p.label) + " " + loc
}

// position renders a file position as a link to it, or as code when it
// cannot be linked; "" without a path.
func (l *linker) position(p mdPos, ctx mdContext) string {
	if p.path == "" {
		return ""
	}
	text := p.path
	if p.line > 0 {
		text += ":" + strconv.Itoa(p.line)
	}
	u := l.file(p)
	if u == "" {
		return mdCode(text, ctx)
	}
	// With a link the file's name says enough; the URL has the rest.
	short := path.Base(p.path)
	if p.line > 0 {
		short += ":" + strconv.Itoa(p.line)
	}
	return "[" + mdLinkText(short, ctx) + "](" + u + ")"
}

// mdLinkText is the text of a link: a code span, or escaped text when the
// text holds a bracket or pipe.
func mdLinkText(s string, ctx mdContext) string {
	if strings.ContainsAny(s, "[]|\\") {
		return mdText(s, ctx)
	}
	return mdCode(s, ctx)
}

// rule renders a rule ID, linked to its documentation.
func (l *linker) rule(id string, ctx mdContext) string {
	if u := l.ruleDoc(id); u != "" {
		return "[" + mdCode(id, ctx) + "](" + u + ")"
	}
	return mdCode(id, ctx)
}
