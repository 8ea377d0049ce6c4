package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/quote"
)

// MaxAnnotations bounds the workflow commands the github format writes
// (GitHub shows only the first few of a step anyway); the machine formats
// (JSON, SARIF) always have every finding.
const MaxAnnotations = 500

// GitHub writes GitHub Actions workflow commands: one annotation per
// unsuppressed finding,
//
//	::error file=PATH,line=N,col=N,title=RULE_ID::message
//
// (warning for warnings, notice for infos), the hint on the message's
// following lines; then the run notes and the summary line as plain text.
// Every text from the repository is escaped: in a command as GitHub's
// runner unescapes it (ghData, ghProperty), in a note as by quote.Text;
// so only apicheck's own annotations start a line with "::".
//
// Of more than MaxAnnotations unsuppressed findings it annotates
// MaxAnnotations, errors before warnings before infos (each in report
// order), and a line says how many are not annotated.
func GitHub(w io.Writer, r *finding.Report) error {
	var b strings.Builder
	shown := annotated(r.Findings)
	for i, f := range r.Findings {
		if !shown[i] {
			continue
		}
		var props []string
		if f.Path != "" {
			props = append(props, "file="+ghProperty(f.Path))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
				if f.Column > 0 {
					props = append(props, fmt.Sprintf("col=%d", f.Column))
				}
			}
		}
		props = append(props, "title="+ghProperty(f.Rule))
		msg := f.Message
		if f.Hint != "" {
			msg += "\n" + f.Hint
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", ghLevel(f.Severity), strings.Join(props, ","), ghData(msg))
	}
	for _, n := range r.Notes {
		// A line starting with "::" would be read as a command.
		b.WriteString("apicheck note: " + quote.Text(oneLine(n)) + "\n")
	}
	active := 0
	for _, f := range r.Findings {
		if f.Suppressed == "" {
			active++
		}
	}
	if more := active - len(shown); more > 0 {
		fmt.Fprintf(&b, "apicheck note: %d more findings are not annotated (the github format annotates %d, errors first; --format json or sarif has all)\n", more, len(shown))
	}
	b.WriteString(SummaryLine(r) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// annotated picks the findings (by index) the github format annotates:
// every unsuppressed one, or MaxAnnotations of them by severity.
func annotated(fs []finding.Finding) map[int]bool {
	out := map[int]bool{}
	for _, sev := range []finding.Severity{finding.Error, finding.Warning, finding.Info} {
		for i, f := range fs {
			if len(out) == MaxAnnotations {
				return out
			}
			if f.Suppressed == "" && (f.Severity == sev || sev == finding.Info && f.Severity != finding.Error && f.Severity != finding.Warning) {
				out[i] = true
			}
		}
	}
	return out
}

func ghLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "notice"
}

// ghData escapes a workflow command's message as the runner unescapes
// it: "%", "\r" and "\n" %-encoded. Other characters that are not
// graphic (ESC, other controls, U+2028), for which GitHub has no
// encoding, are written as Go escapes ("\x1b"), and "##[" as "##\x5b"
// (quote.Escape).
var ghDataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

func ghData(s string) string { return ghDataEscaper.Replace(quote.Escape(s, "\r\n")) }

// ghProperty escapes a workflow command's property value: as ghData, and
// ":" and "," %-encoded too.
var ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func ghProperty(s string) string { return ghPropertyEscaper.Replace(quote.Escape(s, "\r\n")) }

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
