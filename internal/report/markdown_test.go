package report

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
)

const (
	testLinkBase = "https://github.com/example/api"
	testHeadSHA  = "fedcba9876543210fedcba9876543210fedcba98"
	testBaseSHA  = "0123456789abcdef0123456789abcdef01234567"
)

func markdownWith(t *testing.T, r *finding.Report, o Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := MarkdownWith(o)(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// prReport is the report of a typical pull request: a new field that
// breaks three conventions (one row), a field removed without tombstone
// but still used (code fix and related positions), a change that misses
// a version, a removed type, a note of each kind.
func prReport() *finding.Report {
	const pkg = "example.com/api/pkg/apis/core/v1beta1"
	const file = "pkg/apis/core/v1beta1/types_shoot.go"
	r := &finding.Report{
		Tool: finding.Tool{Name: "apicheck", Version: "v1.2.3"},
		Base: finding.Rev{Ref: "origin/master", Commit: testBaseSHA},
		Head: finding.Rev{Ref: "WORKTREE", Commit: testHeadSHA},
		Notes: []string{
			"profile gardener (configured)",
			"FIELD_REMOVAL_NOT_RELEASED, FIELD_REMOVED_NOT_DEPRECATED skipped: no release tag matching ^v(\\d+)\\.(\\d+)\\.0$ is reachable from base 0123456789ab (the repository has no tags: run `git fetch --tags`)",
		},
		Findings: []finding.Finding{
			{Rule: "NEW_FIELD_NOT_POINTER", Severity: finding.Error, Path: file, Line: 42, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "Replicas", APIPath: "Shoot.spec.replicas",
				Message: "new field ShootSpec.Replicas has a non-nillable type int32",
				Hint:    "make it a pointer: Replicas *int32"},
			{Rule: "NEW_FIELD_NOT_OPTIONAL", Severity: finding.Error, Path: file, Line: 42, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "Replicas", APIPath: "Shoot.spec.replicas",
				Message: "new field ShootSpec.Replicas is not marked // +optional",
				Hint:    "add // +optional to the field's doc comment"},
			{Rule: "NEW_FIELD_NO_OMITEMPTY", Severity: finding.Error, Path: file, Line: 42, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "Replicas", APIPath: "Shoot.spec.replicas",
				Message: "new field ShootSpec.Replicas has no omitempty in its json tag",
				Hint:    "use `json:\"replicas,omitempty\"`"},
			{Rule: "PROTO_TAG_MISSING", Severity: finding.Warning, Path: file, Line: 42, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "Replicas", APIPath: "Shoot.spec.replicas",
				Message: "new field ShootSpec.Replicas has no protobuf tag",
				Hint:    "run make generate WHAT=protobuf; the next safe number is 5"},
			{Rule: "FIELD_REMOVED_WITHOUT_TOMBSTONE", Severity: finding.Error, Path: file, Line: 30, Column: 1, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "SeedTemplate", APIPath: "Shoot.spec.seedTemplate",
				Message: "field ShootSpec.SeedTemplate (protobuf 2) was removed without a tombstone",
				Hint: "leave in its place:\n// SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.\n" +
					"// SeedTemplate *SeedTemplate `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`",
				Related: []finding.Related{{Label: "base", Path: file, Line: 35, Column: 2}}},
			{Rule: "FIELD_REMOVED_STILL_USED", Severity: finding.Error, Path: file, Line: 30, Column: 1, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "SeedTemplate", APIPath: "Shoot.spec.seedTemplate",
				Message: "field ShootSpec.SeedTemplate was removed but is still used at base (2 usages)",
				Hint:    "drop the usages first and ship them in a release; remove the field after that release",
				Related: []finding.Related{
					{Label: "usage at base", Path: "pkg/controller/shoot/reconcile.go", Line: 120, Column: 9},
					{Label: "usage at base", Path: "cmd/tool/main.go", Line: 7, Column: 3}}},
			{Rule: "VERSION_SKEW", Severity: finding.Error, Path: "pkg/apis/core/types_shoot.go", Line: 12, Column: 2, Package: "example.com/api/pkg/apis/core",
				Type: "ShootSpec", Field: "Replicas",
				Message: "field ShootSpec.Replicas was added to v1beta1 but not to the internal version",
				Hint:    "make the same change in the internal version (and adapt conversions)"},
			{Rule: "TYPE_REMOVED", Severity: finding.Error, Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 1, Package: pkg, Version: "v1beta1",
				Type: "SeedTemplate", Message: "type SeedTemplate was removed",
				Hint:    "keep the type until the API version itself is removed",
				Related: []finding.Related{{Label: "base", Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 80, Column: 6}}},
			{Rule: "PROTO_NUMBER_PREVIOUSLY_USED", Severity: finding.Error, Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 20, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "SeedSpec", Field: "Zones", APIPath: "Seed.spec.zones",
				Message: "SeedSpec.Zones takes protobuf number 3, which SeedSpec.Old carried at release v1.100.0 (removed without a tombstone)",
				Hint:    "use number 9 instead",
				Related: []finding.Related{{Label: "release v1.100.0: SeedSpec.Old = 3"},
					{Label: "v1.100.0", Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 18, Column: 2}}},
			{Rule: "UNCLASSIFIED_CHANGE", Severity: finding.Info, Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 25, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "SeedSpec", Field: "Labels", APIPath: "Seed.spec.labels",
				Message: "markers of SeedSpec.Labels changed (+mapType=atomic added); no rule judges this change",
				Hint:    "no rule judges this change; review it by hand"},
			{Rule: "FIELD_RENAMED", Severity: finding.Info, Path: file, Line: 50, Column: 2, Package: pkg, Version: "v1beta1",
				Type: "ShootSpec", Field: "Hibernate", APIPath: "Shoot.spec.hibernation",
				Message:    "Go field ShootSpec.Hibernation was renamed to ShootSpec.Hibernate; json name and protobuf number are unchanged",
				Hint:       "Go clients must be updated; mention the rename in the release note",
				Suppressed: "config: the rename is announced in the release note"},
		},
	}
	r.Finalize()
	return r
}

// hostileReport carries what a pull request could put into names, paths,
// messages, hints, reasons, notes and ref names to break the comment,
// ping people or inject links and HTML.
func hostileReport() *finding.Report {
	const evil = "| @org/team <img src=x> [x](http://e) #1"
	r := &finding.Report{
		Tool: finding.Tool{Name: "apicheck", Version: "v1.2.3"},
		Base: finding.Rev{Ref: "main|<b>@admin</b>", Commit: testBaseSHA},
		Head: finding.Rev{Ref: "feature/`x`|@y", Commit: testHeadSHA},
		Notes: []string{
			evil,
			"- starts like a list item @everyone",
			"# a heading? www.example.com and a@b.example.com",
			"1. ordered? <!-- comment --> <details><summary>fake</summary>",
		},
		Findings: []finding.Finding{
			{Rule: "JSON_NAME_CHANGED", Severity: finding.Error, Path: "pkg/apis/x|y/@org/<b>/v1/types.go", Line: 3, Column: 1,
				Package: "example.com/api/pkg/apis/x|y/v1", Version: "v1", Type: "Spec|Evil", Field: "F`ield",
				APIPath: "Thing.spec.@admin",
				Message: "message " + evil + "\nsecond line ![img](https://e/x.png) <script>alert(1)</script> &#64;user &lt;",
				Hint: "prose " + evil + "\n// +optional " + evil + "\n// ``` </details>\n" +
					"Field *string `json:\"f\"` // ```\n```\n</details>\n<img src=x>",
				Related: []finding.Related{{Label: "base", Path: evil, Line: 3, Column: 1}, {Label: evil},
					{Label: "usage @x at base", Path: "a/b.go", Line: 1, Column: 1}}},
			{Rule: "NOT|A_RULE <x>", Severity: finding.Warning, Path: "a`b`c.go", Line: 1, Package: "p",
				Message: "~~strike~~ **bold** _em_ \\| `unbalanced", Hint: "GH-1 org/repo#12 :+1: ```go"},
			{Rule: "FIELD_RENAMED", Severity: finding.Info, Path: "z.go", Line: 9, Package: "p", Type: "T", Field: "F",
				Message: "suppressed " + evil, Suppressed: "reason " + evil + "\nline 2 @someone"},
		},
	}
	r.Finalize()
	return r
}

// mdManyFindings is a report with n findings on n fields.
func mdManyFindings(n int) *finding.Report {
	r := &finding.Report{Base: finding.Rev{Ref: "main"}, Head: finding.Rev{Ref: "WORKTREE"}}
	sevs := []finding.Severity{finding.Info, finding.Warning, finding.Error}
	for i := 0; i < n; i++ {
		f := finding.Finding{
			Rule: "NEW_FIELD_NOT_POINTER", Severity: sevs[i%len(sevs)],
			Path: fmt.Sprintf("pkg/apis/group%03d/v1/types.go", i/50), Line: i%50*10 + 1, Column: 2,
			Package: fmt.Sprintf("example.com/m/pkg/apis/group%03d/v1", i/50), Version: "v1",
			Type: fmt.Sprintf("Type%d", i), Field: fmt.Sprintf("Field%d", i),
			Message: fmt.Sprintf("finding %d: field Type%d.Field%d changed | %s", i, i, i, strings.Repeat("x", i%40)),
			Hint:    fmt.Sprintf("fix finding %d\nField%d *string", i, i),
		}
		if i%7 == 0 {
			f.Suppressed = fmt.Sprintf("config: accepted for finding %d", i)
		}
		r.Findings = append(r.Findings, f)
	}
	r.Finalize()
	return r
}

// markdownCases are the Markdown golden files besides report.md.
func markdownCases() map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"markdown-clean.md": func(t *testing.T) string {
			r := &finding.Report{Base: finding.Rev{Ref: "origin/main", Commit: testBaseSHA}, Head: finding.Rev{Ref: "WORKTREE", Commit: testHeadSHA},
				Notes: []string{"profile gardener (detected; set profile in .apicheck.yaml to choose another)"}}
			r.Finalize()
			return markdownWith(t, r, Options{LinkBase: testLinkBase})
		},
		"markdown-pr.md":       func(t *testing.T) string { return markdownWith(t, prReport(), Options{}) },
		"markdown-pr-links.md": func(t *testing.T) string { return markdownWith(t, prReport(), Options{LinkBase: testLinkBase}) },
		"markdown-hostile.md":  func(t *testing.T) string { return markdownWith(t, hostileReport(), Options{LinkBase: testLinkBase}) },
		// The catalogue known: the checklist, and a release note to add.
		"markdown-pr-checklist.md": func(t *testing.T) string {
			return markdownWith(t, checklistReport(), Options{LinkBase: testLinkBase})
		},
		// Many findings under a small limit: errors first, the rest counted.
		"markdown-capped.md": func(t *testing.T) string {
			return markdownReport(mdManyFindings(200), Options{LinkBase: testLinkBase}, 9000)
		},
	}
}

