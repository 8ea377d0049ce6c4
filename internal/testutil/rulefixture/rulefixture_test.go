package rulefixture

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/finding"
)

func TestParseName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][2]string{
		"NEW_FIELD_NOT_POINTER/fires":                      {"NEW_FIELD_NOT_POINTER", Fires},
		"NEW_FIELD_NOT_POINTER/quiet":                      {"NEW_FIELD_NOT_POINTER", Quiet},
		"FIELD_REMOVED_STILL_USED/fires_no_tag":            {"FIELD_REMOVED_STILL_USED", Fires},
		"TYPE_REMOVED/quiet2":                              {"TYPE_REMOVED", Quiet},
		"TYPE_REMOVED/quiet-2":                             {"TYPE_REMOVED", Quiet},
		"V1/fires":                                         {"V1", Fires},
		"SHOOT_CANONICALIZE_TOO_EARLY/missing_stage_files": {"SHOOT_CANONICALIZE_TOO_EARLY", General},
		"TYPE_REMOVED/firestorm":                           {"TYPE_REMOVED", General},
		"TYPE_REMOVED/quietly":                             {"TYPE_REMOVED", General},
		"_engine/parts":                                    {"", General},
		"_profiles/detect-2":                               {"", General},
		"NEW_FIELD_NOT_POINTER_fires":                      {"", "error"},
		"shoot_missing_stage_files":                        {"", General},
		"Shoot_missing":                                    {"", "error"},
		"NEW_FIELD_NOT_POINTER":                            {"", "error"},
		"New_Field/fires":                                  {"", "error"},
		"TYPE_REMOVED/Fires":                               {"", "error"},
		"TYPE_REMOVED/fires/x":                             {"", "error"},
		"TYPE_REMOVED/_fires":                              {"", "error"},
		"engine/parts":                                     {"", "error"},
		"_Engine/parts":                                    {"", "error"},
		"_engine/fires":                                    {"", "error"},
		"_engine/quiet_x":                                  {"", "error"},
		"_prelude/gardener-shoot":                          {"", "error"},
	} {
		rule, kind, err := ParseName(name)
		if want[1] == "error" {
			if err == nil {
				t.Errorf("ParseName(%q) = %q, %q; want an error", name, rule, kind)
			}
			continue
		}
		if err != nil || rule != want[0] || kind != want[1] {
			t.Errorf("ParseName(%q) = %q, %q, %v; want %q, %q", name, rule, kind, err, want[0], want[1])
		}
	}
}

const sample = `# A comment.
options: typeinfo=off
want:
NEW_FIELD_NOT_POINTER error pkg/apis/core/v1/types.go:12:2 Spec.Replicas "Spec.Replicas is new and not a pointer"
# comments and blank lines are skipped

FIELD_REMOVED_STILL_USED  warning  pkg/apis/core/v1/types.go:3:1  Spec  ~"still \"uses\" it"
	related: "usage at base a.go:1:2"
	related: ~"b.go"
	suppressed: ~"reason"
UNCLASSIFIED_CHANGE info go.mod:1:1 - "tab\there"
note: ~"approximate"
note: "exact note"
-- base/go.mod --
module m
`

