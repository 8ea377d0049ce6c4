package rules_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/releasenote"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/rulefixture"
)

// The rule fixtures, core and lifecycle rules alike: one directory per
// rule, named for its ID, testdata/<RULE_ID>/<name>.txtar, a directory per
// topic for the few about no single rule, testdata/_<topic>/<name>.txtar,
// and the shared preludes in testdata/_prelude. The layout, the format,
// the want-line grammar and the naming rules are documented in package
// rulefixture and in docs/contributing.md.
//
//	go test ./internal/rules -run Fixtures                       # all of them
//	go test ./internal/rules -run 'Fixtures/TYPE_REMOVED/'       # one rule's
//	go test ./internal/rules -run 'Fixtures/TYPE_REMOVED/fires$' # one
//	go test ./internal/rules -run Fixtures -update               # rewrite the want: sections

var update = flag.Bool("update", false, "rewrite the want: sections of testdata/*/*.txtar from the actual outcome")

// analyze runs the whole pipeline on a fixture repository, comparing the
// commits base and head, with the options of the case, a protobuf
// history cache of its own, and a module cache holding modCache only. It
// is the one place the harness calls the pipeline: when the pipeline's
// API changes, change this function and nothing else.
func analyze(t *testing.T, dir, base, head string, modCache []txtar.File, opts rulefixture.Options, note *releasenote.Note) *finding.Report {
	t.Helper()
	req := check.Request{
		Dir:           dir,
		Base:          base,
		Head:          head,
		TrustedConfig: opts.TrustedConfig,
		Lifecycle:     lifecycle.Options{TypeInfo: opts.TypeInfo, CacheDir: t.TempDir()},
		ReleaseNote:   note,
		ModCache:      writeModCache(t, modCache),
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
	// Again, warm: the memos the first run wrote (the scanned commits,
	// the protobuf histories, the generated files, the fixes, the Shoot
	// stages) answer now, and must answer as the work they stand for.
	warm, err := run(req)
	if err != nil {
		t.Fatalf("check, warm: %v", err)
	}
	defer warm.Close()
	if diff := cmp.Diff(res.Report, warm.Report); diff != "" {
		t.Errorf("warm, the report differs from the first run's (-first +warm):\n%s", diff)
	}
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

// writeModCache writes files into a new module cache directory and
// returns it: read-only, as the go command leaves its module cache.
func writeModCache(t *testing.T, files []txtar.File) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !filepath.IsLocal(filepath.FromSlash(f.Name)) {
			t.Fatalf("module cache file %s: not a relative path inside the module cache", f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return dir
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
		// Layout errors and fixtures that do not parse; the others run.
		t.Error(err)
	}
	known := catalogIDs()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			history := txtar.Parse(c.History())
			worktree := slices.ContainsFunc(history.Files, func(f txtar.File) bool {
				return strings.HasPrefix(f.Name, gitfixture.WorktreeStep+"/")
			})
			var fx *gitfixture.Fixture
			if worktree {
				fx = gitfixture.FromTxtar(t, c.History())
			} else {
				fx = gitfixture.FromTxtarCommits(t, c.History())
			}
			base, head := fx.Commits[rulefixture.BaseStep], fx.Commits[rulefixture.HeadStep]
			if base == "" || head == "" {
				t.Fatalf("%s: the history needs a %q and a %q step (has %v)", c.File, rulefixture.BaseStep, rulefixture.HeadStep, fx.Steps)
			}
			if worktree {
				head = "" // the working tree
			}
			var note *releasenote.Note
			if p := c.Options.ReleaseNote; p != "" {
				i := slices.IndexFunc(history.Files, func(f txtar.File) bool { return f.Name == rulefixture.HeadStep+"/"+p })
				if i < 0 {
					t.Fatalf("%s: options: release-note=%s: the head step has no such file", c.File, p)
				}
				note = releasenote.Parse(string(history.Files[i].Data))
			}
			report := analyze(t, fx.Dir, base, head, c.ModCache(), c.Options, note)
			if *update {
				if err := c.Update(report); err != nil {
					t.Fatal(err)
				}
			}
			if diffs := c.Compare(report); len(diffs) > 0 {
				t.Errorf("%s: the outcome differs (- expected, + actual):\n%s\n"+
					"if the new outcome is right: go test ./internal/rules -run '%s' -update",
					c.File, strings.Join(diffs, "\n"), runPattern(c, cases))
			}
			if err := c.CheckName(known); err != nil {
				t.Error(err)
			}
		})
	}
}

