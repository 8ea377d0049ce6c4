package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// The releases and shoot sections of .apicheck.yaml reach the lifecycle
// analysis: a custom tag pattern finds the release, a custom versions file
// location is the one reported missing.
func TestConfigReachesLifecycle(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(`
-- rel@release-1.0/go.mod --
module example.com/m

require github.com/gardener/gardener v1.149.0

go 1.22
-- rel@release-1.0/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Shoot is a kind.
// +genclient
type Shoot struct {
	// +optional
	Spec ShootSpec `+"`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`"+`
}

// ShootSpec is a spec.
type ShootSpec struct {
	// Old is old.
	//
	// Deprecated: This field will be forbidden starting from Kubernetes 1.30.
	// +optional
	Old *string `+"`json:\"old,omitempty\" protobuf:\"bytes,1,opt,name=old\"`"+`
}
-- head/pkg/apis/core/v1beta1/types.go --
// +groupName=core.example.cloud
package v1beta1

// Shoot is a kind.
// +genclient
type Shoot struct {
	// +optional
	Spec ShootSpec `+"`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`"+`
}

// ShootSpec is a spec.
type ShootSpec struct {
	// Old is tombstoned to show why 1 is reserved protobuf tag.
	// Old *string `+"`json:\"old,omitempty\" protobuf:\"bytes,1,opt,name=old\"`"+`
}
-- head/.apicheck.yaml --
releases:
  tagPattern: "release-*"
shoot:
  supportedVersions: hack/k8s-versions.yaml
`))
	notes := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, append([]string{"check", "--repo", f.Dir, "--base", f.Commits["rel"], "--format", "json"}, args...)...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return strings.Join(jsonReport(t, out).Notes, "\n")
	}
	withConfig := notes("--head", f.Commits["head"])
	if strings.Contains(withConfig, "no release tag") {
		t.Errorf("tag pattern from the config not used:\n%s", withConfig)
	}
	if !strings.Contains(withConfig, "hack/k8s-versions.yaml") {
		t.Errorf("supportedVersions from the config not used:\n%s", withConfig)
	}
	// Without the config file (an empty one from disk), the defaults apply.
	empty := t.TempDir() + "/empty.yaml"
	writeFile(t, empty, "")
	defaults := notes("--head", f.Commits["head"], "--config", empty)
	if !strings.Contains(defaults, "no release tag") || !strings.Contains(defaults, "supported-kubernetes-versions.yaml") {
		t.Errorf("defaults not applied without config:\n%s", defaults)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dump scans the groups .apicheck.yaml lists, as check does.
func TestDumpUsesConfiguredGroups(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(`
-- base/go.mod --
module example.com/m
-- base/pkg/apis/x/v1/types.go --
package v1

// Undeclared has no +groupName, so discovery skips it.
type Undeclared struct{}
`))
	code, out, errOut := run(t, "dump", "--repo", f.Dir, "--rev", f.Commits["base"])
	if code != 0 || strings.Contains(out, "Undeclared") {
		t.Fatalf("without config: code %d, %s %s", code, out, errOut)
	}
	cfg := t.TempDir() + "/c.yaml"
	writeFile(t, cfg, "groups:\n  - dir: pkg/apis/x\n    profile: gardener\n")
	code, out, errOut = run(t, "dump", "--repo", f.Dir, "--rev", f.Commits["base"], "--config", cfg)
	if code != 0 || !strings.Contains(out, "Undeclared") {
		t.Fatalf("with config: code %d, %s %s", code, out, errOut)
	}
}
