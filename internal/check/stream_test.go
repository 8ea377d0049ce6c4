package check_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// group is one API group of a generated history: its version package at
// base and at head.
type group struct {
	dir, name  string
	base, head string // the bodies of types.go after the package clause
}

const plainTypes = `
// Widget is a kind.
type Widget struct {
	// Size is the size.
	// +optional
	Size *int32 ` + "`json:\"size,omitempty\"`" + `
}
`

const addedValue = `
// Widget is a kind.
type Widget struct {
	// Size is the size.
	// +optional
	Size *int32 ` + "`json:\"size,omitempty\"`" + `
	// Color is new, and a value.
	// +optional
	Color string ` + "`json:\"color\"`" + `
}
`

// history writes a txtar history of the groups; config is .apicheck.yaml
// at base and at head.
func history(groups []group, baseConfig, headConfig string) []byte {
	var b strings.Builder
	for _, step := range []string{"base", "head"} {
		fmt.Fprintf(&b, "-- %s/go.mod --\nmodule example.cloud/x\n\ngo 1.22\n", step)
		cfg := baseConfig
		if step == "head" {
			cfg = headConfig
		}
		if cfg != "" {
			fmt.Fprintf(&b, "-- %s/.apicheck.yaml --\n%s", step, cfg)
		}
		for _, g := range groups {
			body := g.base
			if step == "head" {
				body = g.head
			}
			if body == "" {
				continue
			}
			fmt.Fprintf(&b, "-- %s/%s/v1/doc.go --\n// +groupName=%s\npackage v1\n", step, g.dir, g.name)
			fmt.Fprintf(&b, "-- %s/%s/v1/types.go --\npackage v1\n%s", step, g.dir, body)
		}
	}
	return []byte(b.String())
}

// judge checks base against head, whole and in parts of one file.
func judge(t *testing.T, archive []byte) (whole, parts *check.Result) {
	t.Helper()
	return judgeIn(t, archive, "")
}

// judgeIn is judge with the module cache modCache ("": the go command's).
func judgeIn(t *testing.T, archive []byte, modCache string) (whole, parts *check.Result) {
	t.Helper()
	fx := gitfixture.FromTxtarCommits(t, archive)
	req := check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
		Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}, ModCache: modCache}
	var err error
	if whole, err = check.Run(req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(whole.Close)
	req.Stream, req.StreamFiles = true, 1
	if parts, err = check.Run(req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(parts.Close)
	if diff := cmp.Diff(whole.Report, parts.Report); diff != "" {
		t.Errorf("the report judged in %d parts differs from the whole tree's (-whole +parts):\n%s", parts.Parts, diff)
	}
	return whole, parts
}

func rulesOf(r *finding.Report) []string {
	var out []string
	for _, f := range r.Findings {
		s := f.Rule + " " + f.Path
		if f.Suppressed != "" {
			s += " (suppressed)"
		}
		out = append(out, s)
	}
	return out
}

// TestStreamIndependentGroups: groups that nothing ties are judged part by
// part; findings, suppressions, an unused ignore entry and the notes come
// out as the whole tree's.
func TestStreamIndependentGroups(t *testing.T) {
	cfg := `profile: crd
ignore:
  - rule: NEW_FIELD_NOT_POINTER
    package: example.cloud/x/apis/b/v1
    type: Widget
    reason: b is not served yet
  - rule: NEW_FIELD_NOT_POINTER
    package: example.cloud/x/apis/nothere/v1
    type: Widget
    reason: matches nothing
`
	groups := []group{
		{dir: "apis/a", name: "a.example.cloud", base: plainTypes, head: addedValue},
		{dir: "apis/b", name: "b.example.cloud", base: plainTypes, head: addedValue},
		{dir: "apis/c", name: "c.example.cloud", base: plainTypes, head: plainTypes},
		{dir: "apis/d", name: "d.example.cloud", head: addedValue}, // new group
	}
	whole, parts := judge(t, history(groups, cfg, cfg))
	if parts.Parts != 4 {
		t.Fatalf("judged in %d parts, want 4 (one a group)", parts.Parts)
	}
	want := []string{
		"NEW_FIELD_NOT_POINTER apis/a/v1/types.go",
		"NEW_FIELD_NO_OMITEMPTY apis/a/v1/types.go",
		"NEW_FIELD_NOT_POINTER apis/b/v1/types.go (suppressed)",
		"NEW_FIELD_NO_OMITEMPTY apis/b/v1/types.go",
		"OPTIONAL_WITHOUT_OMITEMPTY apis/d/v1/types.go", // a new group's fields are not new fields
	}
	if got := rulesOf(whole.Report); !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
	unused := 0
	for _, n := range parts.Report.Notes {
		if strings.Contains(n, "matched no finding") {
			unused++
			if !strings.Contains(n, "nothere") {
				t.Errorf("note %q: the entry for b matched a finding of its part", n)
			}
		}
	}
	if unused != 1 {
		t.Errorf("%d notes about unused ignore entries, want 1: %q", unused, parts.Report.Notes)
	}
	if parts.Diff != nil || len(parts.HeadModel.Groups) != 4 {
		t.Errorf("a tree judged in parts: Diff %v, %d groups in head's model; want no diff and 4 groups", parts.Diff != nil, len(parts.HeadModel.Groups))
	}
}

// TestStreamFallsBack: where parts are tied (a type of another group, a
// group name in two directories) or the configuration changed, the tree
// is judged whole.
func TestStreamFallsBack(t *testing.T) {
	importsA := `
import av1 "example.cloud/x/apis/a/v1"

// Gadget holds a widget.
type Gadget struct {
	// +optional
	Widget *av1.Widget ` + "`json:\"widget,omitempty\"`" + `
}
`
	cfg := "profile: crd\n"
	for _, c := range []struct {
		name       string
		groups     []group
		headConfig string
	}{
		{"type of another group", []group{
			{dir: "apis/a", name: "a.example.cloud", base: plainTypes, head: addedValue},
			{dir: "apis/b", name: "b.example.cloud", base: importsA, head: importsA + addedValue[1:]},
		}, cfg},
		{"group name in two directories", []group{
			{dir: "apis/a", name: "same.example.cloud", base: plainTypes, head: addedValue},
			{dir: "legacy/a", name: "same.example.cloud", base: plainTypes},
		}, cfg},
		{"configuration changed", []group{
			{dir: "apis/a", name: "a.example.cloud", base: plainTypes, head: addedValue},
			{dir: "apis/b", name: "b.example.cloud", base: plainTypes, head: addedValue},
		}, cfg + "exclude: [legacy]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, parts := judge(t, history(c.groups, cfg, c.headConfig))
			if parts.Parts != 0 {
				t.Errorf("judged in %d parts, want the whole tree", parts.Parts)
			}
			if len(whole.Report.Findings) == 0 {
				t.Error("no findings: the history should have some")
			}
		})
	}
}

