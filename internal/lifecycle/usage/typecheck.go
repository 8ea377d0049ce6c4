package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Exact usage search.
//
// The syntactic candidates of a revision R are confirmed by type-checking
// only the packages that contain them, with golang.org/x/tools/go/packages
// run in the working tree:
//
//   - R's go.mod and go.sum are copied to a temporary directory and passed
//     with -modfile, so the module graph is R's and nothing in the
//     repository is ever written (-mod=mod may update the copy);
//   - every Go file of the module that differs between R and the working
//     tree is replaced through a `go build -overlay` file (R's content, or
//     "absent" for a file R does not have), so dependencies compile from
//     R's sources and their export data stays usable;
//   - every package's types come from export data; the candidate packages
//     are then type-checked here from R's sources (go/types, importing the
//     loaded dependencies), which also covers files only R has;
//   - GOPROXY=off, GOSUMDB=off, GOTOOLCHAIN=local and GOWORK=off: nothing
//     is downloaded. A dependency missing from the module cache, a type
//     error, or a module without go.mod in the working tree ends the
//     attempt, and the syntactic result stands (the report says so).
//
// Candidates in files the build leaves out (another GOOS, build tags) are
// kept as they are.

// maxOverlay bounds how different R and the working tree may be.
const maxOverlay = 5000

