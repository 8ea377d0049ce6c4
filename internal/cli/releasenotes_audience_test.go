package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestReleaseNotesAudiences runs `apicheck release-notes` on a history
// that adds a field to a kind of every kind of group a Gardener repository
// has (testdata/release-notes-audiences.txtar): with the gardener
// profile's defaults, with configured audiences, and with the crd and
// kubernetes profiles, whose notes are for users. Each output is compared
// with its golden file (refresh with -update).
func TestReleaseNotesAudiences(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes-audiences.txtar")
	for _, c := range []struct {
		name, config string
	}{
		{"release-notes-audiences.golden", ""},
		{"release-notes-audiences-config.golden", `releaseNotes:
  audiences:
    - {group: core.gardener.cloud, kind: Quota, audience: operator}
    - {group: "*.gardener.cloud", kind: "Shoot", audience: dependency}
    - {group: pkg/apis/extensions, audience: operator}
    - {kind: "Managed*", audience: user}
`},
		{"release-notes-audiences-crd.golden", "profile: crd\n"},
		{"release-notes-audiences-kubernetes.golden", "profile: kubernetes\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"]}
			if c.config != "" {
				p := filepath.Join(t.TempDir(), "apicheck.yaml")
				if err := os.WriteFile(p, []byte(c.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", p)
			}
			code, out, errOut := run(t, args...)
			if code != ExitOK {
				t.Fatalf("exit code = %d\n%s", code, errOut)
			}
			golden := filepath.Join("testdata", c.name)
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("release notes differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func TestReleaseNotesAudienceConfigErrors(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes-audiences.txtar")
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("releaseNotes:\n  audiences:\n    - {kind: Shoot, audience: admins}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--config", p)
	want := `c\.yaml:3:31: releaseNotes\.audiences\[0\]\.audience: unknown audience "admins" \(want user, operator, developer or dependency\)`
	if code != ExitUsage || !regexpMatch(want, errOut) {
		t.Errorf("exit code = %d, stderr = %q", code, errOut)
	}
}
