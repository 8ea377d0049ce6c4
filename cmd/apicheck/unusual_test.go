package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestUnusualRepositories: what a bare repository, a partial clone and a
// Go file name that is not UTF-8 give at the command line: clear errors
// with exit 2 (what the user asked for cannot be done) or 3 (the input
// cannot be read), never a wrong report.
func TestUnusualRepositories(t *testing.T) {
	t.Parallel()
	api := map[string]string{
		"go.mod":                      "module example.com/m\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":     "// +groupName=core.example.com\npackage v1\n",
		"pkg/apis/core/v1/types.go":   "package v1\n\n// Spec is a spec.\ntype Spec struct{}\n",
		"pkg/apis/core/v1/caf\xe9.go": "package v1\n\n// Cafe has a Latin-1 file name.\ntype Cafe struct{}\n",
	}
	bare := gitfixture.Init(t, "--bare")
	bare.ImportTrees([]map[string]string{api}, map[string]int{"refs/heads/base": 0})
	bare.AppendConfig("[uploadpack]\n\tallowFilter = true\n")
	clone := filepath.Join(filepath.Dir(bare.Dir), "clone")
	bare.Git("clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+bare.Dir, clone)

	for _, c := range []struct {
		name string
		dir  string
		args []string
		code int
		want []string
	}{
		{"bare repository, working tree", bare.Dir, []string{"check", "--base", "base"}, 2,
			[]string{"no working tree: ", bare.Dir + " is a bare repository", "--head REF"}},
		{"bare repository, non-UTF-8 Go file name", bare.Dir, []string{"check", "--base", "base", "--head", "main"}, 3,
			[]string{`"pkg/apis/core/v1/caf\xe9.go"`, "not valid UTF-8"}},
		{"partial clone", clone, []string{"check", "--base", "origin/main", "--head", "origin/main"}, 3,
			[]string{"partial clone", "git fetch --refetch --no-filter origin ", "clone without --filter"}},
	} {
		r := run(t, c.dir, nil, c.args...)
		if r.code != c.code || r.stdout != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q", c.name, r.code, c.code, r.stdout, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, r.stderr, w)
			}
		}
	}
}
