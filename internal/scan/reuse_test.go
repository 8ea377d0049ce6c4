package scan_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// blobSource is an in-memory revision that names its files by content,
// as a commit's snapshot does.
type blobSource struct{ mapSource }

func (b blobSource) BlobID(p string) (string, bool) {
	v, ok := b.mapSource[p]
	if !ok {
		return "", false
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:]), true
}

// countingSource is a blobSource that counts how often each file is read.
type countingSource struct {
	blobSource
	mu    *sync.Mutex
	reads map[string]int
}

func (c countingSource) ReadFiles(paths []string) (map[string][]byte, error) {
	c.mu.Lock()
	for _, p := range paths {
		c.reads[p]++
	}
	c.mu.Unlock()
	return c.blobSource.ReadFiles(paths)
}

// scanPair scans base and head side by side with a Reuse, as check does,
// and fails unless each model is the one a scan of its own builds. It
// returns the models and the groups head took from base, by directory.
func scanPair(t *testing.T, base, head scan.Source) (bm, hm *model.Model, taken map[string]bool) {
	t.Helper()
	_, bm, hm, taken = scanPairWith(t, base, head)
	return bm, hm, taken
}

// scanPairWith is scanPair that also returns the pair's Reuse.
func scanPairWith(t *testing.T, base, head scan.Source) (r *scan.Reuse, bm, hm *model.Model, taken map[string]bool) {
	t.Helper()
	var want [2]*model.Model
	var wantErr [2]error
	for i, src := range []scan.Source{base, head} {
		want[i], wantErr[i] = scan.Scan(src, scan.Options{})
	}
	r = scan.NewReuse()
	var got [2]*model.Model
	var errs [2]error
	done := make(chan bool)
	for i, src := range []scan.Source{base, head} {
		opts := scan.Options{Record: r}
		if i == 1 {
			opts = scan.Options{Reuse: r}
		}
		go func() {
			got[i], errs[i] = scan.Scan(src, opts)
			done <- true
		}()
	}
	<-done
	<-done
	for i := range got {
		if (errs[i] == nil) != (wantErr[i] == nil) {
			t.Fatalf("revision %d: error %v side by side, %v alone", i, errs[i], wantErr[i])
		}
		if errs[i] != nil {
			continue
		}
		w, err := json.MarshalIndent(want[i], "", " ")
		if err != nil {
			t.Fatal(err)
		}
		g, err := json.MarshalIndent(got[i], "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(w), string(g)); d != "" {
			t.Errorf("revision %d: the model scanned side by side differs from its own scan (-own +side by side):\n%s", i, d)
		}
	}
	taken = map[string]bool{}
	if got[0] != nil && got[1] != nil {
		for _, g := range got[1].Groups {
			if b := got[0].Group(g.Dir); b == g {
				taken[g.Dir] = true
			}
		}
	}
	return r, got[0], got[1], taken
}

// wantNillable checks the nillability of field name of pkg/apis/a/v1's
// Spec at base and at head.
func wantNillable(t *testing.T, bm, hm *model.Model, name string, base, head model.Nillability) {
	t.Helper()
	b := bm.Group("pkg/apis/a").Version("v1").Type("Spec").Field(name).Nillable
	h := hm.Group("pkg/apis/a").Version("v1").Type("Spec").Field(name).Nillable
	if b != base || h != head {
		t.Errorf("%s nillable %s at base, %s at head; want %s, %s", name, b, h, base, head)
	}
}

