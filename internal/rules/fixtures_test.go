package rules_test

import (
	"flag"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/rulefixture"
)

// The rule fixtures: testdata/*.txtar, core and lifecycle rules alike. The
// format, the want-line grammar and the naming rules are documented in
// package rulefixture and in docs/contributing.md.
//
//	go test ./internal/rules -run Fixtures                  # all of them
//	go test ./internal/rules -run 'Fixtures/TYPE_REMOVED_fires$'
//	go test ./internal/rules -run Fixtures -update          # rewrite the want: sections

var update = flag.Bool("update", false, "rewrite the want: sections of testdata/*.txtar from the actual outcome")

// analyze runs the whole pipeline on a fixture repository, comparing the
// commits base and head, with the options of the case and a protobuf
// history cache of its own. It is the one place the harness calls the
// pipeline: when the pipeline's API changes, change this function and
// nothing else.
func analyze(t *testing.T, dir, base, head string, opts rulefixture.Options) *finding.Report {
	t.Helper()
	req := check.Request{
		Dir:           dir,
		Base:          base,
		Head:          head,
		TrustedConfig: opts.TrustedConfig,
		Lifecycle:     lifecycle.Options{TypeInfo: opts.TypeInfo, CacheDir: t.TempDir()},
	}
	run := check.Run
	if opts.Audit != "" {
		req.Base, req.History, run = "", opts.Audit == "history", check.Audit
	}
	// Every group its own part: a history with groups that nothing ties
	// is judged part by part, and must give the report of the whole.
	req.Stream, req.StreamFiles = true, 1
	res, err := run(req)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	defer res.Close()
	if res.Parts > 1 {
		req.Stream = false
		whole, err := run(req)
		if err != nil {
			t.Fatalf("check of the whole tree: %v", err)
		}
		defer whole.Close()
		if diff := cmp.Diff(whole.Report, res.Report); diff != "" {
			t.Errorf("judged in %d parts, the report differs from the whole tree's (-whole +parts):\n%s", res.Parts, diff)
		}
	}
	return res.Report
}

func catalogIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range catalog.All() {
		ids[r.ID] = true
	}
	return ids
}

func TestFixtures(t *testing.T) {
	cases, err := rulefixture.Glob("testdata")
	if err != nil {
		t.Fatal(err)
	}
	known := catalogIDs()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			fx := gitfixture.FromTxtarCommits(t, c.History())
			base, head := fx.Commits[rulefixture.BaseStep], fx.Commits[rulefixture.HeadStep]
			if base == "" || head == "" {
				t.Fatalf("%s: the history needs a %q and a %q step (has %v)", c.File, rulefixture.BaseStep, rulefixture.HeadStep, fx.Steps)
			}
			report := analyze(t, fx.Dir, base, head, c.Options)
			if *update {
				if err := c.Update(report); err != nil {
					t.Fatal(err)
				}
			}
			if diffs := c.Compare(report); len(diffs) > 0 {
				t.Errorf("%s: the outcome differs (- expected, + actual):\n%s\n"+
					"if the new outcome is right: go test ./internal/rules -run 'Fixtures/%s$' -update",
					c.File, strings.Join(diffs, "\n"), c.Name)
			}
			if err := c.CheckName(known); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestFixtureCoverage: every rule of the catalogue has a case that makes it
// fire and one that stays quiet, and every file named for a rule is about
// that rule.
func TestFixtureCoverage(t *testing.T) {
	cases, err := rulefixture.Glob("testdata")
	if err != nil {
		t.Fatal(err)
	}
	known := catalogIDs()
	has := map[string]bool{}
	for _, c := range cases {
		if err := c.CheckName(known); err != nil {
			t.Error(err)
			continue
		}
		has[c.Rule+"_"+c.Kind] = true
	}
	var missing []string
	for _, r := range catalog.All() {
		for _, kind := range []string{rulefixture.Fires, rulefixture.Quiet} {
			if !has[r.ID+"_"+kind] {
				missing = append(missing, "testdata/"+r.ID+"_"+kind+".txtar")
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d rule fixtures are missing (a fires and a quiet case per rule of the catalogue):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}
