package cli

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the actual output")

// TestReleaseNotesGolden runs `apicheck release-notes` on a fixture history
// with an added optional field, a field removed with a tombstone, a
// deprecation, an incompatible change, a Go-only rename and a component
// configuration change, and compares the output with
// testdata/release-notes.golden (refresh with -update).
func TestReleaseNotesGolden(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes.txtar")
	code, out, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"])
	if code != ExitOK {
		t.Fatalf("exit code = %d (the release notes never fail on findings)\n%s", code, errOut)
	}
	const golden = "testdata/release-notes.golden"
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
}

func TestReleaseNotesNoChanges(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes.txtar")
	code, out, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"])
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	if out != "There are no API changes that need a release note.\n" {
		t.Errorf("output = %q", out)
	}
}

func TestReleaseNotesUsageErrors(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes.txtar")
	if code, _, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", "no-such-ref"); code != ExitUsage {
		t.Errorf("unknown ref: exit code = %d\n%s", code, errOut)
	}
	cfg := t.TempDir() + "/c.yaml"
	if err := os.WriteFile(cfg, []byte("groups:\n  - dir: pkg/apis/core\n    profile: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--config", cfg)
	if code != ExitUsage || !regexpMatch(`c\.yaml:3:14: groups\[0\]\.profile: unknown profile "nope"`, errOut) {
		t.Errorf("bad config: exit code = %d, stderr = %q", code, errOut)
	}
}
