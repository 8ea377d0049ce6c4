package scan_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// commitSource is a countingSource that is a commit: its files, named by
// blob, at a commit sha (ref "" is a branch; git.WorktreeRef the working
// tree). fail names files whose reading fails.
type commitSource struct {
	countingSource
	ref, sha string
	fail     map[string]bool
}

func (c commitSource) Ref() string    { return c.ref }
func (c commitSource) Commit() string { return c.sha }

func (c commitSource) ReadFiles(paths []string) (map[string][]byte, error) {
	for _, p := range paths {
		if c.fail[p] {
			return nil, errors.New(p + ": object missing")
		}
	}
	return c.countingSource.ReadFiles(paths)
}

func newCommit(files mapSource, sha string) commitSource {
	return commitSource{countingSource: countingSource{blobSource: blobSource{files}, mu: &sync.Mutex{}, reads: map[string]int{}}, ref: "main", sha: sha}
}

func (c commitSource) readCount() int {
	n := 0
	for _, k := range c.reads {
		n += k
	}
	return n
}

func memoEntries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

var ignoreIndexes = cmpopts.IgnoreUnexported(model.Package{}, model.Type{})

// A commit scanned again with the same options comes from the memo: no
// file is read, and the model, contracts included, is the one a scan
// builds. Other options, a change of what the module cache holds of the
// packages resolution read, or a damaged entry: the scan runs again.
func TestMemo(t *testing.T) {
	cache := writeModCache(t, map[string]string{
		"k8s.io/api@v0.33.3/core/v1/types.go":                   k8sCore,
		"k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go": "package v1\n\ntype ObjectMeta struct {\n\tName string `json:\"name,omitempty\"`\n}\n",
	})
	dir := t.TempDir()
	memo := scan.NewMemo(dir)
	opts := scan.Options{ModCache: cache, Memo: memo}
	scanned := func(t *testing.T, src commitSource, opts scan.Options) *model.Model {
		t.Helper()
		m, err := scan.Scan(src, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Memo.Wait()
		return m
	}
	want := func(t *testing.T, opts scan.Options) *model.Model {
		t.Helper()
		opts.Memo = nil
		m, err := scan.Scan(k8sRepo("v0.33.3"), opts)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	first := newCommit(k8sRepo("v0.33.3"), "c1")
	m := scanned(t, first, opts)
	if first.readCount() == 0 || memoEntries(t, dir) != 1 {
		t.Fatalf("first scan: %d reads, %d entries; want reads and 1 entry", first.readCount(), memoEntries(t, dir))
	}
	if d := cmp.Diff(want(t, opts), m, ignoreIndexes); d != "" {
		t.Fatalf("first scan (-want +got):\n%s", d)
	}

	again := newCommit(k8sRepo("v0.33.3"), "c1")
	m = scanned(t, again, opts)
	if n := again.readCount(); n != 0 {
		t.Errorf("the same commit again read %d files, want none", n)
	}
	if d := cmp.Diff(want(t, opts), m, ignoreIndexes); d != "" {
		t.Errorf("from the memo (-want +got):\n%s", d)
	}

	t.Run("other options", func(t *testing.T) {
		crd := opts
		crd.Profile = model.ProfileCRD
		src := newCommit(k8sRepo("v0.33.3"), "c1")
		if m := scanned(t, src, crd); src.readCount() == 0 || m.Profile != model.ProfileCRD {
			t.Errorf("another profile: %d reads, profile %s; want a scan with profile crd", src.readCount(), m.Profile)
		}
	})

	t.Run("module cache", func(t *testing.T) {
		extra := filepath.Join(cache, "k8s.io", "api@v0.33.3", "core", "v1", "extra.go")
		if err := os.WriteFile(extra, []byte("package v1\n\ntype Extra struct{}\n"), 0o444); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(extra) })
		src := newCommit(k8sRepo("v0.33.3"), "c1")
		later := opts
		later.Memo = scan.NewMemo(dir) // a later run
		m := scanned(t, src, later)
		if src.readCount() == 0 {
			t.Fatal("a package resolution read changed in the module cache, and the memo answered")
		}
		if d := cmp.Diff(want(t, opts), m, ignoreIndexes); d != "" || !strings.Contains(strings.Join(externals(m), "\n"), "Extra") {
			t.Errorf("after the module cache changed (-want +got):\n%s\nexternals: %v", d, externals(m))
		}
	})

	t.Run("damaged entry", func(t *testing.T) {
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			p := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-20] ^= 1
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		src := newCommit(k8sRepo("v0.33.3"), "c1")
		m := scanned(t, src, opts)
		if src.readCount() == 0 {
			t.Fatal("a damaged entry was used")
		}
		if d := cmp.Diff(want(t, opts), m, ignoreIndexes); d != "" {
			t.Errorf("after a damaged entry (-want +got):\n%s", d)
		}
	})
}

