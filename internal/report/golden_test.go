package report

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// update rewrites golden files and docs/rules.md instead of comparing:
//
//	go test ./internal/report -update
var update = flag.Bool("update", false, "rewrite golden files (and docs/rules.md) with the current output")

// goldenReport is a fixed report exercising what the writers must get
// right: several severities and files, a suppressed finding of each kind,
// a multi-line hint, positions without line or column, related positions,
// characters that need escaping in Markdown, workflow commands and URIs,
// and a rule outside the rule table.
func goldenReport() *finding.Report {
	r := &finding.Report{
		Tool: finding.Tool{Name: "apicheck", Version: "v1.2.3"},
		Base: finding.Rev{Ref: "origin/main", Commit: "0123456789abcdef0123456789abcdef01234567"},
		Head: finding.Rev{Ref: "WORKTREE"},
		Releases: &finding.Releases{NewestBeforeBase: &finding.Release{
			Tag: "v1.149.0", Commit: "89abcdef0123456789abcdef0123456789abcdef", Date: "2026-08-13"}},
		Notes: []string{
			"no release tag matches v<major>.<minor>.0; release-based rules skipped",
			"usages are approximate (syntax only)",
		},
		Findings: []finding.Finding{
			{
				Rule: "PROTO_NUMBER_CHANGED", Severity: finding.Error,
				Path: "pkg/apis/core/v1beta1/types_shoot.go", Line: 120, Column: 2,
				Package: "example.com/m/pkg/apis/core/v1beta1", Type: "ShootSpec", Field: "Purpose",
				APIPath: "Shoot.spec.purpose",
				Message: "protobuf number of ShootSpec.Purpose changed from 1 to 7 | wire break: *string <nil> & `tag`",
				Hint:    "restore protobuf:\"bytes,1,opt,name=purpose\"\nif 1 was never released, ignore with: +apicheck:ignore PROTO_NUMBER_CHANGED\n100% sure? then [ask](#) _first_",
			},
			{
				Rule: "OPTIONAL_WITHOUT_OMITEMPTY", Severity: finding.Warning,
				Path: "pkg/apis/core/v1beta1/types_shoot.go", Line: 131, Column: 2,
				Package: "example.com/m/pkg/apis/core/v1beta1", Type: "ShootSpec", Field: "Region",
				APIPath: "Shoot.spec.region",
				Message: "field ShootSpec.Region is +optional but its json tag \"region\" has no omitempty, 50% of clients: see a,b",
				Hint:    "add omitempty: `json:\"region,omitempty\"`",
			},
			{
				Rule: "FIELD_RENAMED", Severity: finding.Info,
				Path: "pkg/apis/odd dir,x/v1/types.go", Line: 0, Column: 0,
				Package: "example.com/m/pkg/apis/odd dir,x/v1", Type: "Spec", Field: "NewName",
				APIPath: "Thing.spec.name",
				Message: "Go field Spec.OldName was renamed to Spec.NewName\r\nwire is unchanged",
			},
			{
				Rule: "FIELD_REMOVED_WITHOUT_TOMBSTONE", Severity: finding.Error,
				Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 40, Column: 1,
				Package: "example.com/m/pkg/apis/core/v1beta1", Type: "SeedSpec", Field: "Backup",
				APIPath:    "Seed.spec.backup",
				Message:    "field SeedSpec.Backup (protobuf 4) was removed without a tombstone",
				Hint:       "add a tombstone for number 4",
				Suppressed: "config: removal agreed in #1234 | see .apicheck.yaml",
				Related: []finding.Related{
					{Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 52, Column: 2, Label: "base"},
					{Path: "cmd/app/main.go", Line: 10, Label: "usage at [base]"},
					{Label: "release v1.0.0: SeedSpec.Backup = 4"},
				},
			},
			{
				Rule: "TOMBSTONE_MALFORMED", Severity: finding.Warning,
				Path: "pkg/apis/core/v1beta1/types_seed.go", Line: 60, Column: 2,
				Package: "example.com/m/pkg/apis/core/v1beta1", Type: "SeedSpec", Field: "Old",
				APIPath:    "Seed.spec.old",
				Message:    "tombstone explanation names Olds, declaration names Old",
				Suppressed: "inline: +apicheck:ignore TOMBSTONE_MALFORMED legacy wording",
			},
			{
				Rule: "CUSTOM_CHECK", Severity: finding.Info,
				Path: "pkg/apis/core/v1/types.go", Line: 7, Column: 0,
				Package: "example.com/m/pkg/apis/core/v1",
				Message: "a finding of a rule the table does not list",
			},
		},
	}
	r.Finalize()
	return r
}

// goldenRules is a small hand-built rule table, so the SARIF golden file
// does not change whenever the catalogue does (TestSARIFCatalog covers
// the real table).
func goldenRules() []finding.RuleDoc {
	return []finding.RuleDoc{
		{
			ID: "PROTO_NUMBER_CHANGED", Category: string(rules.CatProtobuf), Severity: finding.Error,
			Summary: "An existing field's protobuf number changed.",
			Why:     "Stored objects and clients encode the field under the old number.",
			Fix:     "Restore the old number.",
			Before:  "Purpose *string `protobuf:\"bytes,1,opt,name=purpose\"`",
			After:   "Purpose *string `protobuf:\"bytes,1,opt,name=purpose\"`\n// tag ``` inside",
		},
		{
			ID: "OPTIONAL_WITHOUT_OMITEMPTY", Category: string(rules.CatNewFields), Severity: finding.Warning,
			Summary: "A `+optional` field has no omitempty.",
			Why:     "Unset optional fields are serialized as zero values.",
			Fix:     "Add omitempty.",
		},
		{
			ID: "FIELD_REMOVED_WITHOUT_TOMBSTONE", Category: string(rules.CatRemoval), Severity: finding.Error,
			Summary: "A field was removed without a tombstone.",
		},
		{
			ID: "FIELD_RENAMED", Category: string(rules.CatCompat), Severity: finding.Info,
			Summary: "A Go field was renamed.",
			Why:     "Go clients break, the wire does not.",
		},
		{
			ID: "TOMBSTONE_MALFORMED", Category: string(rules.CatRemoval), Severity: finding.Warning,
			Summary: "A tombstone does not follow the convention.",
		},
	}
}

// goldenWriters are the formats under golden test, by golden file name.
var goldenWriters = map[string]Writer{
	"report.txt":    Text,
	"report.json":   JSON,
	"report.md":     Markdown,
	"report.github": GitHub,
	"report.sarif": func(w io.Writer, r *finding.Report) error {
		return WriteSARIF(w, r, goldenRules())
	},
}

// checkGolden compares got with testdata/golden/name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./internal/report -update` to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run `go test ./internal/report -update` if the change is intended)\n%s",
			name, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first differing line of want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + a + "\ngot:  " + b
		}
	}
	return "(lengths differ)"
}

func TestGolden(t *testing.T) {
	for name, w := range goldenWriters {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := w(&a, goldenReport()); err != nil {
				t.Fatal(err)
			}
			if err := w(&b, goldenReport()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("%s output is not deterministic", name)
			}
			checkGolden(t, name, a.Bytes())
		})
	}
}

// TestFormatsRegistered makes sure every format is reachable by name.
func TestFormatsRegistered(t *testing.T) {
	want := []string{"github", "json", "markdown", "sarif", "text"}
	got := FormatNames()
	for _, n := range want {
		found := false
		for _, g := range got {
			found = found || g == n
		}
		if !found {
			t.Errorf("format %q is not registered in Formats (have %v)", n, got)
		}
	}
}