// TestStreamExternalPackages: parts may read the same packages of
// k8s.io/api from the module cache (they are not judged), but when their
// parts read as many as a scan of the whole tree reads at most
// (scan.MaxExternal), the tree is judged whole.
func TestStreamExternalPackages(t *testing.T) {
	cache := t.TempDir()
	// Chains of packages: k8s.io/api/<prefix>0/v1.T reaches <prefix>1, …
	chain := func(prefix string, n int) {
		for i := range n {
			next, imp := "string", ""
			if i+1 < n {
				imp = fmt.Sprintf("import next \"k8s.io/api/%s%d/v1\"\n\n", prefix, i+1)
				next = "next.T"
			}
			dir := filepath.Join(cache, "k8s.io", "api@v0.33.3", fmt.Sprintf("%s%d", prefix, i), "v1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src := fmt.Sprintf("package v1\n\n%stype T struct {\n\tNext %s `json:\"next\"`\n}\n", imp, next)
			if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o444); err != nil {
				t.Fatal(err)
			}
		}
	}
	half := scan.MaxExternal/2 + 2
	chain("a", half)
	chain("b", half)
	reaching := func(prefix string) string {
		return fmt.Sprintf("\nimport ext \"k8s.io/api/%s0/v1\"\n\n// Holder holds a chain.\ntype Holder struct {\n\t// +optional\n\tChain *ext.T `json:\"chain,omitempty\"`\n}\n", prefix)
	}
	archive := func(groups []group) []byte {
		return []byte(strings.ReplaceAll(string(history(groups, "profile: crd\n", "profile: crd\n")),
			"module example.cloud/x\n\ngo 1.22\n", "module example.cloud/x\n\ngo 1.22\n\nrequire k8s.io/api v0.33.3\n"))
	}
	for _, c := range []struct {
		name   string
		groups []group
		parts  int
	}{
		{"the same packages", []group{
			{dir: "apis/a", name: "a.example.cloud", base: reaching("a") + plainTypes, head: reaching("a") + addedValue},
			{dir: "apis/b", name: "b.example.cloud", base: reaching("a") + plainTypes, head: reaching("a") + addedValue},
		}, 2},
		{"more packages than a scan reads", []group{
			{dir: "apis/a", name: "a.example.cloud", base: reaching("a") + plainTypes, head: reaching("a") + addedValue},
			{dir: "apis/b", name: "b.example.cloud", base: reaching("b") + plainTypes, head: reaching("b") + addedValue},
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, parts := judgeIn(t, archive(c.groups), cache)
			if parts.Parts != c.parts {
				t.Errorf("judged in %d parts, want %d", parts.Parts, c.parts)
			}
			if len(whole.Report.Findings) == 0 {
				t.Error("no findings: the history should have some")
			}
			want := half // one chain
			if c.parts == 0 {
				want = scan.MaxExternal // both chains, cut at the bound
			}
			if n := len(whole.HeadModel.External); n != want {
				t.Errorf("the whole tree's head holds %d external packages, want %d", n, want)
			}
		})
	}
}

