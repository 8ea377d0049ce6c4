package cli

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// The removal planner's fixture and golden outputs live with its package
// (internal/deprecations/testdata); the command prints the same.
const deprecationFixture = "../deprecations/testdata/history.txtar"

// TestDeprecationsGolden runs `apicheck deprecations` on the working tree
// of the fixture history in each format and compares the output with the
// planner's golden files.
func TestDeprecationsGolden(t *testing.T) {
	f := gitfixture.FromFile(t, deprecationFixture)
	for format, golden := range map[string]string{
		"json":     "../deprecations/testdata/history.golden.json",
		"markdown": "../deprecations/testdata/history.golden.md",
		"text":     "../deprecations/testdata/history.golden.txt",
	} {
		code, out, errOut := run(t, "deprecations", "--repo", f.Dir, "--format", format)
		if code != ExitOK {
			t.Fatalf("--format %s: exit code = %d\n%s", format, code, errOut)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), out); diff != "" {
			t.Errorf("--format %s differs from %s (-want +got):\n%s", format, golden, diff)
		}
	}
}

// TestDeprecationsRev plans a release tag: the newest release is the tag
// itself, and the text format is the default.
func TestDeprecationsRev(t *testing.T) {
	f := gitfixture.FromFile(t, deprecationFixture)
	code, out, errOut := run(t, "deprecations", "--repo", f.Dir, "--rev", "v1.3.0", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	var plan struct {
		Rev           string `json:"rev"`
		NewestRelease string `json:"newestRelease"`
		Deprecations  []struct {
			Field, RemovableFrom string
			Removable            bool
		} `json:"deprecations"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if plan.Rev != "v1.3.0" || plan.NewestRelease != "v1.3.0" {
		t.Errorf("rev %q, newest release %q; want v1.3.0 for both", plan.Rev, plan.NewestRelease)
	}
	found := false
	for _, d := range plan.Deprecations {
		if d.Field == "Legacy" {
			found = true
			if d.Removable {
				t.Errorf("Legacy is removable at v1.3.0")
			}
		}
	}
	if !found {
		t.Errorf("no deprecation of Legacy at v1.3.0:\n%s", out)
	}
	code, out, errOut = run(t, "deprecations", "--repo", f.Dir, "--rev", "v1.3.0")
	if code != ExitOK || !strings.Contains(out, "deprecations at v1.3.0: ") {
		t.Errorf("text: exit code %d, output:\n%s%s", code, out, errOut)
	}
}

func TestDeprecationsUsageErrors(t *testing.T) {
	f := gitfixture.FromFile(t, deprecationFixture)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"--format", "sarif"}, `--format "sarif" is not one of json, markdown, text`},
		{"unknown revision", []string{"--rev", "no-such-ref"}, "no-such-ref"},
		{"argument", []string{"extra"}, "unknown command"},
		{"missing config file", []string{"--config", f.Dir + "/no-such.yaml"}, "no such file"},
	} {
		code, _, errOut := run(t, append([]string{"deprecations", "--repo", f.Dir}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit code = %d, stderr = %q; want %d and %q", c.name, code, errOut, ExitUsage, c.want)
		}
	}
	if code, _, errOut := run(t, "deprecations", "--repo", t.TempDir()); code != ExitUsage {
		t.Errorf("not a repository: exit code = %d\n%s", code, errOut)
	}
}

// TestDeprecationsFailure: an API file that does not parse is a scan
// failure, exit 3.
func TestDeprecationsFailure(t *testing.T) {
	f := gitfixture.FromFile(t, deprecationFixture)
	f.WriteWorktree(map[string]string{"pkg/apis/core/v1beta1/broken.go": "package v1beta1\n\ntype Broken struct {\n"})
	code, out, errOut := run(t, "deprecations", "--repo", f.Dir)
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "broken.go") {
		t.Errorf("exit code = %d, stdout = %q, stderr = %q; want %d, nothing, the file named", code, out, errOut, ExitFailure)
	}
}

// TestDeprecationsHelpAndCompletion: the help has examples and the exit
// codes; --format and --rev complete.
func TestDeprecationsHelpAndCompletion(t *testing.T) {
	code, stdout, _ := run(t, "deprecations", "--help")
	if code != ExitOK {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"\nExamples:\n  ", "  apicheck deprecations", "\nExit codes:\n", "  0  the plan was printed", "  2  usage or configuration error", "  3  scan or internal failure"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help lacks %q:\n%s", want, stdout)
		}
	}
	f := gitfixture.FromFile(t, deprecationFixture)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"deprecations", "--format", ""}, []string{"json", "markdown", "text"}},
		{[]string{"deprecations", "--repo", f.Dir, "--rev", "v1.4"}, []string{"v1.4.0"}},
	} {
		got, directive := completions(t, c.args...)
		if !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("__complete %q = %q %s, want %q :4", c.args, got, directive, c.want)
		}
	}
}
