package fix

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
)

// The pointer fix asks whether code of the field's package uses the
// field: making it a pointer would break that code. The question is
// answered with in-process type information, the way the lifecycle usage
// search (internal/lifecycle/usage) gets it: the package's files are
// type-checked with go/types from their sources; nothing is executed, no
// go command runs, nothing is downloaded. Imports are not loaded (only
// the package itself is served, to its external test package and to
// files of other package names in the directory): names from them have
// no type, and a selector whose receiver has no known type may be the
// field. Generated files (a "// Code generated ... DO NOT EDIT." header,
// zz_generated*, *.pb.go) are checked for their declarations only; their
// uses do not count, as the generators write them anew.

// typedPkg is the type information of one package directory.
type typedPkg struct {
	files map[string][]byte // the contents checked
	fset  *token.FileSet
	// own are the files whose uses count (not generated), by name.
	own   []*ast.File
	names map[*ast.File]string
	info  *types.Info
	pkg   *types.Package // nil when checking failed
}

// fieldRef is a place that uses a field, or may: sure is false when the
// receiver's type is not known.
type fieldRef struct {
	pos  string
	sure bool
}

// generatedFile reports whether a Go file is written by a generator: its
// name (zz_generated*, *.pb.go) or a "// Code generated ... DO NOT
// EDIT." line before the package clause (https://go.dev/s/generatedcode).
func generatedFile(name string, src []byte) bool {
	base := path.Base(name)
	if strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, ".pb.go") {
		return true
	}
	return gencode.Header(src)
}

var errNotLoaded = errors.New("imports are not loaded")

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// typeCheck type-checks the Go files of one directory: the files of
// package pkgName (its tests in the package included) as importPath, and
// every other package of the directory (the external test package) with
// that package as its only import. A file that is not generated and does
// not parse is an error; a generated one that does not parse is left
// out.
func typeCheck(files map[string][]byte, pkgName, importPath string) (tp *typedPkg, pe *parseError) {
	tp = &typedPkg{files: files, fset: token.NewFileSet(), names: map[*ast.File]string{},
		info: &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		}}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	byPkg := map[string][]*ast.File{}
	var others []string
	for _, n := range names {
		src := files[n]
		gen := generatedFile(n, src)
		if gen {
			// Only its declarations are checked: no position in it is
			// reported, and bodies are most of a generated file.
			src = golex.DeclsOnly(src)
		}
		f, err := parser.ParseFile(tp.fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			if gen {
				continue
			}
			pe := &parseError{pos: n, msg: err.Error()}
			var list scanner.ErrorList
			if errors.As(err, &list) && len(list) > 0 {
				pe.pos = model.Pos{File: n, Line: list[0].Pos.Line, Col: list[0].Pos.Column}.String()
				pe.msg = list[0].Msg
			}
			return nil, pe
		}
		if gen {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					fd.Body = nil
				}
			}
		} else {
			tp.own = append(tp.own, f)
		}
		tp.names[f] = n
		name := f.Name.Name
		if _, ok := byPkg[name]; !ok && name != pkgName {
			others = append(others, name)
		}
		byPkg[name] = append(byPkg[name], f)
	}
	if importPath == "" {
		importPath = pkgName
	}
	check := func(path string, fs []*ast.File, self *types.Package) (pkg *types.Package) {
		defer func() {
			if recover() != nil {
				pkg = nil // a bug in go/types: every use is a possible one
			}
		}()
		conf := types.Config{
			Importer: importerFunc(func(ip string) (*types.Package, error) {
				switch {
				case ip == "unsafe":
					return types.Unsafe, nil
				case self != nil && ip == importPath:
					return self, nil
				}
				return nil, errNotLoaded
			}),
			// Unresolved imports and whatever follows from them are
			// expected: the expressions concerned have no type.
			Error: func(error) {},
		}
		pkg, _ = conf.Check(path, tp.fset, fs, tp.info)
		return pkg
	}
	tp.pkg = check(importPath, byPkg[pkgName], nil)
	for _, name := range others {
		check(importPath+"#"+name, byPkg[name], tp.pkg)
	}
	return tp, nil
}

// target is the field var of a struct of the package, nil when the
// package has no such struct field (or was not checked).
func (tp *typedPkg) target(typ, field string) (*types.Var, *types.Struct) {
	if tp.pkg == nil {
		return nil, nil
	}
	tn, ok := tp.pkg.Scope().Lookup(typ).(*types.TypeName)
	if !ok {
		return nil, nil
	}
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		return nil, nil
	}
	for i := range st.NumFields() {
		if f := st.Field(i); f.Name() == field && !f.Embedded() {
			return f, st
		}
	}
	return nil, st
}

