package floor_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/benchgen/floor"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

func TestMain(m *testing.M) { hermetic.Main(m) }

// The floor reads exactly the files the check's scan read: go.mod and the
// Go files of the API packages, per revision, and nothing the scan skips.
func TestListAndRead(t *testing.T) {
	fx := gitfixture.FromFile(t, filepath.Join("..", "..", "..", "examples", "shoot-api.txtar"))
	base, head := fx.Commits["base"], fx.Commits["head"]
	req := check.Request{Dir: fx.Dir, Base: base, Head: head, Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}}
	files, err := floor.List(req, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "pkg/apis/core/types_shoot.go", "pkg/apis/core/v1beta1/types_shoot.go"} {
		if !slices.Contains(files.Base, want) || !slices.Contains(files.Head, want) {
			t.Errorf("files %v: %s missing", files, want)
		}
	}
	for _, f := range slices.Concat(files.Base, files.Head) {
		if strings.HasPrefix(f, "pkg/controller/") || strings.HasSuffix(f, ".yaml") {
			t.Errorf("files %v: %s is not read by the scan", files, f)
		}
	}
	st, err := floor.Read(fx.Dir, base, head, files, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != files.Count() || st.Parsed != files.Count()-2 {
		t.Errorf("stats %+v, want %d files of which %d Go files", st, files.Count(), files.Count()-2)
	}
	var size int64
	for rev, fs := range map[string][]string{base: files.Base, head: files.Head} {
		for _, f := range fs {
			n, err := strconv.ParseInt(strings.TrimSpace(fx.Git("cat-file", "-s", rev+":"+f)), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			size += n
		}
	}
	if st.Bytes != size {
		t.Errorf("read %d bytes, want %d", st.Bytes, size)
	}

	// What else the check read: the trees its listing walked and the
	// release history, never again the files above.
	for _, n := range files.Reads {
		for rev, fs := range map[string][]string{base: files.Base, head: files.Head} {
			for _, f := range fs {
				if n == strings.TrimSpace(fx.Git("rev-parse", rev+":"+f)) {
					t.Errorf("reads list %s, the blob of %s at %s, which the floor reads anyway", n, f, rev)
				}
			}
		}
	}
	kinds := map[string]int{}
	for _, n := range files.Reads {
		kinds[strings.TrimSpace(fx.Git("cat-file", "-t", n))]++
	}
	if kinds["tree"] == 0 || kinds["commit"] == 0 {
		t.Errorf("reads %v: %v, want the commits and trees of the listing at least", files.Reads, kinds)
	}
	all, err := floor.Read(fx.Dir, base, head, files, true)
	if err != nil {
		t.Fatal(err)
	}
	if all.Reads != len(files.Reads) || all.Files != st.Files || all.Bytes <= st.Bytes {
		t.Errorf("with the reads: stats %+v, want %d reads, %d files and more than %d bytes", all, len(files.Reads), st.Files, st.Bytes)
	}
}

// A file that does not parse at a revision is an error naming it.
func TestReadParseError(t *testing.T) {
	fx := gitfixture.FromTxtarCommits(t, []byte("-- base/go.mod --\nmodule example.com/m\n-- base/api/v1/types.go --\npackage v1\ntype T struct {\n"))
	_, err := floor.Read(fx.Dir, fx.Commits["base"], fx.Commits["base"], floor.Files{Base: []string{"api/v1/types.go"}, Head: []string{"go.mod"}}, false)
	if err == nil || !strings.Contains(err.Error(), "api/v1/types.go") {
		t.Fatalf("err = %v, want a parse error naming api/v1/types.go", err)
	}
}
