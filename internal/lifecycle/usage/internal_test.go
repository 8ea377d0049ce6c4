package usage

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/gomod"
	"github.com/apicheck/apicheck/internal/testutil/gocorpus"
)

// mentions is the pre-filter for one name.
func mentions(src, name []byte) bool { return newNameSet([][]byte{name}).mentioned(src) }

func TestMentions(t *testing.T) {
	for src, want := range map[string]bool{
		"x.Region":                  true,
		"x.Region()":                true, // a call is told apart later
		"T{Region: r}":              true,
		"T{\n\tRegion:\t r,\n}":     true,
		"Region := 1":               false,
		"Region = 1":                false,
		"x.Regions":                 false,
		"x.SubRegion":               false,
		"var Region string":         false,
		"// see the Region field":   false,
		"x.Region.Name":             true,
		"case Region:":              true, // a label or case: over-inclusion is harmless
		"Region":                    false,
		"x.\u00e9Region, y.Region_": false,
	} {
		if got := mentions([]byte(src), []byte("Region")); got != want {
			t.Errorf("mentions(%q) = %v, want %v", src, got, want)
		}
	}
}

// mentionsOneByOne is the pre-filter by its definition, one name at a
// time: an occurrence of the name that is a whole identifier, after a
// '.' or before a ':' that does not start ":=" (blanks between).
func mentionsOneByOne(src []byte, names [][]byte) bool {
	for _, name := range names {
		for off := 0; ; {
			i := bytes.Index(src[off:], name)
			if i < 0 {
				break
			}
			i += off
			end := i + len(name)
			off = i + 1
			if end < len(src) && identByte(src[end]) || i > 0 && identByte(src[i-1]) {
				continue
			}
			if i > 0 && src[i-1] == '.' {
				return true
			}
			j := end
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] == ':' && (j+1 == len(src) || src[j+1] != '=') {
				return true
			}
		}
	}
	return false
}

// TestNameSetAgainstOneByOne: both ways of the pre-filter, the search
// for each name and the one pass over the identifiers, agree with the
// name-by-name definition on real sources, whole files and each of their
// lines, for sets of names of various lengths and first letters.
func TestNameSetAgainstOneByOne(t *testing.T) {
	sets := [][]string{
		{"Name"}, {"Spec", "Status"}, {"X", "Type", "Kind", "Items", "Value"},
		{"ObjectMeta", "Err", "Pos", "File", "Decls", "Body", "Len", "Header", "Request"},
		{"_", "a", "ab", "init", "Fprintf", "len", "\u00e9t\u00e9"},
	}
	files := gocorpus.Files(t, "../../..", "go", "net/http")
	if len(files) < 200 {
		t.Fatalf("only %d files to compare", len(files))
	}
	compared, hits := 0, 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pieces := append([][]byte{src}, bytes.Split(src, []byte("\n"))...)
		for _, set := range sets {
			var names [][]byte
			for _, n := range set {
				names = append(names, []byte(n))
			}
			ns := newNameSet(names)
			for _, piece := range pieces {
				want := mentionsOneByOne(piece, names)
				for way, mentioned := range map[string]func([]byte) bool{
					"mentioned": ns.mentioned, "by index": ns.mentionedByIndex, "by scan": ns.mentionedByScan,
				} {
					if got := mentioned(piece); got != want {
						t.Fatalf("%s: %v mentioned in %q (%s) = %v, want %v", p, set, piece, way, got, want)
					}
				}
				compared++
				if want {
					hits++
				}
			}
		}
	}
	if hits == 0 || hits == compared {
		t.Fatalf("%d of %d pieces mention a name: the comparison tells nothing", hits, compared)
	}
}

func TestBuildOK(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"a.go", "package a", true},
		{"a_linux.go", "package a", true},
		{"a_windows.go", "package a", false},
		{"a_linux_arm64.go", "package a", false},
		{"a_linux_amd64.go", "package a", true},
		{"a_amd64.go", "package a", true},
		{"a_test.go", "package a", true},
		{"linux.go", "package a", true}, // the first element is never a constraint
		{"a.go", "//go:build ignore\n\npackage main", false},
		{"a.go", "// Copyright\n\n//go:build linux && !cgo\n\npackage a", true},
		{"a.go", "//go:build cgo\n\npackage a", false},
		{"a.go", "//go:build go1.21 && unix\n\npackage a", true},
		{"a.go", "// +build windows\n\npackage a", false},
		{"a.go", "//go:build (\n\npackage a", false},
		{"a.go", "package a\n\n//go:build windows\n", true}, // after the package clause: a comment
	} {
		if got := buildOK(c.name, []byte(c.src)); got != c.want {
			t.Errorf("buildOK(%s, %q) = %v, want %v", c.name, c.src, got, c.want)
		}
	}
}

