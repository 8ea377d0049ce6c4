package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// checkStepScript returns the script of the action's `Run apicheck` step.
func checkStepScript(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Runs.Steps {
		if s.ID == "check" {
			return s.Run
		}
	}
	t.Fatal("action.yml has no step with id check")
	return ""
}

// TestActionWithRealBinaryOnHostileCheckout runs the action's check step
// with the real apicheck on a pull request that commits apicheck.md and
// apicheck.sarif as symlinks to .git/config (where actions/checkout keeps
// the job token) and breaks the build so that apicheck exits 3. Nothing
// from the checkout may reach the job summary or the step outputs; after
// the pull request is fixed, the real report is published from RUNNER_TEMP.
func TestActionWithRealBinaryOnHostileCheckout(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	script := checkStepScript(t)
	fx := example(t)
	const token = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
	fx.Git("config", "http.https://github.com/.extraheader", token)
	for _, name := range []string{"apicheck.md", "apicheck.sarif"} {
		if err := os.Symlink(".git/config", filepath.Join(fx.Dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	fx.Git("checkout", "-q", fx.Commits["head"])
	fx.WriteWorktree(map[string]string{"pkg/apis/core/v1beta1/broken.go": "package v1beta1\n\ntype Broken struct {\n"})

	binDir := filepath.Dir(binary)
	runStep := func() (outputs map[string]string, summary string) {
		dir := t.TempDir()
		runnerTemp := filepath.Join(dir, "runner-temp")
		if err := os.Mkdir(runnerTemp, 0o755); err != nil {
			t.Fatal(err)
		}
		outFile, sumFile := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = fx.Dir
		cmd.Env = append(append(os.Environ(), hermetic.UserDirs(t)...),
			"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"BASE="+fx.Commits["base"], "FAIL_ON=error", "TRUSTED_CONFIG=auto", "EVENT_NAME=pull_request", "ARGS=",
			"RUNNER_TEMP="+runnerTemp, "GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+sumFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("check step failed: %v\n%s", err, out)
		}
		raw, _ := os.ReadFile(outFile)
		s, _ := os.ReadFile(sumFile)
		if strings.Contains(string(raw)+string(s), "AUTHORIZATION") {
			t.Fatalf("the token was published:\noutputs: %s\nsummary: %s", raw, s)
		}
		outputs = map[string]string{}
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				outputs[k] = v
			}
		}
		return outputs, string(s)
	}

	out, summary := runStep()
	if out["exit-code"] != "3" || out["markdown"] != "" || out["sarif"] != "" || summary != "" {
		t.Fatalf("broken checkout: outputs %v, summary %q; want exit-code 3 and nothing published", out, summary)
	}

	// The contributor fixes the syntax error: apicheck completes with
	// findings and its own report is published.
	if err := os.Remove(filepath.Join(fx.Dir, "pkg/apis/core/v1beta1/broken.go")); err != nil {
		t.Fatal(err)
	}
	out, summary = runStep()
	if out["exit-code"] != "1" {
		t.Fatalf("exit-code = %q, want 1", out["exit-code"])
	}
	if !strings.Contains(summary, "NEW_FIELD_NOT_POINTER") {
		t.Errorf("summary is not apicheck's report: %q", summary)
	}
	for _, k := range []string{"markdown", "sarif"} {
		fi, err := os.Lstat(out[k])
		if err != nil || !fi.Mode().IsRegular() || strings.HasPrefix(out[k], fx.Dir) {
			t.Errorf("%s output %q: want a regular file outside the checkout (%v)", k, out[k], err)
		}
	}
	// The symlinks in the checkout are left alone.
	for _, name := range []string{"apicheck.md", "apicheck.sarif"} {
		if fi, err := os.Lstat(filepath.Join(fx.Dir, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s in the checkout was touched: %v", name, err)
		}
	}
}
