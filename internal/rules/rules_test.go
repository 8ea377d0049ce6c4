package rules_test

import (
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar from the actual findings")

// Each testdata/*.txtar is a before/after history: files under "base/" and
// "head/" (head overlays base). The archive comment holds the expected
// findings, one per line after "want:", as
//
//	RULE_ID path:line Type.Field
//
// and the test compares the COMPLETE list, so a quiet case also proves that
// nothing else fires. To keep fixtures short the harness adds to the base
// step a go.mod (module example.com/api) and a doc.go declaring
// +groupName for every version directory that has none.
//
// Naming: <RULE_ID>_fires*.txtar must expect that rule, <RULE_ID>_quiet*.txtar
// must not; every rule of the core catalogue needs both.

type wantLine struct {
	text string
}

var versionDirRe = regexp.MustCompile(`/v[0-9]+((alpha|beta)[0-9]+)?$`)

func loadCase(t *testing.T, file string) (*txtar.Archive, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	var want []string
	in := false
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		l = strings.TrimSpace(l)
		if l == "want:" {
			in = true
			continue
		}
		if in && l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if !in {
		t.Fatalf("%s: no want: section in the archive comment", file)
	}
	return ar, want
}

// withPrelude adds go.mod and doc.go files to the base step.
func withPrelude(ar *txtar.Archive) []byte {
	have := map[string]bool{}
	versionDirs := map[string]bool{}
	for _, f := range ar.Files {
		step, p, _ := strings.Cut(f.Name, "/")
		_ = step
		have[p] = true
		if d := path.Dir(p); versionDirRe.MatchString("/" + d) {
			versionDirs[d] = true
		}
	}
	var extra []txtar.File
	if !have["go.mod"] {
		extra = append(extra, txtar.File{Name: "base/go.mod", Data: []byte("module example.com/api\n\ngo 1.22\n")})
	}
	var dirs []string
	for d := range versionDirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if !have[d+"/doc.go"] {
			group := path.Base(path.Dir(d))
			extra = append(extra, txtar.File{
				Name: "base/" + d + "/doc.go",
				Data: []byte(fmt.Sprintf("// +groupName=%s.example.cloud\npackage %s\n", group, path.Base(d))),
			})
		}
	}
	out := &txtar.Archive{Files: append(extra, ar.Files...)}
	return txtar.Format(out)
}

func describe(fs []findingLine) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	sort.Strings(out)
	return out
}

type findingLine struct {
	rule, path string
	line       int
	subject    string
}

func (f findingLine) String() string {
	return fmt.Sprintf("%s %s:%d %s", f.rule, f.path, f.line, f.subject)
}

func TestRuleFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	fired := map[string]bool{}
	quietOK := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, want := loadCase(t, file)
			fx := gitfixture.FromTxtar(t, withPrelude(ar))
			head := fx.Commits["head"]
			if _, ok := fx.Commits["head"]; !ok {
				t.Fatalf("fixture has no head step")
			}
			res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: head})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			defer res.Close()
			var got []findingLine
			for _, f := range res.Report.Findings {
				subject := f.Type
				if f.Field != "" {
					subject += "." + f.Field
				}
				got = append(got, findingLine{f.Rule, f.Path, f.Line, subject})
			}
			gotLines := describe(got)
			wantSorted := append([]string(nil), want...)
			sort.Strings(wantSorted)
			if *update {
				rewriteWant(t, file, gotLines)
				return
			}
			if diff := cmp.Diff(wantSorted, gotLines); diff != "" {
				t.Errorf("findings differ (-want +got):\n%s\nfull report:\n%s", diff, dump(res))
			}
			rule, kind, _ := strings.Cut(name, "_fires")
			if kind != "" || strings.Contains(name, "_fires") {
				if !containsRule(gotLines, rule) {
					t.Errorf("%s is a firing case but %s did not fire", name, rule)
				}
				fired[rule] = true
			}
			if r, _, ok := strings.Cut(name, "_quiet"); ok {
				if containsRule(gotLines, r) {
					t.Errorf("%s is a quiet case but %s fired", name, r)
				}
				quietOK[r] = true
			}
		})
	}
	if *update {
		return
	}
	for _, r := range catalog.All() {
		if len(r.Requires) > 0 {
			continue // history fixtures live in internal/lifecycle/testdata
		}
		if !fired[r.ID] {
			t.Errorf("rule %s has no firing fixture (testdata/%s_fires*.txtar)", r.ID, r.ID)
		}
		if !quietOK[r.ID] {
			t.Errorf("rule %s has no quiet fixture (testdata/%s_quiet*.txtar)", r.ID, r.ID)
		}
	}
}

func containsRule(lines []string, rule string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, rule+" ") {
			return true
		}
	}
	return false
}

func dump(res *check.Result) string {
	var b strings.Builder
	for _, f := range res.Report.Findings {
		fmt.Fprintf(&b, "  %s %s:%d %s.%s: %s\n", f.Rule, f.Path, f.Line, f.Type, f.Field, f.Message)
	}
	return b.String()
}

func rewriteWant(t *testing.T, file string, got []string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	comment := string(ar.Comment)
	i := strings.Index(comment, "want:")
	comment = comment[:i] + "want:\n" + strings.Join(got, "\n")
	if len(got) > 0 {
		comment += "\n"
	}
	ar.Comment = []byte(comment)
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}
