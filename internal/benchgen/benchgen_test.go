package benchgen

import (
	"bytes"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// versionName matches the directory names the scan takes for API versions.
var versionName = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

var small = Options{Groups: 3, TypesFiles: 4, RootKinds: 2}

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkGofmt fails for every Go file that does not parse or that gofmt
// would change.
func checkGofmt(t *testing.T, files map[string][]byte) {
	t.Helper()
	for p, b := range files {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		out, err := format.Source(b)
		if err != nil {
			t.Errorf("%s does not parse: %v", p, err)
		} else if !bytes.Equal(out, b) {
			t.Errorf("%s is not gofmt-formatted", p)
		}
	}
}

func TestGenerateDeterministicAndParses(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	if err := Generate(a, small); err != nil {
		t.Fatal(err)
	}
	if err := Generate(b, small); err != nil {
		t.Fatal(err)
	}
	ta, tb := readTree(t, a), readTree(t, b)
	raw := map[string][]byte{}
	for p, s := range ta {
		raw[p] = []byte(s)
	}
	checkGofmt(t, raw)
	if len(ta) != len(tb) {
		t.Fatalf("two runs wrote %d and %d files", len(ta), len(tb))
	}
	// 3 groups x 2 packages x (doc, register, deepcopy + 4 types) + go.mod
	// + .apicheck.yaml + manifest
	if want := 3*2*7 + 3; len(ta) != want {
		t.Errorf("wrote %d files, want %d", len(ta), want)
	}
	for p, s := range ta {
		if tb[p] != s {
			t.Errorf("%s differs between two runs with the same options", p)
		}
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, s, parser.ParseComments)
		if err != nil {
			t.Errorf("%s does not parse: %v", p, err)
			continue
		}
		if strings.Contains(p, "/v1beta1/") != (f.Name.Name == "v1beta1") {
			t.Errorf("%s: package %s", p, f.Name.Name)
		}
	}
	for _, want := range []string{
		"pkg/apis/core/doc.go", "pkg/apis/core/v1beta1/doc.go", "pkg/apis/core/v1beta1/register.go",
		"pkg/apis/core/zz_generated.deepcopy.go", "go.mod", ".apicheck.yaml", ManifestFile,
	} {
		if _, ok := ta[want]; !ok {
			t.Errorf("no %s", want)
		}
	}
	if doc := ta["pkg/apis/core/v1beta1/doc.go"]; !strings.Contains(doc, "// +groupName=core.example.cloud\npackage v1beta1") {
		t.Errorf("v1beta1/doc.go has no +groupName before the package clause:\n%s", doc)
	}
	if reg := ta["pkg/apis/core/v1beta1/register.go"]; !strings.Contains(reg, "SchemeGroupVersion = schema.GroupVersion{") {
		t.Errorf("register.go declares no SchemeGroupVersion:\n%s", reg)
	}
}

func TestGenerateDefaultsSize(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("renders the full-size tree")
	}
	files, err := buildTree(Options{}.withDefaults()).render()
	if err != nil {
		t.Fatal(err)
	}
	var goFiles, scanned int
	var scannedBytes, total int
	groups := map[string]bool{}
	tombstones := 0
	for p, b := range files {
		total += len(b)
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		goFiles++
		groups[strings.Split(p, "/")[2]] = true
		if !strings.HasPrefix(filepath.Base(p), "zz_generated") {
			scanned++
			scannedBytes += len(b)
		}
		tombstones += bytes.Count(b, []byte("is reserved protobuf tag."))
	}
	t.Logf("%d groups, %d Go files (%d scanned, %d bytes), %d bytes in all, %d tombstones",
		len(groups), goFiles, scanned, scannedBytes, total, tombstones)
	if len(groups) < 40 || scanned < 800 {
		t.Errorf("%d groups and %d scanned files, want at least 40 and 800", len(groups), scanned)
	}
	if scannedBytes < 2_500_000 || scannedBytes > 3_500_000 {
		t.Errorf("scanned files hold %d bytes, want about 3 MB", scannedBytes)
	}
	if tombstones < 5 {
		t.Errorf("only %d tombstones", tombstones)
	}
}

