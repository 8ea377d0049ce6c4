package scan

import (
	"go/ast"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apicheck/apicheck/internal/model"
)

// Packages of Kubernetes' own API modules that the repository's API
// types use (corev1.EnvVar, metav1.LabelSelector), read from the local
// module cache at the version the repository requires (Model.External),
// so that wire shapes compare through them as through the repository's
// own packages.

// externalModules are the modules whose packages become Model.External.
// Not every module the cache holds: k8s.io/api and k8s.io/apimachinery
// are the modules nearly every Kubernetes-style API embeds types of, with
// packages of plain declarations whose wire shapes follow from their tags
// and markers, and which reach no module beyond the two. Any other
// module may hold anything (a controller's whole code base, types whose
// own JSON methods decide their form, a reach into dozens of further
// modules), and reading it would cost a scan time and memory in
// proportion to what the repository happens to depend on.
var externalModules = []string{"k8s.io/api", "k8s.io/apimachinery"}

// externalModule reports whether importPath is a package of one of the
// externalModules.
func externalModule(importPath string) bool {
	for _, m := range externalModules {
		if importPath == m || strings.HasPrefix(importPath, m+"/") {
			return true
		}
	}
	return false
}

// maxExternal bounds how many packages of the module cache a scan builds
// for wire shapes.
const maxExternal = 64

// MaxExternal is that bound: scans of parts of a tree (Options.Only) hold
// the whole tree's external packages only while their union stays below
// it.
const MaxExternal = maxExternal

// maxModFile bounds the size of a file read from the module cache (the
// largest Go file of k8s.io/api's packages of types is below 400 KB).
const maxModFile = 8 << 20

// externalPackages builds the packages of the externalModules that the
// fields of m's packages (its groups' and the shared ones) reach, and
// those the fields of the types reached in turn reach, type by type: a
// package is read from the module cache only when a field of a reached
// type names one of its types, at the version the module of the
// repository's package that first reached it requires (the resolver's
// choice, see loadModCache). A package the module cache does not hold,
// that does not build, or that the repository holds itself is left out:
// its types stay unresolved. Sorted by import path.
func (s *state) externalPackages(m *model.Model) []*model.Package {
	known := map[string]bool{} // import paths of the repository's packages
	var own []*model.Package
	groups := slices.Clone(m.Groups)
	sort.Slice(groups, func(i, j int) bool { return groups[i].Dir < groups[j].Dir })
	for _, g := range groups {
		own = append(own, g.Packages()...)
	}
	own = append(own, m.Shared...)
	for _, p := range own {
		known[p.ImportPath] = true
	}
	type reached struct {
		pkg  *model.Package
		from string // the repository directory whose go.mod chose its version
		t    *model.Type
	}
	var queue []reached
	built := map[string]*model.Package{} // by import path; nil: not built
	from := map[*model.Package]string{}
	var out []*model.Package
	seen := map[string]bool{} // qualified type names
	// Type identities visited, by the package they were visited from:
	// many fields share one, and a second visit finds every name in it
	// seen already.
	visited := map[[2]string]bool{}
	visit := func(id, pkgPath, fromDir string) {
		if !strings.Contains(id, "/") && pkgPath == "" {
			return // a local, built-in or standard-library type
		}
		k := [2]string{pkgPath, id}
		if visited[k] {
			return
		}
		visited[k] = true
		if pkgPath != "" {
			id = model.QualifyLocal(id, pkgPath)
		}
		for _, q := range qualifiedID.FindAllString(id, -1) {
			dot := strings.LastIndexByte(q, '.')
			ip, name := q[:dot], q[dot+1:]
			if !externalModule(ip) || known[ip] || seen[q] {
				continue
			}
			seen[q] = true
			p, ok := built[ip]
			if !ok {
				if len(out) >= maxExternal {
					continue
				}
				var pFrom string
				p, pFrom = s.buildExternal(ip, fromDir)
				built[ip] = p
				if p != nil {
					out = append(out, p)
					from[p] = pFrom
				}
			}
			if p == nil {
				continue
			}
			if t := p.Type(name); t != nil {
				queue = append(queue, reached{p, from[p], t})
			}
		}
	}
	visitType := func(t *model.Type, pkgPath, fromDir string) {
		visit(t.UnderlyingID, pkgPath, fromDir)
		for _, f := range t.Fields {
			if f.JSON.Name != "-" {
				visit(f.TypeID, pkgPath, fromDir)
			}
		}
	}
	for _, p := range own {
		for _, t := range p.Types {
			visitType(t, "", p.Dir)
		}
	}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		visitType(r.t, r.pkg.ImportPath, r.from)
	}
	for _, p := range out {
		sort.Slice(p.Types, func(i, j int) bool { return p.Types[i].Name < p.Types[j].Name })
		sort.Slice(p.Consts, func(i, j int) bool { return p.Consts[i].Name < p.Consts[j].Name })
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ImportPath < out[j].ImportPath })
	return out
}

// buildExternal builds the package at importPath from the module cache,
// as the resolver finds it from the repository directory fromDir, and
// returns the repository directory whose module requirement chose its
// version (the resolver's first for the import path); nil when the
// module cache does not hold it, or it does not build.
func (s *state) buildExternal(importPath, fromDir string) (*model.Package, string) {
	dp := s.res.pkgFor(importPath, fromDir)
	if dp.dir != "" {
		return nil, "" // the repository's own (not an API group's, not shared)
	}
	s.res.loadModCache(dp)
	if !dp.found || len(dp.files) == 0 {
		return nil, ""
	}
	var pkg *model.Package
	if s.reuse != nil {
		pkg = s.modFiles.takeBuild(importPath, dp.modDir, dp.files)
	}
	if pkg == nil {
		var err error
		if pkg, err = s.buildPackageFiles(dp.modDir, importPath, "", dp.files); err != nil || len(pkg.Types) == 0 {
			return nil, ""
		}
		if s.record != nil {
			s.modFiles.putBuild(importPath, dp.modDir, dp.files, pkg)
		}
	}
	s.resolveIn(pkg, dp)
	return pkg, dp.fromDir
}