func TestMarkdownGolden(t *testing.T) {
	for name, render := range markdownCases() {
		t.Run(name, func(t *testing.T) {
			got := render(t)
			if again := render(t); again != got {
				t.Fatal("output is not deterministic")
			}
			checkGolden(t, name, []byte(got))
		})
	}
}

// TestMarkdownWellFormed runs the GFM checker over every Markdown report
// of the tests: table rows keep their columns, and nothing from the
// repository becomes HTML, a mention, an issue reference or a link.
func TestMarkdownWellFormed(t *testing.T) {
	all := map[string]string{"report.md": markdownWith(t, goldenReport(), Options{})}
	for name, render := range markdownCases() {
		all[name] = render(t)
	}
	all["many"] = markdownWith(t, mdManyFindings(3000), Options{LinkBase: testLinkBase})
	r := hostileReport()
	for i := 0; i < 300; i++ {
		f := r.Findings[i%len(r.Findings)]
		f.Field += fmt.Sprint(i)
		r.Findings = append(r.Findings, f)
	}
	r.Finalize()
	all["hostile-many"] = markdownWith(t, r, Options{LinkBase: testLinkBase})
	for name, md := range all {
		for _, p := range gfmProblems(md, []string{testLinkBase + "/blob/", RulesDocURL + "#"}) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// TestGFMChecker makes sure the checker catches what it is meant to.
func TestGFMChecker(t *testing.T) {
	const head = MarkdownMarker + "\n\n| A | B |\n| --- | --- |\n"
	for _, c := range []struct{ md, want string }{
		{head + "| a | b |\n", ""},
		{head + "| a | b \\| c |\n", ""},
		{head + "| a | `b` |\n", ""},
		{head + "| a | b | c |\n", "3 cells"},
		{head + "| a | `b|c` |\n", "3 cells"},
		{head + "| a | b\\\\| c |\n", "3 cells"},
		{head + "| a | <img src=x> |\n", "raw HTML"},
		{head + "| a | @org/team |\n", "mention"},
		{head + "| a | \\@org |\n", "mention"},
		{head + "| a | see http://e |\n", "autolink"},
		{head + "| a | www.e.com |\n", "autolink"},
		{head + "| a | \\#12 |\n", "issue reference"},
		{head + "| a | see GH-12 |\n", "issue reference"},
		{head + "| a | [x](http://e) |\n", "link to"},
		{head + "| a | &#64;x |\n", "entity"},
		{head + "| a | `b |\n", "unmatched backtick"},
		{"no marker\n", "first line"},
		{MarkdownMarker + "\n```go\n@x <b> http://e\n```\n", ""},
		{MarkdownMarker + "\n```go\nx\n", "not closed"},
		{MarkdownMarker + "\n<details>\n<summary>Notes (1)</summary>\n\n- a<br>b\n\n</details>\n", ""},
	} {
		probs := strings.Join(gfmProblems(c.md, []string{"https://ok/"}), "; ")
		if c.want == "" && probs != "" || c.want != "" && !strings.Contains(probs, c.want) {
			t.Errorf("gfmProblems(%q) = %q, want %q", c.md, probs, c.want)
		}
	}
}

func TestMarkdownGroupsFindingsPerField(t *testing.T) {
	md := markdownWith(t, prReport(), Options{})
	rows := gfmTableRows(md)
	// 11 findings: the new field (4 findings) is one row, the removed
	// field (2) one, the internal version, the type, the two SeedSpec
	// fields one each; the suppressed rename in its own table.
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 7:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	var replicas string
	for _, r := range rows {
		if strings.Contains(r, "`v1beta1.ShootSpec.Replicas`") {
			if replicas != "" {
				t.Fatalf("two rows for ShootSpec.Replicas:\n%s\n%s", replicas, r)
			}
			replicas = r
		}
	}
	cells := gfmCells(replicas)
	if cells[0] != ":x: error" {
		t.Errorf("severity cell %q, want the highest severity (error)", cells[0])
	}
	for _, id := range []string{"NEW_FIELD_NOT_POINTER", "NEW_FIELD_NOT_OPTIONAL", "NEW_FIELD_NO_OMITEMPTY", "PROTO_TAG_MISSING"} {
		if !strings.Contains(cells[2], "[`"+id+"`]("+RuleDocURL(id)+")") {
			t.Errorf("finding cell lacks the linked rule %s: %s", id, cells[2])
		}
	}
	_, fixes, _ := strings.Cut(cells[2], "**Fix:**")
	for _, fix := range []string{"make it a pointer (code below)", "add `// +optional` to the field's doc comment", "use `json:\"replicas,omitempty\"`", "make generate"} {
		if !strings.Contains(fixes, fix) {
			t.Errorf("the fix of the finding cell lacks %q: %s", fix, cells[2])
		}
	}
	// The declaration of the fix is a copyable go block below the table.
	if !strings.Contains(md, "```go\n  Replicas *int32\n  ```") {
		t.Errorf("the code of the fix is not in a go block:\n%s", md)
	}
	// The tombstone too, and the related positions are listed.
	if !strings.Contains(md, "  // SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.\n  // SeedTemplate *SeedTemplate `json:") {
		t.Errorf("tombstone not in a go block:\n%s", md)
	}
	for _, rel := range []string{
		"  - base `pkg/apis/core/v1beta1/types_shoot.go:35`",
		"  - usage at base `pkg/controller/shoot/reconcile.go:120`",
		"  - usage at base `cmd/tool/main.go:7`",
		"  - release v1.100.0: SeedSpec.Old = 3",
		"  - v1.100.0 `pkg/apis/core/v1beta1/types_seed.go:18`",
	} {
		if !strings.Contains(md, rel+"\n") {
			t.Errorf("related position %q not listed:\n%s", rel, md)
		}
	}
	if !strings.HasPrefix(md, MarkdownMarker+"\n") {
		t.Errorf("the marker is not the first line")
	}
	if !strings.Contains(md, "<details>\n<summary>Notes (1)</summary>") {
		t.Errorf("notes are not collapsed")
	}
}

func TestMarkdownLinks(t *testing.T) {
	md := markdownWith(t, prReport(), Options{LinkBase: testLinkBase + "/"})
	for _, want := range []string{
		"[`types_shoot.go:42`](" + testLinkBase + "/blob/" + testHeadSHA + "/pkg/apis/core/v1beta1/types_shoot.go#L42)",
		"base [`types_shoot.go:35`](" + testLinkBase + "/blob/" + testBaseSHA + "/pkg/apis/core/v1beta1/types_shoot.go#L35)",
		"v1.100.0 [`types_seed.go:18`](" + testLinkBase + "/blob/v1.100.0/pkg/apis/core/v1beta1/types_seed.go#L18)",
		"[`NEW_FIELD_NOT_POINTER`](https://github.com/apicheck/apicheck/blob/main/docs/rules.md#new_field_not_pointer)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %s", want)
		}
	}
	// Without a head commit (a working tree without HEAD) nothing at head
	// is linked; base positions still are.
	r := prReport()
	r.Head.Commit = ""
	md = markdownWith(t, r, Options{LinkBase: testLinkBase})
	if strings.Contains(md, "/blob/"+testHeadSHA) || !strings.Contains(md, "`pkg/apis/core/v1beta1/types_shoot.go:42`") {
		t.Errorf("head positions linked without a head commit:\n%s", md)
	}
	if !strings.Contains(md, "/blob/"+testBaseSHA+"/") {
		t.Errorf("base positions not linked")
	}
	// An unusable link base gives no links at all.
	md = markdownWith(t, prReport(), Options{LinkBase: "javascript:alert(1)"})
	if strings.Contains(md, "/blob/"+testHeadSHA) || strings.Contains(md, "/blob/"+testBaseSHA) || strings.Contains(md, "javascript") {
		t.Errorf("links from a bad link base:\n%s", md)
	}
	// Paths are escaped in links.
	r = prReport()
	r.Findings[0].Path = "pkg/a b/(x)/ü#?.go"
	md = markdownWith(t, r, Options{LinkBase: testLinkBase})
	if !strings.Contains(md, "/blob/"+testHeadSHA+"/pkg/a%20b/%28x%29/%C3%BC%23%3F.go#L") {
		t.Errorf("path not escaped in the link:\n%s", md)
	}
}

