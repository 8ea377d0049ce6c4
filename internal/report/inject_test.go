package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/apicheck/apicheck/internal/finding"
)

// workflowNames are names a pull request can give files, types, fields,
// keys and refs to forge lines of a GitHub Actions log: workflow
// commands after a line break (\n, \r, U+2028), at the start of a line,
// or in the legacy "##[" form anywhere; GitHub's %-escapes; Markdown
// table and code-span breakers; terminal escape sequences and other
// control characters.
var workflowNames = map[string]string{
	"newline":       "x\n::error file=README.md::spoofed",
	"carriage":      "x\r::error file=README.md::spoofed",
	"crlf":          "x\r\n::warning::spoofed",
	"start":         "::error file=README.md::spoofed",
	"indented":      " \u00a0::notice::spoofed",
	"stop":          "x\n::stop-commands::tok",
	"mask":          "x\n::add-mask::secret",
	"legacy":        "x ##[error]spoofed",
	"percent":       "100%0A::error::spoofed %25",
	"backticks":     "a`b``c```",
	"pipe":          "a|b\\|c",
	"ansi":          "\x1b[31mred\x1b[0m\x1b]0;title\x07",
	"del-c1":        "del\x7f csi\u009b31m",
	"separators":    "line\u2028para\u2029::error::spoofed",
	"everything":    "v1\n::error::a`|b%\r\x1b[2J##[warning]c",
	"plain-unicode": "pkg/apis/café/v1/types.go",
}

// injectionReport puts name everywhere a report carries text from the
// repository or the command line.
func injectionReport(name string) *finding.Report {
	r := &finding.Report{
		Tool:  finding.Tool{Name: "apicheck", Version: "v1.2.3"},
		Base:  finding.Rev{Ref: "main" + name, Commit: testBaseSHA, Reason: "because " + name},
		Head:  finding.Rev{Ref: "feature" + name, Commit: testHeadSHA},
		Notes: []string{"note " + name, name},
		Findings: []finding.Finding{
			{Rule: "NEW_FIELD_NOT_POINTER", Severity: finding.Error, Path: "pkg/apis/" + name + "/v1/types.go", Line: 3, Column: 2,
				Package: "example.com/m/pkg/apis/" + name + "/v1", Version: "v1", Type: "Spec" + name, Field: name,
				APIPath: "Thing.spec." + name,
				Message: "field " + name + " is new and not a pointer",
				Hint:    "make it a pointer: " + name + "\nField *string `json:\"" + name + "\"`",
				Related: []finding.Related{{Label: "base " + name, Path: name + ".go", Line: 1, Column: 1}, {Label: name}},
				Fixes: []finding.Fix{{Description: "fix " + name, Suggestions: []finding.Suggestion{
					{Path: name + ".go", StartLine: 3, EndLine: 3, Text: "\t" + name + " *string\n"}}}}},
			{Rule: "JSON_NAME_CHANGED", Severity: finding.Warning, Path: name, Line: 7, Package: "p", Type: name,
				Message: name, Hint: name},
			{Rule: "FIELD_RENAMED", Severity: finding.Info, Path: "z.go", Line: 9, Package: "p", Type: "T", Field: "F",
				Message: "suppressed " + name, Suppressed: "reason " + name},
			{Rule: "PROTO_TAG_MISSING", Severity: finding.Info, Path: name + "/types.go", Package: "q", APIPath: name,
				Message: "whole file " + name},
		},
	}
	r.Finalize()
	return r
}

// ownAnnotation is a workflow command of the github format's own.
var ownAnnotation = regexp.MustCompile(`^::(error|warning|notice) (file=[^,:]*(,line=\d+(,col=\d+)?)?,)?title=[A-Z_]+::`)

