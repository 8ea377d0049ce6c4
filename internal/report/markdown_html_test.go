package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"

	"github.com/apicheck/apicheck/internal/finding"
)

// gfmHTML renders Markdown as a GitHub-flavoured renderer does (goldmark
// with its GFM extension: tables, strikethrough, autolinks, task lists).
// Raw HTML passes through, as GitHub lets <details>, <summary>, <br> and
// comments through: everything apicheck itself does not write must come
// out escaped, which TestMarkdownHTML checks.
func gfmHTML(t *testing.T, md string) string {
	t.Helper()
	var buf bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(ghtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestMarkdownHTMLGolden renders every Markdown golden report to HTML with
// a GFM renderer and compares it with testdata/golden/*.html (refresh with
// -update; open one in a browser to see the comment as a reviewer does).
func TestMarkdownHTMLGolden(t *testing.T) {
	cases := markdownCases()
	cases["report.md"] = func(t *testing.T) string { return markdownWith(t, goldenReport(), Options{}) }
	for name, render := range cases {
		t.Run(name, func(t *testing.T) {
			checkGolden(t, strings.TrimSuffix(name, ".md")+".html", []byte(gfmHTML(t, render(t))))
		})
	}
}

var (
	htmlTag   = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>`)
	htmlHref  = regexp.MustCompile(`<a href="([^"]*)"`)
	htmlTable = regexp.MustCompile(`(?s)<table>(.*?)</table>`)
	htmlRow   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCell  = regexp.MustCompile(`(?s)<t[hd]>(.*?)</t[hd]>`)
	// A position link: blob/<commit or tag>/<path>#L<line>.
	blobLink = regexp.MustCompile(`^` + regexp.QuoteMeta(testLinkBase) + `/blob/([0-9a-f]{40}|v\d+\.\d+\.\d+)/([^#"]+)#L([1-9]\d*)$`)
)

// The tags a rendered report may have: goldmark's for Markdown, plus the
// <details>, <summary> and <br> apicheck writes.
var allowedTags = map[string]bool{
	"h3": true, "h4": true, "p": true, "code": true, "pre": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true, "a": true, "ul": true, "li": true, "strong": true, "em": true,
	"details": true, "summary": true, "br": true,
}

// cells returns the text of every cell of every row of a table.
func cells(table string) [][]string {
	var rows [][]string
	for _, r := range htmlRow.FindAllStringSubmatch(table, -1) {
		var row []string
		for _, c := range htmlCell.FindAllStringSubmatch(r[1], -1) {
			row = append(row, c[1])
		}
		rows = append(rows, row)
	}
	return rows
}

