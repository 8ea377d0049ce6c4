package usage

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/par"
)

// In-process type information.
//
// The packages holding candidate files are type-checked with go/types from
// the revision's own sources (read from git objects, never from a
// checkout), together with the in-repository packages they need. Nothing
// is executed: no go command, no cgo, no module download.
//
//   - An import path is in-repository when a go.mod of the revision (any
//     module of the repository) contains it; every other import (standard
//     library, third-party modules, vendor/) is not loaded: go/types then
//     gives the imported names an invalid type, and every expression built
//     from them stays unresolved. Unresolved receivers are not guessed:
//     they fall back to path matching (paths.go).
//   - Only what is needed is read and checked. A candidate package is
//     checked with the bodies of the functions that mention a removed
//     field's name; every other function body is dropped before checking.
//     Of every package, only the declarations the candidate files reach
//     are checked (reach.go). The in-repository packages are loaded on
//     demand, in waves: a package no reached declaration names is not
//     loaded at all.
//   - Files are the ones a linux/amd64 build without cgo compiles
//     (build.go). Packages are checked in dependency order, each level in
//     parallel; an import cycle (broken code) leaves the imports along the
//     cycle unresolved.

// unit is one package to type-check.
type unit struct {
	path  string // import path
	dir   string
	files []*ast.File
	// needs are the import paths its kept declarations refer to; only
	// these are served to the type checker.
	needs   []string
	needSet map[string]bool
	// idx is what it declares and keeps, from its parse to its prune;
	// waiting are the names asked of it before its parse.
	idx     *declIndex
	waiting []string
	// candidate units keep their type information for the reference
	// search.
	candidate bool
	info      *types.Info
	pkg       *types.Package
	// checked is set once pkg is final.
	checked bool
}

// loader type-checks in-repository packages of one revision.
type loader struct {
	snap git.Snapshot
	mods *modules
	fset *token.FileSet
	// shared holds the files loaded by the Finder's other searches.
	shared *shared
	byDir  map[string][]string // directory -> its .go files (sorted)
	units  map[string]*unit    // by import path
	// parsed holds files already parsed (the candidate files).
	parsed map[string]*ast.File
	// hot reports whether a function body of a candidate file may
	// reference a removed field (the body is kept).
	hot func(file string, body []byte) bool

	// keepAll type-checks every declaration of the packages loaded,
	// reached or not (tests compare the two).
	keepAll bool

	mu       sync.Mutex
	checked  int
	problems []string
	limited  bool
}

func newLoader(snap git.Snapshot, files []string, mods *modules, sh *shared, parsed map[string]*ast.File, hot func(string, []byte) bool) *loader {
	l := &loader{snap: snap, mods: mods, fset: sh.fset, shared: sh, byDir: map[string][]string{}, units: map[string]*unit{},
		parsed: parsed, hot: hot}
	for _, f := range files {
		if strings.HasSuffix(f, ".go") && !skippedDir(path.Dir(f)) {
			l.byDir[path.Dir(f)] = append(l.byDir[path.Dir(f)], f)
		}
	}
	return l
}

// load type-checks the packages of the candidate files (directory ->
// the candidate files in it) and everything in the repository they need.
// It returns the candidate units by directory.
func (l *loader) load(cands map[string][]string, srcs map[string][]byte) (map[string]*unit, error) {
	out := map[string]*unit{}
	var wave []*unit
	dirs := make([]string, 0, len(cands))
	for d := range cands {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		u := &unit{path: l.mods.importPath(d), dir: d, candidate: true}
		if old := l.units[u.path]; old != nil {
			continue // two directories with one import path: keep the first
		}
		l.units[u.path] = u
		out[d] = u
		wave = append(wave, u)
	}
	if err := l.parseAll(wave, cands, srcs); err != nil {
		return nil, err
	}
	if l.limited {
		l.problems = append(l.problems, fmt.Sprintf("type information is limited to %d packages; imports beyond stay unresolved", maxUnits))
	}
	l.check()
	return out, nil
}

// parseAll parses the units of the first wave and, wave by wave, the
// in-repository packages whose declarations they reach (reach.go); then
// it prunes each unit to the declarations reached. The Finder's other
// searches wait meanwhile (see shared.reading).
func (l *loader) parseAll(wave []*unit, cands map[string][]string, srcs map[string][]byte) error {
	l.shared.reading.Lock()
	defer l.shared.reading.Unlock()
	r := &reacher{l: l}
	for len(wave) > 0 {
		if err := l.parseWave(wave, cands, srcs); err != nil {
			return err
		}
		wave = r.parsed(wave)
	}
	for _, u := range l.units {
		u.prune()
	}
	return nil
}