func TestParseLinkBase(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/o/r":        "https://github.com/o/r",
		"https://github.com/o/r/":       "https://github.com/o/r",
		"http://git.example.com:8080/r": "http://git.example.com:8080/r",
	} {
		if got, err := ParseLinkBase(in); err != nil || got != want {
			t.Errorf("ParseLinkBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "github.com/o/r", "javascript:alert(1)", "https://github.com", "https://u:p@github.com/o/r",
		"https://github.com/o/r?x=1", "https://github.com/o/r#x", "https://github.com/o/r)", "https://github.com/o r", "ftp://h/r",
		"https://github.com/o/<r>"} {
		if got, err := ParseLinkBase(in); err == nil {
			t.Errorf("ParseLinkBase(%q) = %q, want an error", in, got)
		}
	}
}

func TestMarkdownHostile(t *testing.T) {
	md := markdownWith(t, hostileReport(), Options{LinkBase: testLinkBase})
	if probs := gfmProblems(md, []string{testLinkBase + "/blob/", RulesDocURL + "#"}); len(probs) > 0 {
		t.Errorf("problems:\n%s", strings.Join(probs, "\n"))
	}
	// What GitHub shows as text (outside code) pings nobody and links
	// nothing.
	text := gfmText(md)
	for _, bad := range []string{"@org", "@everyone", "@someone", "@user", "@x", "@b.example", "http://e", "https://e/x.png",
		"www.example", "#1", "#12", "GH-1"} {
		if strings.Contains(text, bad) {
			t.Errorf("hostile text %q got through", bad)
		}
	}
	for _, want := range []string{
		"@" + zwj + "org/team",              // mention neutralised, still readable
		"&lt;img src=x&gt;",                 // HTML shown, not rendered
		`\[x\](http:` + zwj + "//e)",        // no link
		`\#` + zwj + "1",                    // no issue reference
		"```go\n  // +optional | @org/team", // code stays code
		"````go",                            // a longer fence than the hint's ```
		"%7C%20@org/team%20%3Cimg%20src=x%3E%20%5Bx%5D%28http://e%29%20%231#L3)", // an escaped link
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
}

func TestMarkdownLimit(t *testing.T) {
	r := mdManyFindings(5000)
	md := markdownWith(t, r, Options{LinkBase: testLinkBase})
	if n := utf8.RuneCountInString(md); n >= 65536 || len(md) > MarkdownLimit {
		t.Fatalf("markdown is %d characters / %d bytes; GitHub's limit is 65536 characters, ours %d bytes", n, len(md), MarkdownLimit)
	}
	rows := gfmTableRows(md)
	left := len(r.Findings) - len(rows)
	if left <= 0 {
		t.Fatalf("5000 findings fit into %d bytes?", len(md))
	}
	if line := fmt.Sprintf("**%d more findings not shown**", left); !strings.Contains(md, line) {
		t.Errorf("missing %q", line)
	}
	// Errors are kept before anything else; kept rows stay in report order.
	errorsShown := strings.Count(md, "| :x: error |")
	if s := r.Summary; errorsShown < min(s.Errors, len(rows)) {
		t.Errorf("only %d of %d errors shown among %d rows", errorsShown, s.Errors, len(rows))
	}
	if strings.Contains(md, ":information_source: info") && errorsShown < r.Summary.Errors {
		t.Error("infos shown while errors were left out")
	}
	last := -1
	for _, row := range rows {
		var n int
		if _, err := fmt.Sscanf(gfmCells(row)[2][strings.Index(gfmCells(row)[2], "finding "):], "finding %d:", &n); err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		if n < last {
			t.Fatalf("rows out of report order: %d after %d", n, last)
		}
		last = n
	}
	if md2 := markdownWith(t, mdManyFindings(5000), Options{LinkBase: testLinkBase}); md2 != md {
		t.Error("markdown output is not deterministic")
	}
}

func TestMarkdownHugeCell(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{{
		Rule: "X", Severity: finding.Error, Path: "a.go", Line: 1, Type: "T", Field: "F",
		Message: strings.Repeat("|", 200000), Hint: strings.Repeat("// x\n", 100000),
		Related: slices.Repeat([]finding.Related{{Label: "base", Path: "a.go", Line: 1, Column: 1}}, 1000),
	}}}
	r.Finalize()
	md := markdownWith(t, r, Options{})
	if len(md) > MarkdownLimit {
		t.Fatalf("%d bytes", len(md))
	}
	if len(gfmTableRows(md)) != 1 {
		t.Errorf("the finding with a huge message was dropped instead of shortened")
	}
}

// Ref names have no length limit of their own: a huge one is cut, and
// the findings still fit.
func TestMarkdownHugeRefs(t *testing.T) {
	r := mdManyFindings(3)
	r.Base.Ref = strings.Repeat("b", 100000)
	r.Head.Ref = strings.Repeat("h|@x ", 20000)
	md := markdownWith(t, r, Options{})
	if len(md) > MarkdownLimit {
		t.Fatalf("%d bytes", len(md))
	}
	if n := len(gfmTableRows(md)); n != 3 {
		t.Errorf("%d rows, want 3", n)
	}
	if !strings.Contains(md, strings.Repeat("b", mdMessageMax-1)+"…") {
		t.Error("the base ref is not shortened with an ellipsis")
	}
}

func TestMarkdownManyNotes(t *testing.T) {
	r := mdManyFindings(100)
	for i := 0; i < 200; i++ {
		r.Notes = append(r.Notes, fmt.Sprintf("note %03d %s", i, strings.Repeat("<&>", 500)))
	}
	md := markdownWith(t, r, Options{})
	if len(md) > MarkdownLimit {
		t.Fatalf("%d bytes", len(md))
	}
	if !strings.Contains(md, "<summary>Notes (200)</summary>") || !strings.Contains(md, "more notes not shown") {
		t.Error("notes were not capped")
	}
	if len(gfmTableRows(md)) == 0 {
		t.Error("notes crowded out every finding")
	}
}

func TestMarkdownEmpty(t *testing.T) {
	r := &finding.Report{Base: finding.Rev{Ref: "main"}, Head: finding.Rev{Ref: "WORKTREE"}}
	r.Finalize()
	md := markdownWith(t, r, Options{})
	if !strings.Contains(md, "0 errors, 0 warnings, 0 infos") || !strings.Contains(md, "No API compatibility findings.") {
		t.Errorf("empty report:\n%s", md)
	}
	if strings.Contains(md, "| Severity |") || strings.Contains(md, "Notes") {
		t.Error("empty report has a table or notes")
	}
}

func TestMdCode(t *testing.T) {
	for in, want := range map[string]string{
		"a.go:1":   "`a.go:1`",
		"a`b.go":   "``a`b.go``",
		"`x":       "`` `x ``",
		"a\nc":     "`a c`",
		"":         "",
		"x``y`z.g": "```x``y`z.g```",
		"a|b":      `a\|b`, // in a cell, escaped text
	} {
		if got := mdCode(in, inCell); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitHint(t *testing.T) {
	for _, c := range []struct {
		hint, prose, code string
	}{
		{"make it a pointer: Replicas *int32", "make it a pointer:", "Replicas *int32"},
		{"make it a pointer: Res *corev1.ResourceList", "make it a pointer:", "Res *corev1.ResourceList"},
		{"leave in its place:\n// X is tombstoned to show why 2 is reserved protobuf tag.\n// X *string `json:\"x\"`",
			"leave in its place:", "// X is tombstoned to show why 2 is reserved protobuf tag.\n// X *string `json:\"x\"`"},
		{"write: // X is tombstoned to show why 2 is reserved protobuf tag.", "write:", "// X is tombstoned to show why 2 is reserved protobuf tag."},
		{"add // +optional to the field's doc comment", "add // +optional to the field's doc comment", ""},
		{"use `json:\"x,omitempty\"`", "use `json:\"x,omitempty\"`", ""},
		{"Go clients must be updated; mention the rename in the release note", "Go clients must be updated; mention the rename in the release note", ""},
		{"Review manually", "Review manually", ""},
		{"restore type Foo: Bar string", "restore type Foo:", "Bar string"},
	} {
		prose, code := splitHint(c.hint)
		if strings.Join(prose, "\n") != c.prose || code != c.code {
			t.Errorf("splitHint(%q) = %q, %q; want %q, %q", c.hint, prose, code, c.prose, c.code)
		}
	}
}

// TestRuleDocAnchors checks that every rule ID of the catalogue has the
// anchor RuleDocURL links to in docs/rules.md, by GitHub's rule for
// heading anchors.
func TestRuleDocAnchors(t *testing.T) {
	data, err := os.ReadFile(rulesDocPath)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]int{}
	for _, l := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(l, "#"); ok {
			slug := githubSlug(strings.TrimLeft(h, "#"))
			if n := anchors[slug]; n > 0 {
				slug = fmt.Sprintf("%s-%d", slug, n)
			}
			anchors[slug]++
		}
	}
	all := catalog.All()
	if len(all) < 30 {
		t.Fatalf("only %d rules", len(all))
	}
	for _, r := range all {
		id := r.ID
		u := RuleDocURL(id)
		anchor := u[strings.Index(u, "#")+1:]
		if anchors[anchor] == 0 {
			t.Errorf("%s: docs/rules.md has no anchor %q", id, anchor)
		}
	}
}

// githubSlug is GitHub's anchor for a heading: lower case, punctuation
// but '-' and '_' dropped, spaces as '-'.
func githubSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// gfmTableRows returns the body rows of every table (header and delimiter
// rows excluded).
func gfmTableRows(md string) []string {
	var rows []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if i+1 < len(lines) && strings.HasPrefix(lines[i], "|") && strings.HasPrefix(lines[i+1], "| ---") {
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				rows = append(rows, lines[i])
			}
		}
	}
	return rows
}

