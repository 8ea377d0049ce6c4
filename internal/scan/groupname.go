package scan

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/quote"
)

// A version package without a +groupName marker names its API group in
// Go: `const GroupName = "autoscaling"` (k8s.io/api's register.go), a
// name built from another package's (`GroupName = "packages." +
// operators.GroupName`, Operator Lifecycle Manager's package server),
// `SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version:
// "v1"}`, kubebuilder's `GroupVersion = schema.GroupVersion{Group:
// "x.io", ...}`, or an apiVersion constant (`APIVersion = "x.io/v1"`, a
// CLI's versioned configuration file). The expressions are constant
// expressions of Go; they are evaluated here with go/constant over the
// constants of the package and of the packages of the repository it
// imports, never guessed: a name that cannot be evaluated (a package
// outside the repository) stays unknown, and a group without a name is
// never paired with another (see model.Compare).

// constSpec is a package-level constant (or a variable whose value
// names a group version) with the imports of its file.
type constSpec struct {
	expr    ast.Expr
	imports map[string]string
}

// constScope is the package-level constants of one package, its
// variables and the names of its types (conversions to them are
// constant expressions).
type constScope struct {
	dir    string
	consts map[string]constSpec
	vars   map[string]constSpec
	types  map[string]bool
}

// groupDecl is what a version package says in Go about its group: the
// expression of each form, in the order they are tried.
type groupDecl struct {
	groupName  *constSpec // const GroupName = ...
	groupVer   *constSpec // SchemeGroupVersion / GroupVersion = schema.GroupVersion{Group: ...}
	apiVersion *constSpec // const APIVersion = "group/version"
}

// newConstScope collects the package-level constants and variables of
// files (parsed), all of one package.
func newConstScope(dir string) *constScope {
	return &constScope{dir: dir, consts: map[string]constSpec{}, vars: map[string]constSpec{}, types: map[string]bool{}}
}

// add records the constants, variables and types that a declaration of
// a file with imports declares (a constant without a value of its own
// repeats an iota list's: no string).
func (c *constScope) add(gd *ast.GenDecl, imports map[string]string) {
	if gd.Tok == token.TYPE {
		for _, sp := range gd.Specs {
			if ts, ok := sp.(*ast.TypeSpec); ok {
				c.types[ts.Name.Name] = true
			}
		}
		return
	}
	if gd.Tok != token.CONST && gd.Tok != token.VAR {
		return
	}
	m := c.consts
	if gd.Tok == token.VAR {
		m = c.vars
	}
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, n := range vs.Names {
			if i >= len(vs.Values) || n.Name == "_" {
				continue
			}
			if _, dup := m[n.Name]; !dup {
				m[n.Name] = constSpec{expr: vs.Values[i], imports: imports}
			}
		}
	}
}

// groupDecl finds the declarations of the package that name its group.
func (c *constScope) groupDecl() groupDecl {
	var d groupDecl
	if sp, ok := c.consts["GroupName"]; ok {
		d.groupName = &sp
	} else if sp, ok := c.vars["GroupName"]; ok {
		d.groupName = &sp
	}
	for _, n := range []string{"SchemeGroupVersion", "GroupVersion"} {
		for _, m := range []map[string]constSpec{c.vars, c.consts} {
			if sp, ok := m[n]; ok && d.groupVer == nil {
				if g := groupField(sp.expr); g != nil {
					d.groupVer = &constSpec{expr: g, imports: sp.imports}
				}
			}
		}
	}
	for _, n := range []string{"APIVersion", "ApiVersion", "APIVersionString", "Version", "GroupVersionString"} {
		if sp, ok := c.consts[n]; ok && d.apiVersion == nil {
			d.apiVersion = &sp
		}
	}
	return d
}

// groupField is the Group of a composite literal of a GroupVersion
// (`schema.GroupVersion{Group: X, Version: "v1"}`, keyed or not; also
// behind & or parentheses); nil for any other expression.
func groupField(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				e = x.X
				continue
			}
		}
		break
	}
	cl, ok := e.(*ast.CompositeLit)
	if !ok || !strings.HasSuffix(typeName(cl.Type), "GroupVersion") {
		return nil
	}
	for i, el := range cl.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Group" {
				return kv.Value
			}
			continue
		}
		if i == 0 {
			return el // GroupVersion{"x.io", "v1"}
		}
	}
	return nil
}

// typeName is the name of a type expression (its selector for a
// qualified one); "" for anything else.
func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// maxConstDepth bounds the references one evaluation follows (a cycle,
// which Go rejects, must not loop).
const maxConstDepth = 32

// groupNameOf evaluates what the package in scope declares about its
// group, for a version package of the given version: the name ("" for
// Kubernetes' core group, `GroupName = ""`), or ok false and the
// expression that could not be evaluated (unknown "" when the package
// declares nothing in Go).
func (s *state) groupNameOf(scope *constScope, version string) (name string, ok bool, unknown string) {
	d := scope.groupDecl()
	for _, sp := range []*constSpec{d.groupName, d.groupVer} {
		if sp == nil {
			continue
		}
		if v, ok := s.evalString(scope, sp.expr, sp.imports, 0); ok {
			return v, true, ""
		}
		if unknown == "" {
			unknown = exprText(sp.expr)
		}
	}
	if unknown != "" {
		return "", false, unknown
	}
	if g, ok := s.apiVersionGroup(scope, d, version); ok {
		return g, true, ""
	}
	return "", false, ""
}

