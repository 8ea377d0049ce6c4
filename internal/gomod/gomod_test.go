package gomod

import (
	"errors"
	"slices"
	"testing"
)

type files map[string][]byte

func (f files) ReadFiles(paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range paths {
		c, ok := f[p]
		if !ok {
			return nil, errors.New("no file " + p)
		}
		out[p] = c
	}
	return out, nil
}

func read(t *testing.T, fs files) *Modules {
	t.Helper()
	var goMods []string
	for p := range fs {
		goMods = append(goMods, p)
	}
	slices.Sort(goMods)
	m, err := Read(fs, goMods)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Directories map to import paths through the module that contains them
// (the innermost), and import paths back to directories through the
// module with the longest path.
func TestImportPathAndDir(t *testing.T) {
	m := read(t, files{
		"go.mod":             []byte("module example.com/api\n\ngo 1.22\n"),
		"tools/go.mod":       []byte("module example.com/tools\n"),
		"nested/mod/go.mod":  []byte("module example.com/api/nested/mod\n"),
		"other/go.mod":       []byte("module example.com/elsewhere/v2\n"),
		"vendor/x/go.mod":    []byte("module example.com/vendored\n"),
		"a/testdata/go.mod":  []byte("module example.com/testdata\n"),
		"broken/go.mod":      []byte("module\n"),
		"empty/go.mod":       []byte("module \"\"\n"),
		"nomodule/go.mod":    []byte("go 1.22\n"),
		"unknown/go.mod":     []byte("module example.com/unknown\nfuturedirective x\n"),
		"unknown/pkg/x.go":   nil, // not a go.mod: never given to Read
		"nested/mod/a/b.txt": nil,
	}.only("go.mod"))
	if want := []string{"nested/mod", "unknown", "other", "tools", "."}; !slices.Equal(m.Roots(), want) {
		t.Errorf("Roots() = %v, want %v", m.Roots(), want)
	}
	for dir, ip := range map[string]string{
		".":              "example.com/api",
		"pkg/a":          "example.com/api/pkg/a",
		"tools":          "example.com/tools",
		"tools/x":        "example.com/tools/x",
		"nested/mod":     "example.com/api/nested/mod",
		"nested/mod/a":   "example.com/api/nested/mod/a",
		"nested/other":   "example.com/api/nested/other",
		"other/v1":       "example.com/elsewhere/v2/v1",
		"unknown/pkg":    "example.com/unknown/pkg",
		"broken/pkg":     "example.com/api/broken/pkg",
		"vendor/x/y":     "example.com/api/vendor/x/y",
		"a/testdata":     "example.com/api/a/testdata",
		"empty/pkg":      "example.com/api/empty/pkg",
		"nomodule/inner": "example.com/api/nomodule/inner",
	} {
		if got := m.ImportPath(dir); got != ip {
			t.Errorf("ImportPath(%s) = %s, want %s", dir, got, ip)
		}
		if got, ok := m.Dir(ip); !ok || got != dir {
			t.Errorf("Dir(%s) = %s, %v; want %s", ip, got, ok, dir)
		}
	}
	for _, ip := range []string{"k8s.io/api/core/v1", "example.com/apis", "example.com"} {
		if d, ok := m.Dir(ip); ok {
			t.Errorf("Dir(%s) = %s, want none", ip, d)
		}
	}
	if root, f := m.Module("tools/x/y"); root != "tools" || f == nil || f.Module.Mod.Path != "example.com/tools" {
		t.Errorf("Module(tools/x/y) = %s, %v", root, f)
	}
}

func (f files) only(base string) files {
	out := files{}
	for p, c := range f {
		if p == base || len(p) > len(base) && p[len(p)-len(base)-1:] == "/"+base {
			out[p] = c
		}
	}
	return out
}

// Without a go.mod, import paths are directories and no import path
// maps to a directory.
func TestNoModules(t *testing.T) {
	for _, m := range []*Modules{read(t, files{}), {}} {
		if got := m.ImportPath("pkg/a"); got != "pkg/a" {
			t.Errorf("ImportPath(pkg/a) = %s, want pkg/a", got)
		}
		if d, ok := m.Dir("pkg/a"); ok {
			t.Errorf("Dir(pkg/a) = %s, want none", d)
		}
		if root, f := m.Module("pkg/a"); root != "" || f != nil {
			t.Errorf("Module(pkg/a) = %s, %v; want none", root, f)
		}
	}
}

func TestReadError(t *testing.T) {
	if _, err := Read(files{}, []string{"go.mod"}); err == nil {
		t.Error("Read of a missing go.mod: no error")
	}
}

func TestRequiredVersion(t *testing.T) {
	m := read(t, files{
		"go.mod": []byte(`module example.com/api

require (
	k8s.io/api v0.30.0
	k8s.io/apimachinery v0.30.1
	sigs.k8s.io/x v0.1.0
	sigs.k8s.io/x/y v0.2.0
	example.com/local v1.0.0
	example.com/fork v1.0.0
)

replace example.com/local => ../local

replace example.com/fork v1.0.0 => example.com/forked v1.1.0
`),
		"tools/go.mod": []byte("module example.com/tools\n"),
		// A directive the module parser does not know (a newer Go's):
		// parsed laxly, which leaves replace directives out.
		"future/go.mod": []byte("module example.com/future\n\nfuturedirective x\n\nrequire example.com/local v1.0.0\n\nreplace example.com/local => ../local\n"),
	})
	for _, c := range []struct {
		from, ip          string
		mod, version, sub string
		ok                bool
	}{
		{".", "k8s.io/api/core/v1", "k8s.io/api", "v0.30.0", "core/v1", true},
		{"pkg", "k8s.io/apimachinery", "k8s.io/apimachinery", "v0.30.1", "", true},
		{".", "sigs.k8s.io/x/y/z", "sigs.k8s.io/x/y", "v0.2.0", "z", true},
		{".", "sigs.k8s.io/x/z", "sigs.k8s.io/x", "v0.1.0", "z", true},
		{".", "golang.org/x/mod", "", "", "", false},
		{"tools", "k8s.io/api/core/v1", "", "", "", false},
		{".", "example.com/local/pkg", "", "", "", false},
		{".", "example.com/fork/pkg", "example.com/forked", "v1.1.0", "pkg", true},
		{"future", "example.com/local/pkg", "example.com/local", "v1.0.0", "pkg", true},
	} {
		mod, version, sub, ok := m.RequiredVersion(c.from, c.ip)
		if mod != c.mod || version != c.version || sub != c.sub || ok != c.ok {
			t.Errorf("RequiredVersion(%s, %s) = %s, %s, %s, %v; want %s, %s, %s, %v", c.from, c.ip, mod, version, sub, ok, c.mod, c.version, c.sub, c.ok)
		}
	}
}