// gfmCells splits a table row into its cells the way GitHub does: a '|'
// ends a cell unless a backslash escapes it (even inside code spans), and
// a backslash escapes any character.
func gfmCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, "\\|") {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row):
			cur.WriteString(row[i : i+2])
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var (
	fenceLine   = regexp.MustCompile("^ *(`{3,})")
	mdLinkAt    = regexp.MustCompile("^\\[(?:[^\\[\\]`\\\\]|\\\\.|`[^`]*`)*\\]\\(([^()\\s]+)\\)")
	allowedHTML = []string{"<br>", "<details>", "</details>", "<summary>", "</summary>"}
	autolinkRe  = regexp.MustCompile(`(?i)(?:https?|ftp)://|www\.`)
	mentionRe   = regexp.MustCompile(`@[A-Za-z0-9]`)
	issueRefRe  = regexp.MustCompile(`#[0-9]|(?i)\bgh-[0-9]`)
)

// gfmProblems is a small checker of the Markdown the report writes, as
// GitHub renders it: the marker is the first line, every table row has
// its header's number of cells, fenced blocks are closed, and outside
// code there is no raw HTML but <br>, <details> and <summary>, no
// entity but &lt; &gt; &amp;, no unmatched backtick, no link but to the
// allowed prefixes, and in the rendered text no @mention, bare URL or
// #123 reference.
func gfmProblems(md string, linkPrefixes []string) []string {
	var probs []string
	bad := func(line int, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("line %d: ", line+1)+fmt.Sprintf(format, args...))
	}
	lines := strings.Split(md, "\n")
	if lines[0] != MarkdownMarker {
		bad(0, "the first line is not the marker %s", MarkdownMarker)
	}
	fence := ""
	fenceStart := 0
	cols := 0
	for i, l := range lines {
		if fence != "" {
			if strings.TrimSpace(l) != "" && strings.Trim(strings.TrimSpace(l), "`") == "" && len(strings.TrimSpace(l)) >= len(fence) {
				fence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			fence, fenceStart = m[1], i
			continue
		}
		if i == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(l, "|") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "| ---"):
			cols = len(gfmCells(l))
		case strings.HasPrefix(l, "|"):
			if n := len(gfmCells(l)); cols == 0 || n != cols {
				bad(i, "a table row with %d cells under a header of %d: %s", n, cols, l)
			}
		default:
			cols = 0
		}
		probs = append(probs, inlineProblems(i, l, linkPrefixes)...)
	}
	if fence != "" {
		bad(fenceStart, "fenced block not closed")
	}
	return probs
}

