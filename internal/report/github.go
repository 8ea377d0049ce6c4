package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
)

// GitHub writes GitHub Actions workflow commands: one annotation per
// unsuppressed finding,
//
//	::error file=PATH,line=N,col=N,title=RULE_ID::message
//
// (warning for warnings, notice for infos), the hint on the message's
// following lines; then the run notes and the summary line as plain text.
func GitHub(w io.Writer, r *finding.Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		if f.Suppressed != "" {
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
		b.WriteString("apicheck note: " + oneLine(n) + "\n")
	}
	b.WriteString(SummaryLine(r) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
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

// ghData escapes a workflow command's message.
var ghDataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

func ghData(s string) string { return ghDataEscaper.Replace(s) }

// ghProperty escapes a workflow command's property value.
var ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func ghProperty(s string) string { return ghPropertyEscaper.Replace(s) }

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
