package cli

import (
	"encoding/json"
	"fmt"
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

// The contributor loop: the types file just edited (a reworded comment
// and a new value field, neither committed) is fixed as it is, without
// any flag. The dry run shows the diff and writes nothing; the fix keeps
// the user's own changes, leaves the index alone, and the check after it
// no longer reports the new field.
func TestFixCommandFixesUncommittedEdits(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	file := filepath.Join(f.Dir, filepath.FromSlash(fixTypes))
	orig, _ := os.ReadFile(file)
	edited := strings.Replace(string(orig), "// ShootSpec is the spec.", "// ShootSpec is the specification.", 1)
	edited = strings.Replace(edited, "\t// Size is new.\n",
		"\t// MaxNodes bounds the nodes.\n\tMaxNodes int32 `json:\"maxNodes\" protobuf:\"varint,4,opt,name=maxNodes\"`\n\t// Size is new.\n", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	base := f.Commits["base"]

	code, stdout, stderr := run(t, "fix", "--repo", f.Dir, "--base", base, "--dry-run")
	if code != ExitOK {
		t.Fatalf("fix --dry-run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"--- a/" + fixTypes + "\n+++ b/" + fixTypes + "\n",
		"-\tMaxNodes int32 `json:\"maxNodes\" protobuf:\"varint,4,opt,name=maxNodes\"`\n",
		"+\tMaxNodes *int32 `json:\"maxNodes,omitempty\" protobuf:\"varint,4,opt,name=maxNodes\"`\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry-run diff lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "6 fixes would change 1 file (dry run: nothing written); 0 left unfixed") {
		t.Errorf("dry-run messages:\n%s", stderr)
	}
	if now, _ := os.ReadFile(file); string(now) != edited {
		t.Fatal("--dry-run wrote the file")
	}

	code, _, stderr = run(t, "fix", "--repo", f.Dir, "--base", base)
	if code != ExitOK || !strings.Contains(stderr, "apicheck fix: 6 fixes applied, 1 file changed; 0 left unfixed") {
		t.Fatalf("fix: exit %d\n%s", code, stderr)
	}
	now, _ := os.ReadFile(file)
	for _, want := range []string{"// ShootSpec is the specification.", "\t// +optional\n\tMaxNodes *int32 `json:\"maxNodes,omitempty\"", "Replicas *int32"} {
		if !strings.Contains(string(now), want) {
			t.Errorf("fixed file lacks %q:\n%s", want, now)
		}
	}
	if staged := f.Git("diff", "--cached", "--name-only"); staged != "" {
		t.Errorf("the index changed: %q staged", staged)
	}
	if st := f.Git("status", "--porcelain"); st != " M "+fixTypes {
		t.Errorf("git status --porcelain = %q", st)
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
}

// --force, which fixed files with uncommitted changes, is no longer
// needed: it is a usage error that says so, and nothing is written.
func TestFixForceIsRefused(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	file := filepath.Join(f.Dir, filepath.FromSlash(fixTypes))
	orig, _ := os.ReadFile(file)
	for _, arg := range []string{"--force", "--force=false"} {
		code, _, stderr := run(t, "fix", "--repo", f.Dir, "--base", f.Commits["base"], arg)
		if code != ExitUsage || !strings.Contains(stderr, "--force is no longer needed: fix edits files with uncommitted changes as they are; drop --force") {
			t.Errorf("%s: exit %d, want %d\n%s", arg, code, ExitUsage, stderr)
		}
	}
	if now, _ := os.ReadFile(file); string(now) != string(orig) {
		t.Error("fix --force wrote the file")
	}
}

// A refusal is one line per field, naming every rule it leaves unfixed;
// the summary counts the findings.
func TestFixReportsARefusalOncePerField(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	file := filepath.Join(f.Dir, filepath.FromSlash(fixTypes))
	orig, _ := os.ReadFile(file)
	edited := strings.Replace(string(orig), "\t// Size is new.\n", "\t// Min and Max bound it.\n\tMin, Max int32\n\t// Size is new.\n", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "fix", "--repo", f.Dir, "--base", f.Commits["base"], "--dry-run")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	var refusals []string
	findings := 0
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "not fixed: ") {
			refusals = append(refusals, l)
			findings += strings.Count(l, ", ") + 1
		}
	}
	if len(refusals) != 2 || !strings.Contains(refusals[0], "NEW_FIELD_NOT_POINTER ShootSpec.Min, NEW_FIELD_NOT_OPTIONAL ShootSpec.Min, ") ||
		!strings.Contains(refusals[0], " not fixed: Min is declared together with Max") ||
		!strings.Contains(refusals[1], " not fixed: Max is declared together with Min") {
		t.Fatalf("refusals, want one for Min and one for Max:\n%s", strings.Join(refusals, "\n"))
	}
	if want := fmt.Sprintf("; %d left unfixed\n", findings); !strings.Contains(stderr, want) {
		t.Errorf("summary lacks %q:\n%s", want, stderr)
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
	for _, want := range []string{"Exit codes: 0 ", "1 something was left unfixed", "--dry-run", "uncommitted changes included", "NEW_FIELD_NOT_POINTER"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "--force") {
		t.Errorf("help offers --force:\n%s", stdout)
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
