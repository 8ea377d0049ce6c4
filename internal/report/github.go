package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/quote"
)

// MaxAnnotations bounds the workflow commands the github format writes;
// the machine formats (JSON, SARIF) always have every finding.
const MaxAnnotations = 500

// GitHubShownPerStep is how many annotations of each level (error,
// warning, notice) GitHub shows for one step of a job (and 50 for the
// whole job), in the order they were written; the others are in the
// step's log only.
const GitHubShownPerStep = 10

// GitHub writes GitHub Actions workflow commands: one annotation per
// field (or type, or API path) and line with unsuppressed findings,
//
//	::error file=PATH,line=N,col=N,title=RULE_ID::message
//
// (warning for warnings, notice for infos), the hint on the message's
// following lines. The findings of one field on one line are one
// annotation at their highest severity, titled with every rule ID and
// holding each rule's message and hint. Then come the run notes and the
// summary line as plain text. A run whose base and head are one commit
// starts with a notice saying that it compared nothing. Every text from
// the repository is escaped: in a command as GitHub's runner unescapes
// it (ghData, ghProperty), in a note as by quote.Text; so only
// apicheck's own annotations start a line with "::".
//
// Of more than MaxAnnotations annotations it writes MaxAnnotations,
// errors before warnings before infos (each in report order), and a line
// says how many findings are not annotated. GitHub shows only
// GitHubShownPerStep annotations of each level of a step: when a level
// has more, a line says how many are in the log only, and where all of
// them are.
func GitHub(w io.Writer, r *finding.Report) error {
	var b strings.Builder
	if n := SameCommitNote(r); n != "" {
		b.WriteString("::notice title=apicheck::" + ghData(n) + "\n")
	}
	groups := ghGroups(r.Findings)
	shown := annotated(groups)
	perLevel := map[string]int{}
	notAnnotated := 0
	for i, g := range groups {
		if !shown[i] {
			notAnnotated += len(g.findings)
			continue
		}
		f := g.findings[0]
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
		var ids []string
		for _, x := range g.findings {
			if !slices.Contains(ids, x.Rule) {
				ids = append(ids, x.Rule)
			}
		}
		props = append(props, "title="+ghProperty(strings.Join(ids, ", ")))
		var msg string
		if len(g.findings) == 1 {
			msg = f.Message
			if f.Hint != "" {
				msg += "\n" + f.Hint
			}
		} else {
			var parts []string
			for _, x := range g.findings {
				p := fmt.Sprintf("%s (%s): %s", x.Rule, x.Severity, x.Message)
				if x.Hint != "" {
					p += "\n  " + strings.ReplaceAll(newlines.Replace(x.Hint), "\n", "\n  ")
				}
				parts = append(parts, p)
			}
			msg = strings.Join(parts, "\n")
		}
		level := ghLevel(g.severity)
		perLevel[level]++
		fmt.Fprintf(&b, "::%s %s::%s\n", level, strings.Join(props, ","), ghData(msg))
	}
	for _, n := range r.Notes {
		// A line starting with "::" would be read as a command.
		b.WriteString("apicheck note: " + quote.Text(oneLine(n)) + "\n")
	}
	if notAnnotated > 0 {
		fmt.Fprintf(&b, "apicheck note: %d more findings are not annotated (the github format annotates %d, errors first; --format json or sarif has all)\n", notAnnotated, len(shown))
	}
	var hidden []string
	for _, level := range []string{"error", "warning", "notice"} {
		if n := perLevel[level]; n > GitHubShownPerStep {
			hidden = append(hidden, fmt.Sprintf("%d of %d %s annotations", n-GitHubShownPerStep, n, level))
		}
	}
	if len(hidden) > 0 {
		fmt.Fprintf(&b, "apicheck note: GitHub shows the first %d annotations of each level of a step, so %s are in this log only; "+
			"the Markdown report (the job summary) and the SARIF report have every finding\n", GitHubShownPerStep, strings.Join(hidden, " and "))
	}
	b.WriteString(SummaryLine(r) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ghGroup is the unsuppressed findings of one annotation, in report
// order, and their highest severity.
type ghGroup struct {
	findings []finding.Finding
	severity finding.Severity
}

// ghGroups groups the unsuppressed findings by path, line and what they
// are about (package, type and field, else the API path); a finding
// about neither, or without a path, is a group of its own.
func ghGroups(fs []finding.Finding) []*ghGroup {
	var out []*ghGroup
	byKey := map[string]*ghGroup{}
	for i, f := range fs {
		if f.Suppressed != "" {
			continue
		}
		k := "#" + strconv.Itoa(i)
		if f.Path != "" && (f.Type != "" || f.Field != "" || f.APIPath != "") {
			k = strings.Join([]string{f.Path, strconv.Itoa(f.Line), f.Package, f.Type, f.Field, f.APIPath}, "\x00")
		}
		g := byKey[k]
		if g == nil {
			g = &ghGroup{}
			byKey[k] = g
			out = append(out, g)
		}
		g.findings = append(g.findings, f)
		g.severity = max(g.severity, f.Severity)
	}
	return out
}

// annotated picks the groups (by index) the github format annotates:
// every one, or MaxAnnotations of them by severity.
func annotated(gs []*ghGroup) map[int]bool {
	out := map[int]bool{}
	for _, sev := range []finding.Severity{finding.Error, finding.Warning, finding.Info} {
		for i, g := range gs {
			if len(out) == MaxAnnotations {
				return out
			}
			if g.severity == sev || sev == finding.Info && g.severity != finding.Error && g.severity != finding.Warning {
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