// The working tree is not memoised, nor a scan that went on without a
// file it could not read (a partial clone's missing object).
func TestMemoNotKept(t *testing.T) {
	dir := t.TempDir()
	memo := scan.NewMemo(dir)
	wt := newCommit(k8sRepo("v0.33.3"), "c1")
	wt.ref = git.WorktreeRef
	if _, err := scan.Scan(wt, scan.Options{Memo: memo}); err != nil {
		t.Fatal(err)
	}
	memo.Wait()
	if n := memoEntries(t, dir); n != 0 {
		t.Errorf("the working tree left %d entries", n)
	}

	files := mapSource{
		"go.mod": "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\nimport \"example.com/repo/pkg/common\"\n\n" +
			"type Spec struct {\n\tName common.Name `json:\"name\"`\n}\n",
		"pkg/common/types.go": "package common\n\ntype Name string\n",
	}
	partial := newCommit(files, "c2")
	partial.fail = map[string]bool{"pkg/common/types.go": true}
	m, err := scan.Scan(partial, scan.Options{Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	memo.Wait()
	if f := m.Groups[0].Versions[0].Type("Spec").Field("Name"); f.ValueKind != model.KindUnknown {
		t.Fatalf("Name resolved to %s without its package", f.ValueKind)
	}
	if n := memoEntries(t, dir); n != 0 {
		t.Errorf("a scan that could not read a file left %d entries", n)
	}
}

// When the memo gives both scans of a pair their models, head holds
// base's groups that are the same (as a group head takes from base's
// scan is): held once, the other groups its own; the models are those
// the scans build.
func TestMemoPairSharesGroups(t *testing.T) {
	group := func(name, field string) string {
		return "// +groupName=" + name + ".example.io\npackage v1\n\ntype Spec struct {\n\t" + field + " string `json:\"x\"`\n}\n"
	}
	base := mapSource{"go.mod": "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/a/v1/types.go": group("a", "A"), "pkg/apis/b/v1/types.go": group("b", "B")}
	head := maps.Clone(base)
	head["pkg/apis/b/v1/types.go"] = group("b", "C")
	memo := scan.NewMemo(t.TempDir())
	reads := 0
	pair := func() [2]*model.Model {
		t.Helper()
		r := scan.NewReuse()
		var got [2]*model.Model
		var errs [2]error
		var wg sync.WaitGroup
		srcs := [2]commitSource{newCommit(base, "b1"), newCommit(head, "h1")}
		for i := range srcs {
			opts := scan.Options{Record: r, Memo: memo}
			if i == 1 {
				opts = scan.Options{Reuse: r, Memo: memo}
			}
			wg.Go(func() { got[i], errs[i] = scan.Build(srcs[i], opts) })
		}
		wg.Wait()
		memo.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		reads = srcs[0].readCount() + srcs[1].readCount()
		return got
	}
	built := pair()
	memoed := pair()
	if reads != 0 {
		t.Fatalf("the pair again read %d files, want none (the memo's)", reads)
	}
	for i, src := range []mapSource{base, head} {
		want, err := scan.Build(src, scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, memoed[i], ignoreIndexes); d != "" {
			t.Errorf("revision %d from the memo (-scanned +memo):\n%s", i, d)
		}
	}
	if built[1].Group("pkg/apis/a") != built[0].Group("pkg/apis/a") {
		t.Fatal("the scans did not share the group the change did not touch")
	}
	if memoed[1].Group("pkg/apis/a") != memoed[0].Group("pkg/apis/a") {
		t.Error("from the memo, head does not hold base's group a")
	}
	if memoed[1].Group("pkg/apis/b") == memoed[0].Group("pkg/apis/b") {
		t.Error("from the memo, head holds base's group b, which the change touched")
	}
}