func TestParse(t *testing.T) {
	t.Parallel()
	c, err := Parse("NEW_FIELD_NOT_POINTER/fires", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != "NEW_FIELD_NOT_POINTER" || c.Rule != "NEW_FIELD_NOT_POINTER" || c.Kind != Fires || c.Options.TypeInfo != "off" || c.Preludes != nil {
		t.Errorf("case = %q %q %q %+v %q", c.Dir, c.Rule, c.Kind, c.Options, c.Preludes)
	}
	reason := Matcher{"reason", true}
	want := []Want{
		{Rule: "NEW_FIELD_NOT_POINTER", Severity: finding.Error, Path: "pkg/apis/core/v1/types.go", Line: 12, Col: 2,
			Subject: "Spec.Replicas", Message: Exact("Spec.Replicas is new and not a pointer"), Src: 4},
		{Rule: "FIELD_REMOVED_STILL_USED", Severity: finding.Warning, Path: "pkg/apis/core/v1/types.go", Line: 3, Col: 1,
			Subject: "Spec", Message: Matcher{`still "uses" it`, true}, Src: 7,
			Related: []Matcher{Exact("usage at base a.go:1:2"), {"b.go", true}}, Suppressed: &reason},
		{Rule: "UNCLASSIFIED_CHANGE", Severity: finding.Info, Path: "go.mod", Line: 1, Col: 1, Message: Exact("tab\there"), Src: 11},
	}
	if !reflect.DeepEqual(c.Want, want) {
		t.Errorf("Want =\n%+v\nwant\n%+v", c.Want, want)
	}
	if wantNotes := []Matcher{{"approximate", true}, Exact("exact note")}; !reflect.DeepEqual(c.Notes, wantNotes) {
		t.Errorf("Notes = %+v", c.Notes)
	}
	// String gives the lines back (normalized spacing).
	if got := c.Want[1].String(); got != "FIELD_REMOVED_STILL_USED warning pkg/apis/core/v1/types.go:3:1 Spec ~\"still \\\"uses\\\" it\"\n\trelated: \"usage at base a.go:1:2\"\n\trelated: ~\"b.go\"\n\tsuppressed: ~\"reason\"" {
		t.Errorf("String() = %s", got)
	}
	if got := c.Want[2].String(); got != `UNCLASSIFIED_CHANGE info go.mod:1:1 - "tab\there"` {
		t.Errorf("String() = %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ comment, err string }{
		{"no outcome\n", "1: no want: line"},
		{"options: fast=yes\nwant:\n", "1: options: unknown option"},
		{"options: typeinfo=maybe\nwant:\n", "1: options: typeinfo="},
		{"want:\nR error a.go:1:1 T\n", "2: finding line"},
		{"want:\nR fatal a.go:1:1 T \"m\"\n", `2: finding line "R fatal a.go:1:1 T \"m\"": severity "fatal"`},
		{"want:\nR warn a.go:1:1 T \"m\"\n", `severity "warn"`},
		{"want:\nR error a.go:1 T \"m\"\n", `position "a.go:1"`},
		{"want:\nR error a.go:1:1 T m\n", "want a quoted string"},
		{"want:\nR error a.go:1:1 T \"m\" trailing\n", "not a Go string literal"},
		{"want:\nR error a.go:1:1 T ~\"\"\n", "matches anything"},
		{"want:\n\trelated: \"x\"\n", "2: related: line does not follow a finding line"},
		{"want:\nnote: \"n\"\n\trelated: \"x\"\n", "3: related: line does not follow"},
		{"want:\nR error a.go:1:1 T \"m\"\n\tsuppressed: \"a\"\n\tsuppressed: \"b\"\n", "4: a second suppressed"},
		{"want:\nnote: x\n", "2: note: x: want a quoted string"},
		{"prelude:\nwant:\n", "1: the prelude: line names no prelude"},
		{"prelude: Gardener\nwant:\n", `1: prelude: "Gardener": want the name`},
		{"prelude: a/b\nwant:\n", `1: prelude: "a/b": want the name`},
		{"prelude: a b a\nwant:\n", "1: prelude: a named twice"},
		{"prelude: a\nprelude: b\nwant:\n", "2: a second prelude: line"},
	} {
		_, err := Parse("_engine/general", []byte(c.comment+"-- base/a --\n"))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Parse(%q) error = %v, want one containing %q", c.comment, err, c.err)
		}
	}
	for _, name := range []string{"Bad_Name", "TYPE_REMOVED_fires", "Bad/fires", "a/b/c"} {
		if _, err := Parse(name, []byte("want:\n")); err == nil || !strings.Contains(err.Error(), "1: fixture name") {
			t.Errorf("%s: error = %v", name, err)
		}
	}
}

func report() *finding.Report {
	return &finding.Report{
		Findings: []finding.Finding{
			{Rule: "A_RULE", Severity: finding.Error, Path: "x.go", Line: 3, Column: 2, Type: "T", Field: "F", Message: "first message",
				Related: []finding.Related{{Path: "y.go", Line: 1, Column: 1, Label: "usage at base"}}},
			{Rule: "B_RULE", Severity: finding.Warning, Path: "x.go", Line: 9, Column: 1, Type: "T", Message: "second message"},
			{Rule: "C_RULE", Severity: finding.Info, Path: "z.go", Line: 1, Column: 1, Message: "third", Suppressed: "because"},
		},
		Notes: []string{"note one (sha 1234)", "note two"},
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	ok := `want:
B_RULE warning x.go:9:1 T ~"second"
A_RULE error x.go:3:2 T.F "first message"
	related: ~"y.go:1:1"
C_RULE info z.go:1:1 - "third"
	suppressed: "because"
note: ~"note one"
note: "note two"
`
	c, err := Parse("_engine/general", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if diffs := c.Compare(report()); len(diffs) != 0 {
		t.Errorf("Compare = %q, want no differences", diffs)
	}

	bad := `want:
A_RULE error x.go:3:2 T.F "first message"
B_RULE error x.go:9:1 T ~"second"
C_RULE info z.go:1:1 - "third"
D_RULE info z.go:1:1 - ~"gone"
note: "note two"
note: "note three"
`
	c, err = Parse("_engine/general", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		// A_RULE lacks its related line, C_RULE its suppressed line; B_RULE has
		// another severity: none of them matches.
		"- A_RULE error x.go:3:2 T.F \"first message\" (line 2)",
		"- B_RULE error x.go:9:1 T ~\"second\" (line 3)",
		"- C_RULE info z.go:1:1 - \"third\" (line 4)",
		"- D_RULE info z.go:1:1 - ~\"gone\" (line 5)",
		"+ A_RULE error x.go:3:2 T.F \"first message\"\n  \trelated: \"usage at base y.go:1:1\"",
		"+ B_RULE warning x.go:9:1 T \"second message\"",
		"+ C_RULE info z.go:1:1 - \"third\"\n  \tsuppressed: \"because\"",
		"- note: \"note three\"",
		"+ note: \"note one (sha 1234)\"",
	}
	if got := c.Compare(report()); !reflect.DeepEqual(got, want) {
		t.Errorf("Compare =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "_engine")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "general.txtar")
	before := `# Intro stays.
options: typeinfo=off
want:
# this comment goes
B_RULE warning x.go:9:1 T ~"second"
A_RULE error x.go:3:2 T.F "stale message"
note: ~"note one"
-- base/a.go --
package a
-- head/a.go --
package a // changed
`
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Update(report()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	want := `# Intro stays.
options: typeinfo=off
want:
A_RULE error x.go:3:2 T.F "first message"
	related: "usage at base y.go:1:1"
B_RULE warning x.go:9:1 T ~"second"
C_RULE info z.go:1:1 - "third"
	suppressed: "because"
note: ~"note one"
note: "note two"
-- base/a.go --
package a
-- head/a.go --
package a // changed
`
	if string(got) != want {
		t.Errorf("updated file:\n%s\nwant:\n%s", got, want)
	}
	if diffs := c.Compare(report()); len(diffs) != 0 {
		t.Errorf("after Update, Compare = %q", diffs)
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	known := map[string]bool{"A_RULE": true, "B_RULE": true}
	for name, wantErr := range map[string]string{
		"A_RULE/fires":     "",
		"A_RULE/quiet":     "a quiet case of A_RULE that expects it",
		"B_RULE/fires_x":   "",
		"B_RULE/quiet":     "",
		"B_RULE/general":   "",
		"C_RULE/quiet":     "in the directory C_RULE, which is not a rule of the catalogue",
		"C_RULE/general":   "in the directory C_RULE, which is not a rule of the catalogue",
		"_engine/any_case": "",
	} {
		c, err := Parse(name, []byte("want:\nA_RULE error a.go:1:1 T \"m\"\nB_RULE error a.go:1:1 T \"m\"\n-- base/a --\n"))
		if err != nil {
			t.Fatal(err)
		}
		if name == "B_RULE/quiet" {
			c.Want = c.Want[:1]
		}
		err = c.CheckName(known)
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: CheckName = %v, want %q", name, err, wantErr)
		}
	}
	c, _ := Parse("B_RULE/fires", []byte("want:\nA_RULE error a.go:1:1 T \"m\"\n"))
	if err := c.CheckName(known); err == nil || !strings.Contains(err.Error(), "a fires case of B_RULE that does not expect it") {
		t.Errorf("fires without the rule: %v", err)
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	c, err := Parse("_engine/general", []byte(`want:
-- r1/pkg/apis/core/v1beta1/types.go --
package v1beta1

import "example.com/api/pkg/meta"
-- base/pkg/apis/core/v1/doc.go --
// +groupName=mine.example.cloud
package v1
-- head/pkg/apis/extra/v2alpha1/types.go --
package v2alpha1
`))
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(c.History())
	var names []string
	for _, f := range ar.Files {
		names = append(names, f.Name)
	}
	want := []string{"r1/go.mod", "r1/.apicheck.yaml", "r1/pkg/meta/meta.go", "r1/pkg/apis/core/v1beta1/doc.go", "r1/pkg/apis/extra/v2alpha1/doc.go",
		"r1/pkg/apis/core/v1beta1/types.go", "base/pkg/apis/core/v1/doc.go", "head/pkg/apis/extra/v2alpha1/types.go"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files = %q\nwant %q", names, want)
	}
	if got := string(ar.Files[1].Data); got != "profile: gardener\n" {
		t.Errorf(".apicheck.yaml = %q", got)
	}
	if got := string(ar.Files[4].Data); got != "// +groupName=extra.example.cloud\npackage v2alpha1\n" {
		t.Errorf("doc.go = %q", got)
	}

	// No prelude files a fixture brings itself; no meta package unless
	// imported; no configuration when the profile is left to detection.
	c, _ = Parse("_engine/general", []byte("options: profile=detect\nwant:\n-- base/go.mod --\nmodule other\n-- base/api/x.go --\npackage api\n"))
	if got := string(c.History()); got != "-- base/go.mod --\nmodule other\n-- base/api/x.go --\npackage api\n" {
		t.Errorf("History = %q", got)
	}
}

// Files under modcache/ are the module cache of the run, not a step of
// the history, wherever they stand in the archive; Update keeps them.
func TestModCache(t *testing.T) {
	t.Parallel()
	const archive = "options: profile=detect\nwant:\n" +
		"-- modcache/k8s.io/api@v0.33.3/core/v1/types.go --\npackage v1\n" +
		"-- base/go.mod --\nmodule other\n" +
		"-- modcache/k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go --\npackage v1\n"
	c, err := Parse("_engine/general", []byte(archive))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.History()); got != "-- base/go.mod --\nmodule other\n" {
		t.Errorf("History = %q", got)
	}
	var names []string
	for _, f := range c.ModCache() {
		names = append(names, f.Name+" "+string(f.Data))
	}
	want := []string{"k8s.io/api@v0.33.3/core/v1/types.go package v1\n", "k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go package v1\n"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("ModCache = %q\nwant %q", names, want)
	}
	dir := filepath.Join(t.TempDir(), "_engine")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.File = filepath.Join(dir, "general.txtar")
	if err := c.Update(&finding.Report{}); err != nil {
		t.Fatal(err)
	}
	if got := len(c.ModCache()); got != 2 {
		t.Errorf("after Update, %d module cache files, want 2", got)
	}
	if none, _ := Parse("_engine/general", []byte("want:\n-- base/go.mod --\nmodule other\n")); len(none.ModCache()) != 0 {
		t.Errorf("a case without modcache/ files has %d", len(none.ModCache()))
	}
}

func TestRelease(t *testing.T) {
	t.Parallel()
	named := &finding.Report{Releases: &finding.Releases{NewestBeforeBase: &finding.Release{Tag: "v1.2.0", Commit: "c", Date: "2024-01-01"}}}
	none := &finding.Report{}
	for _, c := range []struct {
		comment string
		r       *finding.Report
		want    []string
	}{
		{"want:\nrelease: \"release used: v1.2.0 (2024-01-01)\"\n", named, nil},
		{"want:\nrelease: ~\"v1.2.0\"\n", named, nil},
		{"want:\n", none, nil},
		// Without a release line the report must name none.
		{"want:\n", named, []string{`+ release: "release used: v1.2.0 (2024-01-01)"`}},
		{"want:\nrelease: ~\"v1.2.0\"\n", none, []string{`- release: ~"v1.2.0"`}},
		{"want:\nrelease: ~\"v1.3.0\"\n", named, []string{`- release: ~"v1.3.0"`, `+ release: "release used: v1.2.0 (2024-01-01)"`}},
	} {
		cs, err := Parse("_engine/general", []byte(c.comment))
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.Compare(c.r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: Compare = %q, want %q", c.comment, got, c.want)
		}
	}
	if _, err := Parse("_engine/general", []byte("want:\nrelease: \"a\"\nrelease: \"b\"\n")); err == nil || !strings.Contains(err.Error(), "3: a second release: line") {
		t.Errorf("two release lines: error = %v", err)
	}
	if _, err := Parse("_engine/general", []byte("want:\nrelease: v1\n")); err == nil || !strings.Contains(err.Error(), "2: release: v1: want a quoted string") {
		t.Errorf("unquoted release line: error = %v", err)
	}
	// Update writes the release line after the notes; a substring that
	// still matches stays.
	cs, _ := Parse("_engine/general", []byte("want:\nrelease: ~\"v1.2.0\"\n"))
	if got := cs.Outcome(named); got != "release: ~\"v1.2.0\"\n" {
		t.Errorf("Outcome = %q", got)
	}
	cs, _ = Parse("_engine/general", []byte("want:\n"))
	r := report()
	r.Releases = named.Releases
	if got, want := cs.Outcome(r), "note: \"note two\"\nrelease: \"release used: v1.2.0 (2024-01-01)\"\n"; !strings.HasSuffix(got, want) {
		t.Errorf("Outcome = %q, want it to end in %q", got, want)
	}
}

// writeTree writes files (path -> content) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"B_RULE/quiet.txtar":         "want:\n-- base/a --\n",
		"A_RULE/fires.txtar":         "want:\nA_RULE error a.go:1:1 T \"m\"\n-- base/a --\n",
		"A_RULE/fires_more.txtar":    "prelude: common\nwant:\nA_RULE error a.go:1:1 T \"m\"\n-- base/a --\n",
		"_engine/parts.txtar":        "want:\n-- base/a --\n",
		"_prelude/common.txtar":      "The common files.\n-- go.mod --\nmodule m\n",
		"_prelude/unused-here.txtar": "-- b --\nb\n",
	})
	cases, err := Glob(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.Name+" "+c.Rule+" "+c.Kind)
	}
	if want := []string{"A_RULE/fires A_RULE fires", "A_RULE/fires_more A_RULE fires", "B_RULE/quiet B_RULE quiet", "_engine/parts  "}; !reflect.DeepEqual(names, want) {
		t.Errorf("cases = %q, want %q", names, want)
	}
	if got := cases[1].Preludes; !reflect.DeepEqual(got, []string{"common"}) {
		t.Errorf("preludes = %q", got)
	}
	if cases[1].File != filepath.Join(dir, "A_RULE", "fires_more.txtar") {
		t.Errorf("file = %s", cases[1].File)
	}

	// What does not fit the layout fails the whole run, naming the file.
	for file, wantErr := range map[string]string{
		"A_RULE_fires.txtar":        "a fixture belongs in the directory of its rule",
		"notes.md":                  "not a fixture directory",
		"engine/x.txtar":            "a fixture directory is named for a rule ID",
		"A_RULE/old/x.txtar":        "a fixture directory holds only .txtar files",
		"A_RULE/notes.md":           "a fixture directory holds only .txtar files",
		"A_RULE/Fires.txtar":        "is not lower case",
		"_engine/fires.txtar":       "belongs in the directory of its rule",
		"A_RULE/broken.txtar":       "no want: line",
		"A_RULE/nothing.txtar":      "prelude nothing",
		"C_RULE/":                   "an empty fixture directory",
		"A_RULE/two_preludes.txtar": "preludes common and other both have go.mod",
	} {
		d := t.TempDir()
		writeTree(t, d, map[string]string{
			"A_RULE/fires.txtar":    "want:\n-- base/a --\n",
			"_prelude/common.txtar": "-- go.mod --\nmodule m\n",
			"_prelude/other.txtar":  "-- go.mod --\nmodule n\n",
		})
		switch {
		case strings.HasSuffix(file, "/"):
			if err := os.Mkdir(filepath.Join(d, file), 0o755); err != nil {
				t.Fatal(err)
			}
		case file == "A_RULE/broken.txtar":
			writeTree(t, d, map[string]string{file: "no outcome\n"})
		case file == "A_RULE/nothing.txtar":
			writeTree(t, d, map[string]string{file: "prelude: nothing\nwant:\n-- base/a --\n"})
		case file == "A_RULE/two_preludes.txtar":
			writeTree(t, d, map[string]string{file: "prelude: common other\nwant:\n-- base/a --\n"})
		default:
			writeTree(t, d, map[string]string{file: "want:\n-- base/a --\n"})
		}
		_, err := Glob(d)
		if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), filepath.Join(d, filepath.FromSlash(strings.TrimSuffix(strings.Split(file, "/")[0], "/")))) {
			t.Errorf("%s: Glob error = %v, want one naming it and containing %q", file, err, wantErr)
		}
	}
	if _, err := Glob(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no fixtures") {
		t.Errorf("empty testdata: Glob error = %v", err)
	}
}

