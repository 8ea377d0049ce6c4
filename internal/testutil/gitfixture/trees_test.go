package gitfixture

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ImportTrees commits whole trees (a path missing from the next tree is
// gone), with links, submodule entries and refs; CheckoutFiles writes the
// last one and leaves the index's stat data stale.
func TestImportTrees(t *testing.T) {
	t.Parallel()
	f := Init(t)
	if _, err := os.Stat(filepath.Join(f.Dir, ".git", "hooks")); err != nil {
		t.Errorf("Init: no hooks directory: %v", err)
	}
	sub := strings.Repeat("5", 40)
	shas := f.ImportTrees([]map[string]string{
		{"a.go": "package a\n", "old.go": "package a\n"},
		{"a.go": "package a // 2\n", "link": "link:a.go", "third_party/sub": "gitlink:" + sub, "caf\xe9.txt": Deleted},
	}, map[string]int{"refs/tags/v1.0.0": 0, "refs/heads/-h": 1, "refs/tags/--exec=evil": 1})
	if len(shas) != 2 {
		t.Fatalf("ImportTrees = %v, want two shas", shas)
	}
	for ref, i := range map[string]int{"main": 1, "v1.0.0": 0, "refs/heads/-h": 1, "refs/tags/--exec=evil": 1} {
		if got := f.Git("rev-parse", ref); got != shas[i] {
			t.Errorf("%s = %s, want %s", ref, got, shas[i])
		}
	}
	if got, want := f.Git("log", "--format=%P", "-1", shas[1]), shas[0]; got != want {
		t.Errorf("parent of the second tree = %s, want %s", got, want)
	}
	if got := f.Git("ls-tree", "-r", "--format=%(objectmode) %(objectname) %(path)", shas[1]); !strings.Contains(got, "160000 "+sub+" third_party/sub") ||
		!strings.Contains(got, "120000 ") || strings.Contains(got, "old.go") || !strings.Contains(got, "caf") {
		t.Errorf("second tree:\n%s", got)
	}
	f.CheckoutFiles()
	if target, err := os.Readlink(f.Path("link")); err != nil || target != "a.go" {
		t.Errorf("link = %q, %v", target, err)
	}
	if fi, err := os.Stat(f.Path("third_party/sub")); err != nil || !fi.IsDir() {
		t.Errorf("submodule = %v, %v; want an empty directory", fi, err)
	}
	if got := f.Git("diff-index", "--name-only", "HEAD"); got == "" {
		t.Error("CheckoutFiles: the index's stat data matches the files")
	}
	if got := f.Git("diff-index", "--name-only", "--cached", "HEAD"); got != "" {
		t.Errorf("CheckoutFiles: the index is not HEAD's tree: %q", got)
	}
}

// Init passes its arguments to git init; a bare repository is Dir.
func TestInitBareSHA256(t *testing.T) {
	t.Parallel()
	f := Init(t, "--bare", "--object-format=sha256")
	shas := f.ImportTrees([]map[string]string{{"a.go": "package a\n"}}, map[string]int{"refs/heads/base": 0})
	if len(shas[0]) != 64 {
		t.Errorf("commit %s, want a SHA-256 id", shas[0])
	}
	if got := f.Git("rev-parse", "--is-bare-repository"); got != "true" {
		t.Errorf("--is-bare-repository = %s", got)
	}
	f.AppendConfig("[uploadpack]\n\tallowFilter = true\n")
	if got := f.Git("config", "uploadpack.allowFilter"); got != "true" {
		t.Errorf("uploadpack.allowFilter = %q after AppendConfig", got)
	}
	before := TreeState(t, f.Dir)
	if after := TreeState(t, f.Dir); !reflect.DeepEqual(before, after) {
		t.Error("TreeState differs without a change")
	}
}
