package usage

import (
	"path"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/gomod"
)

// modules maps import paths to directories of one revision: every go.mod
// of the repository (nested modules included) names the import path of
// its directory (see gomod). A repository without go.mod names its
// packages by directory, as the scanner does.
type modules struct {
	mods *gomod.Modules
}

// readModules parses the go.mod files of a revision. A go.mod that does not
// parse, or one in a skipped directory (skippedDir: vendor, testdata,
// hidden or underscore directories), is ignored: it only names packages.
// Nothing in a go.mod is acted upon (no toolchain, no downloads).
func readModules(snap git.Snapshot, files []string) (*modules, error) {
	var goMods []string
	for _, f := range files {
		if path.Base(f) == "go.mod" && !skippedDir(path.Dir(f)) {
			goMods = append(goMods, f)
		}
	}
	mods, err := gomod.Read(snap, goMods)
	if err != nil {
		return nil, err
	}
	return &modules{mods: mods}, nil
}

// importPath names the package in dir.
func (m *modules) importPath(dir string) string { return m.mods.ImportPath(dir) }

// dir maps an import path to a directory of the repository, when one of
// its modules (the one with the longest module path) contains it. Without
// any go.mod, import paths are directories.
func (m *modules) dir(importPath string) (string, bool) {
	if len(m.mods.Roots()) == 0 {
		return importPath, true
	}
	return m.mods.Dir(importPath)
}

// skippedDir reports whether a directory is never Go code of the
// repository: vendored, test data, hidden or underscore directories (the
// go command ignores the last three).
func skippedDir(dir string) bool {
	if dir == "." {
		return false
	}
	for _, seg := range strings.Split(dir, "/") {
		if seg == "vendor" || seg == "testdata" || strings.HasPrefix(seg, ".") || strings.HasPrefix(seg, "_") {
			return true
		}
	}
	return false
}