func TestPrelude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"_prelude/gardener.txtar": `What every case about X starts with.
-- go.mod --
module example.com/g
-- pkg/apis/core/v1beta1/types_seed.go --
package v1beta1

import "example.com/api/pkg/meta"
-- versions.yaml --
prelude's
-- pkg/strategy.go --
prelude's
`,
		"_prelude/more.txtar": "-- more.txt --\nmore\n",
		"A_RULE/fires.txtar": `prelude: gardener more
want:
-- r1@v1.0.0/versions.yaml --
the fixture's
-- base/pkg/strategy.go --
the fixture's base
-- head/more.txt --
(deleted)
`,
	})
	c, err := Load(filepath.Join(dir, "A_RULE", "fires.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(c.History())
	var got []string
	for _, f := range ar.Files {
		got = append(got, f.Name+": "+strings.TrimSpace(string(f.Data)))
	}
	// The prelude's files join the first step, where the fixture has no
	// file of their own, and count for the built-in additions: its go.mod
	// replaces the default, its import brings pkg/meta, its version
	// directory a doc.go. Later steps change prelude files as any others.
	want := []string{
		"r1@v1.0.0/.apicheck.yaml: profile: gardener",
		"r1@v1.0.0/pkg/meta/meta.go: " + strings.TrimSpace("package meta\n\n// TypeMeta marks root kinds.\ntype TypeMeta struct {\n\tKind string `json:\"kind,omitempty\"`\n}"),
		"r1@v1.0.0/pkg/apis/core/v1beta1/doc.go: // +groupName=core.example.cloud\npackage v1beta1",
		"r1@v1.0.0/go.mod: module example.com/g",
		"r1@v1.0.0/pkg/apis/core/v1beta1/types_seed.go: package v1beta1\n\nimport \"example.com/api/pkg/meta\"",
		"r1@v1.0.0/pkg/strategy.go: prelude's",
		"r1@v1.0.0/more.txt: more",
		"r1@v1.0.0/versions.yaml: the fixture's",
		"base/pkg/strategy.go: the fixture's base",
		"head/more.txt: (deleted)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Update keeps the prelude line.
	if err := c.Update(&finding.Report{}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(c.File); !strings.HasPrefix(string(data), "prelude: gardener more\nwant:\n-- r1@v1.0.0/versions.yaml --\n") {
		t.Errorf("updated file:\n%s", data)
	}
	if !reflect.DeepEqual(c.Preludes, []string{"gardener", "more"}) || len(txtar.Parse(c.History()).Files) != len(want) {
		t.Errorf("after Update: preludes %q, history %s", c.Preludes, c.History())
	}

	// A case parsed from its content alone reads its preludes itself.
	p, err := Parse("A_RULE/fires", []byte("prelude: more\nwant:\n-- base/a --\na\n"))
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "names preludes (more) that were not read") {
				t.Errorf("History before ReadPreludes: recovered %v", r)
			}
		}()
		p.History()
	}()
	if err := p.ReadPreludes(filepath.Join(dir, PreludeDir)); err != nil {
		t.Fatal(err)
	}
	if got := string(p.History()); !strings.Contains(got, "-- base/more.txt --\nmore\n") {
		t.Errorf("History after ReadPreludes = %q", got)
	}
	if err := p.ReadPreludes(t.TempDir()); err == nil || !strings.Contains(err.Error(), "prelude more") {
		t.Errorf("ReadPreludes from a directory without it: %v", err)
	}
}

func TestReadPrelude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for content, wantErr := range map[string]string{
		"Nothing in it.\n":                      "no files",
		"-- a --\na\n-- a --\nb\n":              "has a twice",
		"-- base/ --\n":                         "want a clean path",
		"-- ./a --\na\n":                        "want a clean path",
		"-- ../a --\na\n":                       "want a clean path",
		"-- /a --\na\n":                         "want a clean path",
		"-- a --\n(deleted)\n":                  "a prelude deletes nothing",
		"A comment.\n-- a/b.go --\npackage b\n": "",
	} {
		file := filepath.Join(dir, "p.txtar")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := ReadPrelude(file)
		switch {
		case wantErr == "" && (err != nil || len(files) != 1 || files[0].Name != "a/b.go"):
			t.Errorf("%q: ReadPrelude = %v, %v", content, files, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%q: ReadPrelude error = %v, want one containing %q", content, err, wantErr)
		}
	}
}
