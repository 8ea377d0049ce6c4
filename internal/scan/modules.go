package scan

import (
	"path"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// modules knows every go.mod of a revision (nested modules included), to
// turn directories into import paths and back.
type modules struct {
	// byDir maps a module root directory ("." for the repository root) to
	// its parsed go.mod.
	byDir map[string]*modfile.File
	dirs  []string // module roots, longest first
}

func readModules(src Source, goMods []string) (*modules, error) {
	m := &modules{byDir: map[string]*modfile.File{}}
	if len(goMods) == 0 {
		return m, nil
	}
	contents, err := src.ReadFiles(goMods)
	if err != nil {
		return nil, err
	}
	for _, p := range goMods {
		dir := path.Dir(p)
		if strings.Contains("/"+dir+"/", "/vendor/") || strings.Contains("/"+dir+"/", "/testdata/") {
			continue
		}
		// A go.mod that does not parse is not fatal: the module path is
		// only used to name packages. Lax parsing ignores unknown
		// directives of newer Go versions.
		f, err := modfile.ParseLax(p, contents[p], nil)
		if err != nil || f.Module == nil {
			continue
		}
		m.byDir[dir] = f
		m.dirs = append(m.dirs, dir)
	}
	sort.Slice(m.dirs, func(i, j int) bool {
		if len(m.dirs[i]) != len(m.dirs[j]) {
			return len(m.dirs[i]) > len(m.dirs[j])
		}
		return m.dirs[i] < m.dirs[j]
	})
	return m, nil
}

// moduleFor returns the module root directory containing dir.
func (m *modules) moduleFor(dir string) (string, *modfile.File) {
	for _, d := range m.dirs {
		if d == "." || dir == d || strings.HasPrefix(dir, d+"/") {
			return d, m.byDir[d]
		}
	}
	return "", nil
}

// importPath names the package in dir; without a go.mod it is the
// directory itself.
func (m *modules) importPath(dir string) string {
	root, f := m.moduleFor(dir)
	if f == nil {
		return dir
	}
	if root == "." {
		if dir == "." {
			return f.Module.Mod.Path
		}
		return f.Module.Mod.Path + "/" + dir
	}
	if dir == root {
		return f.Module.Mod.Path
	}
	return f.Module.Mod.Path + "/" + strings.TrimPrefix(dir, root+"/")
}

// dirFor maps an import path to a directory of this repository, if one of
// its modules contains it.
func (m *modules) dirFor(importPath string) (string, bool) {
	best, bestLen := "", -1
	for _, d := range m.dirs {
		mp := m.byDir[d].Module.Mod.Path
		if importPath != mp && !strings.HasPrefix(importPath, mp+"/") {
			continue
		}
		if len(mp) <= bestLen {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(importPath, mp), "/")
		switch {
		case d == "." && rel == "":
			best = "."
		case d == ".":
			best = rel
		case rel == "":
			best = d
		default:
			best = d + "/" + rel
		}
		bestLen = len(mp)
	}
	return best, bestLen >= 0
}

// requiredVersion returns the module and version that the module
// containing fromDir requires for importPath (after replace directives
// that point at another module version), and the package's directory
// inside that module, if any.
func (m *modules) requiredVersion(fromDir, importPath string) (mod, version, sub string, ok bool) {
	_, f := m.moduleFor(fromDir)
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
