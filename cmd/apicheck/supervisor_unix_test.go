//go:build unix

package main_test

import (
	"slices"
	"strings"
	"testing"
)

// TestSupervisorInitialisesLittle: the supervising process starts the
// check process while the program is initialised, before the packages
// only the check needs (package supervisor/early). GODEBUG=inittrace=1
// prints each process's package initialisation, the supervisor's first:
// it has none of the type checker, YAML, cobra or apicheck's own packages
// (the check process has them all).
func TestSupervisorInitialisesLittle(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), []string{"GODEBUG=inittrace=1"}, "version")
	if r.code != 0 || r.stdout != "apicheck v0.0.0-test\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// "init PKG @0.1 ms, ..." lines; a package seen again is the next
	// process's.
	var procs [][]string
	seen := map[string]bool{}
	for _, l := range strings.Split(r.stderr, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		if len(procs) == 0 || seen[f[1]] {
			procs, seen = append(procs, nil), map[string]bool{}
		}
		seen[f[1]] = true
		procs[len(procs)-1] = append(procs[len(procs)-1], f[1])
	}
	if len(procs) != 2 {
		t.Fatalf("%d processes' initialisation, want 2 (the supervisor's, the check's):\n%s", len(procs), r.stderr)
	}
	for _, pkg := range []string{"go/types", "go.yaml.in/yaml/v3", "github.com/spf13/cobra", "github.com/apicheck/apicheck/internal/cli"} {
		if slices.Contains(procs[0], pkg) || !slices.Contains(procs[1], pkg) {
			t.Errorf("%s: initialised by the supervisor %v, by the check process %v; want the check process only",
				pkg, slices.Contains(procs[0], pkg), slices.Contains(procs[1], pkg))
		}
	}
	if !slices.Contains(procs[0], "os/signal") {
		t.Errorf("the supervisor did not initialise os/signal: %q", procs[0])
	}
}