// maxUnits bounds the packages one search type-checks, so that a
// pathological repository costs bounded time and memory; imports beyond
// stay unresolved (matched by path).
const maxUnits = 5000

// parseWave reads and parses the files of a wave of units in parallel and
// works out what each needs.
func (l *loader) parseWave(wave []*unit, cands map[string][]string, srcs map[string][]byte) error {
	var need []string
	for _, u := range wave {
		for _, f := range l.byDir[u.dir] {
			// The files parseUnit leaves out (tests and generated
			// conversion code, but for candidates) are not read.
			if _, ok := srcs[f]; !ok && !skipped(f, cands[u.dir]) && l.known(f) == nil {
				need = append(need, f)
			}
		}
	}
	if len(need) > 0 {
		l.shared.read.Add(int64(len(need)))
		got, err := l.snap.ReadFiles(need)
		if err != nil {
			return err
		}
		for f, b := range got {
			srcs[f] = b
		}
	}
	return par.Do(len(wave), func(i int) error {
		u := wave[i]
		l.parseUnit(u, cands[u.dir], srcs)
		return nil
	})
}

// skipped reports a file of a unit's directory that its type check
// leaves out: a test or generated conversion code that is not one of the
// candidate files candFiles.
func skipped(f string, candFiles []string) bool {
	return (strings.HasSuffix(f, "_test.go") || conversionCode(f)) && !slices.Contains(candFiles, f)
}

// parseUnit parses a unit's files: the files of its directory that build
// on linux/amd64 and belong to the package (the candidate files' package,
// else the most common package name), non-test files plus the candidate
// files themselves. Function bodies are dropped except in candidate files
// where they mention a name of interest.
func (l *loader) parseUnit(u *unit, candFiles []string, srcs map[string][]byte) {
	isCand := map[string]bool{}
	for _, f := range candFiles {
		isCand[f] = true
	}
	type pf struct {
		name string
		file *ast.File
	}
	var files []pf
	names := map[string]int{}
	for _, f := range l.byDir[u.dir] {
		if !isCand[f] && skipped(f, nil) {
			continue
		}
		af := l.parsed[f]
		if af != nil {
			if !buildOK(f, srcs[f]) {
				continue
			}
		} else {
			d := l.declFile(f, srcs[f])
			if !d.builds || d.file == nil {
				continue
			}
			af = d.file
		}
		if importsC(af) {
			continue
		}
		files = append(files, pf{f, af})
		names[af.Name.Name]++
	}
	pkgName := ""
	for _, f := range candFiles {
		if af := l.parsed[f]; af != nil {
			pkgName = af.Name.Name
			break
		}
	}
	if pkgName == "" {
		best := -1
		for n, c := range names {
			if c > best || c == best && n < pkgName {
				pkgName, best = n, c
			}
		}
	}
	var cand []bool
	for _, f := range files {
		if f.file.Name.Name != pkgName {
			continue
		}
		keep, name := isCand[f.name], f.name
		stripBodies(l.fset, f.file, srcs[f.name], func(body []byte) bool { return keep && l.hot(name, body) })
		u.files = append(u.files, f.file)
		cand = append(cand, keep)
	}
	u.needSet = map[string]bool{}
	u.idx = newDeclIndex(u.files, cand)
}

// known returns the file as another search of the Finder loaded it (the
// same blob), nil when none did.
func (l *loader) known(f string) *declFile {
	k, ok := keyOf(l.snap, f)
	if !ok {
		return nil
	}
	l.shared.mu.Lock()
	defer l.shared.mu.Unlock()
	return l.shared.decls[k]
}

// declFile loads a file for its declarations: whether it builds on
// linux/amd64, and its syntax without function bodies (golex.DeclsOnly). src
// is its content, unless another search loaded the same blob.
func (l *loader) declFile(f string, src []byte) *declFile {
	if d := l.known(f); d != nil {
		return d
	}
	d := &declFile{builds: buildOK(f, src)}
	if d.builds {
		// A file that does not parse keeps what the parser made of it.
		d.file, _ = parser.ParseFile(l.fset, f, golex.DeclsOnly(src), parser.SkipObjectResolution)
	}
	if k, ok := keyOf(l.snap, f); ok {
		l.shared.mu.Lock()
		l.shared.decls[k] = d
		l.shared.mu.Unlock()
	}
	return d
}