// uses finds the uses of field of struct typ in the files that are not
// generated: a selector that selects it (directly or promoted through
// embedding, of typ or of a type defined from it), a key of a composite
// literal that names it, a literal of the struct without keys. A
// selector or key with the field's name whose receiver has no known type
// is a possible use (sure false).
func (tp *typedPkg) uses(typ, field string) []fieldRef {
	target, st := tp.target(typ, field)
	info := tp.info
	var out []fieldRef
	for _, f := range tp.own {
		name := tp.names[f]
		pos := func(p token.Pos) string {
			ps := tp.fset.Position(p)
			return model.Pos{File: name, Line: ps.Line, Col: ps.Column}.String()
		}
		ast.Inspect(f, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.SelectorExpr:
				if x.Sel.Name != field {
					break
				}
				if target == nil {
					out = append(out, fieldRef{pos(x.Sel.Pos()), false})
					break
				}
				if sel, ok := info.Selections[x]; ok {
					if sel.Obj() == target {
						out = append(out, fieldRef{pos(x.Sel.Pos()), true})
					}
					break
				}
				if info.Uses[x.Sel] != nil || qualifier(info, x.X) || usage.Resolved(info, x.X) {
					break // a package member, or a receiver without the field
				}
				out = append(out, fieldRef{pos(x.Sel.Pos()), false})
			case *ast.CompositeLit:
				tv, typed := info.Types[x]
				typed = typed && tv.Type != nil && usage.Valid(tv.Type)
				keyed := false
				for _, e := range x.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					keyed = true
					id, ok := kv.Key.(*ast.Ident)
					if !ok || id.Name != field {
						continue
					}
					switch obj := info.Uses[id]; {
					case target != nil && obj == target:
						out = append(out, fieldRef{pos(id.Pos()), true})
					case target != nil && (obj != nil || typed):
						// Another struct's field, or a map key.
					default:
						out = append(out, fieldRef{pos(id.Pos()), false})
					}
				}
				if keyed || len(x.Elts) == 0 {
					break
				}
				switch {
				case target != nil && typed:
					if tv.Type.Underlying() == st {
						out = append(out, fieldRef{pos(x.Pos()), true})
					}
				case litOf(x.Type) == typ:
					out = append(out, fieldRef{pos(x.Pos()), false})
				}
			}
			return true
		})
	}
	return out
}

// qualifier reports whether x names an imported package: pkg.Name is a
// package member, not a field.
func qualifier(info *types.Info, x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	if !ok {
		return false
	}
	_, isPkg := info.Uses[id].(*types.PkgName)
	return isPkg
}

// useSyntax is what the Go files of a package directory that are not
// generated (the files typedPkg.uses looks through) say of field uses
// without types: the names selectors select, the names keys of composite
// literals give, and whether some literal without keys may be of a struct
// (its type is not written as a slice, array or map). A field it names
// nowhere has no use that uses could find, whatever the types are: the
// package need not be type-checked for it.
type useSyntax struct {
	files           map[string][]byte // the contents read
	selected, keyed map[string]bool
	unkeyed         bool
	// broken: a file did not parse (the type check says which, and why).
	broken bool
}

// syntaxOf reads the use syntax of a package directory's files.
func syntaxOf(files map[string][]byte) *useSyntax {
	s := &useSyntax{files: files, selected: map[string]bool{}, keyed: map[string]bool{}}
	fset := token.NewFileSet()
	for n, src := range files {
		if generatedFile(n, src) {
			continue
		}
		f, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			s.broken = true
			return s
		}
		ast.Inspect(f, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.SelectorExpr:
				s.selected[x.Sel.Name] = true
			case *ast.CompositeLit:
				keyed := false
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						keyed = true
						if id, ok := kv.Key.(*ast.Ident); ok {
							s.keyed[id.Name] = true
						}
					}
				}
				switch x.Type.(type) {
				case *ast.ArrayType, *ast.MapType:
				default:
					s.unkeyed = s.unkeyed || !keyed && len(x.Elts) > 0
				}
			}
			return true
		})
	}
	return s
}

// mayUse reports whether the files may use field: false only when no
// selector or key names it and no literal without keys may be a struct's.
func (s *useSyntax) mayUse(field string) bool {
	return s.broken || s.unkeyed || s.selected[field] || s.keyed[field]
}

// mayUse is useSyntax.mayUse of a package directory's files, read once
// per content.
func (l *lookups) mayUse(files map[string][]byte, field string) bool {
	if l.syntax == nil || !maps.EqualFunc(l.syntax.files, files, bytes.Equal) {
		l.syntax = syntaxOf(files)
	}
	return l.syntax.mayUse(field)
}

// typed memoises the type information of package directories: every
// pointer fix of a package asks about the same files.
func (l *lookups) typeCheck(files map[string][]byte, pkgName, importPath string) (*typedPkg, *parseError) {
	key := importPath + "\x00" + pkgName
	if tp := l.typed[key]; tp != nil && maps.EqualFunc(tp.files, files, bytes.Equal) {
		return tp, nil
	}
	tp, pe := typeCheck(files, pkgName, importPath)
	if pe == nil {
		if l.typed == nil {
			l.typed = map[string]*typedPkg{}
		}
		l.typed[key] = tp
	}
	return tp, pe
}

// describeUses is the reason a field with uses stays a value.
func describeUses(field string, refs []fieldRef) string {
	first := refs[0]
	for _, r := range refs {
		if r.sure {
			first = r
			break
		}
	}
	more := ""
	if len(refs) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(refs)-1)
	}
	if first.sure {
		return fmt.Sprintf("%s is used at %s%s: as a pointer that code would have to change too; make it a pointer by hand", field, first.pos, more)
	}
	return fmt.Sprintf("%s may be used at %s%s (apicheck cannot tell the type there: it comes from a package apicheck does not load); "+
		"if that code uses the field, it would have to change too: make it a pointer by hand", field, first.pos, more)
}
