//go:build unix

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestReportModeFollowsUmask: report files are created 0666 minus the
// umask, as a shell redirection creates them (issue: 0600 whatever the
// umask, unreadable to a CI step running as another user of the group).
func TestReportModeFollowsUmask(t *testing.T) {
	t.Parallel()
	fx := example(t)
	for umask, want := range map[string]os.FileMode{"002": 0o664, "077": 0o600} {
		out := t.TempDir()
		// The shell sets the umask the binary (and its check process) inherit.
		cmd := exec.Command("/bin/sh", "-c", `umask "$0" && exec "$@"`, umask, binary, "check",
			"--base", fx.Commits["base"], "--head", fx.Commits["head"],
			"--output", filepath.Join(out, "r.json"), "--format", "json", "--report", "markdown="+filepath.Join(out, "r.md"))
		cmd.Dir = fx.Dir
		cmd.Env = append(os.Environ(), hermetic.UserDirs(t)...)
		b, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("umask %s: %v (want exit 1): %s", umask, err, b)
		}
		for _, name := range []string{"r.json", "r.md"} {
			fi, err := os.Stat(filepath.Join(out, name))
			if err != nil || fi.Mode().Perm() != want {
				t.Errorf("umask %s: %s: %v %v, want mode %v", umask, name, fi.Mode().Perm(), err, want)
			}
		}
		if es, _ := os.ReadDir(out); len(es) != 2 {
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			t.Errorf("umask %s: output directory holds %s", umask, strings.Join(names, " "))
		}
	}
}
