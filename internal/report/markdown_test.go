package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/finding"
)

func markdownOf(t *testing.T, r *finding.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Markdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// tableRows returns the lines of Markdown table rows (header and
// delimiter rows excluded).
func tableRows(md string) []string {
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| Severity |") && !strings.HasPrefix(l, "| --- ") {
			rows = append(rows, l)
		}
	}
	return rows
}

// cells splits a table row on unescaped '|'.
func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "| "), " |")
	return regexp.MustCompile(` \| `).Split(strings.ReplaceAll(row, `\|`, "\x00"), -1)
}

func TestMarkdownContent(t *testing.T) {
	r := goldenReport()
	md := markdownOf(t, r)
	if !strings.Contains(md, SummaryLine(r)) {
		t.Errorf("summary line %q missing", SummaryLine(r))
	}
	for _, n := range r.Notes {
		if !strings.Contains(md, mdCell(n, markdownCellMax)) {
			t.Errorf("note %q missing", n)
		}
	}
	rows := tableRows(md)
	if len(rows) != len(r.Findings) {
		t.Fatalf("%d table rows for %d findings:\n%s", len(rows), len(r.Findings), md)
	}
	for _, row := range rows {
		// Every row has exactly its columns: '|' inside cells is escaped.
		n := len(cells(row))
		if n != 4 && n != 5 {
			t.Errorf("row has %d cells: %s", n, row)
		}
	}
	if !strings.Contains(md, "`pkg/apis/core/v1beta1/types_shoot.go:120`") {
		t.Error("location path:line missing")
	}
	if !strings.Contains(md, "<details><summary>Hint</summary>restore protobuf:") ||
		!strings.Contains(md, "PROTO\\_NUMBER\\_CHANGED<br>100% sure?") {
		t.Errorf("multi-line hint not folded into <details> with <br>:\n%s", md)
	}
	if strings.Contains(md, "<nil>") || !strings.Contains(md, "&lt;nil&gt;") {
		t.Error("HTML specials in messages are not escaped")
	}
	// Suppressed findings are listed with their reasons in their own section.
	sup := md[strings.Index(md, "Suppressed findings (2)"):]
	for _, reason := range []string{"config: removal agreed in \\#1234 \\| see .apicheck.yaml", "inline: +apicheck:ignore TOMBSTONE\\_MALFORMED legacy wording"} {
		if !strings.Contains(sup, reason) {
			t.Errorf("suppressed section lacks reason %q:\n%s", reason, sup)
		}
	}
	if strings.Contains(md, "left out") {
		t.Error("small report reports left-out findings")
	}
}

func TestMarkdownEmpty(t *testing.T) {
	r := &finding.Report{Base: finding.Rev{Ref: "main"}, Head: finding.Rev{Ref: "WORKTREE"}}
	r.Finalize()
	md := markdownOf(t, r)
	if !strings.Contains(md, "0 errors, 0 warnings, 0 infos") || !strings.Contains(md, "No API compatibility findings.") {
		t.Errorf("empty report:\n%s", md)
	}
	if strings.Contains(md, "| Severity |") {
		t.Error("empty report has a table")
	}
}

func TestMarkdownLimit(t *testing.T) {
	r := manyFindings(5000)
	md := markdownOf(t, r)
	if n := utf8.RuneCountInString(md); n >= 65536 || len(md) > MarkdownLimit {
		t.Fatalf("markdown is %d characters / %d bytes; GitHub's limit is 65536 characters, ours %d bytes", n, len(md), MarkdownLimit)
	}
	rows := tableRows(md)
	left := len(r.Findings) - len(rows)
	if left <= 0 {
		t.Fatalf("5000 findings fit into %d bytes?", len(md))
	}
	note := fmt.Sprintf("%d findings were left out", left)
	if !strings.Contains(md, note) {
		t.Errorf("missing final note %q; tail:\n%s", note, md[max(0, len(md)-500):])
	}
	if !strings.HasSuffix(strings.TrimSpace(md), "`--format sarif`).") {
		t.Errorf("the left-out note is not last; tail:\n%s", md[max(0, len(md)-300):])
	}
	// Errors are kept before anything else.
	errorsShown := strings.Count(md, "| :x: error |")
	if s := r.Summary; errorsShown < min(s.Errors, len(rows)) {
		t.Errorf("only %d of %d errors shown among %d rows", errorsShown, s.Errors, len(rows))
	}
	if strings.Contains(md, ":information_source: info") && errorsShown < r.Summary.Errors {
		t.Error("infos shown while errors were left out")
	}
	// Deterministic.
	if md2 := markdownOf(t, manyFindings(5000)); md2 != md {
		t.Error("markdown output is not deterministic")
	}
}

func TestMarkdownHugeCell(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{{
		Rule: "X", Severity: finding.Error, Path: "a.go", Line: 1,
		Message: strings.Repeat("|", 200000), Hint: strings.Repeat("\n", 100000),
	}}}
	r.Finalize()
	md := markdownOf(t, r)
	if len(md) > MarkdownLimit {
		t.Fatalf("%d bytes", len(md))
	}
	if len(tableRows(md)) != 1 {
		t.Errorf("the finding with a huge message was dropped instead of shortened")
	}
}

func TestMdCode(t *testing.T) {
	for in, want := range map[string]string{
		"a.go:1":   "`a.go:1`",
		"a`b.go":   "``a`b.go``",
		"`x":       "`` `x ``",
		"a|b\nc":   "`a\\|b c`",
		"":         "",
		"x``y`z.g": "```x``y`z.g```",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownManyNotes(t *testing.T) {
	r := manyFindings(100)
	for i := 0; i < 200; i++ {
		r.Notes = append(r.Notes, fmt.Sprintf("note %03d %s", i, strings.Repeat("<&>", 500)))
	}
	md := markdownOf(t, r)
	if len(md) > MarkdownLimit {
		t.Fatalf("%d bytes", len(md))
	}
	if !strings.Contains(md, "more notes not shown") {
		t.Error("notes were not capped")
	}
	if len(tableRows(md)) == 0 {
		t.Error("notes crowded out every finding")
	}
}
