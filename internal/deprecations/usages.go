package deprecations

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// usages counts the usages left at the revision: of fields with the usage
// search of the two-step removal (usage.Finder; every version of the
// field's group counts, the group's own code and the usages.exclude
// files do not), of types and versions by the references and imports
// countTypeUsages finds.
func (r *run) usages(items []*item) {
	var fds []*model.FieldDiff
	var fields, others []*item
	for _, it := range items {
		if it.d.Kind == KindField {
			fds = append(fds, it.fd)
			fields = append(fields, it)
		} else {
			others = append(others, it)
		}
	}
	if len(fds) > 0 {
		f := usage.New(r.hist, fds)
		u, err := f.At(lifecycle.RevBase)
		f.Close()
		if err != nil {
			r.note("cannot count the usages of the deprecated fields: %v", err)
		} else {
			r.note("usages of fields: %s", u.Mode())
			for _, p := range u.Problems {
				r.note("usages of fields: %s", p)
			}
			for _, it := range fields {
				it.usages, it.counted = u.Of(it.fd).Len(), true
			}
		}
	}
	if len(others) > 0 {
		if err := r.countTypeUsages(others); err != nil {
			r.note("cannot count the usages of the deprecated types and versions: %v", err)
		}
	}
	for _, it := range items {
		if it.counted {
			n := it.usages
			it.d.Usages = &n
		}
	}
}

// countTypeUsages counts, for each deprecated type, the qualified
// references to it (pkg.Type, pkg naming any package of its group) and,
// for each deprecated version, the files that import it, in the Go files
// outside the element's group that the usage search reads too: not
// excluded by usages.exclude, not generated, not under vendor/, testdata/
// or a directory starting with "." or "_".
func (r *run) countTypeUsages(items []*item) error {
	exclude := r.hist.Options().UsageExclude
	if exclude == nil {
		exclude = config.DefaultUsageExclude()
	}
	globs, err := config.CompileGlobs(exclude)
	if err != nil {
		return err
	}
	// The import paths of the groups concerned, with their package names.
	names := map[string]string{}
	for _, it := range items {
		for _, p := range it.group.Packages() {
			names[p.ImportPath] = p.Name
		}
	}
	var paths []string
	for _, f := range r.in.Snap.Files() {
		if !strings.HasSuffix(f, ".go") || skippedDir(path.Dir(f)) {
			continue
		}
		parts := strings.Split(f, "/")
		excluded := false
		for _, g := range globs {
			if g.MatchSegments(parts) {
				excluded = true
				break
			}
		}
		if !excluded {
			paths = append(paths, f)
		}
	}
	srcs, err := r.in.Snap.ReadFiles(paths)
	if err != nil {
		return err
	}
	counts, err := par.Map(len(paths), func(i int) ([]int, error) {
		return fileUsages(paths[i], srcs[paths[i]], names, items), nil
	})
	if err != nil {
		return err
	}
	for _, it := range items {
		it.counted = true
	}
	for _, c := range counts {
		for j, n := range c {
			items[j].usages += n
		}
	}
	return nil
}

// fileUsages counts the usages of each item in one file (nil: none).
func fileUsages(p string, src []byte, names map[string]string, items []*item) []int {
	if gencode.Header(src) {
		return nil
	}
	mentions := false
	for ip := range names {
		if bytes.Contains(src, []byte(strconv.Quote(ip))) {
			mentions = true
			break
		}
	}
	if !mentions {
		return nil
	}
	fset := token.NewFileSet()
	hdr, err := parser.ParseFile(fset, p, src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	local := map[string]string{} // local name -> import path
	imported := map[string]bool{}
	for _, imp := range hdr.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name, ok := names[ip]
		if !ok {
			continue
		}
		imported[ip] = true
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name != "_" && name != "." {
			local[name] = ip
		}
	}
	if len(imported) == 0 {
		return nil
	}
	out := make([]int, len(items))
	var file *ast.File
	for j, it := range items {
		if inDir(p, it.group.Dir) {
			continue
		}
		if it.typ == nil {
			if imported[it.pkg.ImportPath] {
				out[j] = 1
			}
			continue
		}
		if !bytes.Contains(src, []byte("."+it.typ.Name)) {
			continue
		}
		if file == nil {
			if file, err = parser.ParseFile(fset, p, src, parser.SkipObjectResolution); err != nil {
				return out
			}
		}
		group := map[string]bool{}
		for _, pk := range it.group.Packages() {
			group[pk.ImportPath] = true
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != it.typ.Name {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && group[local[id.Name]] {
				out[j]++
			}
			return true
		})
	}
	return out
}

// inDir reports whether file lies in dir or below it.
func inDir(file, dir string) bool {
	return dir == "." || strings.HasPrefix(file, dir+"/")
}

// skippedDir reports directories the usage search never reads: vendor,
// testdata and those starting with "." or "_".
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
