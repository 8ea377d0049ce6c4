package scan_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// wholeList is a commit snapshot seen through Files only: a scan of it
// indexes the whole file list, as of a source that cannot list parts.
type wholeList struct{ s git.Snapshot }

func (w wholeList) Files() []string                                     { return w.s.Files() }
func (w wholeList) ReadFiles(paths []string) (map[string][]byte, error) { return w.s.ReadFiles(paths) }
func (w wholeList) IsSymlink(p string) bool                             { return w.s.IsSymlink(p) }
func (w wholeList) BlobID(p string) (string, bool)                      { return w.s.(git.BlobIDs).BlobID(p) }

// TestScanSelectedFiles: a scan of a commit, which reads the file list
// in parts (scan.Selection, and the directories outside the groups that
// the groups' types use when it needs them), builds the models a scan of
// the whole list builds: side by side (a shared package that changed
// included) and alone, with discovered and configured groups.
func TestScanSelectedFiles(t *testing.T) {
	t.Parallel()
	base := baseRepo()
	head := maps.Clone(base)
	head["pkg/shared/shared.go"] = "package shared\n\ntype Labels map[string]string\n\ntype Window struct{ Begin, End string }\n"
	head["pkg/apis/core/v1beta1/more.go"] = "package v1beta1\n\nimport \"example.com/repo/pkg/util/v1\"\n\n// More uses a package outside the groups.\ntype More struct {\n\tH v1.Helper `json:\"h\"`\n}\n"
	fx := gitfixture.New(t)
	fx.Import(gitfixture.Commit{Step: "base", Files: base}, gitfixture.Commit{Step: "head", Files: head})
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	open := func(step string) git.Snapshot {
		s, err := repo.Snapshot(fx.Commits[step])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	dump := func(m *model.Model) string {
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sb, sh := open("base"), open("head")
	if _, ok := sb.(git.Selector); !ok {
		t.Fatal("a commit snapshot lists no parts: the test compares nothing")
	}
	bm, hm, _ := scanPair(t, sb, sh)
	wb, wh, _ := scanPair(t, wholeList{open("base")}, wholeList{open("head")})
	if d := cmp.Diff(dump(wb), dump(bm)); d != "" {
		t.Errorf("base (-whole list +selected):\n%s", d)
	}
	if d := cmp.Diff(dump(wh), dump(hm)); d != "" {
		t.Errorf("head (-whole list +selected):\n%s", d)
	}
	if len(hm.Shared) == 0 {
		t.Error("head has no shared package: the directories listed on demand are not tested")
	}

	configured := scan.Options{Groups: []scan.GroupSpec{
		{Dir: "pkg/gardenlet/apis/config"},
		{Dir: "pkg/apis/core", Versions: []string{"pkg/apis/core/v1beta1"}},
	}}
	got, err := scan.Scan(open("head"), configured)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scan.Scan(wholeList{open("head")}, configured)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dump(want), dump(got)); d != "" {
		t.Errorf("configured groups (-whole list +selected):\n%s", d)
	}
}
