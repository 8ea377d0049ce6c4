package cli

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// forgedLines reports the lines of out that the GitHub Actions runner
// would read as workflow commands (a line that starts with "::" after
// white space, or holds "##["; "\r" ends a line too) and those with a
// control character.
func forgedLines(out string) []string { return forged(out, false) }

// ownAnnotation is an annotation of the github format: its properties
// hold no ':' (escaped %3A).
var ownAnnotation = regexp.MustCompile(`^::(error|warning|notice) [^:]*::`)

// forged is forgedLines that allows the github format's annotations when
// github is set.
func forged(out string, github bool) []string {
	var bad []string
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if github && ownAnnotation.MatchString(l) && !strings.ContainsFunc(l, unicode.IsControl) {
			continue
		}
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") ||
			strings.ContainsFunc(l, func(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }) {
			bad = append(bad, l)
		}
	}
	if strings.ContainsRune(out, '\r') {
		bad = append(bad, "(a carriage return)")
	}
	return bad
}

// injectionRepo has a valid API at "base" and, on a branch of its own
// from base per entry of heads, the files of that entry.
func injectionRepo(t *testing.T, heads map[string]map[string]string) *gitfixture.Fixture {
	t.Helper()
	f := gitfixture.New(t)
	commits := []gitfixture.Commit{{Step: "base", Files: map[string]string{
		"go.mod":                    "module example.com/m\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":   "// +groupName=core.example.cloud\npackage v1\n",
		"pkg/apis/core/v1/types.go": "package v1\n\n// Spec is a spec.\ntype Spec struct {\n\t// +optional\n\tA *string `json:\"a,omitempty\"`\n}\n",
	}}}
	for step, files := range heads {
		commits = append(commits, gitfixture.Commit{Step: step, Branch: step, Parents: []string{"base"}, Files: files})
	}
	f.Import(commits...)
	f.Checkout()
	return f
}

// TestFileNamesInjectNoWorkflowCommands: a pull request adds an
// unparsable Go file whose name ends a line and starts a workflow
// command. apicheck fails on it and names the file, quoted, on one line.
func TestFileNamesInjectNoWorkflowCommands(t *testing.T) {
	names := map[string]string{
		"newline": "x\n::error file=README.md::x",
		"cr":      "x\r::error file=README.md::x",
		"stop":    "x\n::stop-commands::tok",
		"mask":    "x\n::add-mask::secret",
		"legacy":  "x ##[error]x",
		"ansi":    "x\x1b[31mred\x1b[0m",
		"start":   "::error file=README.md::x", // mid-line in the path: harmless, not quoted
	}
	quoted := map[string]string{
		"newline": `"pkg/apis/core/v1/x\n::error file=README.md::x.go":3:6: cannot parse Go file`,
		"cr":      `"pkg/apis/core/v1/x\r::error file=README.md::x.go":3:6: cannot parse Go file`,
		"stop":    `"pkg/apis/core/v1/x\n::stop-commands::tok.go":3:6: cannot parse Go file`,
		"mask":    `"pkg/apis/core/v1/x\n::add-mask::secret.go":3:6: cannot parse Go file`,
		"legacy":  `"pkg/apis/core/v1/x ##\x5berror]x.go":3:6: cannot parse Go file`,
		"ansi":    `"pkg/apis/core/v1/x\x1b[31mred\x1b[0m.go":3:6: cannot parse Go file`,
		"start":   ` pkg/apis/core/v1/::error file=README.md::x.go:3:6: cannot parse Go file`,
	}
	heads := map[string]map[string]string{}
	for step, name := range names {
		heads[step] = map[string]string{"pkg/apis/core/v1/" + name + ".go": "package v1\n\nfunc {{{\n"}
	}
	f := injectionRepo(t, heads)
	for step := range names {
		for _, format := range []string{"github", "text"} {
			code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits[step], "--format", format)
			if code != ExitFailure {
				t.Errorf("%s, --format %s: exit %d, want %d\n%s%s", step, format, code, ExitFailure, stdout, stderr)
			}
			for _, out := range []string{stdout, stderr} {
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "::error file=README.md") {
						t.Errorf("%s, --format %s: a forged annotation: %q", step, format, l)
					}
				}
				if bad := forgedLines(out); len(bad) > 0 {
					t.Errorf("%s, --format %s: forged lines %q in\n%s", step, format, bad, out)
				}
			}
			if want := quoted[step]; !strings.Contains(stderr, want) || strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") > 0 {
				t.Errorf("%s, --format %s: stderr %q, want the parse error on one line with %s", step, format, stderr, want)
			}
		}
	}
}