// TestMarkdownHTML asserts what a reviewer sees in the rendered comment.
func TestMarkdownHTML(t *testing.T) {
	r := prReport()
	out := gfmHTML(t, markdownWith(t, r, Options{LinkBase: testLinkBase}))

	// The hidden marker a bot finds its sticky comment by.
	if !strings.HasPrefix(out, MarkdownMarker+"\n") {
		t.Errorf("the HTML does not start with the marker %s:\n%.200s", MarkdownMarker, out)
	}

	// One row per field (or type) with findings, three columns.
	tables := htmlTable.FindAllStringSubmatch(out, -1)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2 (findings, suppressed findings)", len(tables))
	}
	rows := cells(tables[0][1])
	if got := strings.Join(rows[0], "|"); got != "Severity|Where|Finding and fix" {
		t.Errorf("header %q, want Severity|Where|Finding and fix", got)
	}
	subjects := map[string][]finding.Finding{}
	for _, f := range r.Findings {
		if f.Suppressed == "" {
			k := f.Package + "." + f.Type + "." + f.Field
			subjects[k] = append(subjects[k], f)
		}
	}
	if len(rows)-1 != len(subjects) {
		t.Errorf("%d rows, want one per field or type with findings: %d", len(rows)-1, len(subjects))
	}
	for _, row := range rows[1:] {
		if len(row) != 3 {
			t.Errorf("row with %d cells, want 3: %q", len(row), row)
			continue
		}
		// Where: the field's position at head, linked.
		m := htmlHref.FindStringSubmatch(row[1])
		if m == nil {
			t.Errorf("Where cell without a link: %q", row[1])
			continue
		}
		href := html.UnescapeString(m[1])
		if l := blobLink.FindStringSubmatch(href); l == nil || l[1] != testHeadSHA {
			t.Errorf("Where link %q is not %s/blob/<head sha>/<path>#L<n>", href, testLinkBase)
		}
		// Finding and fix: every rule ID links to its documentation.
		ids := regexp.MustCompile(`<a href="([^"]*)"><code>([A-Z_]+)</code></a>`).FindAllStringSubmatch(row[2], -1)
		if len(ids) == 0 {
			t.Errorf("What cell without a linked rule ID: %q", row[2])
		}
		for _, id := range ids {
			if want := RulesDocURL + "#" + strings.ToLower(id[2]); html.UnescapeString(id[1]) != want {
				t.Errorf("rule %s links to %q, want %q", id[2], id[1], want)
			}
		}
	}
	// The new field with three problems is one row with the combined fix.
	var replicas []string
	for _, row := range rows[1:] {
		if strings.Contains(row[1], "v1beta1.ShootSpec.Replicas") {
			replicas = row
		}
	}
	fix := ""
	if replicas != nil {
		_, fix, _ = strings.Cut(replicas[2], "<strong>Fix:</strong>")
	}
	if strings.Count(fix, "<br>• ") != 4 ||
		!strings.Contains(fix, "add <code>// +optional</code>") || !strings.Contains(fix, "omitempty") {
		t.Errorf("ShootSpec.Replicas: want one row with the four fixes, got %q", replicas)
	}

	// Every link of the comment is a position or a rule's documentation.
	for _, m := range htmlHref.FindAllStringSubmatch(out, -1) {
		href := html.UnescapeString(m[1])
		if !blobLink.MatchString(href) && !strings.HasPrefix(href, RulesDocURL+"#") {
			t.Errorf("unexpected link %q", href)
		}
	}

	// Code hints are copyable Go blocks.
	code := regexp.MustCompile(`(?s)<pre><code class="language-go">(.*?)</code></pre>`).FindAllStringSubmatch(out, -1)
	var blocks []string
	for _, c := range code {
		blocks = append(blocks, html.UnescapeString(c[1]))
	}
	sort.Strings(blocks)
	want := []string{
		"// SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.\n" +
			"// SeedTemplate *SeedTemplate `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`\n",
		"Replicas *int32\n",
	}
	if fmt.Sprint(blocks) != fmt.Sprint(want) {
		t.Errorf("go blocks %q, want %q", blocks, want)
	}

	// The related positions are listed, each linked at its revision.
	for _, w := range []string{
		`<li>usage at base <a href="` + testLinkBase + `/blob/` + testBaseSHA + `/pkg/controller/shoot/reconcile.go#L120"><code>reconcile.go:120</code></a></li>`,
		`<li>v1.100.0 <a href="` + testLinkBase + `/blob/v1.100.0/pkg/apis/core/v1beta1/types_seed.go#L18"><code>types_seed.go:18</code></a></li>`,
		`<li>release v1.100.0: SeedSpec.Old = 3</li>`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("related position not listed: %s", w)
		}
	}

	// Suppressed findings and notes are collapsed.
	details := regexp.MustCompile(`(?s)<details>\s*<summary>([^<]*)</summary>(.*?)</details>`).FindAllStringSubmatch(out, -1)
	if len(details) != 2 || details[0][1] != "Suppressed findings (1)" || details[1][1] != "Notes (1)" ||
		!strings.Contains(details[0][2], "<table>") || strings.Count(details[1][2], "<li>") != 1 {
		t.Errorf("collapsed sections %q, want suppressed findings (a table) and notes (a list of 1)", details)
	}
	// The profile note is one line under the heading, not a note.
	if !strings.Contains(out, "Profile: <code>gardener</code> (configured).</p>") || strings.Contains(out, "<li>profile ") {
		t.Errorf("the profile is not one line of the head:\n%.600s", out)
	}
}

