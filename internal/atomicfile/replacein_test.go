package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// ReplaceIn replaces a file inside the root, keeping its mode, and never
// follows a symlink out of the root.
func TestReplaceInStaysInTheRoot(t *testing.T) {
	dir := t.TempDir()
	tree, outside := filepath.Join(dir, "tree"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(tree, "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(tree, "pkg", "types.go")
	if err := os.WriteFile(in, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outside, "types.go")
	if err := os.WriteFile(out, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "away")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(tree)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	if err := ReplaceIn(root, filepath.Join("pkg", "types.go"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(in); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	if fi, _ := os.Stat(in); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
	if es, _ := os.ReadDir(filepath.Join(tree, "pkg")); len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}

	name := filepath.Join("away", "types.go")
	if err := ReplaceIn(root, name, []byte("escaped")); err == nil {
		t.Error("ReplaceIn wrote through a symlink out of the root")
	}
	if b, _ := os.ReadFile(out); string(b) != "outside" {
		t.Errorf("the file outside the root was written: %q", b)
	}
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Errorf("left outside the root: %v", es)
	}
}
