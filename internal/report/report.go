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
	"github.com/apicheck/apicheck/internal/quote"
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
	_, err := w.Write(jsonSafe(buf.Bytes()))
	return err
}

// jsonSafe escapes, in encoded JSON, what encoding/json writes raw but a
// terminal or the GitHub Actions runner would act on when the report is
// printed: DEL and the C1 controls, and the '[' of "##[" (a workflow
// command anywhere in a line), each as a \u escape. (The encoder already
// escapes the other control characters and U+2028, U+2029.) They can
// only be inside strings, where the escape means the same.
func jsonSafe(b []byte) []byte {
	unsafe := func(i int) bool {
		switch c := b[i]; {
		case c == 0x7f:
			return true
		case c == 0xc2:
			return i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f
		case c == '#':
			return bytes.HasPrefix(b[i:], []byte("##["))
		}
		return false
	}
	i := 0
	for i < len(b) && !unsafe(i) {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+16), b[:i]...)
	for ; i < len(b); i++ {
		if !unsafe(i) {
			out = append(out, b[i])
			continue
		}
		switch b[i] {
		case 0x7f:
			out = append(out, `\u007f`...)
		case 0xc2:
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
		default:
			out = append(out, `##\u005b`...)
			i += 2
		}
	}
	return out
}

// MaxTextFindings bounds the findings the text format prints; the
// machine formats (JSON, SARIF) always have all of them.
const MaxTextFindings = 500

// Text writes findings grouped by file, one "path:line:col: severity
// RULE message" line each with its hint below, then a summary line. It
// prints the first MaxTextFindings findings and says how many more there
// are.
//
// Paths print as quote.Name has them, and every other text from the
// repository (messages, hints, notes, ref and tag names) escaped as by
// quote.Text: no line break, control character or workflow command
// comes from it, so the report reads the same in a terminal and in a
// GitHub Actions log.
func Text(w io.Writer, r *finding.Report) error {
	var b strings.Builder
	if n := SameCommitNote(r); n != "" {
		fmt.Fprintf(&b, "apicheck: %s", quote.Text(n))
	} else {
		fmt.Fprintf(&b, "apicheck: comparing %s with %s", quote.Text(revLabel(r.Base)), quote.Text(revLabel(r.Head)))
	}
	if r.Base.Reason != "" {
		fmt.Fprintf(&b, " (no --base given: %s)", quote.Text(r.Base.Reason))
	}
	b.WriteString("\n")
	choice := r.Base.ChoiceNote()
	if u := r.Releases.Used(); u != "" {
		fmt.Fprintf(&b, "%s\n", quote.Text(u))
	}
	for _, n := range r.Notes {
		if n == choice {
			continue // said on the first line
		}
		fmt.Fprintf(&b, "note: %s\n", quote.Text(n))
	}
	file := "\x00"
	shown := r.Findings
	if len(shown) > MaxTextFindings {
		shown = shown[:MaxTextFindings]
	}
	for _, f := range shown {
		path := quote.Name(f.Path)
		if f.Path != file {
			file = f.Path
			fmt.Fprintf(&b, "\n%s\n", path)
		}
		sev := f.Severity.String()
		if f.Suppressed != "" {
			sev = "suppressed " + sev
		}
		fmt.Fprintf(&b, "  %s:%d:%d: %s %s %s\n", path, f.Line, f.Column, sev, quote.Text(f.Rule), quote.Text(f.Message))
		if f.Hint != "" {
			for i, l := range strings.Split(f.Hint, "\n") {
				if i == 0 {
					fmt.Fprintf(&b, "      hint: %s\n", quote.Text(l))
				} else {
					fmt.Fprintf(&b, "            %s\n", quote.Text(l))
				}
			}
		}
		for _, rel := range f.Related {
			fmt.Fprintf(&b, "      see: %s\n", relatedText(rel))
		}
		if f.Suppressed != "" {
			fmt.Fprintf(&b, "      suppressed: %s\n", quote.Text(f.Suppressed))
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

// relatedText is a related position for the text format: its label
// escaped, its path as quote.Name has it.
func relatedText(rel finding.Related) string {
	rel.Path = quote.Name(rel.Path)
	return quote.Text(rel.String())
}

// worktreeRef is the head of a run that reads the working tree
// (git.WorktreeRef).
const worktreeRef = "WORKTREE"

// SameCommitNote says that base and head are one commit (or that head is
// the working tree at base's commit), "" when they
// are not: such a run compares nothing (with the working tree as head,
// nothing but its uncommitted changes), and every report says so first
// (the text report's first line, the Markdown report's heading, a notice
// of the github format) instead of passing with 0 errors.
func SameCommitNote(r *finding.Report) string {
	if r.Base.Commit == "" || r.Base.Commit != r.Head.Commit {
		return ""
	}
	if r.Head.Ref == worktreeRef {
		// A contributor's uncommitted changes, or (a clean checkout in
		// CI) nothing at all: say which comparison it was.
		return "comparing " + short(r.Base.Commit) + " with the working tree at that commit: only its uncommitted changes are checked"
	}
	return "nothing to compare: base and head are the same commit " + short(r.Base.Commit)
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
