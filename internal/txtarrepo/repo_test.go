package txtarrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const history = `-- base/go.mod --
module example.com/m
-- base/api/old.go --
package api
-- head@v1.0.0/api/old.go --
(deleted)
-- head/api/new.go --
package api
-- worktree/api/wip.go --
package api
`

// Build commits every step but the worktree one, with a branch per step
// and the step's tags, the same commits on every run.
func TestBuild(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	steps, err := Parse([]byte(history))
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{Name: "apicheck test", Email: "test@apicheck.invalid"}
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var refs []string
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := Build(dir, steps, id, date); err != nil {
			t.Fatal(err)
		}
		r := &Repo{Dir: dir, id: id, env: hermeticEnv(t.TempDir())}
		out, err := r.Git("for-each-ref", "--format=%(objectname) %(refname)")
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, out)
		if files, err := r.Git("ls-tree", "-r", "--name-only", "head"); err != nil || files != "api/new.go\ngo.mod" {
			t.Errorf("head's tree = %q, %v", files, err)
		}
		if msg, err := r.Git("log", "--format=%an <%ae> %aI %s", "-1", "base"); err != nil || msg != "apicheck test <test@apicheck.invalid> 2024-01-01T00:00:00+00:00 base" {
			t.Errorf("base's commit = %q, %v", msg, err)
		}
		if tagged, _ := r.Git("rev-parse", "v1.0.0"); tagged == "" || !strings.Contains(out, tagged+" refs/heads/head") {
			t.Errorf("v1.0.0 at %q, not at head:\n%s", tagged, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "api", "wip.go")); err != nil {
			t.Errorf("the worktree step is not on disk: %v", err)
		}
		if st, _ := r.Git("status", "--porcelain"); st != "?? api/wip.go" {
			t.Errorf("status = %q, want the worktree step's file untracked", st)
		}
	}
	if refs[0] != refs[1] {
		t.Errorf("two builds made different commits:\n%s\n%s", refs[0], refs[1])
	}
}