// confirm type-checks the candidates. It returns the confirmed usages and
// "" on success, or why the syntactic candidates have to stand.
func (e *Finder) confirm(snap git.Snapshot, q *usageQuery, cands []candidate) ([]candidate, string) {
	if e.hist.Options().TypeInfo == lifecycle.TypeInfoOff {
		return nil, "type information is disabled by configuration (APICHECK_TYPE_INFO=auto enables it, for trusted code only)"
	}
	if e.hist.Input().Repo == nil {
		return nil, "type information needs the repository's working tree, which this run does not have"
	}
	mods := moduleRoots(snap.Files())
	byMod := map[string][]candidate{}
	for _, c := range cands {
		root := moduleOf(mods, path.Dir(c.pos.File))
		if root == "" {
			return nil, fmt.Sprintf("%s is not inside a Go module", c.pos.File)
		}
		byMod[root] = append(byMod[root], c)
	}
	var out []candidate
	roots := make([]string, 0, len(byMod))
	for r := range byMod {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	for _, root := range roots {
		got, err := e.confirmModule(snap, root, q, byMod[root])
		if err != nil {
			return nil, typeInfoProblem(root, err)
		}
		out = append(out, got...)
	}
	return out, ""
}

// missingDependency matches the go command's ways of saying that a
// dependency is not in the module cache (it may not download it).
var missingDependency = regexp.MustCompile(`GOPROXY=off|module lookup disabled|missing go\.sum entry|` +
	`no required module provides package|cannot find module providing package|not in the module cache`)

// typeInfoProblem says in the user's words why type information for the
// module at root could not be had: the go command's own words (its
// environment settings, internal package errors) stay out of the report.
func typeInfoProblem(root string, err error) string {
	mod := "the module at the repository root"
	if root != "." && root != "" {
		mod = "module " + root
	}
	msg := strings.TrimSpace(err.Error())
	if missingDependency.MatchString(msg) {
		return fmt.Sprintf("type information unavailable: dependencies of %s are not in the local module cache, and apicheck "+
			"never downloads them (run `go mod download` in that module first to get exact usages)", mod)
	}
	first, _, _ := strings.Cut(msg, "\n")
	return fmt.Sprintf("type information unavailable: type-checking %s failed (%s)", mod, first)
}

// moduleRoots returns the directories holding a go.mod, longest first.
func moduleRoots(files []string) []string {
	var out []string
	for _, f := range files {
		if path.Base(f) == "go.mod" && usageDir(path.Dir(f)) {
			out = append(out, path.Dir(f))
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func usageDir(d string) bool { return scan.Scannable(d + "/x.go") }

func moduleOf(roots []string, dir string) string {
	for _, r := range roots {
		if r == "." || dir == r || strings.HasPrefix(dir, r+"/") {
			return r
		}
	}
	return ""
}

func (e *Finder) confirmModule(snap git.Snapshot, modRoot string, q *usageQuery, cands []candidate) ([]candidate, error) {
	repoRoot := e.hist.Input().Repo.Root
	absMod := filepath.Join(repoRoot, filepath.FromSlash(modRoot))
	if _, err := os.Stat(filepath.Join(absMod, "go.mod")); err != nil {
		return nil, fmt.Errorf("module %s has no go.mod in the working tree", modRoot)
	}
	tmp, err := os.MkdirTemp("", "apicheck-types-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	// R's go.mod and go.sum.
	modFiles := []string{joinRel(modRoot, "go.mod")}
	if hasFile(snap, joinRel(modRoot, "go.sum")) {
		modFiles = append(modFiles, joinRel(modRoot, "go.sum"))
	}
	mc, err := snap.ReadFiles(modFiles)
	if err != nil {
		return nil, err
	}
	modfile := filepath.Join(tmp, "go.mod")
	if err := os.WriteFile(modfile, mc[modFiles[0]], 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), mc[joinRel(modRoot, "go.sum")], 0o644); err != nil {
		return nil, err
	}

	overlay, err := e.overlay(snap, modRoot, tmp)
	if err != nil {
		return nil, err
	}
	var patterns []string
	seenDir := map[string]bool{}
	for _, c := range cands {
		d := path.Dir(c.pos.File)
		if seenDir[d] {
			continue
		}
		seenDir[d] = true
		rel := strings.TrimPrefix(strings.TrimPrefix(d, modRoot), "/")
		if modRoot == "." {
			rel = d
		}
		if rel == "" || rel == "." {
			patterns = append(patterns, ".")
		} else {
			patterns = append(patterns, "./"+rel)
		}
	}
	sort.Strings(patterns)
	overlayJSON := filepath.Join(tmp, "overlay.json")
	data, err := json.Marshal(map[string]any{"Replace": overlay.files})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(overlayJSON, data, 0o644); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Types of every package come from export data (compiled by the go
	// command with the overlay); the candidate packages are then
	// type-checked here from R's sources.
	cfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedExportFile,
		Dir:        absMod,
		Env:        goEnv(),
		BuildFlags: []string{"-modfile=" + modfile, "-overlay=" + overlayJSON},
		Logf:       func(string, ...any) {},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, firstLine(err.Error())
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, pe := range p.Errors {
			errs = append(errs, pe.Error())
		}
	})
	if len(errs) > 0 {
		return nil, firstLine(errs[0])
	}
	type checked struct {
		fset  *token.FileSet
		files []*ast.File
		info  *types.Info
	}
	var roots []checked
	for _, p := range pkgs {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, abs := range p.CompiledGoFiles {
			src, ok := overlay.content[abs]
			if !ok {
				if src, err = os.ReadFile(abs); err != nil {
					return nil, err
				}
			}
			f, err := parser.ParseFile(fset, abs, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, firstLine(err.Error())
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		var typeErr error
		conf := types.Config{
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if path == "unsafe" {
					return types.Unsafe, nil
				}
				if ip := p.Imports[path]; ip != nil && ip.Types != nil {
					return ip.Types, nil
				}
				return nil, fmt.Errorf("package %s not loaded", path)
			}),
			Error: func(err error) {
				if typeErr == nil {
					typeErr = err
				}
			},
		}
		_, _ = conf.Check(p.PkgPath, fset, files, info)
		if typeErr != nil {
			return nil, firstLine(typeErr.Error())
		}
		roots = append(roots, checked{fset, files, info})
	}

	// Every field of the query, as a types.Var, found through the field
	// uses of the loaded packages.
	want := map[string]bool{}
	for _, g := range q.groups {
		for n := range g.byName {
			want[n] = true
		}
	}
	covered := map[string]bool{}
	var out []candidate
	for _, p := range roots {
		for _, f := range p.files {
			abs := p.fset.Position(f.Pos()).Filename
			rel, err := filepath.Rel(repoRoot, abs)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			covered[rel] = true
			if !scan.Scannable(rel) || q.excluded(rel) {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok || !want[id.Name] {
					return true
				}
				v, ok := p.info.Uses[id].(*types.Var)
				if !ok || !v.IsField() || v.Pkg() == nil {
					return true
				}
				for _, g := range q.groups {
					if !g.imports[v.Pkg().Path()] || inGroup(rel, g.dir) {
						continue
					}
					for _, k := range g.byName[id.Name] {
						if declares(v.Pkg(), k.typ, v) {
							ps := p.fset.Position(id.Pos())
							out = append(out, candidate{pos: model.Pos{File: rel, Line: ps.Line, Col: ps.Column}, group: g, name: id.Name, key: k, exact: true})
						}
					}
				}
				return true
			})
		}
	}
	// Candidates in files the build left out cannot be judged: keep them.
	for _, c := range cands {
		if !covered[c.pos.File] {
			out = append(out, c)
		}
	}
	return out, nil
}

// declares reports whether v is a field of the struct type named typ in
// pkg.
func declares(pkg *types.Package, typ string, v *types.Var) bool {
	tn, ok := pkg.Scope().Lookup(typ).(*types.TypeName)
	if !ok {
		return false
	}
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if st.Field(i) == v.Origin() {
			return true
		}
	}
	return false
}

// overlayFiles describe R's Go files where they differ from the working
// tree.
type overlayFiles struct {
	// files maps an absolute path to the file holding R's content, or to
	// "" when R has no such file (the -overlay "Replace" map).
	files map[string]string
	// content maps an absolute path to R's content.
	content map[string][]byte
}

// overlay computes the overlay for the module at modRoot; backing files
// go to tmp.
func (e *Finder) overlay(snap git.Snapshot, modRoot, tmp string) (*overlayFiles, error) {
	ov := &overlayFiles{files: map[string]string{}, content: map[string][]byte{}}
	if snap.Ref() == git.WorktreeRef {
		return ov, nil
	}
	root := e.hist.Input().Repo.Root
	spec := modRoot
	changed, err := e.hist.Input().Repo.Output("diff", "--name-only", "-z", "--no-renames", snap.Commit(), "--", spec)
	if err != nil {
		return nil, err
	}
	untracked, err := e.hist.Input().Repo.Output("ls-files", "-z", "--others", "--exclude-standard", "--", spec)
	if err != nil {
		return nil, err
	}
	inR := map[string]bool{}
	for _, f := range snap.Files() {
		inR[f] = true
	}
	var read, absent []string
	seen := map[string]bool{}
	for _, rec := range strings.Split(string(changed)+"\x00"+string(untracked), "\x00") {
		if rec == "" || seen[rec] || !strings.HasSuffix(rec, ".go") || strings.HasSuffix(rec, "_test.go") {
			continue
		}
		seen[rec] = true
		if inR[rec] {
			read = append(read, rec)
		} else {
			absent = append(absent, rec)
		}
	}
	if len(read)+len(absent) > maxOverlay {
		return nil, fmt.Errorf("%s and the working tree differ in more than %d Go files", snap.Ref(), maxOverlay)
	}
	contents, err := snap.ReadFiles(read)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "overlay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i, rel := range read {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		backing := filepath.Join(dir, fmt.Sprintf("%d.go", i))
		if err := os.WriteFile(backing, contents[rel], 0o644); err != nil {
			return nil, err
		}
		ov.files[abs] = backing
		ov.content[abs] = contents[rel]
	}
	for _, rel := range absent {
		ov.files[filepath.Join(root, filepath.FromSlash(rel))] = ""
	}
	return ov, nil
}

// goEnv is the go command's environment: nothing downloaded, no
// toolchain switch (go.mod's toolchain line is ignored), no go.work, no
// cgo (no C compiler, no pkg-config), no telemetry, no VCS, and no GOFLAGS
// but these, whatever the caller's environment or go env file says.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOPROXY", "GOSUMDB", "GOWORK", "GOTOOLCHAIN", "GO111MODULE", "CGO_ENABLED", "GOTELEMETRY", "GOVCS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local",
		"GO111MODULE=on", "CGO_ENABLED=0", "GOTELEMETRY=off", "GOVCS=*:off")
}

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

func hasFile(snap git.Snapshot, p string) bool {
	for _, f := range snap.Files() {
		if f == p {
			return true
		}
	}
	return false
}

func firstLine(s string) error {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return fmt.Errorf("%s", s)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
