package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// A directory of the working tree swapped for a symlink out of it after
// the file was checked does not lead the write there: the fixed file is
// written through the working tree's root, and the file outside stays.
func TestApplyWriteStaysInTheWorkingTree(t *testing.T) {
	const file = "pkg/apis/core/v1/types.go"
	src := "package v1\n\n// S is a struct.\ntype S struct {\n\tA int32 `json:\"a\"`\n}\n"
	fx := gitfixture.FromTxtar(t, []byte("-- head/"+file+" --\n"+src))
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(src, "int32")
	p := &Plan{
		items: []*item{{file: file, typ: "S", field: "A",
			findings: []*finding.Finding{{Rule: "R", Type: "S", Field: "A"}},
			out: outcome{fix: &finding.Fix{Description: "pointer", Edits: []finding.Edit{
				{Path: file, StartLine: 5, StartCol: 4, StartOffset: start, EndOffset: start + 5, NewText: "*int32"},
			}}}}},
		planned:  map[string][]byte{file: []byte(src)},
		apiFiles: map[string]bool{file: true},
	}
	outside := filepath.Join(t.TempDir(), "v1")
	pkg := filepath.Join(fx.Dir, filepath.FromSlash("pkg/apis/core/v1"))
	testHookBeforeWrite = func(name string) {
		if err := os.Rename(pkg, outside); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, pkg); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { testHookBeforeWrite = nil })
	res, err := p.Apply(repo, Options{})
	if err == nil {
		t.Errorf("Apply succeeded (%+v), want the write refused", res)
	} else if !strings.Contains(err.Error(), file) {
		t.Errorf("error %q does not name %s", err, file)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "types.go")); string(got) != src {
		t.Errorf("the file outside the working tree was written:\n%s", got)
	}
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Errorf("left outside the working tree: %v", es)
	}
}
