package usage

import (
	"path"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/apicheck/apicheck/internal/git"
)

// modules maps import paths to directories of one revision: every go.mod
// of the repository (nested modules included) names the import path of
// its directory. A repository without go.mod names its packages by
// directory, as the scanner does.
type modules struct {
	roots []string          // module root directories, longest first
	paths map[string]string // root -> module path
}

// readModules parses the go.mod files of a revision. A go.mod that does not
// parse, or one under vendor/ or testdata/, is ignored: it only names
// packages. Nothing in a go.mod is acted upon (no toolchain, no
// downloads).
func readModules(snap git.Snapshot, files []string) (*modules, error) {
	m := &modules{paths: map[string]string{}}
	var goMods []string
	for _, f := range files {
		if path.Base(f) == "go.mod" && !skippedDir(path.Dir(f)) {
			goMods = append(goMods, f)
		}
	}
	if len(goMods) == 0 {
		return m, nil
	}
	contents, err := snap.ReadFiles(goMods)
	if err != nil {
		return nil, err
	}
	for _, p := range goMods {
		f, err := modfile.ParseLax(p, contents[p], nil)
		if err != nil || f.Module == nil || f.Module.Mod.Path == "" {
			continue
		}
		dir := path.Dir(p)
		m.paths[dir] = f.Module.Mod.Path
		m.roots = append(m.roots, dir)
	}
	sort.Slice(m.roots, func(i, j int) bool {
		if len(m.roots[i]) != len(m.roots[j]) {
			return len(m.roots[i]) > len(m.roots[j])
		}
		return m.roots[i] < m.roots[j]
	})
	return m, nil
}

// importPath names the package in dir.
func (m *modules) importPath(dir string) string {
	for _, r := range m.roots {
		switch {
		case r == "." && dir == ".":
			return m.paths[r]
		case r == ".":
			return m.paths[r] + "/" + dir
		case dir == r:
			return m.paths[r]
		case strings.HasPrefix(dir, r+"/"):
			return m.paths[r] + "/" + strings.TrimPrefix(dir, r+"/")
		}
	}
	return dir
}

// dir maps an import path to a directory of the repository, when one of
// its modules (the one with the longest module path) contains it. Without
// any go.mod, import paths are directories.
func (m *modules) dir(importPath string) (string, bool) {
	if len(m.roots) == 0 {
		return importPath, true
	}
	best, bestLen := "", -1
	for _, r := range m.roots {
		mp := m.paths[r]
		if importPath != mp && !strings.HasPrefix(importPath, mp+"/") || len(mp) <= bestLen {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(importPath, mp), "/")
		switch {
		case rel == "":
			best = r
		case r == ".":
			best = rel
		default:
			best = r + "/" + rel
		}
		bestLen = len(mp)
	}
	return best, bestLen >= 0
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
