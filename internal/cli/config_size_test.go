package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestHugeConfig: an .apicheck.yaml far above the 1 MiB limit (issue:
// 80 MB ran out of memory) is a configuration error, exit 2, naming the
// file and its size, wherever it comes from: a commit (above even the
// per-file read limit of git snapshots), the working tree, the base
// revision with --trusted-config base, or --config on disk (not read
// whole).
func TestHugeConfig(t *testing.T) {
	api := map[string]string{
		"go.mod":                    "module example.com/api\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":   "// +groupName=core.example.com\npackage v1\n",
		"pkg/apis/core/v1/types.go": "package v1\n\n// Spec is a spec.\ntype Spec struct{}\n",
	}
	size := git.MaxFileSize + 1
	huge := "rules: {}\n" + strings.Repeat("#", size-11) + "\n"
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "clean", Files: api},
		gitfixture.Commit{Step: "base", Files: map[string]string{".apicheck.yaml": huge}},
		gitfixture.Commit{Step: "head", Files: map[string]string{"pkg/apis/core/v1/more.go": "package v1\n"}})
	f.Checkout()
	onDisk := filepath.Join(t.TempDir(), "apicheck.yaml")
	if err := os.WriteFile(onDisk, []byte("rules: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const diskSize = 80 << 20
	if err := os.Truncate(onDisk, diskSize); err != nil { // sparse: cheap to make
		t.Fatal(err)
	}
	limit := "a configuration may have at most 1048576 (1 MiB)"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"commit", []string{"--base", f.Commits["clean"], "--head", f.Commits["head"]},
			".apicheck.yaml: the file has " + strconv.Itoa(size) + " bytes; " + limit},
		{"working tree", []string{"--base", f.Commits["clean"]},
			".apicheck.yaml: the file has " + strconv.Itoa(size) + " bytes; " + limit},
		{"trusted base", []string{"--base", f.Commits["base"], "--head", f.Commits["head"], "--trusted-config", "base"},
			".apicheck.yaml: the file has " + strconv.Itoa(size) + " bytes; " + limit},
		{"--config", []string{"--base", f.Commits["clean"], "--head", f.Commits["clean"], "--config", onDisk},
			"apicheck.yaml: the file has " + strconv.Itoa(diskSize) + " bytes; " + limit},
	} {
		code, out, errOut := run(t, append([]string{"check", "--repo", f.Dir}, c.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, code, out, errOut, ExitUsage, c.want)
		}
	}
}
