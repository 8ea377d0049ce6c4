// Package gomod maps the directories of one revision to Go import paths
// and back, from the revision's go.mod files (nested modules included).
// Nothing in a go.mod is acted upon (no toolchain, no downloads): the
// files only name packages and the versions they require.
package gomod

import (
	"path"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Reader reads files of a revision (a scan source, a git snapshot).
type Reader interface {
	ReadFiles(paths []string) (map[string][]byte, error)
}

// Modules knows the go.mod files of one revision. The zero value knows
// none.
type Modules struct {
	// files maps a module root directory ("." for the repository root)
	// to its parsed go.mod.
	files map[string]*modfile.File
	roots []string // module roots, longest first
}

// Read reads the go.mod files goMods (paths of the revision) from r and
// parses them (see Parse).
func Read(r Reader, goMods []string) (*Modules, error) {
	if len(goMods) == 0 {
		return &Modules{files: map[string]*modfile.File{}}, nil
	}
	contents, err := r.ReadFiles(goMods)
	if err != nil {
		return nil, err
	}
	return Parse(goMods, contents), nil
}

// Parse parses the go.mod files goMods, whose contents are in contents.
// A go.mod under a vendor or testdata directory is ignored, and so is one
// that does not parse or names no module path: that is not fatal, the
// module path only names packages. A go.mod with a directive of a newer
// Go version is parsed laxly, which ignores unknown directives (and
// replace and exclude directives with them: lax parsing is meant for the
// go.mod files of dependencies).
func Parse(goMods []string, contents map[string][]byte) *Modules {
	m := &Modules{files: map[string]*modfile.File{}}
	for _, p := range goMods {
		dir := path.Dir(p)
		if strings.Contains("/"+dir+"/", "/vendor/") || strings.Contains("/"+dir+"/", "/testdata/") {
			continue
		}
		f, err := modfile.Parse(p, contents[p], nil)
		if err != nil {
			f, err = modfile.ParseLax(p, contents[p], nil)
		}
		if err != nil || f.Module == nil || f.Module.Mod.Path == "" {
			continue
		}
		m.files[dir] = f
		m.roots = append(m.roots, dir)
	}
	sort.Slice(m.roots, func(i, j int) bool {
		if len(m.roots[i]) != len(m.roots[j]) {
			return len(m.roots[i]) > len(m.roots[j])
		}
		return m.roots[i] < m.roots[j]
	})
	return m
}

// Roots returns the module root directories, longest first (then
// lexically).
func (m *Modules) Roots() []string { return m.roots }

// File returns the parsed go.mod of the module rooted at root, nil if
// there is none.
func (m *Modules) File(root string) *modfile.File { return m.files[root] }

// Module returns the root directory and the go.mod of the module that
// contains dir; "" and nil when no module does.
func (m *Modules) Module(dir string) (string, *modfile.File) {
	for _, d := range m.roots {
		if d == "." || dir == d || strings.HasPrefix(dir, d+"/") {
			return d, m.files[d]
		}
	}
	return "", nil
}

// ImportPath names the package in dir; outside every module it is the
// directory itself.
func (m *Modules) ImportPath(dir string) string {
	root, f := m.Module(dir)
	if f == nil {
		return dir
	}
	mp := f.Module.Mod.Path
	switch {
	case dir == root:
		return mp
	case root == ".":
		return mp + "/" + dir
	}
	return mp + "/" + strings.TrimPrefix(dir, root+"/")
}

// Dir maps an import path to a directory of the revision, when one of its
// modules (the one with the longest module path) contains it.
func (m *Modules) Dir(importPath string) (string, bool) {
	best, bestLen := "", -1
	for _, d := range m.roots {
		mp := m.files[d].Module.Mod.Path
		if importPath != mp && !strings.HasPrefix(importPath, mp+"/") || len(mp) <= bestLen {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(importPath, mp), "/")
		switch {
		case rel == "":
			best = d
		case d == ".":
			best = rel
		default:
			best = d + "/" + rel
		}
		bestLen = len(mp)
	}
	return best, bestLen >= 0
}

// RequiredVersion returns the module and version that the module
// containing fromDir requires for importPath (after replace directives
// that point at another module version), and the package's directory
// inside that module, if any.
func (m *Modules) RequiredVersion(fromDir, importPath string) (mod, version, sub string, ok bool) {
	_, f := m.Module(fromDir)
	if f == nil {
		return "", "", "", false
	}
	bestLen := -1
	for _, r := range f.Require {
		p := r.Mod.Path
		if (importPath == p || strings.HasPrefix(importPath, p+"/")) && len(p) > bestLen {
			mod, version, bestLen = p, r.Mod.Version, len(p)
		}
	}
	if bestLen < 0 {
		return "", "", "", false
	}
	sub = strings.TrimPrefix(strings.TrimPrefix(importPath, mod), "/")
	for _, rep := range f.Replace {
		if rep.Old.Path == mod && (rep.Old.Version == "" || rep.Old.Version == version) {
			if rep.New.Version == "" {
				// Replaced by a local directory: not in the module cache.
				return "", "", "", false
			}
			mod, version = rep.New.Path, rep.New.Version
		}
	}
	return mod, version, sub, true
}
