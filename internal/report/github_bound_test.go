package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
)

// TestGitHubIsBounded: of more than MaxAnnotations unsuppressed findings
// the github format annotates MaxAnnotations, errors first, and says how
// many it left out; suppressed findings do not count, and the summary
// counts everything.
func TestGitHubIsBounded(t *testing.T) {
	r := &finding.Report{}
	add := func(n int, sev finding.Severity, suppressed string) {
		for range n {
			i := len(r.Findings)
			r.Findings = append(r.Findings, finding.Finding{Rule: "R", Severity: sev, Path: fmt.Sprintf("f%05d.go", i), Line: 1, Column: 1,
				Message: fmt.Sprintf("m%d", i), Suppressed: suppressed})
		}
	}
	add(MaxAnnotations, finding.Info, "") // first in report order
	add(10, finding.Warning, "")
	add(5, finding.Error, "")
	add(50, finding.Error, "accepted") // never annotated, never counted
	r.Finalize()
	var b strings.Builder
	if err := GitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	count := func(prefix string) int {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}
	if e, w, n := count("::error "), count("::warning "), count("::notice "); e != 5 || w != 10 || n != MaxAnnotations-15 {
		t.Errorf("annotated %d errors, %d warnings, %d notices; want 5, 10, %d", e, w, n, MaxAnnotations-15)
	}
	for _, want := range []string{
		fmt.Sprintf("apicheck note: 15 more findings are not annotated (the github format annotates %d, errors first; --format json or sarif has all)\n", MaxAnnotations),
		SummaryLine(r) + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	// At the limit, everything is annotated and nothing is said.
	r.Findings = r.Findings[:0]
	add(MaxAnnotations, finding.Info, "")
	r.Finalize()
	b.Reset()
	if err := GitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "::notice "); n != MaxAnnotations || strings.Contains(b.String(), "not annotated") {
		t.Errorf("%d annotations at the limit (want %d), or a note:\n%.300s", n, MaxAnnotations, b.String())
	}
}