// modFiles holds the Go files of packages of the externalModules read
// from the module cache and parsed, by directory, for the scans that
// share it (base's and head's, through their Reuse): a package both
// revisions require at the same version is read and parsed once. The
// syntax trees are read-only. An entry is dropped when the second scan
// takes it. Safe for concurrent scans.
type modFiles struct {
	mu sync.Mutex
	m  map[string]*modFilesEntry
	// reads counts the directories read (tests).
	reads atomic.Int64
	// builds are the packages of the externalModules the first scan
	// built from these files, as built (before their types are resolved
	// and their contracts computed, which the second scan does on its own
	// copy), by import path; dropped when the second scan takes one.
	builds map[string]externalBuild
	// taken counts the builds the second scan took (tests).
	taken atomic.Int64
}

// externalBuild is a package built from a module cache directory.
type externalBuild struct {
	modDir string
	files  []*parsedFile
	pkg    *model.Package
}

// putBuild keeps a copy of pkg, built as buildExternal builds the
// package importPath from files of modDir, for the other scan.
func (c *modFiles) putBuild(importPath, modDir string, files []*parsedFile, pkg *model.Package) {
	b := externalBuild{modDir: modDir, files: files, pkg: clonePackage(pkg)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.builds == nil {
		c.builds = map[string]externalBuild{}
	}
	if _, ok := c.builds[importPath]; !ok {
		c.builds[importPath] = b
	}
}

// takeBuild returns the package putBuild kept for importPath when it was
// built from the same files (the same parse of the same directory: the
// build depends on nothing else), and nil otherwise.
func (c *modFiles) takeBuild(importPath, modDir string, files []*parsedFile) *model.Package {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.builds[importPath]
	if !ok || b.modDir != modDir || len(b.files) != len(files) || len(files) == 0 || &b.files[0] != &files[0] {
		return nil
	}
	delete(c.builds, importPath)
	c.taken.Add(1)
	return b.pkg
}

// clonePackage copies a package as buildPackageFiles returns it, down to
// what type resolution and contracts set (its types and fields) and
// what the external packages' walk sorts (its types and constants); the
// rest (files, imports, markers, docs, tags) is read only and shared.
// Nothing has looked a type up in p yet (Package.Type), nor indexed a
// type's fields (Model.Sort): the copies have no index of their own.
func clonePackage(p *model.Package) *model.Package {
	c := *p
	c.Types = make([]*model.Type, len(p.Types))
	for i, t := range p.Types {
		ct := *t
		if t.Fields != nil {
			store := make([]model.Field, len(t.Fields))
			ct.Fields = make([]*model.Field, len(t.Fields))
			for j, f := range t.Fields {
				store[j] = *f
				ct.Fields[j] = &store[j]
			}
		}
		c.Types[i] = &ct
	}
	if p.Consts != nil {
		c.Consts = make([]*model.Const, len(p.Consts))
		for i, k := range p.Consts {
			ck := *k
			c.Consts[i] = &ck
		}
	}
	return &c
}

type modFilesEntry struct {
	once  sync.Once
	files []*parsedFile
	decls []*ast.File // readDecls'
}

func newModFiles() *modFiles { return &modFiles{m: map[string]*modFilesEntry{}} }

// entry returns the memo entry of key, made by the first scan that asks
// and handed to the second, which the memo then forgets.
func (c *modFiles) entry(key string) *modFilesEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[key]
	if e == nil {
		e = &modFilesEntry{}
		c.m[key] = e
	} else {
		delete(c.m, key) // the second scan has it
	}
	return e
}

// read returns the parsed Go files of the module cache directory dir
// (rel is its path relative to the module cache, slash-separated, which
// names the files in positions: "k8s.io/api@v0.30.0/core/v1/types.go"):
// the regular files the scanner reads (scannable) that the platform
// builds and that parse, in name order; none when dir cannot be read.
func (c *modFiles) read(dir, rel string) []*parsedFile {
	e := c.entry(dir)
	e.once.Do(func() {
		c.reads.Add(1)
		e.files = readModDir(dir, rel)
	})
	return e.files
}

// readDecls returns readDeclFiles(dir) (the declarations of a package of
// another module, for type resolution), read once for the scans that
// share c as read does.
func (c *modFiles) readDecls(dir string) []*ast.File {
	e := c.entry("decls " + dir)
	e.once.Do(func() {
		c.reads.Add(1)
		e.decls = readDeclFiles(dir)
	})
	return e.decls
}

// readModDir is modFiles.read without the cache.
func readModDir(dir, rel string) []*parsedFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []*parsedFile
	for _, e := range entries {
		// A regular file only: the go command writes nothing else there,
		// and a link could name any file of the machine.
		if !e.Type().IsRegular() || !scannable(path.Join("x", e.Name())) {
			continue
		}
		if info, err := e.Info(); err != nil || info.Size() > maxModFile {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || len(src) > maxModFile {
			continue
		}
		pf, err := parseOne(rel+"/"+e.Name(), src)
		if err != nil || pf == nil {
			continue // left out by build constraints, or newer syntax: the declarations of the rest still resolve
		}
		out = append(out, pf)
	}
	return out
}
