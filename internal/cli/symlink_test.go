package cli

import (
	"runtime"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestSymlinkedGoFiles: a package made partly of symbolic links to the Go
// files of another (Gardener's hvpa-controller keeps internal/api/v1alpha1
// as links to api/v1alpha1) scans, at a commit and in the working tree:
// the links are not read as Go (their content is a path; the scan failed
// with exit 3 on "expected 'package'"), a note names them, and the API is
// judged once, where its files live.
func TestSymlinkedGoFiles(t *testing.T) {
	const doc = "// +groupName=core.example.com\npackage v1\n"
	const types = "package v1\n\n// Spec is a spec.\ntype Spec struct {\n\t// +optional\n\tName *string `json:\"name,omitempty\"`\n}\n"
	const changed = "package v1\n\n// Spec is a spec.\ntype Spec struct {\n\t// +optional\n\tName *string `json:\"name,omitempty\"`\n\tSize int `json:\"size\"`\n}\n"
	links := map[string]string{
		"internal/apis/core/v1/doc.go":   "../../../../pkg/apis/core/v1/doc.go",
		"internal/apis/core/v1/types.go": "../../../../pkg/apis/core/v1/types.go",
		"internal/apis/core/v1/zz_link":  "types.go", // not a Go file: not read either way
	}
	modes := map[string]string{}
	base := map[string]string{
		"go.mod":                        "module example.com/api\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":       doc,
		"pkg/apis/core/v1/types.go":     types,
		"internal/apis/core/v1/hook.go": "package v1\n\nfunc Hook() {}\n",
	}
	for p, target := range links {
		base[p], modes[p] = target, "120000"
	}
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "base", Files: base, Modes: modes},
		gitfixture.Commit{Step: "head", Files: map[string]string{"pkg/apis/core/v1/types.go": changed}})
	f.Checkout()
	note := "note: internal/apis/core/v1: internal/apis/core/v1/doc.go, internal/apis/core/v1/types.go not read: " +
		"a symbolic link to a Go file is not followed (the API is judged where its files live)"
	cases := []struct {
		name string
		args []string
	}{
		{"commit", []string{"--head", f.Commits["head"]}},
	}
	// A Windows checkout writes links as files holding their target
	// (core.symlinks=false): the working tree has no links to leave out.
	if runtime.GOOS != "windows" {
		cases = append(cases, struct {
			name string
			args []string
		}{"working tree", nil})
	}
	for _, c := range cases {
		code, out, errOut := run(t, append([]string{"check", "--repo", f.Dir, "--base", f.Commits["base"], "--format", "text"}, c.args...)...)
		if code != ExitFindings || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit %d", c.name, code, errOut, ExitFindings)
		}
		if !strings.Contains(out, note) {
			t.Errorf("%s: no note on the links in\n%s", c.name, out)
		}
		want := "pkg/apis/core/v1/types.go:7:2: error NEW_FIELD_NOT_OPTIONAL "
		if strings.Count(out, " NEW_FIELD_NOT_OPTIONAL ") != 1 || !strings.Contains(out, want) {
			t.Errorf("%s: want NEW_FIELD_NOT_OPTIONAL once, at %q, in\n%s", c.name, want, out)
		}
		if strings.Contains(out, "internal/apis/core/v1/types.go:") {
			t.Errorf("%s: the API is judged through its links too:\n%s", c.name, out)
		}
	}
}
