package scan_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// writeModCache writes files (paths relative to the module cache,
// <module>@<version>/<path>) into a new module cache and returns it.
func writeModCache(t *testing.T, files map[string]string) string {
	t.Helper()
	cache := t.TempDir()
	for p, content := range files {
		full := filepath.Join(cache, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return cache
}

// k8sCore is a small k8s.io/api/core/v1: EnvVar reaches EnvVarSource in
// the package and ObjectMeta in k8s.io/apimachinery; Pod reaches
// nothing the repository uses.
const k8sCore = "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
	"type EnvVar struct {\n\tName string `json:\"name\"`\n\t// +optional\n\tValueFrom *EnvVarSource `json:\"valueFrom,omitempty\"`\n}\n\n" +
	"type EnvVarSource struct {\n\t// +optional\n\tRef *Ref `json:\"ref,omitempty\"`\n}\n\n" +
	"type Ref struct {\n\tMeta metav1.ObjectMeta `json:\"meta\"`\n\tSkipped Unused `json:\"-\"`\n}\n\n" +
	"type Pod struct {\n\tSpec PodSpec `json:\"spec\"`\n}\n\ntype PodSpec struct {\n\tApps appsv1.Deployment `json:\"apps\"`\n}\n"

// k8sRepo is a repository whose API uses corev1.EnvVar, requiring
// k8s.io/api and k8s.io/apimachinery at version.
func k8sRepo(version string) mapSource {
	return mapSource{
		"go.mod": "module example.com/repo\n\ngo 1.22\n\nrequire (\n\tk8s.io/api " + version + "\n\tk8s.io/apimachinery " + version + "\n)\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\nimport corev1 \"k8s.io/api/core/v1\"\n\n" +
			"type Spec struct {\n\tEnv []corev1.EnvVar `json:\"env\"`\n}\n",
	}
}

// externals lists a model's external packages as import path and
// directory, with their types.
func externals(m *model.Model) []string {
	var out []string
	for _, p := range m.External {
		var names []string
		for _, ty := range p.Types {
			names = append(names, ty.Name)
		}
		out = append(out, p.ImportPath+" "+p.Dir+": "+strings.Join(names, " "))
	}
	return out
}

// The packages of k8s.io/api and k8s.io/apimachinery that the API's
// fields reach, type by type, are read from the module cache at the
// version go.mod requires: corev1 and metav1 (through EnvVar, EnvVarSource
// and Ref), not apps/v1 (only Pod, which no field reaches, names it), nor
// the package of a field off the wire (json:"-"). Their fields have
// their type identities and contracts; their positions name the files
// by their path in the module cache.
func TestExternalFromModuleCache(t *testing.T) {
	cache := writeModCache(t, map[string]string{
		"k8s.io/api@v0.33.3/core/v1/types.go":                   k8sCore,
		"k8s.io/api@v0.33.3/core/v1/types_test.go":              "package v1\n\ntype Test struct{}\n",
		"k8s.io/api@v0.33.3/apps/v1/types.go":                   "package v1\n\ntype Deployment struct{}\n",
		"k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go": "package v1\n\ntype ObjectMeta struct {\n\tName string `json:\"name,omitempty\"`\n}\n",
	})
	m, err := scan.Scan(k8sRepo("v0.33.3"), scan.Options{ModCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"k8s.io/api/core/v1 k8s.io/api@v0.33.3/core/v1: EnvVar EnvVarSource Pod PodSpec Ref",
		"k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1: ObjectMeta",
	}
	if d := cmp.Diff(want, externals(m)); d != "" {
		t.Errorf("external packages (-want +got):\n%s", d)
	}
	if len(m.External) != 2 {
		t.FailNow()
	}
	core := m.External[0]
	ref := core.Type("Ref").Field("Meta")
	if ref.TypeID != "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta" || ref.Contract == nil || ref.Contract.Name != "meta" {
		t.Errorf("Ref.Meta: type %s, contract %+v", ref.TypeID, ref.Contract)
	}
	if got := core.Type("EnvVar").Pos.String(); got != "k8s.io/api@v0.33.3/core/v1/types.go:5:6" {
		t.Errorf("EnvVar declared at %s", got)
	}
	if got := core.Type("EnvVar").Field("ValueFrom").Contract.Presence; got != model.Optional {
		t.Errorf("EnvVar.ValueFrom is %s, want optional", got)
	}

	// A relative module cache is none, as for the go command.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, cache)
	if err != nil {
		t.Fatal(err)
	}
	m, err = scan.Scan(k8sRepo("v0.33.3"), scan.Options{ModCache: rel})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.External) != 0 {
		t.Errorf("a relative module cache: external packages %v", externals(m))
	}

	// Off by option, as for a release's model.
	m, err = scan.Scan(k8sRepo("v0.33.3"), scan.Options{ModCache: cache, NoExternal: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.External) != 0 {
		t.Errorf("NoExternal: external packages %v", externals(m))
	}
}

// Only the modules named in the issue are read, and only from the
// version go.mod requires, as a well-formed module version inside the
// module cache: not another module's packages (still resolved for
// nillability), not a version the module cache lacks, not a module
// replaced by a directory, not a version that is not canonical semantic
// versioning, not a package the repository holds itself, not a file
// that is a symbolic link.
func TestExternalNotResolved(t *testing.T) {
	files := map[string]string{
		"k8s.io/api@v0.33.3/core/v1/types.go":                   k8sCore,
		"k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go": "package v1\n\ntype ObjectMeta struct{}\n",
		"example.com/ext@v1.0.0/types/types.go":                 "package types\n\ntype Bag map[string]string\n",
	}
	cache := writeModCache(t, files)
	scanExternals := func(src mapSource) []string {
		t.Helper()
		m, err := scan.Scan(src, scan.Options{ModCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		return externals(m)
	}
	if got := scanExternals(k8sRepo("v0.33.3")); len(got) != 2 {
		t.Fatalf("the repository as required: %v, want corev1 and metav1", got)
	}

	other := k8sRepo("v0.33.3")
	other["go.mod"] = "module example.com/repo\n\ngo 1.22\n\nrequire example.com/ext v1.0.0\n"
	other["pkg/apis/core/v1/types.go"] = "// +groupName=core.example.cloud\npackage v1\n\nimport \"example.com/ext/types\"\n\ntype Spec struct {\n\tBag types.Bag `json:\"bag\"`\n}\n"
	m, err := scan.Scan(other, scan.Options{ModCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.External) != 0 {
		t.Errorf("another module's package: %v", externals(m))
	}
	if f := m.Groups[0].Versions[0].Type("Spec").Field("Bag"); f.Nillable != model.Nillable {
		t.Errorf("Bag is %s, want nillable from the module cache", f.Nillable)
	}

	for name, goMod := range map[string]string{
		"not in the module cache": "require k8s.io/api v0.34.0\n",
		"replaced by a directory": "require k8s.io/api v0.33.3\n\nreplace k8s.io/api => ./third_party/api\n",
		"not canonical":           "require k8s.io/api v0.33\n",
		"not required":            "",
	} {
		src := k8sRepo("v0.33.3")
		src["go.mod"] = "module example.com/repo\n\ngo 1.22\n\n" + goMod
		if got := scanExternals(src); len(got) != 0 {
			t.Errorf("%s: %v", name, got)
		}
	}

	// The repository's own package of that import path is its own (here
	// the repository is k8s.io/api, and core/v1 a package outside the
	// API groups without a group name of its own: a shared package).
	own := mapSource{
		"go.mod":                    "module k8s.io/api\n\ngo 1.22\n\nrequire k8s.io/apimachinery v0.33.3\n",
		"core/v1/types.go":          k8sCore,
		"pkg/apis/x/v1/types.go":    "// +groupName=x.example.cloud\npackage v1\n\nimport corev1 \"k8s.io/api/core/v1\"\n\ntype Spec struct {\n\tEnv corev1.EnvVar `json:\"env\"`\n}\n",
		"third_party/api/go.mod":    "module example.com/unrelated\n",
		"third_party/api/README.md": "a directory, not a module version\n",
	}
	m, err = scan.Scan(own, scan.Options{ModCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := externals(m); len(got) != 1 || !strings.HasPrefix(got[0], "k8s.io/apimachinery/pkg/apis/meta/v1 ") {
		t.Errorf("the repository's own k8s.io/api: externals %v, want metav1 only", got)
	}
	if len(m.Shared) != 1 || m.Shared[0].ImportPath != "k8s.io/api/core/v1" {
		t.Errorf("the repository's own core/v1 is not shared: %d shared packages", len(m.Shared))
	}

	// A link in the module cache is not followed.
	linked := writeModCache(t, map[string]string{"elsewhere/types.go": k8sCore})
	dir := filepath.Join(linked, "k8s.io", "api@v0.33.3", "core", "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(linked, "elsewhere", "types.go"), filepath.Join(dir, "types.go")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	m, err = scan.Scan(k8sRepo("v0.33.3"), scan.Options{ModCache: linked})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.External) != 0 {
		t.Errorf("through a symbolic link: %v", externals(m))
	}
}

// Base and head read the version each requires; a package both require
// at the same version is read once for the pair. The models side by side
// are those each scan builds alone.
func TestExternalVersionsPerRevision(t *testing.T) {
	cache := writeModCache(t, map[string]string{
		"k8s.io/api@v0.33.3/core/v1/types.go":                   k8sCore,
		"k8s.io/api@v0.34.0/core/v1/types.go":                   strings.Replace(k8sCore, "type Pod struct", "type Pod2 struct", 1),
		"k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go": "package v1\n\ntype ObjectMeta struct{}\n",
	})
	t.Setenv("GOMODCACHE", cache)
	base := k8sRepo("v0.33.3")
	head := maps.Clone(base)
	head["go.mod"] = strings.Replace(base["go.mod"], "k8s.io/api v0.33.3", "k8s.io/api v0.34.0", 1)
	r, bm, hm, _ := scanPairWith(t, blobSource{base}, blobSource{head})
	want := [2][]string{
		{"k8s.io/api/core/v1 k8s.io/api@v0.33.3/core/v1: EnvVar EnvVarSource Pod PodSpec Ref",
			"k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1: ObjectMeta"},
		{"k8s.io/api/core/v1 k8s.io/api@v0.34.0/core/v1: EnvVar EnvVarSource Pod2 PodSpec Ref",
			"k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1: ObjectMeta"},
	}
	if d := cmp.Diff(want, [2][]string{externals(bm), externals(hm)}); d != "" {
		t.Errorf("external packages of base and head (-want +got):\n%s", d)
	}
	if got := r.ModCacheReads(); got != 3 {
		t.Errorf("the pair read %d module cache directories, want 3 (corev1 twice, metav1 once)", got)
	}
	if bm.External[1] == hm.External[1] {
		t.Errorf("metav1 is one package in both models; each model holds its own")
	}
}

// The second scan of a pair takes the external packages the first built
// from the same files, as built, and resolves them on its own: each model
// holds its own packages, types and fields, the same as a scan alone
// builds (scanPairWith compares).
func TestExternalBuiltOnce(t *testing.T) {
	cache := writeModCache(t, map[string]string{
		"k8s.io/api@v0.33.3/core/v1/types.go":                   k8sCore,
		"k8s.io/apimachinery@v0.33.3/pkg/apis/meta/v1/types.go": "package v1\n\ntype ObjectMeta struct {\n\tName string `json:\"name,omitempty\"`\n}\n",
	})
	t.Setenv("GOMODCACHE", cache)
	src := k8sRepo("v0.33.3")
	r, bm, hm, _ := scanPairWith(t, blobSource{src}, blobSource{maps.Clone(src)})
	// The second scan takes base's unchanged group, so it walks the
	// external packages once the first is done.
	if got := r.ExternalBuildsTaken(); got != 2 {
		t.Errorf("the second scan took %d external packages, want 2", got)
	}
	if len(bm.External) != 2 || len(hm.External) != 2 {
		t.Fatalf("external packages %v and %v", externals(bm), externals(hm))
	}
	for i := range bm.External {
		b, h := bm.External[i], hm.External[i]
		if b == h || b.Types[0] == h.Types[0] || b.Types[0].Fields[0] == h.Types[0].Fields[0] {
			t.Errorf("%s: the models share a package, type or field", b.ImportPath)
		}
		for _, ty := range h.Types {
			if h.Type(ty.Name) != ty {
				t.Errorf("%s.%s: the second model looks up another type", h.ImportPath, ty.Name)
			}
		}
	}
}

// A package of another module that types resolve through is read once
// for the pair too (without comments: its declarations only).
func TestModCacheDeclsReadOnce(t *testing.T) {
	cache := writeModCache(t, map[string]string{
		"example.com/ext@v1.0.0/types/types.go": "package types\n\ntype Bag map[string]string\n",
	})
	t.Setenv("GOMODCACHE", cache)
	src := mapSource{
		"go.mod":                    "module example.com/repo\n\ngo 1.22\n\nrequire example.com/ext v1.0.0\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\nimport \"example.com/ext/types\"\n\ntype Spec struct {\n\tBag types.Bag `json:\"bag\"`\n}\n",
	}
	head := maps.Clone(src)
	head["pkg/apis/core/v1/types.go"] = strings.Replace(src["pkg/apis/core/v1/types.go"], "}\n", "\t// +optional\n\tMore types.Bag `json:\"more,omitempty\"`\n}\n", 1)
	r, _, hm, _ := scanPairWith(t, blobSource{src}, blobSource{head})
	if got := r.ModCacheReads(); got != 1 {
		t.Errorf("the pair read %d module cache directories, want 1", got)
	}
	if f := hm.Groups[0].Versions[0].Type("Spec").Field("More"); f == nil || f.Nillable != model.Nillable {
		t.Errorf("head's More: %+v, want nillable from the module cache", f)
	}
}

// A scan builds at most MaxExternal packages of the module cache, the
// first its fields reach.
func TestExternalBounded(t *testing.T) {
	n := scan.MaxExternal + 6
	files := map[string]string{}
	for i := range n {
		next := "string"
		imp := ""
		if i+1 < n {
			imp = fmt.Sprintf("import next \"k8s.io/api/p%d/v1\"\n\n", i+1)
			next = "next.T"
		}
		files[fmt.Sprintf("k8s.io/api@v0.33.3/p%d/v1/types.go", i)] = fmt.Sprintf("package v1\n\n%stype T struct {\n\tNext %s `json:\"next\"`\n}\n", imp, next)
	}
	src := mapSource{
		"go.mod":                    "module example.com/repo\n\ngo 1.22\n\nrequire k8s.io/api v0.33.3\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\nimport p0 \"k8s.io/api/p0/v1\"\n\ntype Spec struct {\n\tChain p0.T `json:\"chain\"`\n}\n",
	}
	m, err := scan.Scan(src, scan.Options{ModCache: writeModCache(t, files)})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.External) != scan.MaxExternal {
		t.Fatalf("%d external packages, want %d", len(m.External), scan.MaxExternal)
	}
	for _, p := range m.External {
		var i int
		if _, err := fmt.Sscanf(p.ImportPath, "k8s.io/api/p%d/v1", &i); err != nil || i >= scan.MaxExternal {
			t.Errorf("external package %s: not one of the first %d the fields reach", p.ImportPath, scan.MaxExternal)
		}
	}
}