// apiVersionGroup is the group an apiVersion constant of the package
// names ("x.io/v1" for version v1: group x.io, a name with a dot).
func (s *state) apiVersionGroup(scope *constScope, d groupDecl, version string) (string, bool) {
	sp := d.apiVersion
	if sp == nil || version == "" {
		return "", false
	}
	v, ok := s.evalString(scope, sp.expr, sp.imports, 0)
	if !ok {
		return "", false
	}
	g, ver, found := strings.Cut(v, "/")
	if !found || ver != version || !strings.Contains(g, ".") || !groupNameChars.MatchString(g) {
		return "", false
	}
	return g, true
}

// groupNameChars are the characters of a DNS subdomain, the form of an
// API group name.
var groupNameChars = lazyre.New(`^[a-z0-9]([a-z0-9.\-]*[a-z0-9])?$`)

// exprText prints an expression for a note.
func exprText(e ast.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

func writeExpr(b *strings.Builder, e ast.Expr) {
	switch x := e.(type) {
	case *ast.BasicLit:
		b.WriteString(x.Value)
	case *ast.Ident:
		b.WriteString(x.Name)
	case *ast.SelectorExpr:
		writeExpr(b, x.X)
		b.WriteString("." + x.Sel.Name)
	case *ast.BinaryExpr:
		writeExpr(b, x.X)
		b.WriteString(" " + x.Op.String() + " ")
		writeExpr(b, x.Y)
	case *ast.ParenExpr:
		b.WriteString("(")
		writeExpr(b, x.X)
		b.WriteString(")")
	case *ast.CallExpr:
		writeExpr(b, x.Fun)
		b.WriteString("(")
		for i, a := range x.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, a)
		}
		b.WriteString(")")
	default:
		b.WriteString("…")
	}
}

// evalString evaluates a constant string expression of the package in
// scope (imports are those of the expression's file): string literals,
// the package's constants, constants of packages of the repository by
// import (pkg.Name), + of strings, parentheses and conversions to string
// or a type of the package (string(x), T(x)). ok is false for anything
// else (a function call), or a package outside the repository.
func (s *state) evalString(scope *constScope, e ast.Expr, imports map[string]string, depth int) (string, bool) {
	v := s.evalConst(scope, e, imports, depth)
	if v == nil || v.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(v), true
}

func (s *state) evalConst(scope *constScope, e ast.Expr, imports map[string]string, depth int) constant.Value {
	if depth > maxConstDepth || scope == nil {
		return nil
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return nil
		}
		v := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil
		}
		return v
	case *ast.ParenExpr:
		return s.evalConst(scope, x.X, imports, depth+1)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return nil
		}
		a, b := s.evalConst(scope, x.X, imports, depth+1), s.evalConst(scope, x.Y, imports, depth+1)
		if a == nil || b == nil || a.Kind() != constant.String || b.Kind() != constant.String {
			return nil
		}
		return constant.BinaryOp(a, token.ADD, b)
	case *ast.CallExpr:
		// A conversion to string or a string type of the package
		// (string("x"), Name("x")); a function call is no constant.
		id, ok := x.Fun.(*ast.Ident)
		if !ok || len(x.Args) != 1 || x.Ellipsis.IsValid() || id.Name != "string" && !scope.types[id.Name] {
			return nil
		}
		return s.evalConst(scope, x.Args[0], imports, depth+1)
	case *ast.Ident:
		sp, ok := scope.consts[x.Name]
		if !ok {
			return nil
		}
		return s.evalConst(scope, sp.expr, sp.imports, depth+1)
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return nil
		}
		ip, ok := imports[id.Name]
		if !ok {
			return nil
		}
		other := s.constScopeOf(ip)
		if other == nil {
			return nil
		}
		sp, ok := other.consts[x.Sel.Name]
		if !ok {
			return nil
		}
		return s.evalConst(other, sp.expr, sp.imports, depth+1)
	}
	return nil
}

// constScopeOf returns the constants of the package of the repository
// at import path ip, read once per scan (nil when the repository has no
// such package, or its files do not parse). The directory joins the
// directories the group being built was read from: the group is built
// anew when its files change (see Reuse).
func (s *state) constScopeOf(ip string) *constScope {
	if c, ok := s.constScopes[ip]; ok {
		s.readConstsOf(c)
		return c
	}
	if s.constScopes == nil {
		s.constScopes = map[string]*constScope{}
	}
	s.constScopes[ip] = nil
	dir, ok := s.mods.dirFor(ip)
	if !ok {
		return nil
	}
	// A directory without Go files has no constants; the group still
	// depends on it (files added there may declare them).
	c := newConstScope(dir)
	s.constScopes[ip] = c
	s.readConstsOf(c)
	files := s.goFiles[dir]
	if len(files) == 0 {
		return c
	}
	contents, err := s.src.ReadFiles(files)
	if err != nil {
		s.readFailed.Store(true)
		return c
	}
	name := ""
	for _, f := range files {
		if !matchesFileName(f) || !strings.HasSuffix(f, ".go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, contents[f], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || excludedByConstraint(af) || af.Name.Name == "main" {
			continue
		}
		if name == "" {
			name = af.Name.Name
		} else if af.Name.Name != name {
			continue
		}
		imports := fileImports(af)
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				c.add(gd, imports)
			}
		}
	}
	return c
}

// readConstsOf records that the group being built read the constants of
// c's directory.
func (s *state) readConstsOf(c *constScope) {
	if c != nil && s.building != nil && !slices.Contains(s.building.dirs, c.dir) {
		s.building.dirs = append(s.building.dirs, c.dir)
	}
}

// groupNameNote says that a version package's group name is not known.
func groupNameNote(dir, expr string) string {
	return quote.Name(dir) + ": the API group name it declares in Go, " + quote.Text(expr) + ", could not be evaluated (a constant outside the repository): " +
		"the group is known by its directory only, and never paired with a group of another directory"
}