// TestConfigKeysInjectNoWorkflowCommands: YAML keys of .apicheck.yaml
// (quoted keys may hold any character) are quoted in configuration
// errors, which speak of keys, not of apicheck's Go types.
func TestConfigKeysInjectNoWorkflowCommands(t *testing.T) {
	f := injectionRepo(t, map[string]map[string]string{
		"unknown":   {".apicheck.yaml": "\"a\\n::error file=README.md::x\": 1\n"},
		"nested":    {".apicheck.yaml": "ignore:\n  - rule: NEW_FIELD_NOT_POINTER\n    reason: r\n    type: Spec\n    \"x\\r::error file=README.md::x\": 1\n"},
		"duplicate": {".apicheck.yaml": "rules:\n  \"\\e[31m##[error]x\": {}\n  \"\\e[31m##[error]x\": {}\n"},
		"rule":      {".apicheck.yaml": "rules:\n  \"X\\n::error file=README.md::x\":\n    severity: error\n"},
	})
	for step, want := range map[string]string{
		"unknown":   `.apicheck.yaml:1:1: "a\n::error file=README.md::x": unknown key "a\n::error file=README.md::x"; known keys: `,
		"nested":    `.apicheck.yaml:5:5: "ignore[0].x\r::error file=README.md::x": unknown key "x\r::error file=README.md::x"; known keys: `,
		"duplicate": `.apicheck.yaml:3:3: "rules.\x1b[31m##\x5berror]x": duplicate key "\x1b[31m##\x5berror]x" (first at line 2)`,
		"rule":      `.apicheck.yaml:2:3: "rules.X\n::error file=README.md::x": unknown rule ID "X\n::error file=README.md::x"`,
	} {
		code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits[step], "--format", "github")
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d\n%s%s", step, code, ExitUsage, stdout, stderr)
		}
		if bad := forgedLines(stdout + stderr); len(bad) > 0 {
			t.Errorf("%s: forged lines %q in\n%s%s", step, bad, stdout, stderr)
		}
		if strings.Contains(stderr, "rawConfig") || strings.Contains(stderr, "config.") {
			t.Errorf("%s: stderr names apicheck's Go types: %s", step, stderr)
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr\n%s\nlacks\n%s", step, stderr, want)
		}
	}
}

// TestMarkersAndNotesInjectNoWorkflowCommands: an invalid
// +apicheck:ignore marker is an error that quotes it; with the
// configuration of the base revision trusted, head's invalid
// configuration is a note. Neither forges a line.
func TestMarkersAndNotesInjectNoWorkflowCommands(t *testing.T) {
	const types = "package v1\n\n// Spec is a spec.\ntype Spec struct {\n\t// +optional\n\tA *string `json:\"a,omitempty\"`\n%s\tB string `json:\"b\"`\n}\n"
	f := injectionRepo(t, map[string]map[string]string{
		"marker": {"pkg/apis/core/v1/types.go": strings.Replace(types, "%s", "\t// +apicheck:ignore=NEW_FIELD_NOT_POINTER##[error]x\x1b[31m\n", 1)},
		"config": {".apicheck.yaml": "\"a\\n::error file=README.md::x\": 1\n", "pkg/apis/core/v1/types.go": strings.Replace(types, "%s", "", 1)},
	})
	marker := `+apicheck:ignore="NEW_FIELD_NOT_POINTER##\x5berror]x\x1b[31m" has no reason`
	for _, c := range []struct {
		step   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"marker", []string{"--format", "github"}, ExitUsage, "", marker},
		{"config", []string{"--format", "github", "--trusted-config", "base"}, ExitFindings,
			`apicheck note: .apicheck.yaml of the head revision is not valid and not in effect (.apicheck.yaml:1:1: "a\n::error file=README.md::x": unknown key`, ""},
		{"config", []string{"--format", "text", "--trusted-config", "base"}, ExitFindings,
			`note: .apicheck.yaml of the head revision is not valid and not in effect (.apicheck.yaml:1:1: "a\n::error file=README.md::x": unknown key`, ""},
	} {
		args := append([]string{"check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits[c.step]}, c.args...)
		code, stdout, stderr := run(t, args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%s %v: exit %d, stdout and stderr\n%s%s\nwant exit %d, %q and %q", c.step, c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
		if bad := append(forged(stdout, c.args[1] == "github"), forgedLines(stderr)...); len(bad) > 0 {
			t.Errorf("%s %v: forged lines %q in\n%s%s", c.step, c.args, bad, stdout, stderr)
		}
	}
}