// gfmText is the text GitHub shows outside code blocks, code spans and
// links, with escapes and entities resolved.
func gfmText(md string) string {
	var b strings.Builder
	fence := ""
	for i, l := range strings.Split(md, "\n") {
		if fence != "" {
			if t := strings.TrimSpace(l); t != "" && strings.Trim(t, "`") == "" && len(t) >= len(fence) {
				fence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		t, _ := inlineText(i, l, nil)
		b.WriteString(t + "\n")
	}
	return b.String()
}

func inlineProblems(line int, s string, linkPrefixes []string) []string {
	_, probs := inlineText(line, s, linkPrefixes)
	return probs
}

func inlineText(line int, s string, linkPrefixes []string) (string, []string) {
	var probs []string
	bad := func(format string, args ...any) {
		probs = append(probs, fmt.Sprintf("line %d: ", line+1)+fmt.Sprintf(format, args...))
	}
	var text strings.Builder // the rendered text outside code and links
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] < 128 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(s[i+1])):
			text.WriteByte(s[i+1])
			i++
		case c == '`':
			n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
			end := -1
			for j := i + n; j < len(s); {
				k := strings.IndexByte(s[j:], '`')
				if k < 0 {
					break
				}
				m := len(s[j+k:]) - len(strings.TrimLeft(s[j+k:], "`"))
				if m == n {
					end = j + k
					break
				}
				j += k + m
			}
			if end < 0 {
				bad("unmatched backtick: %s", s)
				return text.String(), probs
			}
			text.WriteByte(' ')
			i = end + n - 1
		case c == '<':
			ok := false
			for _, tag := range allowedHTML {
				if strings.HasPrefix(s[i:], tag) {
					ok = true
					i += len(tag) - 1
					break
				}
			}
			if !ok {
				bad("raw HTML at %q", s[i:min(len(s), i+20)])
			}
			text.WriteByte(' ')
		case c == '&':
			ok := false
			for _, e := range []string{"&lt;", "&gt;", "&amp;"} {
				if strings.HasPrefix(s[i:], e) {
					ok = true
					text.WriteString(map[string]string{"&lt;": "<", "&gt;": ">", "&amp;": "&"}[e])
					i += len(e) - 1
					break
				}
			}
			if !ok && regexp.MustCompile(`^&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z]+);`).MatchString(s[i:]) {
				bad("entity at %q", s[i:min(len(s), i+10)])
			}
		case c == '[':
			m := mdLinkAt.FindStringSubmatch(s[i:])
			if m == nil {
				bad("unescaped [ at %q", s[i:min(len(s), i+20)])
				continue
			}
			allowed := false
			for _, p := range linkPrefixes {
				allowed = allowed || strings.HasPrefix(m[1], p)
			}
			if !allowed {
				bad("link to %q", m[1])
			}
			text.WriteByte(' ')
			i += len(m[0]) - 1
		default:
			text.WriteByte(c)
		}
	}
	t := text.String()
	if m := mentionRe.FindString(t); m != "" {
		bad("mention %q in %q", m, t)
	}
	if m := autolinkRe.FindString(t); m != "" {
		bad("autolink %q in %q", m, t)
	}
	if m := issueRefRe.FindString(t); m != "" {
		bad("issue reference %q in %q", m, t)
	}
	return t, probs
}

