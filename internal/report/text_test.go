package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
)

// TestTextIsBounded: the text format prints the first MaxTextFindings
// findings and says how many more the machine formats have; the summary
// counts all of them.
func TestTextIsBounded(t *testing.T) {
	r := &finding.Report{Base: finding.Rev{Ref: "base"}, Head: finding.Rev{Ref: "head"}}
	for i := range MaxTextFindings + 7 {
		r.Findings = append(r.Findings, finding.Finding{Rule: "R", Severity: finding.Error, Path: "a.go", Line: i + 1, Column: 1, Message: fmt.Sprintf("m%d", i)})
	}
	r.Finalize()
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, " error R "); n != MaxTextFindings {
		t.Errorf("%d findings printed, want %d", n, MaxTextFindings)
	}
	for _, want := range []string{
		fmt.Sprintf("a.go:%d:1: error R m%d\n", MaxTextFindings, MaxTextFindings-1),
		fmt.Sprintf("... and 7 more (the text format shows the first %d findings; --format json or sarif has all)\n", MaxTextFindings),
		fmt.Sprintf("%d errors, 0 warnings, 0 infos\n", MaxTextFindings+7),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	var j strings.Builder
	if err := JSON(&j, r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(j.String(), `"rule": "R"`); n != MaxTextFindings+7 {
		t.Errorf("JSON has %d findings, want all %d", n, MaxTextFindings+7)
	}
}
