package check_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestInterruptedRunHasNoResult: a check or audit whose context is done
// while the rules run (a SIGINT, here a rule that cancels it) returns an
// error wrapping context.Canceled and no result, judged whole or in
// parts: the release history, usages and Shoot stages it did not finish
// reading are no notes and no changed findings of a report.
func TestInterruptedRunHasNoResult(t *testing.T) {
	groups := []group{
		{dir: "apis/a", name: "a.example.cloud", base: plainTypes, head: addedValue},
		{dir: "apis/b", name: "b.example.cloud", base: plainTypes, head: addedValue},
		{dir: "apis/c", name: "c.example.cloud", base: plainTypes, head: plainTypes},
	}
	fx := gitfixture.FromTxtarCommits(t, history(groups, "profile: crd\n", "profile: crd\n"))
	for _, tc := range []struct {
		name   string
		runner func(check.Request) (*check.Result, error)
		parts  bool
	}{
		{"check", check.Run, false},
		{"check in parts", check.Run, true},
		{"audit", check.Audit, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			interrupt := &rules.Rule{ID: "INTERRUPTS", Severity: finding.Error, Audit: true, Summary: "cancels the run",
				Check: func(*rules.Context) {
					calls++
					cancel()
				}}
			req := check.Request{Context: ctx, Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
				Rules: append(catalog.All(), interrupt), Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}}
			if tc.parts {
				req.Stream, req.StreamFiles = true, 1
			}
			res, err := tc.runner(req)
			if res != nil {
				res.Close()
			}
			if !errors.Is(err, context.Canceled) || res != nil {
				t.Fatalf("result %v, error %v; want no result and an error wrapping context.Canceled", res != nil, err)
			}
			if calls != 1 {
				t.Errorf("the rule ran %d times; want once (no part after the interruption)", calls)
			}
		})
	}
}
