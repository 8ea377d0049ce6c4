package scan_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/scan"
)

// fileList is a Source of names only (discovery reads no Go file).
type fileList []string

func (l fileList) Files() []string { return l }
func (l fileList) ReadFiles(paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range paths {
		out[p] = []byte("module example.cloud/x\n")
	}
	return out, nil
}

// TestCandidateFilesAtMost: the bound counts the Go files of version
// directories and of their parents, nothing else, and is never below what
// discovery (Candidates) counts.
func TestCandidateFilesAtMost(t *testing.T) {
	files := fileList{
		"go.mod",
		"pkg/apis/core/doc.go", "pkg/apis/core/types.go",
		"pkg/apis/core/v1beta1/doc.go", "pkg/apis/core/v1beta1/types.go", "pkg/apis/core/v1beta1/types_test.go",
		"pkg/apis/core/v1beta1/zz_generated.deepcopy.go", "pkg/apis/core/v1beta1/generated.proto",
		"pkg/apis/core/helper/helper.go",
		"pkg/controller/main.go",
		"v1/types.go", "root.go",
	}
	got := scan.CandidateFilesAtMost(files)
	if want := 8; got != want {
		t.Errorf("CandidateFilesAtMost = %d, want %d (core's 2, v1beta1's 4, v1's 1, the root's 1)", got, want)
	}
	cands, err := scan.Candidates(files, scan.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cands {
		n += c.Files
	}
	if n == 0 || n > got {
		t.Errorf("discovery counts %d files, the bound %d: want 0 < count <= bound", n, got)
	}
	if got := scan.CandidateFilesAtMost(fileList{"pkg/controller/main.go", "README.md"}); got != 0 {
		t.Errorf("without version directories: %d, want 0", got)
	}
}
