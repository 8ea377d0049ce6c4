package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// relaxing is a history whose head adds an error (ShootSpec.Replicas is
// not a pointer) and relaxes its own check in three ways: an ignore entry
// for the error, a disabled SUPPRESSION_ADDED, and an inline marker. The
// repository also keeps a second configuration, ci/apicheck.yaml.
const relaxing = `
-- base/go.mod --
module example.com/api

go 1.22
-- base/.apicheck.yaml --
profile: gardener
-- base/ci/apicheck.yaml --
profile: gardener
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`" + `json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"` + "`" + `
}
-- head/.apicheck.yaml --
profile: gardener
rules:
  SUPPRESSION_ADDED: {enabled: false}
ignore:
  - rule: NEW_FIELD_NOT_POINTER
    type: ShootSpec
    field: Replicas
    reason: defaulted by the API server
-- head/pkg/apis/core/v1beta1/types.go --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose of the cluster.
	// +optional
	Purpose *string ` + "`" + `json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"` + "`" + `
	// Replicas is new.
	// +optional
	// +apicheck:ignore=NEW_FIELD_NOT_OPTIONAL,NEW_FIELD_NOT_POINTER always set
	Replicas int32 ` + "`" + `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"` + "`" + `
}
`

// TestTrustedConfig: with head's configuration (the default) the change's
// relaxations apply and each is reported; SUPPRESSION_ADDED cannot be
// turned off by the change itself. --trusted-config base and a --config
// file outside the repository keep the change from relaxing its own check
// (its markers included); a --config file inside the repository is the
// change's own and compared with base's copy of it.
func TestTrustedConfig(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(relaxing))
	base, head := f.Commits["base"], f.Commits["head"]
	checkWith := func(extra ...string) (int, *finding.Report, string) {
		t.Helper()
		args := append([]string{"check", "--repo", f.Dir, "--base", base, "--head", head, "--format", "json"}, extra...)
		code, out, errOut := run(t, args...)
		if code == ExitUsage || code == ExitFailure {
			return code, nil, errOut
		}
		return code, jsonReport(t, out), errOut
	}
	added := func(r *finding.Report) []string {
		var out []string
		for _, x := range r.Findings {
			if x.Rule == rules.SuppressionAdded.ID {
				out = append(out, x.Path+": "+x.Message)
			}
		}
		return out
	}
	pointer := func(r *finding.Report) *finding.Finding { return findRule(r, rules.NewFieldNotPointer.ID) }

	t.Run("head", func(t *testing.T) {
		code, r, errOut := checkWith()
		if code != ExitOK {
			t.Fatalf("exit %d, want 0 (the error is suppressed)\n%s", code, errOut)
		}
		if p := pointer(r); p == nil || p.Suppressed != "defaulted by the API server" {
			t.Errorf("NEW_FIELD_NOT_POINTER = %+v", p)
		}
		want := []string{
			".apicheck.yaml: rule SUPPRESSION_ADDED disabled: hides no finding in this run",
			".apicheck.yaml: ignore entry for NEW_FIELD_NOT_POINTER (field ShootSpec.Replicas) added: hides 1 finding: NEW_FIELD_NOT_POINTER ShootSpec.Replicas (v1beta1)",
			"pkg/apis/core/v1beta1/types.go: +apicheck:ignore=NEW_FIELD_NOT_OPTIONAL on ShootSpec.Replicas added: hides no finding in this run",
			// The config entry suppresses the finding first; the marker
			// would hide it too.
			"pkg/apis/core/v1beta1/types.go: +apicheck:ignore=NEW_FIELD_NOT_POINTER on ShootSpec.Replicas added: hides 1 finding: NEW_FIELD_NOT_POINTER ShootSpec.Replicas (v1beta1)",
		}
		if got := added(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SUPPRESSION_ADDED findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if code, _, _ := checkWith("--fail-on", "warning"); code != ExitFindings {
			t.Errorf("--fail-on warning: exit %d, want 1 (the suppressions are warnings)", code)
		}
	})

	t.Run("base", func(t *testing.T) {
		code, r, errOut := checkWith("--trusted-config", "base")
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1 (head's relaxations do not apply)\n%s", code, errOut)
		}
		if p := pointer(r); p == nil || p.Suppressed != "" || p.Severity != finding.Error {
			t.Errorf("NEW_FIELD_NOT_POINTER = %+v, want an unsuppressed error", p)
		}
		got := strings.Join(added(r), "\n")
		for _, w := range []string{
			".apicheck.yaml: ignore entry for NEW_FIELD_NOT_POINTER (field ShootSpec.Replicas) added: would hide 1 finding",
			"types.go: +apicheck:ignore=NEW_FIELD_NOT_POINTER on ShootSpec.Replicas added: would hide 1 finding",
		} {
			if !strings.Contains(got, w) {
				t.Errorf("SUPPRESSION_ADDED findings lack %q:\n%s", w, got)
			}
		}
	})

	t.Run("outside --config is trusted", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "central.yaml")
		if err := os.WriteFile(path, []byte("profile: gardener\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, r, errOut := checkWith("--config", path)
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1\n%s", code, errOut)
		}
		if p := pointer(r); p == nil || p.Suppressed != "" {
			t.Errorf("NEW_FIELD_NOT_POINTER = %+v, want unsuppressed (the marker is new)", p)
		}
		if len(added(r)) != 4 {
			t.Errorf("SUPPRESSION_ADDED findings: %q", added(r))
		}
		// A link from outside into the repository is the repository's file.
		link := filepath.Join(t.TempDir(), "link.yaml")
		if err := os.Symlink(filepath.Join(f.Dir, "ci", "apicheck.yaml"), link); err != nil {
			t.Fatal(err)
		}
		f.WriteWorktree(map[string]string{"ci/apicheck.yaml": "profile: gardener\nrules:\n  NEW_FIELD_NOT_POINTER: {severity: warning}\n"})
		for _, cfg := range []string{filepath.Join(f.Dir, "ci", "apicheck.yaml"), link} {
			code, r, errOut = checkWith("--config", cfg)
			if code != ExitOK {
				t.Fatalf("--config %s: exit %d, want 0 (the change's own file lowers the error)\n%s", cfg, code, errOut)
			}
			if got := strings.Join(added(r), "\n"); !strings.Contains(got, "ci/apicheck.yaml: severity of NEW_FIELD_NOT_POINTER lowered from error to warning: lowers 1 finding") {
				t.Errorf("--config %s: SUPPRESSION_ADDED findings:\n%s", cfg, got)
			}
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"--trusted-config", "pr"},
			{"--trusted-config", "base", "--config", os.DevNull},
		} {
			code, _, errOut := checkWith(args...)
			if code != ExitUsage || !strings.Contains(errOut, "--trusted-config") {
				t.Errorf("%q: exit %d, stderr %q; want 2 naming --trusted-config", args, code, errOut)
			}
		}
	})
}
