package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/report"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// reportsHistory adds a non-pointer, non-optional field (errors) and an
// inline-suppressed one, so reports have findings of several kinds.
const reportsHistory = `
-- base/go.mod --
module example.com/api

go 1.22

require github.com/gardener/gardener v1.149.0
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Shoot is a cluster.
type Shoot struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	// +optional
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`" + `
	// +optional
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
}
-- head/pkg/apis/core/v1beta1/types.go --
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Shoot is a cluster.
type Shoot struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	// +optional
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`" + `
	// +optional
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	// Replicas is new and required.
	Replicas int32 ` + "`json:\"replicas\" protobuf:\"varint,2,opt,name=replicas\"`" + `
	// Size is new.
	// +optional
	// +apicheck:ignore=NEW_FIELD_NOT_POINTER zero is defaulted
	Size int32 ` + "`json:\"size,omitempty\" protobuf:\"varint,3,opt,name=size\"`" + `
}
`

// dirFiles lists the names in dir, sorted.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestReportFlagWritesEveryFormat(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	out := t.TempDir()
	args := []string{"check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json"}
	files := map[string]string{}
	for _, format := range report.FormatNames() {
		p := filepath.Join(out, "apicheck."+format)
		files[format] = p
		args = append(args, "--report", format+"="+p)
	}
	code, stdout, stderr := run(t, args...)
	if code != ExitFindings {
		t.Fatalf("exit code %d, want %d\n%s", code, ExitFindings, stderr)
	}
	r := jsonReport(t, stdout)
	r.Rules = rules.Docs(catalog.All()) // not part of the JSON report
	if r.Summary.Errors == 0 || r.Summary.Suppressed == 0 {
		t.Fatalf("fixture should give errors and a suppressed finding: %+v", r.Summary)
	}
	// Exactly the requested files, no temporary files left.
	var want []string
	for _, p := range files {
		want = append(want, filepath.Base(p))
	}
	sort.Strings(want)
	if got := dirFiles(t, out); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
	// Every report file is what its writer makes of the same report.
	for format, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		opts, _ := reportOptions("", os.Getenv) // links, when run in GitHub Actions
		if w, _ := report.WriterFor(format, opts); w(&buf, r) != nil {
			t.Fatalf("rendering %s failed", format)
		}
		if format == "json" && string(data) != stdout {
			t.Errorf("--report json differs from --format json on stdout")
		}
		if string(data) != buf.String() {
			t.Errorf("--report %s: file differs from the %s rendering of the stdout report", format, format)
		}
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID       string `json:"ruleId"`
				Suppressions []struct {
					Kind string `json:"kind"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	data, _ := os.ReadFile(files["sarif"])
	if err := json.Unmarshal(data, &sarif); err != nil {
		t.Fatal(err)
	}
	if n := len(sarif.Runs[0].Results); n != len(r.Findings) {
		t.Errorf("SARIF has %d results for %d findings", n, len(r.Findings))
	}
	inSource := 0
	for _, res := range sarif.Runs[0].Results {
		for _, s := range res.Suppressions {
			if s.Kind == "inSource" {
				inSource++
			}
		}
	}
	if inSource != r.Summary.Suppressed {
		t.Errorf("%d inSource suppressions in SARIF, want %d", inSource, r.Summary.Suppressed)
	}
	md, _ := os.ReadFile(files["markdown"])
	if !strings.Contains(string(md), report.SummaryLine(r)) {
		t.Errorf("markdown lacks the summary line")
	}
}

func TestFormatsOnOutput(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	for _, format := range []string{"markdown", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"],
				"--format", format, "--output", p)
			if code != ExitFindings {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty with --output: %q", stdout)
			}
			data, err := os.ReadFile(p)
			if err != nil || len(data) == 0 {
				t.Fatalf("output file: %v, %d bytes", err, len(data))
			}
		})
	}
}

func TestReportSpecErrors(t *testing.T) {
	// The repository does not exist: a bad --report must be reported
	// before the check tries to open it.
	notRepo := filepath.Join(t.TempDir(), "no-repo")
	dir := t.TempDir()
	p := filepath.Join(dir, "a.sarif")
	for _, tc := range []struct {
		name  string
		args  []string
		inErr string
	}{
		{"no equals", []string{"--report", "sarif"}, "want FORMAT=PATH"},
		{"no format", []string{"--report", "=" + p}, "want FORMAT=PATH"},
		{"unknown format", []string{"--report", "pdf=" + p}, `format "pdf" is not one of`},
		{"empty path", []string{"--report", "sarif="}, "the path is empty"},
		{"blank path", []string{"--report", "sarif=  "}, "the path is empty"},
		{"stdout", []string{"--report", "sarif=-"}, "use --format sarif for standard output"},
		{"twice", []string{"--report", "sarif=" + p, "--report", "markdown=" + p}, "already written by --report sarif="},
		{"same as output", []string{"--output", p, "--report", "sarif=" + p}, "already written by --output"},
		{"valid then bad", []string{"--report", "markdown=" + filepath.Join(dir, "ok.md"), "--report", "nope=x"}, `format "nope"`},
		{"unwritable", []string{"--report", "markdown=" + filepath.Join(dir, "ok.md"), "--report", "sarif=" + filepath.Join(dir, "missing", "a.sarif")}, "cannot write --report sarif="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--repo", notRepo}, tc.args...)
			code, stdout, stderr := run(t, args...)
			if code != ExitUsage {
				t.Fatalf("exit code %d, want %d\nstderr: %s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.inErr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.inErr)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if got := dirFiles(t, dir); len(got) != 0 {
				t.Errorf("files left behind: %v", got)
			}
		})
	}
}

func TestReportFormatCaseAndSpaces(t *testing.T) {
	specs, err := parseReportSpecs([]string{" SARIF =a b.sarif", "Markdown=x.md"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(specs[0].format, "|", specs[0].path, "|", specs[1].format); got != "sarif|a b.sarif|markdown" {
		t.Errorf("parsed %s", got)
	}
	if specs, err := parseReportSpecs(nil, "x"); err != nil || specs != nil {
		t.Errorf("no specs: %v, %v", specs, err)
	}
}

func TestReportFilesAtomic(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.md"), filepath.Join(dir, "bad.sarif")
	if err := os.WriteFile(bad, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := planOutputs("text", "", []string{"markdown=" + good, "sarif=" + bad})
	if err != nil {
		t.Fatal(err)
	}
	// The second renderer fails half-way: nothing is written at all.
	p.reports[1].write = func(w io.Writer, _ *finding.Report) error {
		io.WriteString(w, `{"half":`)
		return errors.New("boom")
	}
	r := &finding.Report{}
	r.Finalize()
	var stdout strings.Builder
	if err := p.write(&stdout, r); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("write = %v, want the renderer's error", err)
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "bad.sarif" {
		t.Errorf("files after a failed render: %v (want only the untouched previous file)", got)
	}
	if data, _ := os.ReadFile(bad); string(data) != "previous\n" {
		t.Errorf("previous file changed: %q", data)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout got a partial report: %q", stdout.String())
	}

	// Success replaces the previous content whole.
	p, err = planOutputs("text", "", []string{"markdown=" + good, "sarif=" + bad})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.write(&stdout, r); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "bad.sarif good.md" {
		t.Errorf("files: %v", got)
	}
	if data, _ := os.ReadFile(bad); !strings.Contains(string(data), `"version": "2.1.0"`) {
		t.Errorf("sarif report not written: %q", data)
	}
	if !strings.Contains(stdout.String(), "0 errors") {
		t.Errorf("stdout = %q", stdout.String())
	}
}

// Report files are created rw-r--r-- at most (0644 minus the umask), and
// a report that cannot be put in place is an error naming the flag and
// the destination, never the temporary file apicheck wrote first.
func TestReportFileModeAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "apicheck.md")
	taken := filepath.Join(dir, "taken.sarif")
	if err := os.MkdirAll(filepath.Join(taken, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &finding.Report{}
	r.Finalize()
	p, err := planOutputs("text", "", []string{"markdown=" + good})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.write(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(good)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&^0o644 != 0 {
		t.Errorf("report mode %v, want at most 0644", perm)
	}

	p, err = planOutputs("text", "", []string{"sarif=" + taken})
	if err != nil {
		t.Fatal(err)
	}
	err = p.write(io.Discard, r)
	if err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "--report sarif="+taken) || strings.Contains(msg, ".tmp-") {
		t.Errorf("error %q: want the flag and destination, no temporary file name", msg)
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "apicheck.md taken.sarif" {
		t.Errorf("files: %v", got)
	}
}