func TestReuseTakesUnchangedGroups(t *testing.T) {
	base := baseRepo()
	head := baseRepo()
	head["pkg/apis/core/v1beta1/types.go"] = strings.Replace(shootTypes, "Odd *string", "Odder *string", 1)
	// A tree this small holds its types twice (sharing them costs more
	// than the memory it saves); from shareTypesFrom types on, once.
	small := func() {
		t.Helper()
		_, bm, hm, _ := scanPairWith(t, blobSource{base}, blobSource{head})
		if bt, ht := bm.Group("pkg/apis/core").Version("v1beta1").Type("Shoot"), hm.Group("pkg/apis/core").Version("v1beta1").Type("Shoot"); bt == nil || bt == ht {
			t.Errorf("a small tree's unchanged type Shoot held once (%p, %p), want twice", bt, ht)
		}
	}
	small()
	defer scan.ShareTypesFrom(1)()
	r, bm, hm, taken := scanPairWith(t, blobSource{base}, blobSource{head})
	if d := cmp.Diff(map[string]bool{"pkg/gardenlet/apis/config": true}, taken); d != "" {
		t.Errorf("groups head took from base (-want +got):\n%s", d)
	}
	if len(hm.Groups) != 2 {
		t.Errorf("head has %d groups, want 2", len(hm.Groups))
	}
	// In the group head built, the types the change did not touch are
	// base's (held once); the changed one is head's own.
	bv, hv := bm.Group("pkg/apis/core").Version("v1beta1"), hm.Group("pkg/apis/core").Version("v1beta1")
	for _, c := range []struct {
		name   string
		shared bool
	}{{"Shoot", true}, {"Mode", true}, {"ShootSpec", false}} {
		if bt, ht := bv.Type(c.name), hv.Type(c.name); bt == nil || ht == nil || (bt == ht) != c.shared {
			t.Errorf("type %s held once: %v, want %v", c.name, bt == ht, c.shared)
		}
	}
	// Parsed once for both: the files of core, which head builds, that
	// did not change (doc.go and the internal types.go); the cache keeps
	// none of them, and never a file only one scan reads.
	if n, held := r.ParsedOnce(), r.Held(); n != 2 || held != 0 {
		t.Errorf("%d files parsed through the shared cache, %d held after both scans; want 2, 0", n, held)
	}

	// Without blob ids nothing is taken; the models are the same.
	if _, _, taken := scanPair(t, base, head); len(taken) != 0 {
		t.Errorf("took %v from a source without blob ids", taken)
	}
	// A revision with nothing changed is taken whole.
	if _, _, taken := scanPair(t, blobSource{base}, blobSource{base}); len(taken) != 2 {
		t.Errorf("took %v of an unchanged revision, want both groups", taken)
	}
}

// A group whose files did not change is built anew when a type its
// fields resolve through did (here a shared package's Window became a
// slice: the field became nillable), or when its package moved module.
func TestReuseFollowsResolution(t *testing.T) {
	base := mapSource{
		"go.mod":                        "module example.com/repo\n\ngo 1.22\n",
		"pkg/shared/shared.go":          "package shared\n\ntype Window struct{ Begin string }\n",
		"pkg/apis/a/v1/types.go":        "// +groupName=a.example.com\npackage v1\n\nimport \"example.com/repo/pkg/shared\"\n\ntype Spec struct {\n\tW shared.Window `json:\"w\"`\n}\n",
		"pkg/apis/b/v1/types.go":        "// +groupName=b.example.com\npackage v1\n\ntype Spec struct {\n\tN string `json:\"n\"`\n}\n",
		"pkg/apis/c/v1/types.go":        "// +groupName=c.example.com\npackage v1\n\ntype Spec struct {\n\tN string `json:\"n\"`\n}\n",
		"pkg/apis/c/v1/unrelated.go":    "package v1\n\ntype Other struct{ X int }\n",
		"pkg/unrelated/unrelated.go":    "package unrelated\n\ntype U struct{}\n",
		"pkg/apis/b/v1/zz_generated.go": "package v1\n",
	}
	head := maps.Clone(base)
	head["pkg/shared/shared.go"] = "package shared\n\ntype Window []string\n"
	head["pkg/apis/c/v1/unrelated.go"] = "package v1\n\ntype Other struct{ X, Y int }\n"
	head["pkg/unrelated/unrelated.go"] = "package unrelated\n\ntype U struct{ A int }\n"
	counted := countingSource{blobSource{head}, &sync.Mutex{}, map[string]int{}}
	r, bm, hm, taken := scanPairWith(t, blobSource{base}, counted)
	if d := cmp.Diff(map[string]bool{"pkg/apis/b": true}, taken); d != "" {
		t.Errorf("groups head took from base (-want +got):\n%s", d)
	}
	wantNillable(t, bm, hm, "W", model.NotNillable, model.Nillable)
	// pkg/apis/a imports the changed pkg/shared: head built it without
	// waiting for base (pkg/apis/c changed itself, pkg/apis/b was taken),
	// from the one read that found its imports.
	if d := cmp.Diff([]string{"pkg/apis/a"}, r.Early()); d != "" {
		t.Errorf("groups head built before base was done (-want +got):\n%s", d)
	}
	// Read twice in all: by head's scan of its own (scanPairWith checks
	// against it) and once side by side.
	if n := counted.reads["pkg/apis/a/v1/types.go"]; n != 2 {
		t.Errorf("pkg/apis/a/v1/types.go read %d times, want 2 (once alone, once side by side)", n)
	}

	// A nested module makes pkg/apis/b another import path: built anew.
	head2 := maps.Clone(base)
	head2["pkg/apis/b/go.mod"] = "module example.com/b\n\ngo 1.22\n"
	if _, _, taken := scanPair(t, blobSource{base}, blobSource{head2}); taken["pkg/apis/b"] || !taken["pkg/apis/a"] {
		t.Errorf("took %v; want pkg/apis/a (unchanged) but not pkg/apis/b (moved module)", taken)
	}
}

