package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func TestLevenshteinAndSuggest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"base", "base", 0}, {"bas", "base", 1}, {"fromat", "format", 2}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := config.EditDistance(c.a, c.b); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	flags := []string{"base", "head", "format", "fail-on", "output", "repo", "report", "config", "help"}
	for name, want := range map[string][]string{
		"bas":     {"base"},
		"fromat":  {"format"},
		"fail":    {"fail-on"},
		"repot":   {"repo", "report"},
		"rep":     {"repo"},
		"xyz":     nil,
		"BASE":    nil, // the same name in another case is not a suggestion
		"failon":  {"fail-on"},
		"confgi":  {"config"},
		"outptu":  {"output"},
		"headers": nil,
	} {
		if got := suggest(name, flags); !slices.Equal(got, want) {
			t.Errorf("suggest(%q) = %q, want %q", name, got, want)
		}
	}
}

// Mistyped commands, flags and rule IDs are usage errors (exit 2) that
// say what was probably meant.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chekc"}, "unknown command \"chekc\" for \"apicheck\"\n\nDid you mean this?\n\tcheck"},
		{[]string{"rule"}, "Did you mean this?\n\trules"},
		{[]string{"check", "--bas", "main"}, "unknown flag: --bas\nDid you mean --base?\nRun 'apicheck check --help' for usage."},
		{[]string{"check", "--bas=main"}, "Did you mean --base?"},
		{[]string{"audit", "--fromat", "json"}, "Did you mean --format?"},
		{[]string{"check", "--rev", "main"}, "--rev is a flag of apicheck audit, apicheck deprecations, apicheck dump, not of apicheck check"},
		{[]string{"check", "-O", "x"}, "unknown shorthand flag: 'O' in -O\nDid you mean -o (--output)?"},
		{[]string{"rules", "NEW_FILED_NOT_POINTER"}, `unknown rule "NEW_FILED_NOT_POINTER": did you mean NEW_FIELD_NOT_POINTER?`},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, stderr, stdout, c.want)
		}
	}
	// Nothing close: no suggestion.
	_, _, stderr := run(t, "check", "--zzzzzz")
	if strings.Contains(stderr, "Did you mean") || strings.Contains(stderr, "is a flag of") {
		t.Errorf("--zzzzzz: %q", stderr)
	}
}

// completions runs cobra's hidden completion command and returns the
// candidates (without descriptions) and the directive line.
func completions(t *testing.T, args ...string) (cands []string, directive string) {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"__complete"}, args...)...)
	if code != ExitOK {
		t.Fatalf("__complete %v: exit %d\n%s", args, code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if strings.HasPrefix(l, ":") {
			directive = l
			continue
		}
		name, _, _ := strings.Cut(l, "\t")
		cands = append(cands, name)
	}
	return cands, directive
}

func TestCompletion(t *testing.T) {
	code, stdout, _ := run(t, "completion", "bash")
	if code != ExitOK || !strings.Contains(stdout, "bash completion") {
		t.Errorf("completion bash: exit %d, %.80q", code, stdout)
	}
	for _, shell := range []string{"zsh", "fish", "powershell"} {
		if code, stdout, _ := run(t, "completion", shell); code != ExitOK || stdout == "" {
			t.Errorf("completion %s: exit %d", shell, code)
		}
	}

	f := gitfixture.FromTxtar(t, []byte("-- one@v1.0.0/a.txt --\na\n-- two/a.txt --\nb\n"))
	f.SetRef("origin/main", "one")
	f.Git("branch", "feature", f.Commits["one"])

	for _, c := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"check", "--format", ""}, []string{"github", "json", "markdown", "sarif", "text"}, ":4"},
		{[]string{"audit", "--format", "ma"}, []string{"markdown"}, ":4"},
		{[]string{"rules", "--format", ""}, []string{"json", "markdown", "text"}, ":4"},
		{[]string{"check", "--fail-on", ""}, []string{"error", "warning", "info", "none"}, ":4"},
		{[]string{"check", "--report", "sa"}, []string{"sarif="}, ":6"}, // no space after FORMAT=
		{[]string{"check", "--repo", f.Dir, "--base", ""}, []string{"feature", "main", "origin/main", "v1.0.0"}, ":4"},
		{[]string{"check", "--repo", f.Dir, "--head", "o"}, []string{"origin/main"}, ":4"},
		{[]string{"audit", "--repo", f.Dir, "--rev", "v"}, []string{"v1.0.0"}, ":4"},
		{[]string{"dump", "--repo", f.Dir, "--rev", "f"}, []string{"feature"}, ":4"},
		{[]string{"check", "--repo", t.TempDir(), "--base", ""}, nil, ":4"}, // not a repository: nothing
		{[]string{"rules", "PROTO_NUMBER_R"}, []string{"PROTO_NUMBER_REUSED"}, ":4"},
		{[]string{"rules", "proto_number_c"}, []string{"PROTO_NUMBER_CHANGED"}, ":4"},
		{[]string{"rules", "PROTO_NUMBER_REUSED", "PROTO_NUMBER_RE"}, nil, ":4"}, // given already
	} {
		got, directive := completions(t, c.args...)
		if !slices.Equal(got, c.want) || directive != c.directive {
			t.Errorf("__complete %q = %q %s, want %q %s", c.args, got, directive, c.want, c.directive)
		}
	}
}

// The help of the main commands has examples and the exit codes.
func TestHelpHasExamplesAndExitCodes(t *testing.T) {
	for cmd, codes := range map[string][]string{
		"check": {"  0  no finding at or above --fail-on", "  1  findings at or above --fail-on", "  2  usage or configuration error", "  3  scan or internal failure"},
		"audit": {"  0  no finding at or above --fail-on", "  1  findings at or above --fail-on", "  2  usage or configuration error", "  3  scan or internal failure"},
		"init":  {"  0  the file was written", "  2  usage error", "  3  scan or internal failure"},
		"rules": {"  0  the rules were printed", "  2  usage error (an unknown rule ID or format)", "  3  internal failure"},
	} {
		code, stdout, _ := run(t, cmd, "--help")
		if code != ExitOK {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
		if !strings.Contains(stdout, "\nExamples:\n  ") || !strings.Contains(stdout, "  apicheck "+cmd) {
			t.Errorf("%s --help has no examples:\n%s", cmd, stdout)
		}
		if !strings.Contains(stdout, "\nExit codes:\n") {
			t.Errorf("%s --help has no exit codes:\n%s", cmd, stdout)
		}
		for _, c := range codes {
			if !strings.Contains(stdout, c) {
				t.Errorf("%s --help lacks %q", cmd, c)
			}
		}
	}
}
