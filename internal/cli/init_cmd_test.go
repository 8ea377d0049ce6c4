package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func TestInit(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/release-notes.txtar")
	code, out, errOut := run(t, "init", "--repo", f.Dir)
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	target := f.Path(config.FileName)
	if !strings.Contains(out, "wrote "+target+" with 3 API group(s)") {
		t.Errorf("stdout = %q", out)
	}
	data, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	// The starter parses back with the strict decoder and the real catalogue.
	cfg, err := config.Parse(config.FileName, data, check.Vocabulary(catalog.All()))
	if err != nil {
		t.Fatalf("starter does not parse: %v\n%s", err, data)
	}
	want := []config.Group{
		{Dir: "pkg/apis/core", Profile: string(model.ProfileGardener)},
		{Dir: "pkg/apis/settings", Profile: string(model.ProfileGardener)},
		{Dir: "pkg/controllermanager/apis/config", Profile: string(model.ProfileComponentConfig)},
	}
	if len(cfg.Groups) != len(want) {
		t.Fatalf("groups = %+v\n%s", cfg.Groups, data)
	}
	for i, g := range want {
		if cfg.Groups[i].Dir != g.Dir || cfg.Groups[i].Profile != g.Profile {
			t.Errorf("group %d = %+v, want %+v", i, cfg.Groups[i], g)
		}
	}
	if !strings.Contains(string(data), "- dir: pkg/apis/core  # core.example.cloud: v1, v1beta1\n") {
		t.Errorf("starter lacks the group comment:\n%s", data)
	}

	// The written file is what check then uses (from the working tree).
	if code, _, errOut := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--fail-on", "none"); code != ExitOK {
		t.Errorf("check with the starter: exit code = %d\n%s", code, errOut)
	}

	// No overwrite without --force.
	if err := os.WriteFile(target, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "init", "--repo", f.Dir)
	if code != ExitUsage || !strings.Contains(errOut, "already exists; use --force") {
		t.Errorf("second init: exit code = %d, stderr = %q", code, errOut)
	}
	if data, _ := os.ReadFile(target); string(data) != "# mine\n" {
		t.Errorf("existing file was changed: %q", data)
	}
	code, _, errOut = run(t, "init", "--repo", f.Dir, "--force")
	if code != ExitOK {
		t.Fatalf("init --force: exit code = %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), "groups:\n  - dir: pkg/apis/core") {
		t.Errorf("--force did not rewrite the file:\n%s", data)
	}
	entries, _ := os.ReadDir(f.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestInitNoGroups(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte("-- base/README.md --\nnothing\n"))
	code, out, errOut := run(t, "init", "--repo", f.Dir)
	if code != ExitOK || !strings.Contains(out, "with 0 API group(s)") {
		t.Fatalf("exit code = %d, stdout = %q\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(f.Path(config.FileName))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(config.FileName, data, check.Vocabulary(catalog.All()))
	if err != nil || len(cfg.Groups) != 0 {
		t.Errorf("cfg = %+v, err = %v\n%s", cfg, err, data)
	}
}

// init needs a working tree: in a bare repository it is a usage error.
func TestInitBareRepository(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "--bare", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	code, _, errOut := run(t, "init", "--repo", dir)
	if code != ExitUsage || errOut == "" {
		t.Errorf("init in a bare repository: exit %d, stderr %q; want 2 with a message", code, errOut)
	}
}
