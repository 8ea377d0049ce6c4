package scan

import (
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
