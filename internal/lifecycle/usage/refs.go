package usage

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"github.com/apicheck/apicheck/internal/model"
)

// ref is one reference to a removed field.
type ref struct {
	key   Key
	pos   model.Pos
	typed bool
}

// fieldVars maps the field objects of the removed fields, in every loaded
// package of their groups, to their keys.
func fieldVars(q *query, units map[string]*unit) map[*types.Var]Key {
	out := map[*types.Var]Key{}
	if len(units) == 0 {
		return out
	}
	// units holds the candidate units; the group packages are among the
	// units of the same loader, reachable through the imports of the
	// candidate packages.
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		for _, g := range q.groups {
			if g.imports[p.Path()] {
				addFieldVars(out, g, p)
			}
		}
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	for _, u := range units {
		visit(u.pkg)
	}
	return out
}

func addFieldVars(out map[*types.Var]Key, g *group, p *types.Package) {
	for typ := range g.types {
		tn, ok := p.Scope().Lookup(typ).(*types.TypeName)
		if !ok {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			for _, k := range g.byName[f.Name()] {
				if k.Type == typ {
					out[f] = k
				}
			}
		}
	}
}

// typed is the type information of a candidate file's package.
type typed struct {
	info *types.Info
	pkg  *types.Package
	// asserted maps variables defined from a type assertion v := x.(T)
	// (or v, ok := x.(T)) to T: when x's type is unresolved, go/types
	// leaves v without a type, but T is written in the source.
	asserted map[types.Object]types.Type
}

// references finds the references to removed fields in a candidate file.
// With type information (tc != nil), a selector or composite-literal key
// resolved to a field counts only when it is one of the removed fields; a
// selector whose receiver type is unresolved is matched by path. Without
// type information every selector is matched by path, and a composite
// literal key by the literal's type name.
func references(fset *token.FileSet, c *candFile, tc *typed, q *query, keys map[*types.Var]Key) []ref {
	var out []ref
	pos := func(n ast.Node) model.Pos {
		p := fset.Position(n.Pos())
		return model.Pos{File: c.path, Line: p.Line, Col: p.Column}
	}
	var info *types.Info
	if tc != nil {
		info = tc.info
		tc.asserted = tc.assertedVars(c.file)
	}
	callee := map[*ast.SelectorExpr]bool{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				callee[s] = true
			}
		case *ast.SelectorExpr:
			name := n.Sel.Name
			if !q.names.has(name) || qualifier(n.X, c, info) {
				return true
			}
			if info != nil {
				if sel := info.Selections[n]; sel != nil {
					if sel.Kind() == types.FieldVal {
						if k, ok := keyOfVar(sel.Obj(), keys); ok {
							out = append(out, ref{key: k, pos: pos(n.Sel), typed: true})
						}
					}
					return true
				}
				if Resolved(info, n.X) {
					return true
				}
				switch obj, ok := tc.recover(n); {
				case ok && obj != nil:
					if k, ok := keyOfVar(obj, keys); ok {
						out = append(out, ref{key: k, pos: pos(n.Sel), typed: true})
					}
					return true
				case ok:
					return true // resolved to something that is not a field
				}
			}
			if callee[n] {
				return true // a method call: API fields are not functions
			}
			chain := chainOf(n)
			for _, g := range c.groups {
				for _, k := range g.byName[name] {
					if matchChain(chain, q.paths[k]) {
						out = append(out, ref{key: k, pos: pos(n.Sel)})
					}
				}
			}
		case *ast.CompositeLit:
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				id, ok := kv.Key.(*ast.Ident)
				if !ok || !q.names.has(id.Name) {
					continue
				}
				if info != nil {
					if k, ok := keyOfVar(info.Uses[id], keys); ok {
						out = append(out, ref{key: k, pos: pos(id), typed: true})
					}
					continue // resolved to something else, or unresolved: not guessed
				}
				tname := litTypeName(n.Type)
				for _, g := range c.groups {
					for _, k := range g.byName[id.Name] {
						if tname == k.Type {
							out = append(out, ref{key: k, pos: pos(id)})
						}
					}
				}
			}
		}
		return true
	})
	return out
}

// assertedVars finds the variables defined from a type assertion whose
// operand has no type: go/types then checks neither the assertion nor
// its type, and the asserted type is resolved here from the syntax.
func (tc *typed) assertedVars(f *ast.File) map[types.Object]types.Type {
	info := tc.info
	out := map[types.Object]types.Type{}
	var imports map[string]*types.Package
	def := func(lhs ast.Expr, rhs ast.Expr) {
		id, ok := lhs.(*ast.Ident)
		if !ok {
			return
		}
		ta, ok := ast.Unparen(rhs).(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			return
		}
		if tv, ok := info.Types[ta.X]; ok && tv.Type != nil && Valid(tv.Type) {
			return // go/types typed it itself
		}
		obj := info.Defs[id]
		if obj == nil {
			return
		}
		if imports == nil {
			imports = fileImports(f, tc.pkg)
		}
		if t := tc.typeExpr(ta.Type, imports); t != nil {
			out[obj] = t
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Rhs) == 1 && len(n.Lhs) >= 1 {
				def(n.Lhs[0], n.Rhs[0])
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 && len(n.Names) >= 1 {
				def(n.Names[0], n.Values[0])
			}
		}
		return true
	})
	return out
}

// fileImports maps the names a file imports packages under to the
// packages that were loaded.
func fileImports(f *ast.File, pkg *types.Package) map[string]*types.Package {
	byPath := map[string]*types.Package{}
	for _, p := range pkg.Imports() {
		byPath[p.Path()] = p
	}
	out := map[string]*types.Package{}
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		p := byPath[ip]
		if p == nil {
			continue
		}
		name := p.Name()
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = p
	}
	return out
}

