package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
)

// RulesDocUpdateCommand regenerates docs/rules.md.
const RulesDocUpdateCommand = "go test ./internal/report -run TestRulesDoc -update"

// RulesMarkdown renders the rule catalogue as docs/rules.md: an index
// table, then one section per category (in order of first appearance)
// with every rule's summary, rationale, fix and examples. Rule headings
// are "### `RULE_ID`", so GitHub's anchor for a rule is its lower-cased
// ID (the SARIF helpUri points there).
func RulesMarkdown(rs []finding.RuleDoc) string {
	var b strings.Builder
	b.WriteString("<!-- Code generated from the rule catalogue (catalog.All()); DO NOT EDIT.\n")
	b.WriteString("     Regenerate with: " + RulesDocUpdateCommand + " -->\n\n")
	b.WriteString("# apicheck rules\n\n")
	fmt.Fprintf(&b, "apicheck has %d rules. Their IDs are stable: they appear in every report, in SARIF `ruleId`, "+
		"in configuration and in suppressions. Severities are defaults; configuration can override them per rule "+
		"or per API group profile. `apicheck rules` prints the same catalogue.\n\n", len(rs))

	var cats []string
	byCat := map[string][]finding.RuleDoc{}
	titles := map[string]string{}
	for _, r := range rs {
		if _, ok := byCat[r.Category]; !ok {
			cats = append(cats, r.Category)
		}
		byCat[r.Category] = append(byCat[r.Category], r)
		titles[r.Category] = r.CategoryTitle
	}

	b.WriteString("| Rule | Category | Severity | Summary |\n| --- | --- | --- | --- |\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Category, r.Severity,
			tableText(r.Summary))
	}
	for _, c := range cats {
		title := titles[c]
		if title == "" {
			title = c
		}
		fmt.Fprintf(&b, "\n## %s\n", title)
		for _, r := range byCat[c] {
			fmt.Fprintf(&b, "\n### `%s`\n\n", r.ID)
			fmt.Fprintf(&b, "Category: `%s` · default severity: **%s**\n\n", r.Category, r.Severity)
			if r.Summary != "" {
				b.WriteString(r.Summary + "\n\n")
			}
			if help := ruleHelpMarkdown(r); help != "" {
				b.WriteString(help + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// tableText keeps Markdown text on one table-cell line.
func tableText(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
}

// RulesText writes the rule catalogue for a terminal.
func RulesText(w io.Writer, rs []finding.RuleDoc) error {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s (%s, %s)\n", r.ID, r.Category, r.Severity)
		writeLabelled(&b, "", r.Summary)
		writeLabelled(&b, "why: ", r.Why)
		writeLabelled(&b, "fix: ", r.Fix)
		writeLabelled(&b, "before: ", r.Before)
		writeLabelled(&b, "after: ", r.After)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLabelled writes "  label text", continuation lines aligned.
func writeLabelled(b *strings.Builder, label, text string) {
	if text == "" {
		return
	}
	pad := strings.Repeat(" ", len(label))
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == 0 {
			fmt.Fprintf(b, "  %s%s\n", label, l)
		} else {
			fmt.Fprintf(b, "  %s%s\n", pad, l)
		}
	}
}

// RuleInfo is one rule as `apicheck rules --format json` prints it.
type RuleInfo struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Category string           `json:"category"`
	Severity finding.Severity `json:"severity"`
	Summary  string           `json:"summary"`
	Why      string           `json:"why,omitempty"`
	Fix      string           `json:"fix,omitempty"`
	Before   string           `json:"before,omitempty"`
	After    string           `json:"after,omitempty"`
}

// RulesJSON writes the rule catalogue as a JSON array (never null).
func RulesJSON(w io.Writer, rs []finding.RuleDoc) error {
	out := make([]RuleInfo, 0, len(rs))
	for _, r := range rs {
		out = append(out, RuleInfo{
			ID: r.ID, Name: RuleName(r.ID), Category: r.Category, Severity: r.Severity,
			Summary: r.Summary, Why: r.Why, Fix: r.Fix, Before: r.Before, After: r.After,
		})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