func TestMutate(t *testing.T) {
	t.Parallel()
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if err := Generate(d, Options{Groups: 12}); err != nil {
			t.Fatal(err)
		}
	}
	base := readTree(t, dirs[0])
	changes, touched, err := MutateReport(dirs[0], 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := Mutate(dirs[1], 7); err != nil {
		t.Fatal(err)
	}
	head, other := readTree(t, dirs[0]), readTree(t, dirs[1])
	for p, s := range head {
		if other[p] != s {
			t.Errorf("%s differs between two Mutate runs with the same seed", p)
		}
	}
	// Mutating again with the same seed changes nothing.
	if err := Mutate(dirs[1], 7); err != nil {
		t.Fatal(err)
	}
	for p, s := range readTree(t, dirs[1]) {
		if head[p] != s {
			t.Errorf("%s changed by a second Mutate with the same seed", p)
		}
	}

	var changed []string
	for p, s := range head {
		if base[p] != s {
			changed = append(changed, p)
		}
	}
	if len(changed) != len(touched) {
		t.Errorf("%d files changed, MutateReport says %d", len(changed), len(touched))
	}
	share := float64(len(changed)) / float64(len(base))
	if share < 0.07 || share > 0.2 {
		t.Errorf("changed %d of %d files (%.0f%%), want about 10%%", len(changed), len(base), share*100)
	}
	kinds := map[string]int{}
	for _, c := range changes {
		kinds[c.Kind]++
	}
	for _, k := range violationKinds {
		if kinds[k] != ViolationsEach {
			t.Errorf("%d %s changes, want %d (all: %v)", kinds[k], k, ViolationsEach, kinds)
		}
	}
	if kinds["add-optional-field"] == 0 {
		t.Errorf("no optional field added: %v", kinds)
	}
	headFiles := map[string][]byte{}
	for p, s := range head {
		headFiles[p] = []byte(s)
	}
	checkGofmt(t, headFiles)
	if _, _, err := MutateReport(t.TempDir(), 1); err == nil || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("Mutate of a directory without manifest: err = %v", err)
	}
}

func TestBuildRepo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	var shas []string
	for _, d := range dirs {
		r, err := BuildRepo(d, small, 3)
		if err != nil {
			t.Fatal(err)
		}
		if r.BaseSHA == "" || r.HeadSHA == "" || r.BaseSHA == r.HeadSHA {
			t.Fatalf("base %q, head %q", r.BaseSHA, r.HeadSHA)
		}
		shas = append(shas, r.BaseSHA+" "+r.HeadSHA)
	}
	if shas[0] != shas[1] {
		t.Errorf("two builds made different commits: %s vs %s", shas[0], shas[1])
	}
	if _, err := BuildRepo(dirs[0], small, 3); err == nil {
		t.Error("BuildRepo into a non-empty directory succeeded")
	}
}

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"Replicas": "replicas", "CABundle": "caBundle", "URL": "url", "DNSName": "dnsName",
		"MaxURL": "maxURL", "x": "x",
	} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOtherFiles: the files outside the API packages are as many as
// asked, of the four kinds, none in a directory the scan could take for
// an API version, valid Go, and Mutate leaves them alone.
func TestOtherFiles(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	if err := Generate(d, Options{Groups: 3, OtherFiles: 170}); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if err := Generate(plain, Options{Groups: 3}); err != nil {
		t.Fatal(err)
	}
	all, api := readTree(t, d), readTree(t, plain)
	other := map[string][]byte{}
	exts := map[string]int{}
	for p, s := range all {
		if _, ok := api[p]; ok || p == ManifestFile {
			continue
		}
		other[p] = []byte(s)
		exts[filepath.Ext(p)]++
		for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
			if versionName.MatchString(seg) {
				t.Errorf("%s is in a directory named like an API version", p)
			}
		}
	}
	if len(other) != 170 {
		t.Errorf("%d other files, want 170", len(other))
	}
	if len(exts) != 4 || exts[".go"] < 40 {
		t.Errorf("other files by extension: %v, want four kinds", exts)
	}
	checkGofmt(t, other)
	if err := Mutate(d, 3); err != nil {
		t.Fatal(err)
	}
	after := readTree(t, d)
	for p, s := range other {
		if after[p] != string(s) {
			t.Errorf("Mutate changed %s", p)
		}
	}
}
