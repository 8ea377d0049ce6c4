package rules

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// TestInterruptedRunHasNoResult: a run whose context is done, before it
// starts or while a rule runs, returns an error wrapping the context's
// error and no result: the rules after the interruption do not run, and
// what the rules before it found is not reported as a complete run.
func TestInterruptedRunHasNoResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := map[string]bool{}
	rs := []*Rule{
		{ID: "FIRST", Severity: finding.Error, Check: func(c *Context) {
			ran["FIRST"] = true
			// What a SIGINT does to the run's context meanwhile.
			cancel()
			c.Note("judged half the change")
		}},
		{ID: "SECOND", Severity: finding.Error, Check: func(c *Context) { ran["SECOND"] = true }},
		{ID: "LAST", Severity: finding.Error, Last: true, Check: func(c *Context) { ran["LAST"] = true }},
	}
	res, err := Run(pairDiff(func(b, h *model.Field) {}), rs, Options{Context: ctx})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Run = %v, %v; want no result and an error wrapping context.Canceled", res, err)
	}
	if !ran["FIRST"] || ran["SECOND"] || ran["LAST"] {
		t.Errorf("rules run: %v; want FIRST only", ran)
	}

	clear(ran)
	res, err = Run(pairDiff(func(b, h *model.Field) {}), rs, Options{Context: ctx})
	if !errors.Is(err, context.Canceled) || res != nil || len(ran) != 0 {
		t.Errorf("with the context done before: Run = %v, %v, rules run %v; want no result, context.Canceled, no rule", res, err, ran)
	}
}

// TestInterruptedAnalysisIsNoSkip: an analysis that failed because the
// run was interrupted (its git process killed: an error wrapping
// context.Canceled or context.DeadlineExceeded) ends the run with that
// error, also without a context in the options. It is never a "skipped"
// note, and never a finding judged without the analysis (a relaxation
// not applied).
func TestInterruptedAnalysisIsNoSkip(t *testing.T) {
	killed := func(cause error) error { return fmt.Errorf("git log --format=%%H: %w", cause) }
	for name, check := range map[string]func(c *Context, err error){
		"skip": func(c *Context, err error) { c.skipErr("cannot scan usages at base: ", err) },
		"relaxation": func(c *Context, err error) {
			r := c.relaxTo(Report{Message: "a finding"}, finding.Info, func() (string, error) { return "", err })
			c.Note("judged with severity " + c.severityOf(r).String())
		},
	} {
		for _, cause := range []error{context.Canceled, context.DeadlineExceeded} {
			t.Run(name+"/"+cause.Error(), func(t *testing.T) {
				after := false
				rs := []*Rule{
					{ID: "READS_HISTORY", Severity: finding.Error, Check: func(c *Context) { check(c, killed(cause)) }},
					{ID: "AFTER", Severity: finding.Error, Check: func(c *Context) { after = true }},
				}
				res, err := Run(pairDiff(func(b, h *model.Field) {}), rs, Options{})
				if !errors.Is(err, cause) || res != nil {
					t.Fatalf("Run = %v, %v; want no result and an error wrapping %v", res, err, cause)
				}
				if after {
					t.Error("a rule ran after the interruption")
				}
			})
		}
	}

	// Any other failure of an analysis is still a note.
	rs := []*Rule{{ID: "READS_HISTORY", Severity: finding.Error, Check: func(c *Context) {
		c.skipErr("cannot scan usages at base: ", errors.New("git log: exit status 128"))
	}}}
	res, err := Run(pairDiff(func(b, h *model.Field) {}), rs, Options{Context: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	want := "READS_HISTORY skipped: cannot scan usages at base: git log: exit status 128"
	if len(res.Notes) != 1 || res.Notes[0] != want {
		t.Errorf("notes = %q, want [%q]", res.Notes, want)
	}
}