// A fix's suggested changes are GitHub ```suggestion blocks under the
// table, naming the lines they replace; the text is the lines as
// apicheck fix writes them, never escaped.
func TestMarkdownSuggestions(t *testing.T) {
	r := goldenReport()
	f := &r.Findings[0]
	f.Fixes = []finding.Fix{{Description: "make it a pointer", Suggestions: []finding.Suggestion{
		{Path: f.Path, StartLine: 12, EndLine: 12, Text: "\t// +optional\n\tReplicas *int32 `json:\"replicas,omitempty\"`"},
		{Path: f.Path, StartLine: 20, EndLine: 22, Text: "\t// Old is tombstoned to show why 7 is reserved protobuf tag.\n\t// Old *string `json:\"old\"`"},
	}}}
	md := markdownWith(t, r, Options{})
	for _, want := range []string{
		"- Suggested change, `" + f.Path + "` line 12 (what `apicheck fix` writes):\n\n  ```suggestion\n  \t// +optional\n  \tReplicas *int32 `json:\"replicas,omitempty\"`\n  ```\n",
		"- Suggested change, `" + f.Path + "` lines 20–22 (what `apicheck fix` writes):\n\n  ```suggestion\n  \t// Old is tombstoned",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks\n%s\nin:\n%s", want, md)
		}
	}
}

