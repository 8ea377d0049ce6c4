package scan

import (
	"slices"

	"golang.org/x/mod/modfile"

	"github.com/apicheck/apicheck/internal/gomod"
)

// modules knows every go.mod of a revision (nested modules included), to
// turn directories into import paths and back (see gomod).
type modules struct {
	mods *gomod.Modules
	// byDir maps a module root directory ("." for the repository root) to
	// its parsed go.mod.
	byDir map[string]*modfile.File
}

func readModules(src Source, goMods []string) (*modules, error) {
	mods, err := gomod.Read(src, goMods)
	if err != nil {
		return nil, err
	}
	m := &modules{mods: mods, byDir: map[string]*modfile.File{}}
	for _, d := range mods.Roots() {
		m.byDir[d] = mods.File(d)
	}
	return m, nil
}

// importPath names the package in dir; without a go.mod it is the
// directory itself.
func (m *modules) importPath(dir string) string { return m.mods.ImportPath(dir) }

// dirFor maps an import path to a directory of this repository, if one of
// its modules contains it.
func (m *modules) dirFor(importPath string) (string, bool) { return m.mods.Dir(importPath) }

// requiredVersion returns the module and version that the module
// containing fromDir requires for importPath (after replace directives
// that point at another module version), and the package's directory
// inside that module, if any.
func (m *modules) requiredVersion(fromDir, importPath string) (mod, version, sub string, ok bool) {
	return m.mods.RequiredVersion(fromDir, importPath)
}

// paths returns the module paths of the repository and the modules their
// go.mod files require or replace (the old path of a replacement) that
// are not the repository's, each sorted (see model.Model.Requires).
func (m *modules) paths() (own, requires []string) {
	for _, f := range m.byDir {
		own = append(own, f.Module.Mod.Path)
	}
	for _, f := range m.byDir {
		for _, r := range f.Require {
			requires = append(requires, r.Mod.Path)
		}
		for _, r := range f.Replace {
			requires = append(requires, r.Old.Path)
		}
	}
	requires = slices.DeleteFunc(requires, func(r string) bool { return slices.Contains(own, r) })
	slices.Sort(own)
	slices.Sort(requires)
	return slices.Compact(own), slices.Compact(requires)
}
