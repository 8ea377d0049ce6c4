package cli

import (
	"flag"
	"os"
	"slices"
	"strings"
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

// TestReleaseNotesNoChanges: without anything to note, stdout is the
// block Gardener's pull request template asks for ("```other operator"
// with NONE), ready to paste; stderr says why.
func TestReleaseNotesNoChanges(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes.txtar")
	code, out, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"])
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	if out != "```other operator\nNONE\n```\n" {
		t.Errorf("output = %q, want the NONE block", out)
	}
	if !strings.Contains(errOut, "There are no API changes that need a release note.") {
		t.Errorf("stderr = %q, want it to say why the note is NONE", errOut)
	}
}

// TestReleaseNotesGoOnly: changes that keep the wire format and break Go
// clients (a field made a pointer to its struct, a list type declared
// with a new element type, a field's type whose package moved under the
// same spelling, an API group moved to another directory) are a breaking
// developer note each, and nothing else
// (testdata/release-notes-goonly.txtar).
func TestReleaseNotesGoOnly(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes-goonly.txtar")
	code, out, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"])
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	want := "```breaking developer\n" +
		"Go package `example.com/api/pkg/apis/settings/v1alpha1` (`settings.example.cloud/v1alpha1`) moved to `example.com/api/api/settings/v1alpha1` (the wire format is unchanged).\n" +
		"`Shoot`: Go type `Zones` (`.spec.zones`) changed from `[]string` to `[]Zone` (the wire format is unchanged).\n" +
		"`Shoot`: Go type of field `ShootSpec.Hibernation` (`.spec.hibernation`) changed from `Hibernation` to `*Hibernation` (the wire format is unchanged).\n" +
		"`Shoot`: Go type of field `ShootSpec.Network` (`.spec.network`) changed from `*example.com/api/pkg/common/old.Network` to `*example.com/api/pkg/common/network.Network` (the wire format is unchanged).\n" +
		"```\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("release notes (-want +got):\n%s", diff)
	}
}

// TestReleaseNotesStubs: the stub lines carry the first sentence of a new
// or removed field's doc comment, name removed and renamed fields by
// their path at base, and a removal the replacement its Deprecated:
// paragraph named (testdata/release-notes-stubs.txtar; the whole output
// is testdata/release-notes-stubs.golden, refresh with -update).
func TestReleaseNotesStubs(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes-stubs.txtar")
	code, out, errOut := run(t, "release-notes", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"])
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	for _, c := range []struct{ name, line string }{
		// The first sentence, on one line, without the markers below it.
		{"doc comment of a new field", "`Shoot`: new optional field `.spec.purposeClass`. PurposeClass is the purpose class of the cluster."},
		// "e.g." ends no sentence.
		{"doc comment of a removed field", "`Shoot`: field `.spec.kubernetes.oldName` was removed. OldName is the cluster's name in the old naming scheme (e.g. as v1 named it)."},
		{"old path of a removal", "`Shoot`: field `.spec.kubernetes.oldName` was removed."},
		{"old path of a json rename", "`Shoot`: field `.spec.region` changed incompatibly: JSON name changed from `region` to `location`."},
		{"replacement of a removal", "`Shoot`: field `.spec.purpose` was removed; use `spec.purposeClass` instead. Purpose is the purpose of the cluster."},
		{"Go-only pointer change", "`Shoot`: Go type of field `ShootSpec.Replicas` (`.spec.replicas`) changed from `int32` to `*int32` (the wire format is unchanged)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, c.line) }) {
				t.Errorf("no line starts with %q:\n%s", c.line, out)
			}
		})
	}
	const golden = "testdata/release-notes-stubs.golden"
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