func TestMatchChain(t *testing.T) {
	paths := [][]seg{
		{{name: "Spec"}, {name: "DNS"}, {name: "Providers"}, {name: "Zones"}},
		{{name: "Spec"}, {name: "Common", embedded: true}, {name: "Zones"}},
	}
	for chain, want := range map[string]bool{
		"Spec.DNS.Providers.Zones":   true,
		"Providers.Zones":            true,
		"DNS.Providers.Zones":        true,
		"Zones":                      false, // one name is not a path
		"Spec.Zones":                 true,  // the embedded step skipped
		"Spec.Common.Zones":          true,
		"Status.Zones":               false,
		"X.Spec.DNS.Providers.Zones": false,
	} {
		if got := matchChain(strings.Split(chain, "."), paths); got != want {
			t.Errorf("matchChain(%s) = %v, want %v", chain, got, want)
		}
	}
	if !matchChain([]string{"Zones"}, [][]seg{{{name: "Zones"}}}) {
		t.Error("a field no kind reaches must match by name")
	}
}

func TestGuessName(t *testing.T) {
	for ip, want := range map[string]string{
		"k8s.io/api/core/v1":      "v1",
		"github.com/go-logr/logr": "logr",
		"gopkg.in/yaml.v3":        "yaml", "k8s.io/api/apps/v1beta1": "v1beta1",
		"github.com/foo/bar/v2":        "bar",
		"github.com/foo/go-bar":        "bar",
		"github.com/gardener/gardener": "gardener",
	} {
		if got := guessName(ip); got != want {
			t.Errorf("guessName(%s) = %s, want %s", ip, got, want)
		}
	}
}

func TestModules(t *testing.T) {
	m := &modules{mods: gomod.Parse([]string{"go.mod", "tools/go.mod"}, map[string][]byte{
		"go.mod":       []byte("module example.com/api\n"),
		"tools/go.mod": []byte("module example.com/tools\n"),
	})}
	for dir, ip := range map[string]string{".": "example.com/api", "pkg/a": "example.com/api/pkg/a", "tools": "example.com/tools", "tools/x": "example.com/tools/x"} {
		if got := m.importPath(dir); got != ip {
			t.Errorf("importPath(%s) = %s, want %s", dir, got, ip)
		}
		if got, ok := m.dir(ip); !ok || got != dir {
			t.Errorf("dir(%s) = %s, %v; want %s", ip, got, ok, dir)
		}
	}
	if _, ok := m.dir("k8s.io/api/core/v1"); ok {
		t.Error("a third-party import path maps to a directory")
	}
}

// TestNoExecution: the usage search runs nothing (issue 13): no process,
// no go command behind go/packages or go/build, no cgo. Its imports are
// checked so that a change cannot bring one in unnoticed.
func TestNoExecution(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string]bool{"os/exec": true, "go/build": true, "golang.org/x/tools/go/packages": true, "C": true,
		"plugin": true, "syscall": true, "net": true, "net/http": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pf.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); forbidden[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}

// BenchmarkMentioned: the pre-filter over real sources that do not
// mention the name, as most files of a repository do not.
func BenchmarkMentioned(b *testing.B) {
	var src []byte
	for _, p := range gocorpus.Files(b, "../../..", "go", "net/http") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		src = append(src, data...)
	}
	// One name and 16 (searched for one by one), 17 (one pass over the
	// identifiers).
	var many []string
	for i := range 17 {
		many = append(many, fmt.Sprintf("Unused%d", i))
	}
	for _, set := range [][]string{{"EncryptedResources"}, many[:16], many} {
		var names [][]byte
		for _, n := range set {
			names = append(names, []byte(n))
		}
		ns := newNameSet(names)
		b.Run(fmt.Sprintf("%d names", len(set)), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				ns.mentioned(src)
			}
		})
	}
}
