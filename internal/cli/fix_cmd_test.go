package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

const fixTypes = "pkg/apis/core/v1beta1/types.go"

// apicheck fix end to end: a dry run shows the diff and writes nothing,
// the run fixes, check then has no finding of the fixed rules, and a
// second run has nothing to do.
func TestFixCommand(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	file := filepath.Join(f.Dir, filepath.FromSlash(fixTypes))
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base := f.Commits["base"]

	code, stdout, stderr := run(t, "fix", "--repo", f.Dir, "--base", base, "--dry-run")
	if code != ExitOK {
		t.Fatalf("fix --dry-run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"--- a/" + fixTypes + "\n+++ b/" + fixTypes + "\n", "+\t// +optional\n",
		"-\tReplicas int32 `json:\"replicas\" protobuf:\"varint,2,opt,name=replicas\"`\n",
		"+\tReplicas *int32 `json:\"replicas,omitempty\" protobuf:\"varint,2,opt,name=replicas\"`\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry-run diff lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "would fix "+fixTypes+": NEW_FIELD_NOT_POINTER ShootSpec.Replicas: make Replicas a pointer: *int32") ||
		!strings.Contains(stderr, "3 fixes would change 1 file (dry run: nothing written); 0 left unfixed") {
		t.Errorf("dry-run messages:\n%s", stderr)
	}
	if now, _ := os.ReadFile(file); string(now) != string(orig) {
		t.Fatal("--dry-run wrote the file")
	}

	code, stdout, stderr = run(t, "fix", "--repo", f.Dir, "--base", base)
	if code != ExitOK || stdout != "" {
		t.Fatalf("fix: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "apicheck fix: 3 fixes applied, 1 file changed; 0 left unfixed") {
		t.Errorf("fix messages:\n%s", stderr)
	}

	code, stdout, stderr = run(t, "check", "--repo", f.Dir, "--base", base, "--format", "json")
	if code != ExitOK {
		t.Errorf("check after fix: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, fd := range jsonReport(t, stdout).Findings {
		if strings.HasPrefix(fd.Rule, "NEW_FIELD_") && fd.Suppressed == "" {
			t.Errorf("still reported after fix: %s %s", fd.Rule, fd.Message)
		}
	}

	fixed, _ := os.ReadFile(file)
	code, _, stderr = run(t, "fix", "--repo", f.Dir, "--base", base)
	if code != ExitOK || !strings.Contains(stderr, "0 fixes applied, 0 files changed; 0 left unfixed") {
		t.Errorf("second fix: exit %d\n%s", code, stderr)
	}
	if now, _ := os.ReadFile(file); string(now) != string(fixed) {
		t.Error("the second run changed the file")
	}
}

// A file with uncommitted changes is refused, named with the reason, and
// fix exits 1; --force fixes it.
func TestFixCommandRefusesDirtyFile(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	file := filepath.Join(f.Dir, filepath.FromSlash(fixTypes))
	orig, _ := os.ReadFile(file)
	dirty := strings.Replace(string(orig), "// ShootSpec is the spec.", "// ShootSpec is the specification.", 1)
	if err := os.WriteFile(file, []byte(dirty), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "fix", "--repo", f.Dir, "--base", f.Commits["base"])
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	want := "not fixed: " + fixTypes + ": NEW_FIELD_NOT_POINTER ShootSpec.Replicas not fixed: the file has uncommitted changes (it differs from HEAD); " +
		"commit or stash your changes and run apicheck fix again, or pass --force"
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "0 fixes applied, 0 files changed; 3 left unfixed") {
		t.Errorf("stderr:\n%s\nwant %q", stderr, want)
	}
	if now, _ := os.ReadFile(file); string(now) != dirty {
		t.Error("a refused file was written")
	}
	code, _, stderr = run(t, "fix", "--repo", f.Dir, "--base", f.Commits["base"], "--force")
	if code != ExitOK {
		t.Fatalf("--force: exit %d\n%s", code, stderr)
	}
	now, _ := os.ReadFile(file)
	if !strings.Contains(string(now), "// ShootSpec is the specification.") || !strings.Contains(string(now), "Replicas *int32") {
		t.Errorf("--force result:\n%s", now)
	}
}

// check --fix writes the report of the check (with the fixes in SARIF)
// and then fixes; its exit code is the check's.
func TestCheckFix(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--format", "sarif", "--fix")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID     string                 `json:"ruleId"`
				Properties struct{ Field string } `json:"properties"`
				Fixes      []struct {
					Description     struct{ Text string } `json:"description"`
					ArtifactChanges []struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Replacements     []struct {
							DeletedRegion   struct{ StartLine, StartColumn, EndLine, EndColumn int } `json:"deletedRegion"`
							InsertedContent struct{ Text string }                                    `json:"insertedContent"`
						} `json:"replacements"`
					} `json:"artifactChanges"`
				} `json:"fixes"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &sarif); err != nil {
		t.Fatalf("SARIF: %v\n%s", err, stdout)
	}
	found := false
	for _, r := range sarif.Runs[0].Results {
		if r.RuleID != "NEW_FIELD_NOT_POINTER" || r.Properties.Field != "Replicas" {
			if len(r.Fixes) > 0 && r.Properties.Field == "Size" {
				t.Errorf("the suppressed finding has fixes: %+v", r.Fixes)
			}
			continue
		}
		found = true
		if len(r.Fixes) != 1 || r.Fixes[0].Description.Text != "make Replicas a pointer: *int32" {
			t.Fatalf("fixes %+v", r.Fixes)
		}
		ch := r.Fixes[0].ArtifactChanges
		if len(ch) != 1 || ch[0].ArtifactLocation.URI != fixTypes || len(ch[0].Replacements) != 1 {
			t.Fatalf("artifactChanges %+v", ch)
		}
		rep := ch[0].Replacements[0]
		if rep.InsertedContent.Text != "*" || rep.DeletedRegion.StartLine == 0 ||
			rep.DeletedRegion.StartLine != rep.DeletedRegion.EndLine || rep.DeletedRegion.StartColumn != rep.DeletedRegion.EndColumn {
			t.Errorf("replacement %+v", rep)
		}
	}
	if !found {
		t.Fatal("no NEW_FIELD_NOT_POINTER result")
	}
	if !strings.Contains(stderr, "apicheck fix: 3 fixes applied, 1 file changed; 0 left unfixed") {
		t.Errorf("stderr:\n%s", stderr)
	}
	now, _ := os.ReadFile(filepath.Join(f.Dir, filepath.FromSlash(fixTypes)))
	if !strings.Contains(string(now), "Replicas *int32 `json:\"replicas,omitempty\"") {
		t.Errorf("not fixed:\n%s", now)
	}
}

func TestFixHelpDocumentsExitCodes(t *testing.T) {
	code, stdout, _ := run(t, "fix", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Exit codes: 0 ", "1 something was left unfixed", "--dry-run", "--force", "NEW_FIELD_NOT_POINTER"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

// A bare repository has no working tree to fix: a usage error, even when
// the check itself (two commits) works.
func TestFixBareRepository(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	bare := filepath.Join(t.TempDir(), "bare.git")
	f.Git("clone", "-q", "--bare", f.Dir, bare)
	code, _, stderr := run(t, "fix", "--repo", bare, "--base", f.Commits["base"], "--head", f.Commits["head"])
	if code != ExitUsage || !strings.Contains(stderr, "is a bare repository: there is no working tree to fix") {
		t.Errorf("exit %d, want %d\n%s", code, ExitUsage, stderr)
	}
}