// typeExpr resolves a type expression of the forms T, pkg.T, *T and
// (T) (nil when it cannot): a named type declared at package level.
func (tc *typed) typeExpr(e ast.Expr, imports map[string]*types.Package) types.Type {
	if tv, ok := tc.info.Types[e]; ok && tv.IsType() && Valid(tv.Type) {
		return tv.Type
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return tc.typeExpr(e.X, imports)
	case *ast.StarExpr:
		if t := tc.typeExpr(e.X, imports); t != nil {
			return types.NewPointer(t)
		}
	case *ast.Ident:
		if tn, ok := tc.pkg.Scope().Lookup(e.Name).(*types.TypeName); ok && Valid(tn.Type()) {
			return tn.Type()
		}
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok || imports[x.Name] == nil {
			return nil
		}
		if tn, ok := imports[x.Name].Scope().Lookup(e.Sel.Name).(*types.TypeName); ok && tn.Exported() && Valid(tn.Type()) {
			return tn.Type()
		}
	}
	return nil
}

// recover resolves a selector whose receiver go/types left untyped when
// the receiver chain starts at a variable defined from a type assertion:
// it walks the chain from the asserted type. ok is false when that does
// not apply or a step cannot be resolved; obj is the selected object (nil
// when it is not a field).
func (tc *typed) recover(s *ast.SelectorExpr) (obj types.Object, ok bool) {
	if len(tc.asserted) == 0 {
		return nil, false
	}
	// The steps from the root variable to s.
	var steps []ast.Expr
	x := ast.Expr(s)
	for {
		steps = append(steps, x)
		switch e := x.(type) {
		case *ast.SelectorExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.StarExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.Ident:
			t := tc.asserted[tc.info.Uses[e]]
			if t == nil {
				return nil, false
			}
			return tc.walk(t, steps[:len(steps)-1])
		default:
			return nil, false
		}
	}
}

// walk applies the steps (outermost last) to a value of type t.
func (tc *typed) walk(t types.Type, steps []ast.Expr) (types.Object, bool) {
	var obj types.Object
	for i := len(steps) - 1; i >= 0; i-- {
		switch e := steps[i].(type) {
		case *ast.SelectorExpr:
			o, _, _ := types.LookupFieldOrMethod(t, true, tc.pkg, e.Sel.Name)
			if o == nil {
				return nil, false
			}
			v, isVar := o.(*types.Var)
			if i > 0 && !isVar {
				return nil, false
			}
			obj = o
			if isVar {
				t = v.Type()
			}
		case *ast.IndexExpr:
			switch u := deref(t).Underlying().(type) {
			case *types.Slice:
				t = u.Elem()
			case *types.Array:
				t = u.Elem()
			case *types.Map:
				t = u.Elem()
			default:
				return nil, false
			}
		case *ast.StarExpr:
			p, isPtr := t.Underlying().(*types.Pointer)
			if !isPtr {
				return nil, false
			}
			t = p.Elem()
		}
		if i > 0 && !Valid(t) {
			return nil, false
		}
	}
	if _, isVar := obj.(*types.Var); !isVar {
		return nil, true
	}
	return obj, true
}

func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func keyOfVar(obj types.Object, keys map[*types.Var]Key) (Key, bool) {
	v, ok := obj.(*types.Var)
	if !ok || !v.IsField() {
		return Key{}, false
	}
	k, ok := keys[v.Origin()]
	return k, ok
}

// qualifier reports whether x names an imported package (pkg.Name is a
// package member, not a field).
func qualifier(x ast.Expr, c *candFile, info *types.Info) bool {
	id, ok := x.(*ast.Ident)
	if !ok {
		return false
	}
	if info != nil {
		if obj, ok := info.Uses[id]; ok {
			_, isPkg := obj.(*types.PkgName)
			return isPkg
		}
	}
	return c.imports[id.Name]
}

// Resolved reports whether the type of a selector's receiver is known
// well enough to say that the selected name is not a removed field: the
// expression has a valid type, and its struct (through one pointer) embeds
// nothing whose type is unresolved (a field promoted from there would be
// unknown).
func Resolved(info *types.Info, x ast.Expr) bool {
	if info == nil {
		return false
	}
	tv, ok := info.Types[x]
	if !ok || tv.Type == nil || !Valid(tv.Type) {
		return false
	}
	if tv.IsType() {
		return true // a method expression T.M
	}
	return !unresolvedEmbedding(tv.Type, map[types.Type]bool{})
}

// Valid reports whether type-checking gave t a type (not Invalid: an
// unresolved import or an error).
func Valid(t types.Type) bool {
	return t.Underlying() != types.Typ[types.Invalid]
}

func unresolvedEmbedding(t types.Type, seen map[types.Type]bool) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		if !Valid(f.Type()) || unresolvedEmbedding(f.Type(), seen) {
			return true
		}
	}
	return false
}

// chainOf returns the selector chain of a selector expression: the Go
// names from the outermost selected name to the selected one, skipping
// index expressions, dereferences and parentheses, and stopping at a
// variable, a call or a package-qualified name.
func chainOf(s *ast.SelectorExpr) []string {
	chain := []string{s.Sel.Name}
	x := s.X
	for {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			if _, ok := e.X.(*ast.Ident); ok {
				// v.Name or pkg.Name: Name is a field of the variable v, or
				// a package member; either way it is part of the chain only
				// as a field. The root (v or pkg) is not.
				chain = append([]string{e.Sel.Name}, chain...)
				return chain
			}
			chain = append([]string{e.Sel.Name}, chain...)
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.StarExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		default:
			return chain
		}
	}
}

// litTypeName is the type name of a composite literal's explicit type
// (T, pkg.T, &T is not a literal type), "" when elided or not a name.
func litTypeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}