// replicasFixes are the fixes `apicheck check` plans for a new field
// Replicas int32 `json:"replicas" protobuf:"varint,6,opt,name=replicas"`
// at line 38 that is not optional, no pointer and has no omitempty: one
// fix per finding, each suggesting line 38 on its own.
func replicasFixes(path string) map[string]finding.Fix {
	ins := func(line, col, off int, text string) finding.Edit {
		return finding.Edit{Path: path, StartLine: line, StartCol: col, EndLine: line, EndCol: col, StartOffset: off, EndOffset: off, NewText: text}
	}
	sg := func(text string) []finding.Suggestion {
		return []finding.Suggestion{{Path: path, StartLine: 38, EndLine: 38, Text: text}}
	}
	return map[string]finding.Fix{
		"NEW_FIELD_NOT_OPTIONAL": {Description: "add // +optional to Replicas", Edits: []finding.Edit{ins(38, 1, 1510, "\t// +optional\n")},
			Suggestions: sg("\t// +optional\n\tReplicas int32 `json:\"replicas\" protobuf:\"varint,6,opt,name=replicas\"`")},
		"NEW_FIELD_NOT_POINTER": {Description: "make Replicas a pointer: *int32", Edits: []finding.Edit{ins(38, 11, 1520, "*")},
			Suggestions: sg("\tReplicas *int32 `json:\"replicas\" protobuf:\"varint,6,opt,name=replicas\"`")},
		"NEW_FIELD_NO_OMITEMPTY": {Description: "add omitempty to the json tag of Replicas: `json:\"replicas,omitempty\"`", Edits: []finding.Edit{ins(38, 32, 1541, ",omitempty")},
			Suggestions: sg("\tReplicas int32 `json:\"replicas,omitempty\" protobuf:\"varint,6,opt,name=replicas\"`")},
	}
}

// suggestionBlocks returns the ```suggestion blocks of a report.
func suggestionBlocks(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)  ```suggestion\n(.*?)  ```\n").FindAllStringSubmatch(md, -1) {
		out = append(out, strings.ReplaceAll(m[1], "\n  ", "\n"))
	}
	return out
}

// One suggested change per line: the fixes of a new field's findings
// (four findings, three fixes of line 38) are one suggestion that makes
// the field optional, a pointer and omitempty at once.
func TestMarkdownSuggestionsCombined(t *testing.T) {
	r := prReport()
	fixes := replicasFixes("pkg/apis/core/v1beta1/types_shoot.go")
	for i := range r.Findings {
		if fx, ok := fixes[r.Findings[i].Rule]; ok {
			r.Findings[i].Fixes = []finding.Fix{fx}
		}
	}
	md := markdownWith(t, r, Options{LinkBase: testLinkBase})
	blocks := suggestionBlocks(md)
	want := "  \t// +optional\n\tReplicas *int32 `json:\"replicas,omitempty\" protobuf:\"varint,6,opt,name=replicas\"`\n"
	if len(blocks) != 1 || blocks[0] != want {
		t.Fatalf("suggestions %q, want one: %q\n%s", blocks, want, md)
	}
	line := "- Suggested change, `pkg/apis/core/v1beta1/types_shoot.go` line 38 (what `apicheck fix` writes; it applies all 3 fixes: " +
		"add `// +optional` to Replicas; make Replicas a pointer: \\*int32; add omitempty to the json tag of Replicas: `json:\"replicas,omitempty\"`):\n"
	if !strings.Contains(md, line) {
		t.Errorf("the suggestion does not say what it applies; want\n%s\nin\n%s", line, md)
	}
	if probs := gfmProblems(md, []string{testLinkBase + "/blob/", RulesDocURL + "#"}); len(probs) > 0 {
		t.Errorf("problems:\n%s", strings.Join(probs, "\n"))
	}

	// The same fix on several findings is one suggestion.
	r = prReport()
	for i := range r.Findings {
		if r.Findings[i].Field == "Replicas" && r.Findings[i].Version == "v1beta1" {
			r.Findings[i].Fixes = []finding.Fix{fixes["NEW_FIELD_NOT_POINTER"]}
		}
	}
	if blocks := suggestionBlocks(markdownWith(t, r, Options{})); len(blocks) != 1 || !strings.Contains(blocks[0], "Replicas *int32 `json:\"replicas\"") {
		t.Errorf("one fix on four findings: suggestions %q, want it once", blocks)
	}
}