// TestNamesInjectNoWorkflowCommands feeds hostile names through every
// format: no line of the output starts with "::" (after white space)
// unless it is one of the github format's annotations, no line holds
// "##[", and no control character but the line feed (and the tab of
// indented code) is written raw.
func TestNamesInjectNoWorkflowCommands(t *testing.T) {
	writers := map[string]Writer{"markdown-links": MarkdownWith(Options{LinkBase: testLinkBase})}
	for name, w := range Formats {
		writers[name] = w
	}
	for cname, name := range workflowNames {
		r := injectionReport(name)
		for format, w := range writers {
			t.Run(cname+"/"+format, func(t *testing.T) {
				var buf bytes.Buffer
				if err := w(&buf, r); err != nil {
					t.Fatal(err)
				}
				out := buf.String()
				commands := 0
				for i, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
						if format != "github" || !ownAnnotation.MatchString(l) {
							t.Errorf("line %d reads as a workflow command: %q", i+1, l)
						}
						commands++
					}
					if strings.Contains(l, "##[") {
						t.Errorf("line %d holds a legacy workflow command: %q", i+1, l)
					}
					if j := strings.IndexFunc(l, func(r rune) bool {
						return r != '\t' && unicode.IsControl(r) || r == 0x2028 || r == 0x2029
					}); j >= 0 {
						t.Errorf("line %d holds the control character %q: %q", i+1, []rune(l[j:])[0], l)
					}
				}
				if want := map[string]int{"github": r.Summary.Errors + r.Summary.Warnings + r.Summary.Infos}[format]; commands != want {
					t.Errorf("%d workflow commands, want %d:\n%s", commands, want, out)
				}
				switch format {
				case "json", "sarif":
					if !json.Valid(buf.Bytes()) {
						t.Errorf("invalid JSON:\n%s", out)
					}
				case "markdown", "markdown-links":
					if probs := gfmProblems(out, []string{testLinkBase + "/blob/", RulesDocURL + "#"}); len(probs) > 0 {
						t.Errorf("Markdown problems:\n%s\n%s", strings.Join(probs, "\n"), out)
					}
				}
			})
		}
	}
}

// TestJSONKeepsHostileNames checks that the JSON and SARIF escapes
// change bytes, not values: the names decode as they were.
func TestJSONKeepsHostileNames(t *testing.T) {
	for cname, name := range workflowNames {
		var buf bytes.Buffer
		if err := JSON(&buf, injectionReport(name)); err != nil {
			t.Fatal(err)
		}
		var back finding.Report
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%s: %v", cname, err)
		}
		for _, f := range back.Findings {
			if f.Rule == "NEW_FIELD_NOT_POINTER" && f.Field != name {
				t.Errorf("%s: field decodes as %q, want %q", cname, f.Field, name)
			}
		}
		buf.Reset()
		if err := SARIF(&buf, injectionReport(name)); err != nil {
			t.Fatal(err)
		}
		var log any
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatalf("%s: SARIF: %v", cname, err)
		}
	}
}

func TestJSONSafe(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": "plain"}`:             `{"a": "plain"}`,
		"{\"a\": \"d\x7fel\"}":       `{"a": "d\u007fel"}`,
		"{\"a\": \"c\u0085\u009b\"}": `{"a": "c\u0085\u009b"}`,
		`{"a": "x ##[error]y"}`:      `{"a": "x ##\u005berror]y"}`,
		`{"a": "é ¡ # [ #[ ## ["}`:   `{"a": "é ¡ # [ #[ ## ["}`,
	} {
		if got := string(jsonSafe([]byte(in))); got != want {
			t.Errorf("jsonSafe(%q) = %q, want %q", in, got, want)
		}
		var v, w any
		if err := json.Unmarshal([]byte(want), &v); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(in), &w); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(v) != fmt.Sprint(w) {
			t.Errorf("jsonSafe(%q) changed the value: %v, want %v", in, v, w)
		}
	}
}

// Code is shown as it is or not at all: a suggestion that changed would
// commit something else.
func TestMarkdownFenceHidesWorkflowCommands(t *testing.T) {
	for code, hidden := range map[string]bool{
		"\tA *string `json:\"a\"`\n":         false,
		"\t// see a::b and #[x]\n":           false,
		"\tA string\n::error::x\n":           true,
		"\tA string\n\t  ::warning file=a::": true,
		"\t// ##[error]x\n":                  true,
	} {
		got := mdFenceLang(code, "suggestion", "  ")
		if strings.Contains(got, mdCodeHidden) != hidden {
			t.Errorf("mdFenceLang(%q) = %q; want hidden %v", code, got, hidden)
		}
	}
	if got := mdCode("x ##[error]y", inText); strings.Contains(got, "##[") {
		t.Errorf("mdCode = %q", got)
	}
}
