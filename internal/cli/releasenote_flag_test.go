package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// removedField is a history whose head removes a deprecated Shoot field
// with its tombstone: a breaking change, and nothing else to report.
const removedField = `-- base/go.mod --
module example.com/api

go 1.22
-- base/.apicheck.yaml --
profile: gardener
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Shoot is a cluster.
// +genclient
type Shoot struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	// +optional
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	// SeedName is the seed.
	//
	// Deprecated: use SeedSelector.
	// +optional
	SeedName *string ` + "`json:\"seedName,omitempty\" protobuf:\"bytes,2,opt,name=seedName\"`" + `
}
-- head/pkg/apis/core/v1beta1/types.go --
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Shoot is a cluster.
// +genclient
type Shoot struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	// +optional
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	// SeedName is tombstoned to show why 2 is reserved protobuf tag.
	// SeedName *string ` + "`json:\"seedName,omitempty\" protobuf:\"bytes,2,opt,name=seedName\"`" + `
}
`

// check --release-note reads the pull request's description from a file
// or standard input; the report says which blocks it had, and a breaking
// change without a breaking block is an error whose hint is the stub.
func TestCheckReleaseNote(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(removedField))
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	args := []string{"check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json"}

	feature := write("feature.md", "**Release note**:\r\n```feature user\r\nFaster.\r\n```\r\n")
	code, out, errOut := run(t, append(args, "--release-note", feature)...)
	if code != ExitFindings {
		t.Fatalf("exit code %d, want %d\n%s\n%s", code, ExitFindings, out, errOut)
	}
	r := jsonReport(t, out)
	fd := findRule(r, rules.ReleaseNoteMissing.ID)
	if fd == nil || fd.Severity != finding.Error || !strings.Contains(fd.Hint, "```breaking user\n`Shoot`: field `.spec.seedName` was removed.") {
		t.Fatalf("want the missing breaking block with its stub, got %+v", r.Findings)
	}
	if r.ReleaseNote == nil || strings.Join(r.ReleaseNote.Blocks, ",") != "feature user" {
		t.Errorf("report's release note = %+v, want the feature block", r.ReleaseNote)
	}

	breaking := write("breaking.md", "  ```breaking user\n  `.spec.seedName` is gone.\n  ```\n")
	code, out, errOut = run(t, append(args, "--release-note", breaking)...)
	if code != ExitOK {
		t.Errorf("with a breaking block: exit code %d\n%s\n%s", code, out, errOut)
	}

	// Without --release-note the change is not judged, and the report
	// says it had no note.
	code, out, _ = run(t, args...)
	if r := jsonReport(t, out); code != ExitOK || r.ReleaseNote != nil || findRule(r, rules.ReleaseNoteMissing.ID) != nil {
		t.Errorf("without --release-note: exit code %d, %+v", code, r)
	}

	// - reads standard input.
	hermetic.SetUserDirs(t)
	var stdout, stderr bytes.Buffer
	root := newRoot(&stdout, &stderr)
	root.SetIn(strings.NewReader("```other operator\nNONE\n```\n"))
	root.SetArgs(append(args, "--release-note", "-"))
	if err := root.ExecuteContext(context.Background()); err == nil {
		t.Errorf("NONE for a breaking change from stdin: no findings\n%s", stdout.String())
	}
	if r := jsonReport(t, stdout.String()); findRule(r, rules.ReleaseNoteMissing.ID) == nil || !strings.Contains(findRule(r, rules.ReleaseNoteMissing.ID).Message, "says NONE") {
		t.Errorf("from stdin: %+v", r.Findings)
	}

	code, _, errOut = run(t, append(args, "--release-note", filepath.Join(dir, "missing.md"))...)
	if code != ExitUsage || !strings.Contains(errOut, "--release-note:") {
		t.Errorf("a missing file: exit code %d, stderr %q", code, errOut)
	}
}