// TestGCPercent: a check (or an audit) of a tree that is small for sure
// turns the collector off under a memory limit until it first runs, then
// sets the percentage it was given and the limit there was; one of a tree
// larger than two parts (here parts of one file) leaves the runtime's
// setting.
func TestGCPercent(t *testing.T) {
	fx := gitfixture.FromTxtarCommits(t, history([]group{
		{dir: "apis/a", name: "a.example.cloud", base: plainTypes, head: addedValue},
		{dir: "apis/b", name: "b.example.cloud", base: plainTypes, head: plainTypes},
	}, "", ""))
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	configured := filepath.Join(t.TempDir(), "groups.yaml")
	if err := os.WriteFile(configured, []byte("groups:\n  - dir: apis/a\n  - dir: apis/b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		partFiles int
		gcPercent int
		config    string
		wantAfter int
	}{
		{"small", 0, 321, "", 321},
		{"small, groups configured", 0, 321, configured, 321},
		{"large", 1, 321, "", 100},
		{"large, groups configured", 1, 321, configured, 100},
		{"not asked", 0, 0, "", 100},
	} {
		debug.SetGCPercent(100)
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"], ConfigPath: c.config,
			Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}, Stream: true, StreamFiles: c.partFiles, GCPercent: c.gcPercent})
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		// The fixture allocates far less than the floor: no collection
		// ran during the check.
		if off, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); c.gcPercent > 0 && c.partFiles == 0 && (off != -1 || limit != 128<<20) {
			t.Errorf("%s: right after the check the GC percent is %d and the memory limit %d, want -1 and 128 MiB", c.name, off, limit)
		} else {
			debug.SetGCPercent(off)
		}
		if got := gcPercentAfterCollection(t); got != c.wantAfter {
			t.Errorf("%s: GC percent after the check = %d, want %d", c.name, got, c.wantAfter)
		}
	}
	// A large tree with a heap limit asked for runs under a memory limit
	// of at least that; a small one gets the small tree's settings only.
	for _, c := range []struct {
		name      string
		partFiles int
		wantLimit bool
	}{{"large, heap limit", 1, true}, {"small, heap limit", 0, false}} {
		debug.SetGCPercent(100)
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
			Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}, Stream: true, StreamFiles: c.partFiles, HeapLimit: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		limit := check.StopHeapLimit()
		if c.wantLimit && (limit < 64<<20 || limit == math.MaxInt64) {
			t.Errorf("%s: memory limit after the check = %d, want at least 64 MiB", c.name, limit)
		}
		if !c.wantLimit && limit != math.MaxInt64 {
			t.Errorf("%s: memory limit after the check = %d, want none", c.name, limit)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("%s: GC percent after the check = %d, want 100 (left alone)", c.name, got)
		}
	}
	// An audit reads one revision, as small.
	res, err := check.Audit(check.Request{Dir: fx.Dir, Head: fx.Commits["head"], GCPercent: 321, Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if got := gcPercentAfterCollection(t); got != 321 {
		t.Errorf("audit: GC percent after it = %d, want 321", got)
	}
}

// gcPercentAfterCollection is the collector's percentage once it has run
// after a check (a small tree's check leaves it off, under a memory limit,
// until then), and resets it to 100. The memory limit must be back to what
// it was (none).
func gcPercentAfterCollection(t *testing.T) int {
	t.Helper()
	got := debug.SetGCPercent(100)
	debug.SetGCPercent(got)
	for deadline := time.Now().Add(5 * time.Second); got < 0 && time.Now().Before(deadline); {
		if limit := debug.SetMemoryLimit(-1); limit == math.MaxInt64 {
			t.Errorf("the collector is off without a memory limit")
			break
		}
		runtime.GC() // the finalizer that turns it back on runs after a collection
		time.Sleep(time.Millisecond)
		got = debug.SetGCPercent(100)
		debug.SetGCPercent(got)
	}
	if limit := debug.SetMemoryLimit(-1); got >= 0 && limit != math.MaxInt64 {
		t.Errorf("memory limit after the first collection = %d, want none", limit)
	}
	debug.SetGCPercent(100)
	return got
}