// runPattern is the -run pattern that selects the case c and no other of
// cases: Fixtures/<DIR>/<name>$, anchored at both ends of each part if that
// alone would select others too.
func runPattern(c *rulefixture.Case, cases []*rulefixture.Case) string {
	dir, name, _ := strings.Cut(c.Name, "/")
	loose := "Fixtures/" + dir + "/" + name + "$"
	m := matcher(loose)
	for _, o := range cases {
		if o != c && m(o) {
			return "Fixtures/^" + dir + "$/^" + name + "$"
		}
	}
	return loose
}

// matcher says which cases go test -run pattern runs, as the testing
// package decides it: the pattern split at "/" (for these patterns, every
// "/"), part i matching the i-th element of TestFixtures/<DIR>/<name>
// anywhere in it.
func matcher(pattern string) func(*rulefixture.Case) bool {
	var parts []*regexp.Regexp
	for _, p := range strings.Split(pattern, "/") {
		parts = append(parts, regexp.MustCompile(p))
	}
	return func(c *rulefixture.Case) bool {
		elems := strings.Split("TestFixtures/"+c.Name, "/")
		for i, re := range parts {
			if i >= len(elems) || !re.MatchString(elems[i]) {
				return false
			}
		}
		return true
	}
}

// TestFixtureRunPattern: the command a failing case prints runs exactly
// that case.
func TestFixtureRunPattern(t *testing.T) {
	cases, err := rulefixture.Glob("testdata")
	if err != nil {
		t.Error(err)
	}
	for _, c := range cases {
		pattern := runPattern(c, cases)
		m := matcher(pattern)
		var runs []string
		for _, o := range cases {
			if m(o) {
				runs = append(runs, o.Name)
			}
		}
		if len(runs) != 1 || runs[0] != c.Name {
			t.Errorf("%s: -run '%s' runs %q", c.Name, pattern, runs)
		}
	}

	// Where the short pattern would run more, both parts are anchored.
	var made []*rulefixture.Case
	for _, name := range []string{"A_RULE/fires", "A_RULE/quiet_fires", "B_A_RULE/fires", "A_RULE/quiet"} {
		c, err := rulefixture.Parse(name, []byte("want:\n"))
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, c)
	}
	for i, want := range []string{"Fixtures/^A_RULE$/^fires$", "Fixtures/A_RULE/quiet_fires$", "Fixtures/B_A_RULE/fires$", "Fixtures/A_RULE/quiet$"} {
		if got := runPattern(made[i], made); got != want {
			t.Errorf("%s: runPattern = %s, want %s", made[i].Name, got, want)
		}
	}
}

// TestFixturePreludes: every prelude of testdata/_prelude is one that
// fixtures use.
func TestFixturePreludes(t *testing.T) {
	cases, err := rulefixture.Glob("testdata")
	if err != nil {
		t.Error(err)
	}
	used := map[string]int{}
	for _, c := range cases {
		for _, p := range c.Preludes {
			used[p]++
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", rulefixture.PreludeDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name, ok := strings.CutSuffix(filepath.Base(f), ".txtar")
		switch {
		case !ok:
			t.Errorf("%s: a prelude is a .txtar file", f)
		case used[name] == 0:
			t.Errorf("%s: no fixture names this prelude (prelude: %s)", f, name)
		}
	}
}

// TestFixtureCoverage: every rule of the catalogue has a case that makes it
// fire and one that stays quiet, every fixture directory in upper case is
// a rule of the catalogue, and every fires or quiet case says so of its
// rule. (That no fixture sits directly in testdata, and that every
// directory is a rule or a topic, Glob checks.)
func TestFixtureCoverage(t *testing.T) {
	cases, err := rulefixture.Glob("testdata")
	if err != nil {
		t.Error(err)
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
				missing = append(missing, "testdata/"+r.ID+"/"+kind+".txtar")
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d rule fixtures are missing (a fires and a quiet case per rule of the catalogue):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}