// A type outside the repository: a version bump changes nothing when the
// table of well-known types answered or the module cache has neither
// version; it builds the group anew when the cache has the module.
func TestReuseFollowsModuleVersions(t *testing.T) {
	gomod := func(v string) string {
		return "module example.com/repo\n\ngo 1.22\n\nrequire (\n\texample.com/ext " + v + "\n\tk8s.io/apimachinery " + v + "\n)\n"
	}
	base := mapSource{
		"go.mod": gomod("v1.2.3"),
		"pkg/apis/a/v1/types.go": "// +groupName=a.example.com\npackage v1\n\nimport \"example.com/ext/types\"\n\n" +
			"type Spec struct {\n\tB types.Bag `json:\"b\"`\n}\n",
		"pkg/apis/k/v1/types.go": "// +groupName=k.example.com\npackage v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
			"type Spec struct {\n\tT metav1.Time `json:\"t\"`\n}\n",
	}
	head := maps.Clone(base)
	head["go.mod"] = gomod("v1.2.4")

	t.Setenv("GOMODCACHE", t.TempDir())
	if _, _, taken := scanPair(t, blobSource{base}, blobSource{head}); len(taken) != 2 {
		t.Errorf("without the modules in the cache: took %v, want both groups", taken)
	}

	cache := t.TempDir()
	for v, decl := range map[string]string{"v1.2.3": "type Bag map[string]string\n", "v1.2.4": "type Bag struct{ A int }\n"} {
		dir := filepath.Join(cache, "example.com", "ext@"+v, "types")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte("package types\n\n"+decl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOMODCACHE", cache)
	bm, hm, taken := scanPair(t, blobSource{base}, blobSource{head})
	if d := cmp.Diff(map[string]bool{"pkg/apis/k": true}, taken); d != "" {
		t.Errorf("with the module in the cache, groups taken (-want +got):\n%s", d)
	}
	wantNillable(t, bm, hm, "B", model.Nillable, model.NotNillable)
}

// A group is built for its revision's profile: when detection differs
// (head's first +kubebuilder marker), an unchanged group is built anew.
func TestReuseFollowsProfile(t *testing.T) {
	base := mapSource{
		"go.mod":                 "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/a/v1/types.go": "// +groupName=a.example.com\npackage v1\n\ntype Spec struct {\n\tN *string `json:\"n,omitempty\" protobuf:\"bytes,1,opt,name=n\"`\n}\n",
		// Served over protobuf (a .proto beside the tags): kubernetes.
		"pkg/apis/a/v1/generated.proto": "syntax = \"proto2\";\n",
		"pkg/apis/b/v1/types.go":        "// +groupName=b.example.com\npackage v1\n\ntype Spec struct {\n\tN *string `json:\"n,omitempty\" protobuf:\"bytes,1,opt,name=n\"`\n}\n",
	}
	head := maps.Clone(base)
	head["pkg/apis/b/v1/types.go"] = strings.Replace(base["pkg/apis/b/v1/types.go"], "type Spec", "// +kubebuilder:object:root=true\ntype Spec", 1)
	bm, hm, taken := scanPair(t, blobSource{base}, blobSource{head})
	if len(taken) != 0 {
		t.Errorf("took %v although the profile changed", taken)
	}
	if bm.Profile == hm.Profile || hm.Group("pkg/apis/a").Profile != hm.Profile {
		t.Errorf("profiles: base %s, head %s, head's unchanged group %s", bm.Profile, hm.Profile, hm.Group("pkg/apis/a").Profile)
	}
	// The other way round too.
	if _, _, taken := scanPair(t, blobSource{head}, blobSource{base}); len(taken) != 0 {
		t.Errorf("took %v although the profile changed", taken)
	}
}

// A failed scan on either side leaves the other complete.
func TestReuseFailure(t *testing.T) {
	good := baseRepo()
	bad := baseRepo()
	bad["pkg/apis/core/v1beta1/broken.go"] = "package v1beta1\n\ntype X struct {\n\tA int\n"
	scanPair(t, blobSource{bad}, blobSource{good})
	scanPair(t, blobSource{good}, blobSource{bad})
	badMod := baseRepo()
	badMod["go.mod"] = "module\n"
	scanPair(t, blobSource{badMod}, blobSource{good})
	scanPair(t, blobSource{good}, blobSource{badMod})
}
