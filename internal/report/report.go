// Package report renders a finding.Report in the output formats. Every
// format derives from the same report and prints findings in the order
// finding.Sort gave them.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
)

// Writer renders a report.
type Writer func(w io.Writer, r *finding.Report) error

// Formats maps format names to writers. Other packages (SARIF, Markdown,
// GitHub) register here through the same table.
var Formats = map[string]Writer{
	"text":     Text,
	"json":     JSON,
	"markdown": Markdown,
	"sarif":    SARIF,
	"github":   GitHub,
}

// FormatNames lists the known formats, sorted.
func FormatNames() []string {
	var out []string
	for k := range Formats {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// JSON writes the stable JSON report (rules.md "JSON report").
func JSON(w io.Writer, r *finding.Report) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// MaxTextFindings bounds the findings the text format prints; the
// machine formats (JSON, SARIF) always have all of them.
const MaxTextFindings = 500

// Text writes findings grouped by file, one "path:line:col: severity
// RULE message" line each with its hint below, then a summary line. It
// prints the first MaxTextFindings findings and says how many more there
// are.
func Text(w io.Writer, r *finding.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "apicheck: comparing %s with %s", revLabel(r.Base), revLabel(r.Head))
	if r.Base.Reason != "" {
		fmt.Fprintf(&b, " (no --base given: %s)", r.Base.Reason)
	}
	b.WriteString("\n")
	choice := r.Base.ChoiceNote()
	if u := r.Releases.Used(); u != "" {
		fmt.Fprintf(&b, "%s\n", u)
	}
	for _, n := range r.Notes {
		if n == choice {
			continue // said on the first line
		}
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	file := "\x00"
	shown := r.Findings
	if len(shown) > MaxTextFindings {
		shown = shown[:MaxTextFindings]
	}
	for _, f := range shown {
		if f.Path != file {
			file = f.Path
			fmt.Fprintf(&b, "\n%s\n", file)
		}
		sev := f.Severity.String()
		if f.Suppressed != "" {
			sev = "suppressed " + sev
		}
		fmt.Fprintf(&b, "  %s:%d:%d: %s %s %s\n", f.Path, f.Line, f.Column, sev, f.Rule, f.Message)
		if f.Hint != "" {
			for i, l := range strings.Split(f.Hint, "\n") {
				if i == 0 {
					fmt.Fprintf(&b, "      hint: %s\n", l)
				} else {
					fmt.Fprintf(&b, "            %s\n", l)
				}
			}
		}
		for _, rel := range f.Related {
			fmt.Fprintf(&b, "      see: %s\n", rel)
		}
		if f.Suppressed != "" {
			fmt.Fprintf(&b, "      suppressed: %s\n", f.Suppressed)
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n")
	}
	if more := len(r.Findings) - len(shown); more > 0 {
		fmt.Fprintf(&b, "... and %d more (the text format shows the first %d findings; --format json or sarif has all)\n\n", more, len(shown))
	}
	b.WriteString(SummaryLine(r) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryLine is e.g. "3 errors, 1 warning, 0 infos (2 suppressed)".
func SummaryLine(r *finding.Report) string {
	s := r.Summary
	line := fmt.Sprintf("%s, %s, %s", plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"))
	if s.Suppressed > 0 {
		line += fmt.Sprintf(" (%d suppressed)", s.Suppressed)
	}
	return line
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func revLabel(r finding.Rev) string {
	switch {
	case r.Commit == "":
		return r.Ref
	case r.Ref == r.Commit:
		return short(r.Commit)
	}
	return fmt.Sprintf("%s (%s)", r.Ref, short(r.Commit))
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
