package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/finding"
)

// MarkdownLimit is the most bytes the Markdown report may take. GitHub
// rejects comments over 65,536 characters; counting bytes (never fewer
// than characters) and keeping a margin leaves room for a bot to wrap the
// report in a marker or heading of its own.
const MarkdownLimit = 64000

// markdownCellMax caps the characters of one message or hint cell, so a
// single huge message cannot use up the whole comment.
const markdownCellMax = 1500

// markdownNotesMax caps how many run notes are listed.
const markdownNotesMax = 20

// Markdown writes a report for a pull-request comment: a summary line,
// run notes, a table of findings (hints folded in <details>), and the
// suppressed findings with their reasons in a collapsed section. It never
// exceeds MarkdownLimit bytes: when findings do not fit, errors are kept
// before warnings before infos before suppressed findings, the kept rows
// stay in report order, and a final note says how many were left out.
func Markdown(w io.Writer, r *finding.Report) error {
	_, err := io.WriteString(w, markdownReport(r, MarkdownLimit))
	return err
}

func markdownReport(r *finding.Report, limit int) string {
	var head strings.Builder
	head.WriteString("### apicheck: " + SummaryLine(r) + "\n\n")
	fmt.Fprintf(&head, "Compared %s with %s.\n", mdCode(revLabel(r.Base)), mdCode(revLabel(r.Head)))
	if u := r.Releases.Used(); u != "" {
		fmt.Fprintf(&head, "%s.\n", mdCell(strings.ToUpper(u[:1])+u[1:], markdownCellMax))
	}
	for i, n := range r.Notes {
		// Notes never take more than a quarter of the comment.
		if i == markdownNotesMax || head.Len() > limit/4 {
			fmt.Fprintf(&head, "\n> **Note:** %d more notes not shown.\n", len(r.Notes)-i)
			break
		}
		fmt.Fprintf(&head, "\n> **Note:** %s\n", mdCell(n, markdownCellMax))
	}

	var active, suppressed []int
	for i, f := range r.Findings {
		if f.Suppressed != "" {
			suppressed = append(suppressed, i)
		} else {
			active = append(active, i)
		}
	}
	if len(r.Findings) == 0 {
		head.WriteString("\nNo API compatibility findings.\n")
		return head.String()
	}

	const (
		activeHeader     = "\n| Severity | Rule | Location | Message |\n| --- | --- | --- | --- |\n"
		suppressedHeader = "\n<details>\n<summary>Suppressed findings (%d)</summary>\n\n| Severity | Rule | Location | Message | Reason |\n| --- | --- | --- | --- | --- |\n"
		suppressedFooter = "\n</details>\n"
	)
	rows := make([]string, len(r.Findings))
	for _, i := range active {
		rows[i] = activeRow(r.Findings[i])
	}
	for _, i := range suppressed {
		rows[i] = suppressedRow(r.Findings[i])
	}

	// Choose rows by priority until the budget is spent. The budget
	// reserves the section frames and the longest possible final note.
	budget := limit - head.Len() - len(activeHeader) - len(fmt.Sprintf(suppressedHeader, len(suppressed))) -
		len(suppressedFooter) - len(leftOutNote(len(r.Findings)))
	order := append(append([]int(nil), active...), suppressed...)
	rank := func(i int) int {
		f := r.Findings[i]
		if f.Suppressed != "" {
			return 0
		}
		return int(f.Severity)
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(order[a]) > rank(order[b]) })
	keep := make([]bool, len(r.Findings))
	kept := 0
	for _, i := range order {
		if len(rows[i]) > budget {
			// Keep trying smaller rows: a later, shorter row of the same
			// or lower priority may still fit.
			continue
		}
		budget -= len(rows[i])
		keep[i] = true
		kept++
	}

	var b strings.Builder
	b.WriteString(head.String())
	if n := countKept(active, keep); n > 0 {
		b.WriteString(activeHeader)
		for _, i := range active {
			if keep[i] {
				b.WriteString(rows[i])
			}
		}
	}
	if n := countKept(suppressed, keep); n > 0 {
		fmt.Fprintf(&b, suppressedHeader, len(suppressed))
		for _, i := range suppressed {
			if keep[i] {
				b.WriteString(rows[i])
			}
		}
		b.WriteString(suppressedFooter)
	}
	if left := len(r.Findings) - kept; left > 0 {
		b.WriteString(leftOutNote(left))
	}
	return b.String()
}

func countKept(idx []int, keep []bool) int {
	n := 0
	for _, i := range idx {
		if keep[i] {
			n++
		}
	}
	return n
}

func leftOutNote(n int) string {
	what := "findings were"
	if n == 1 {
		what = "finding was"
	}
	return fmt.Sprintf("\n> **Note:** %d %s left out to stay within GitHub's comment size limit; "+
		"see the full report (for example `--format json` or `--format sarif`).\n", n, what)
}

func activeRow(f finding.Finding) string {
	return fmt.Sprintf("| %s | %s | %s | %s |\n", mdSeverity(f.Severity), mdCode(f.Rule), mdLocation(f), mdMessage(f))
}

func suppressedRow(f finding.Finding) string {
	return fmt.Sprintf("| %s | %s | %s | %s | %s |\n", mdSeverity(f.Severity), mdCode(f.Rule), mdLocation(f),
		mdMessage(f), mdCell(f.Suppressed, markdownCellMax))
}

// mdMessage is a finding's message cell, with its hint folded below.
func mdMessage(f finding.Finding) string {
	msg := mdCell(f.Message, markdownCellMax)
	if f.Hint != "" {
		msg += "<details><summary>Hint</summary>" + mdCell(f.Hint, markdownCellMax) + "</details>"
	}
	return msg
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
	return mdCell(s.String(), 40)
}

func mdLocation(f finding.Finding) string {
	if f.Path == "" {
		return ""
	}
	loc := f.Path
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return mdCode(loc)
}

// mdCode is a code span that survives any content inside a table cell:
// the fence is longer than any backtick run, newlines become spaces and
// '|' (which ends a cell even inside code spans on GitHub) is escaped.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdEscaper makes text literal inside a GitHub table cell: Markdown and
// HTML specials are escaped, line breaks become <br>.
var mdEscaper = strings.NewReplacer(
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"~", `\~`, "|", `\|`, "#", `\#`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
)

// mdCell escapes text for a table cell, shortened to at most limit
// characters (before escaping).
func mdCell(s string, limit int) string {
	if utf8.RuneCountInString(s) > limit {
		rs := []rune(s)
		s = string(rs[:limit-1]) + "…"
	}
	return mdEscaper.Replace(s)
}
