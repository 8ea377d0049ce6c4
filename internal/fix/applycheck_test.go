package fix

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// CheckPatch checks that diff is a patch git and patch accept: in a fresh
// repository (t.TempDir()) holding the files of before (repo-relative
// slash paths), `git apply --check` accepts it and `git apply` turns
// every file into its content in after; `patch -p1` (when installed)
// does the same in a second copy. Files of before not in after must be
// left as they were. A nil after checks only that the patch applies.
func CheckPatch(t *testing.T, before, after map[string][]byte, diff []byte) {
	t.Helper()
	var want map[string][]byte // nil: compare nothing
	if after != nil {
		want = map[string][]byte{}
		for p, b := range before {
			want[p] = b
		}
		for p, b := range after {
			want[p] = b
		}
	}
	fx := gitfixture.New(t)
	writeFiles(t, fx.Dir, before)
	fx.GitStdin(string(diff), "apply", "--check")
	fx.GitStdin(string(diff), "apply")
	compareFiles(t, "git apply", fx.Dir, want)
	if _, err := exec.LookPath("patch"); err != nil {
		return
	}
	dir := t.TempDir()
	writeFiles(t, dir, before)
	for _, args := range [][]string{{"-p1", "--dry-run", "-s", "-f"}, {"-p1", "-s", "-f", "--no-backup-if-mismatch"}} {
		cmd := exec.Command("patch", args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(diff)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch %v: %v\n%s\ndiff:\n%s", args, err, out, diff)
		}
	}
	compareFiles(t, "patch -p1", dir, want)
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func compareFiles(t *testing.T, tool, dir string, want map[string][]byte) {
	t.Helper()
	var names []string
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: %v", tool, err)
			continue
		}
		if !bytes.Equal(got, want[p]) {
			t.Errorf("%s: %s is\n%s\nwant\n%s", tool, p, got, want[p])
		}
	}
}