// conversionCode reports whether a file holds code generated from API
// types that the usage search never needs: protobuf marshalling,
// conversion and defaulting functions, OpenAPI definitions. They declare
// methods and functions whose results are never structs of an API group,
// so no selector chain to a removed field goes through them, and they are
// by far the largest files of an API package.
func conversionCode(file string) bool {
	switch base := path.Base(file); {
	case strings.HasSuffix(base, ".pb.go"):
		return true
	case base == "zz_generated.conversion.go", base == "zz_generated.defaults.go", base == "openapi_generated.go":
		return true
	}
	return false
}

func importsC(f *ast.File) bool {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

// stripBodies drops the body of every function whose source text keep
// rejects (function literals inside kept bodies stay).
func stripBodies(fset *token.FileSet, f *ast.File, src []byte, keep func(body []byte) bool) {
	tf := fset.File(f.Pos())
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if tf != nil {
			lo, hi := tf.Offset(fd.Body.Lbrace), tf.Offset(fd.Body.Rbrace)
			if lo >= 0 && hi <= len(src) && lo <= hi && keep(src[lo:hi]) {
				continue
			}
		}
		fd.Body = nil
	}
}

// guessName is the package name an import path most likely declares: the
// last element, without a major-version element (/v2) or suffix (.v3), a
// "go-" prefix or a ".go" suffix. An in-repository package whose name
// differs from its directory, imported without a name, is not recognised
// as needed and stays unresolved (its references are matched by path).
func guessName(ip string) string {
	elems := strings.Split(ip, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && majorVersion(last) {
		last = elems[len(elems)-2]
	}
	if i := strings.LastIndex(last, ".v"); i > 0 && majorVersion(last[i+1:]) {
		last = last[:i]
	}
	last = strings.TrimPrefix(strings.TrimSuffix(last, ".go"), "go-")
	return strings.NewReplacer("-", "_", ".", "_").Replace(last)
}

// majorVersion reports whether s is a module major version element, v2 or
// above (v0 and v1 are ordinary package names, as in k8s.io/api/core/v1).
func majorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' || strings.Trim(s[1:], "0123456789") != "" {
		return false
	}
	return s != "v0" && s != "v1"
}

var errNotLoaded = errors.New("not loaded")

// check type-checks every unit in dependency order: each level (units
// whose in-repository dependencies are all checked) in parallel.
func (l *loader) check() {
	pending := map[*unit]int{}
	users := map[*unit][]*unit{}
	for _, u := range l.units {
		for _, ip := range u.needs {
			if d := l.units[ip]; d != nil {
				pending[u]++
				users[d] = append(users[d], u)
			}
		}
	}
	var level []*unit
	for _, u := range l.units {
		if pending[u] == 0 {
			level = append(level, u)
		}
	}
	done := map[*unit]bool{}
	for len(done) < len(l.units) {
		if len(level) == 0 {
			// An import cycle: check the rest one by one; imports along
			// the cycle stay unresolved.
			for _, u := range l.units {
				if !done[u] {
					level = append(level, u)
					break
				}
			}
		}
		sortUnits(level)
		_ = par.Do(len(level), func(i int) error {
			l.checkUnit(level[i])
			return nil
		})
		var next []*unit
		for _, u := range level {
			done[u] = true
		}
		for _, u := range level {
			for _, w := range users[u] {
				pending[w]--
				if pending[w] == 0 && !done[w] {
					next = append(next, w)
				}
			}
		}
		level = next
	}
}

func sortUnits(us []*unit) {
	sort.Slice(us, func(i, j int) bool { return us[i].path < us[j].path })
}

// checkUnit type-checks one unit. Errors (unresolved imports, undefined
// names) are expected and ignored: the affected expressions have no type.
func (l *loader) checkUnit(u *unit) {
	defer func() {
		if p := recover(); p != nil {
			l.mu.Lock()
			l.problems = append(l.problems, fmt.Sprintf("type-checking %s failed: %v", u.path, p))
			l.mu.Unlock()
		}
	}()
	conf := types.Config{
		Importer: importerFunc(func(ip string) (*types.Package, error) {
			if ip == "unsafe" {
				return types.Unsafe, nil
			}
			// Only the needed imports, all checked at an earlier level
			// (or, along an import cycle, not at all).
			if d := l.units[ip]; d != nil && u.needSet[ip] && d.checked && d.pkg != nil {
				return d.pkg, nil
			}
			return nil, errNotLoaded
		}),
		Error: func(error) {},
	}
	var info *types.Info
	if u.candidate {
		info = &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		}
	}
	pkg, _ := conf.Check(u.path, l.fset, u.files, info)
	u.info = info
	u.pkg = pkg
	u.checked = true
	if !u.candidate {
		u.files = nil // the AST is not needed any more
	}
	l.mu.Lock()
	l.checked++
	l.mu.Unlock()
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
