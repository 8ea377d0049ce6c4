package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// run executes the CLI and returns exit code, stdout and stderr. It runs
// with a home and user cache directory of its own (the protobuf history
// cache goes to os.UserCacheDir()), so the tests cannot run in parallel.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	hermetic.SetUserDirs(t)
	var stdout, stderr bytes.Buffer
	code := Execute(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func jsonReport(t *testing.T, out string) *finding.Report {
	t.Helper()
	var r finding.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	return &r
}

func findRule(r *finding.Report, rule string) *finding.Finding {
	for i := range r.Findings {
		if r.Findings[i].Rule == rule {
			return &r.Findings[i]
		}
	}
	return nil
}

func TestConfigAndSuppression(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/suppress.txtar")
	check := func(step string, extra ...string) (int, *finding.Report, string) {
		t.Helper()
		args := append([]string{"check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits[step], "--format", "json"}, extra...)
		code, out, errOut := run(t, args...)
		if code == ExitUsage || code == ExitFailure {
			return code, nil, errOut
		}
		return code, jsonReport(t, out), errOut
	}

	type want struct {
		code       int
		suppressed string // Suppressed of the NEW_FIELD_NOT_POINTER finding; "-" = no such finding
		severity   finding.Severity
		note       string // a regexp one note must match
	}
	for _, tc := range []struct {
		step  string
		extra []string
		want  want
	}{
		{"head", nil, want{code: ExitFindings, severity: finding.Error}},
		{"cfgfield", nil, want{code: ExitOK, suppressed: "defaulted to 1 by the API server", severity: finding.Error}},
		{"cfgpath", nil, want{code: ExitOK, suppressed: "zero means one", severity: finding.Error,
			note: `^ignore entry at \.apicheck\.yaml:7 \(rule FIELD_RENAMED, type Seed\) matched no finding`}},
		{"cfgother", nil, want{code: ExitFindings, severity: finding.Error}},
		{"cfgrules", nil, want{code: ExitOK, severity: finding.Warning}},
		{"cfgrules", []string{"--fail-on", "warning"}, want{code: ExitFindings, severity: finding.Warning}},
		{"cfgdisable", nil, want{code: ExitOK, suppressed: "-"}},
		{"inline", nil, want{code: ExitOK, suppressed: "inline: zero is defaulted", severity: finding.Error}},
		{"inlinetype", nil, want{code: ExitOK, suppressed: "inline: whole type accepted", severity: finding.Error}},
		// The marker that suppresses the error is new: SUPPRESSION_ADDED (a
		// warning) fails the run at --fail-on info, not the error.
		{"inlinetype", []string{"--fail-on", "info"}, want{code: ExitFindings, suppressed: "inline: whole type accepted", severity: finding.Error}},
	} {
		t.Run(tc.step+strings.Join(tc.extra, ""), func(t *testing.T) {
			code, r, errOut := check(tc.step, tc.extra...)
			if code != tc.want.code {
				t.Fatalf("exit code = %d, want %d\n%s", code, tc.want.code, errOut)
			}
			fd := findRule(r, "NEW_FIELD_NOT_POINTER")
			if tc.want.suppressed == "-" {
				if fd != nil {
					t.Fatalf("disabled rule reported: %+v", fd)
				}
				return
			}
			if fd == nil {
				t.Fatalf("no NEW_FIELD_NOT_POINTER finding in %+v", r.Findings)
			}
			if fd.Suppressed != tc.want.suppressed {
				t.Errorf("suppressed = %q, want %q", fd.Suppressed, tc.want.suppressed)
			}
			if fd.Severity != tc.want.severity {
				t.Errorf("severity = %v, want %v", fd.Severity, tc.want.severity)
			}
			if tc.want.suppressed != "" && (r.Summary.Suppressed != 1 || r.Summary.Errors != 0) {
				t.Errorf("summary = %+v, want 1 suppressed and no errors", r.Summary)
			}
			if tc.want.note != "" {
				re := regexp.MustCompile(tc.want.note)
				found := false
				for _, n := range r.Notes {
					found = found || re.MatchString(n)
				}
				if !found {
					t.Errorf("no note matches %s in %q", tc.want.note, r.Notes)
				}
			}
		})
	}

	// The suppressed finding shows in the JSON report with its reason.
	_, out, _ := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["inline"], "--format", "json")
	if !strings.Contains(out, `"suppressed": "inline: zero is defaulted"`) {
		t.Errorf("JSON report lacks the suppression reason:\n%s", out)
	}

	for _, tc := range []struct {
		step, wantErr string
	}{
		{"cfgbad", `\.apicheck\.yaml:4:1: ignores: unknown key "ignores" \(did you mean "ignore"\?\)`},
		{"badmarker", `pkg/apis/core/v1beta1/types\.go:22:2: \+apicheck:ignore: on ShootSpec\.Replicas: \+apicheck:ignore=NEW_FIELD_NOT_POINTER has no reason`},
		{"unknownmarker", `pkg/apis/core/v1beta1/types\.go:22:2: \+apicheck:ignore: on ShootSpec\.Replicas: unknown rule ID "NEW_FIELD_NOT_PONTER"`},
	} {
		t.Run(tc.step, func(t *testing.T) {
			code, _, errOut := check(tc.step)
			if code != ExitUsage {
				t.Fatalf("exit code = %d, want %d (usage)\n%s", code, ExitUsage, errOut)
			}
			if !regexp.MustCompile(tc.wantErr).MatchString(errOut) {
				t.Errorf("stderr = %q\nwant match %s", errOut, tc.wantErr)
			}
		})
	}

	t.Run("--config from disk", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "cfg.yaml")
		if err := os.WriteFile(path, []byte("ignore:\n  - rule: NEW_FIELD_NOT_POINTER\n    type: ShootSpec\n    reason: from disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The step's own .apicheck.yaml (a bad one) is not read.
		code, r, errOut := check("cfgbad", "--config", path)
		if code != ExitOK {
			t.Fatalf("exit code = %d\n%s", code, errOut)
		}
		if fd := findRule(r, "NEW_FIELD_NOT_POINTER"); fd == nil || fd.Suppressed != "from disk" {
			t.Errorf("finding = %+v", fd)
		}
		if err := os.WriteFile(path, []byte("rules:\n  NOPE: {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = check("head", "--config", path)
		if code != ExitUsage || !strings.Contains(errOut, path+`:2:3: rules.NOPE: unknown rule ID "NOPE"`) {
			t.Errorf("exit code = %d, stderr = %q", code, errOut)
		}
		// Bounded input (the head's configuration is written by the pull
		// request): aliases and oversized files are usage errors too.
		for data, want := range map[string]string{
			"a: &a [x]\nrules: *a\n":                  path + `:1:4: a: anchor &a: YAML anchors, aliases and merge keys are not allowed`,
			"#" + strings.Repeat("x", config.MaxSize): path + `: the file has 1048577 bytes; a configuration may have at most 1048576 (1 MiB)`,
		} {
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut = check("head", "--config", path)
			if code != ExitUsage || !strings.Contains(errOut, want) {
				t.Errorf("exit code = %d, stderr = %.300q", code, errOut)
			}
		}
		code, _, errOut = check("head", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
		if code != ExitUsage || !strings.Contains(errOut, "no such file") {
			t.Errorf("missing --config: exit code = %d, stderr = %q", code, errOut)
		}
	})
}

const worktreeConfig = `
-- base/go.mod --
module example.com/api

go 1.22

require github.com/gardener/gardener v1.149.0
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// +optional
	Purpose *string ` + "`" + `json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"` + "`" + `
	// +optional
	Region *string ` + "`" + `json:"region,omitempty" protobuf:"bytes,2,opt,name=region"` + "`" + `
}
-- base/pkg/controllermanager/apis/config/v1alpha1/doc.go --
// +groupName=controllermanager.config.example.cloud
package v1alpha1
-- base/pkg/controllermanager/apis/config/v1alpha1/types.go --
package v1alpha1

// Config is a component configuration.
type Config struct {
	// +optional
	Workers *int32 ` + "`" + `json:"workers,omitempty"` + "`" + `
}
-- worktree/pkg/apis/core/v1beta1/types.go --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// +optional
	Purpose *string ` + "`" + `json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"` + "`" + `
}
-- worktree/.apicheck.yaml --
groups:
  - dir: pkg/apis/core
    profile: componentconfig
`

// TestConfigFromWorktree checks that an uncommitted .apicheck.yaml is read
// when head is the working tree, and that its groups replace discovery
// with their profiles.
func TestConfigFromWorktree(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(worktreeConfig))
	code, out, errOut := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit code = %d\n%s\n%s", code, out, errOut)
	}
	r := jsonReport(t, out)
	fd := findRule(r, "FIELD_REMOVED_WITHOUT_TOMBSTONE")
	if fd == nil || fd.Severity != finding.Info {
		t.Fatalf("want the removal as info (componentconfig profile), got %+v", r.Findings)
	}
	for _, x := range r.Findings {
		if strings.HasPrefix(x.Group, "pkg/controllermanager") {
			t.Errorf("group not listed in the configuration was scanned: %+v", x)
		}
	}

	// Without the configuration the same removal is an error.
	code, _, _ = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--format", "json", "--config", os.DevNull)
	if code != ExitFindings {
		t.Errorf("with an empty --config: exit code = %d, want %d", code, ExitFindings)
	}

	// A configured group that does not exist is a usage error naming the line.
	f.WriteWorktree(map[string]string{".apicheck.yaml": "groups:\n  - dir: pkg/apis/core\n  - dir: pkg/apis/cor\n"})
	code, _, errOut = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"])
	if code != ExitUsage || !strings.Contains(errOut, ".apicheck.yaml:3:5: groups[1].dir: directory pkg/apis/cor does not exist") {
		t.Errorf("exit code = %d, stderr = %q", code, errOut)
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// The profile, exclusion and group keys: unknown profiles are usage
// errors with the key and line; an exclude pattern that matches nothing
// is a note.
func TestProfileAndExcludeConfig(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(`
-- base/go.mod --
module example.com/m
-- base/pkg/apis/core/v1/types.go --
// +groupName=core.example.cloud
package v1

// Spec is a spec.
type Spec struct {
	// +optional
	A *string `+"`json:\"a,omitempty\"`"+`
}
`))
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, cfg, "profile: strict\n")
	code, _, errOut := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"], "--config", cfg)
	if code != ExitUsage || !strings.Contains(errOut, "c.yaml:1:10: profile: unknown profile \"strict\"") {
		t.Errorf("unknown profile: exit %d, stderr %q", code, errOut)
	}
	// A group's own profile and a group listed twice: usage errors with
	// the key and line, the profile's known names listed.
	writeFile(t, cfg, "groups:\n  - dir: pkg/apis/core\n    profile: operator\n")
	code, _, errOut = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"], "--config", cfg)
	if code != ExitUsage || !strings.Contains(errOut, `c.yaml:3:14: groups[0].profile: unknown profile "operator" (want gardener, kubernetes, crd or componentconfig)`) {
		t.Errorf("unknown group profile: exit %d, stderr %q", code, errOut)
	}
	writeFile(t, cfg, "groups:\n  - dir: pkg/apis/core\n  - dir: pkg/apis/core/\n")
	code, _, errOut = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"], "--config", cfg)
	if code != ExitUsage || !strings.Contains(errOut, "c.yaml:3:5: groups[1].dir: group pkg/apis/core is listed twice (first at line 2)") {
		t.Errorf("group listed twice: exit %d, stderr %q", code, errOut)
	}
	writeFile(t, cfg, "profile: crd\nexclude: [pkg/nothing/**]\ngroups:\n  - dir: pkg/apis/core\n    stable: [v1alpha1]\n")
	code, out, errOut := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["base"], "--config", cfg, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"profile crd (configured)"`, `exclude pattern \"pkg/nothing/**\" (` + cfg + `:2) matches no directory`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s:\n%s", want, out)
		}
	}
}
