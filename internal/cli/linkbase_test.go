package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func TestReportOptionsLinkBase(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	gh := env("GITHUB_SERVER_URL", "https://github.com", "GITHUB_REPOSITORY", "gardener/gardener")
	for _, c := range []struct {
		name, flag string
		getenv     func(string) string
		want       string
	}{
		{"none", "", env(), ""},
		{"flag", "https://github.com/o/r/", env(), "https://github.com/o/r"},
		{"flag wins over GitHub", "https://git.example.com/o/r", gh, "https://git.example.com/o/r"},
		{"GitHub Actions", "", gh, "https://github.com/gardener/gardener"},
		{"GitHub Enterprise", "", env("GITHUB_SERVER_URL", "https://ghe.example.com/", "GITHUB_REPOSITORY", "a/b"), "https://ghe.example.com/a/b"},
		{"half the environment", "", env("GITHUB_REPOSITORY", "a/b"), ""},
		{"unusable environment", "", env("GITHUB_SERVER_URL", "javascript:x", "GITHUB_REPOSITORY", "a/b"), ""},
	} {
		o, err := reportOptions(c.flag, c.getenv)
		if err != nil || o.LinkBase != c.want {
			t.Errorf("%s: LinkBase %q, %v; want %q", c.name, o.LinkBase, err, c.want)
		}
	}
	if _, err := reportOptions("github.com/o/r", env()); err == nil || !strings.Contains(err.Error(), "--link-base") {
		t.Errorf("a URL without scheme: err = %v", err)
	}
}

func TestCheckMarkdownLinks(t *testing.T) {
	f := gitfixture.FromTxtar(t, []byte(reportsHistory))
	head := f.Commits["head"]
	p := filepath.Join(t.TempDir(), "apicheck.md")
	code, _, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", head,
		"--report", "markdown="+p, "--link-base", "https://github.com/o/r")
	if code != ExitFindings {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	md, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "(https://github.com/o/r/blob/" + head + "/pkg/apis/core/v1beta1/types.go#L"; !strings.Contains(string(md), want) {
		t.Errorf("no link %s... in\n%s", want, md)
	}
	if !strings.HasPrefix(string(md), "<!-- apicheck -->\n") {
		t.Errorf("the marker is not the first line")
	}
	// A bad --link-base is a usage error before anything runs.
	code, _, stderr = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", head, "--link-base", "o/r")
	if code != ExitUsage || !strings.Contains(stderr, "--link-base") {
		t.Errorf("bad --link-base: exit code %d, stderr %q", code, stderr)
	}
}