// Fixes of the same lines that cannot be combined exactly (gofmt
// realigned what one of them changed) get no suggestion at all, rather
// than several that conflict: a line says that apicheck fix applies them.
func TestMarkdownSuggestionsNotCombined(t *testing.T) {
	const path = "pkg/apis/core/v1beta1/types_shoot.go"
	fixes := replicasFixes(path)
	realigned := fixes["NEW_FIELD_NOT_POINTER"]
	realigned.Suggestions = []finding.Suggestion{{Path: path, StartLine: 37, EndLine: 38,
		Text: "\tName     string `json:\"name\"`\n\tReplicas *int32 `json:\"replicas\" protobuf:\"varint,6,opt,name=replicas\"`"}}
	fixes["NEW_FIELD_NOT_POINTER"] = realigned
	r := prReport()
	for i := range r.Findings {
		if fx, ok := fixes[r.Findings[i].Rule]; ok {
			r.Findings[i].Fixes = []finding.Fix{fx}
		}
	}
	md := markdownWith(t, r, Options{})
	if blocks := suggestionBlocks(md); len(blocks) != 0 {
		t.Errorf("suggestions %q, want none", blocks)
	}
	if !strings.Contains(md, "- 3 fixes change `"+path+"` lines 37–38, and could not be combined into one suggested change here: "+
		"`apicheck fix` applies them together (add `// +optional` to Replicas; make Replicas a pointer: \\*int32; ") {
		t.Errorf("no line says why there is no suggestion:\n%s", md)
	}
}

// The profile note, hundreds of characters in a repository with many
// groups, is one line of the comment's head.
func TestMarkdownProfileLine(t *testing.T) {
	var groups []string
	for i := range 12 {
		groups = append(groups, fmt.Sprintf("pkg/apis/extensions/group%02d: kubernetes", i))
	}
	long := "profile gardener (detected; set profile in .apicheck.yaml to choose another); groups with their own profile: " +
		strings.Join(groups, ", ") + "; judged under base's profiles (.apicheck.yaml at base), not head's own (pkg/apis/core: kubernetes)"
	if len(long) < 600 {
		t.Fatalf("the note is %d characters", len(long))
	}
	for _, c := range []struct{ note, want string }{
		{long, "Profile: `gardener` (detected; 12 groups with profiles of their own; judged under base's profiles).\n"},
		{"profile gardener (detected; set profile in .apicheck.yaml to choose another)", "Profile: `gardener` (detected).\n"},
		{"profile kubernetes (configured); groups with their own profile: pkg/apis/x: gardener", "Profile: `kubernetes` (configured; 1 group with a profile of its own).\n"},
	} {
		r := mdManyFindings(2)
		r.Notes = []string{c.note}
		r.Finalize()
		md := markdownWith(t, r, Options{})
		head, _, _ := strings.Cut(md, "\n| Severity |")
		if !strings.Contains(head, c.want) {
			t.Errorf("the head lacks %q:\n%s", c.want, head)
		}
		if strings.Contains(md, "set profile in") || strings.Contains(md, "Notes (") {
			t.Errorf("the profile note is still a note:\n%s", md)
		}
	}
}

// A run whose base and head are one commit compared nothing: the
// heading says so (the job summary is this report), never "0 errors"
// alone, and so does the text report's first line.
func TestMarkdownSameCommit(t *testing.T) {
	for _, c := range []struct {
		head finding.Rev
		want string
	}{
		{finding.Rev{Ref: "HEAD", Commit: testBaseSHA}, "nothing to compare: base and head are the same commit 0123456789ab"},
		{finding.Rev{Ref: "WORKTREE", Commit: testBaseSHA},
			"comparing 0123456789ab with the working tree at that commit: only its uncommitted changes are checked"},
	} {
		r := &finding.Report{Base: finding.Rev{Ref: "HEAD", Commit: testBaseSHA}, Head: c.head}
		r.Finalize()
		md := markdownWith(t, r, Options{})
		if lines := strings.Split(md, "\n"); lines[1] != "### apicheck: "+c.want {
			t.Errorf("heading %q, want %q", lines[1], "### apicheck: "+c.want)
		}
		if !strings.Contains(md, "\n0 errors, 0 warnings, 0 infos.\n") {
			t.Errorf("the counts are missing:\n%s", md)
		}
		var text strings.Builder
		if err := Text(&text, r); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(text.String(), "\n"); first != "apicheck: "+c.want {
			t.Errorf("text report's first line %q, want %q", first, "apicheck: "+c.want)
		}
	}
	// Different commits, or no commit: nothing said.
	for _, r := range []*finding.Report{prReport(), {Base: finding.Rev{Ref: "main"}, Head: finding.Rev{Ref: "WORKTREE"}}} {
		if n := SameCommitNote(r); n != "" {
			t.Errorf("SameCommitNote(%v, %v) = %q", r.Base, r.Head, n)
		}
	}
}