// TestMarkdownHTMLEscapes: whatever the repository holds (names, messages,
// reasons), the rendered comment has only the tags apicheck writes and only
// links it makes.
func TestMarkdownHTMLEscapes(t *testing.T) {
	for name, md := range map[string]string{
		"hostile": markdownWith(t, hostileReport(), Options{LinkBase: testLinkBase}),
		"golden":  markdownWith(t, goldenReport(), Options{}),
	} {
		out := gfmHTML(t, md)
		for _, m := range htmlTag.FindAllStringSubmatch(out, -1) {
			if !allowedTags[strings.ToLower(m[2])] {
				t.Errorf("%s: tag %q in the rendered comment", name, m[0])
			}
		}
		for _, m := range htmlHref.FindAllStringSubmatch(out, -1) {
			href := html.UnescapeString(m[1])
			if !blobLink.MatchString(href) && !strings.HasPrefix(href, RulesDocURL+"#") {
				t.Errorf("%s: link %q", name, href)
			}
		}
		if n := strings.Count(out, "<!--"); n != 1 {
			t.Errorf("%s: %d HTML comments, want the marker only", name, n)
		}
	}
}

// TestMarkdownHTMLFitsCommentWidth checks the 760 px width assumptions
// of the tables on every rendered golden report and on a report of long
// names and paths: a pull-request comment is about 760 px wide, which
// fits three narrow columns whose text wraps; a run of text without a
// space (a code span, a path) does not wrap and widens its column, so no
// cell holds one longer than 60 characters: long paths show their file
// name (the link has the whole path) or are shortened from the left.
func TestMarkdownHTMLFitsCommentWidth(t *testing.T) {
	const maxRun = 60
	cases := markdownCases()
	cases["report.md"] = func(t *testing.T) string { return markdownWith(t, goldenReport(), Options{}) }
	for _, o := range []Options{{}, {LinkBase: testLinkBase}} {
		name := "long names and paths"
		if o.LinkBase != "" {
			name += ", linked"
		}
		cases[name] = func(t *testing.T) string { return markdownWith(t, longNamesReport(), o) }
	}
	for name, render := range cases {
		t.Run(name, func(t *testing.T) {
			out := gfmHTML(t, render(t))
			for _, table := range htmlTable.FindAllStringSubmatch(out, -1) {
				for _, row := range cells(table[1]) {
					if len(row) != 3 {
						t.Errorf("a row of %d columns, want 3: %q", len(row), row)
					}
					for _, cell := range row {
						if run := unbrokenRun(cell); utf8.RuneCountInString(run) > maxRun {
							t.Errorf("a cell holds %q, %d characters without a break (at most %d fit a column): %q",
								run, utf8.RuneCountInString(run), maxRun, cell)
						}
					}
				}
			}
		})
	}
}

// unbrokenRun is the longest run of a cell's rendered text (tags taken
// out, <br> a break, entities resolved) without white space.
func unbrokenRun(cell string) string {
	text := htmlTag.ReplaceAllStringFunc(cell, func(tag string) string {
		if strings.EqualFold(tag, "<br>") || strings.EqualFold(tag, "<br />") {
			return " "
		}
		return ""
	})
	best := ""
	// A zero-width space is a place to break the line.
	for _, w := range strings.Fields(strings.ReplaceAll(html.UnescapeString(text), zwsp, " ")) {
		if utf8.RuneCountInString(w) > utf8.RuneCountInString(best) {
			best = w
		}
	}
	return best
}

// longNamesReport has findings on deeply nested files and long type and
// field names, as large repositories have.
func longNamesReport() *finding.Report {
	const dir = "pkg/apis/extensions/provider-configuration/v1alpha1/internal/generated"
	r := &finding.Report{
		Base: finding.Rev{Ref: "origin/main", Commit: testBaseSHA},
		Head: finding.Rev{Ref: "WORKTREE", Commit: testHeadSHA},
		Findings: []finding.Finding{
			{Rule: "NEW_FIELD_NOT_POINTER", Severity: finding.Error, Path: dir + "/zz_types_controllerinstallation_registration.go", Line: 1234, Column: 2,
				Package: "example.com/api/" + dir, Version: "v1alpha1", Type: "ControllerInstallationRegistrationSpec", Field: "SeedSelectorRequirementsOverride",
				Message: "new field ControllerInstallationRegistrationSpec.SeedSelectorRequirementsOverride has a non-nillable type int32",
				Hint:    "make it a pointer"},
			{Rule: "FIELD_RENAMED", Severity: finding.Info, Path: dir + "/a_file_name_that_is_longer_than_any_column_could_hold_types.go", Line: 7, Column: 2,
				Package: "example.com/api/" + dir, Version: "v1alpha1", Type: "T", Field: "F", Message: "Go field T.G was renamed to T.F",
				Suppressed: "config: the rename is announced"},
		},
	}
	r.Finalize()
	return r
}
