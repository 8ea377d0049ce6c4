// Package shoot detects the stages of a Shoot field deprecation in code:
// the user warning, the validation that forbids the field from a
// Kubernetes version on, the maintenance reconciler that resets it on
// forced upgrades, Canonicalize forcing it to nil, and its defaulting. It
// also reads supported-kubernetes-versions.yaml.
//
// Detection is syntactic and works on parsed files handed in by the
// caller; it knows nothing about git or the rules. The styles it accepts
// are the ones Gardener's code base uses and used (see the test files for
// the list and citations). Stages (code.go) reads the files of each stage
// at a revision, from the configured locations or, where those do not
// exist, found by content (locate.go), and says whether a comparison
// crosses a release. ForbiddenFrom reads the Kubernetes version a
// deprecation's doc comment names.
package shoot

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Field identifies a Shoot field in stage code. Stage code mostly works on
// the internal version, so the field is matched by its Go name (and JSON
// name in paths and messages), not by its package.
type Field struct {
	// GoName is the Go field name, e.g. "MaxEmptyBulkDelete".
	GoName string
	// JSONName is the wire name, e.g. "maxEmptyBulkDelete".
	JSONName string
	// Path is the JSON path below the Shoot, e.g.
	// "spec.kubernetes.clusterAutoscaler.maxEmptyBulkDelete".
	Path string
	// Parents are the Go names of the fields that hold the field's
	// struct, e.g. ["ClusterAutoscaler"]. A selector chain x.P.GoName
	// only counts when P is one of them (x.GoName on a plain variable
	// always counts). Empty means no restriction.
	Parents []string
}

// File is one parsed Go file of stage code.
type File struct {
	Path string
	fset *token.FileSet
	ast  *ast.File
	unit *unit
}

// unit is the set of files one Parse call returned; it caches what the
// detectors derive from all of them together.
type unit struct {
	files []*File
	vix   *valIndex
}

// Parse parses stage files (repository-relative path -> content), sorted
// by path. A file that does not parse is an error naming it.
func Parse(files map[string][]byte) ([]*File, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []*File
	u := &unit{}
	for _, p := range paths {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, files[p], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %s: %w", p, err)
		}
		out = append(out, &File{Path: p, fset: fset, ast: f, unit: u})
	}
	u.files = out
	return out, nil
}

// Hit is a place where a stage handles the field.
type Hit struct {
	Pos model.Pos
	// WhenUnset is true for a nil assignment guarded by a test that the
	// field's value carries no setting (`!x.Enabled`, `!*x`, `len(x) ==
	// 0`, a sub-field `== nil`): a normalization of an empty value, not a
	// field forced to nil whatever it holds.
	WhenUnset bool
	// From is, for validation, the Kubernetes version from which the
	// field is forbidden (e.g. "1.33").
	From Version
}

func (f *File) pos(p token.Pos) model.Pos {
	ps := f.fset.Position(p)
	return model.Pos{File: f.Path, Line: ps.Line, Col: ps.Column}
}

// refersTo reports whether a selector is a reference to the field: its
// name is the field's Go name, and it is selected from a variable, an
// index or call expression, or from one of the field's parents.
func refersTo(sel *ast.SelectorExpr, f Field) bool {
	if sel.Sel.Name != f.GoName {
		return false
	}
	x := sel.X
	for {
		switch t := x.(type) {
		case *ast.ParenExpr:
			x = t.X
			continue
		case *ast.StarExpr:
			x = t.X
			continue
		case *ast.IndexExpr:
			x = t.X
			if _, ok := x.(*ast.Ident); ok {
				return true
			}
			continue
		case *ast.Ident, *ast.CallExpr, *ast.TypeAssertExpr:
			return true
		case *ast.SelectorExpr:
			if len(f.Parents) == 0 {
				return true
			}
			for _, p := range f.Parents {
				if t.Sel.Name == p {
					return true
				}
			}
			return false
		}
		return false
	}
}

// namesPath reports whether a string literal names the field: it holds its
// JSON path below the Shoot, or ".<jsonName>", as whole path segments.
func namesPath(lit string, f Field) bool {
	return (f.Path != "" && containsSegment(lit, f.Path)) || containsSegment(lit, "."+f.JSONName)
}

// containsSegment reports whether s contains needle not followed by an
// identifier character (".default" is not in ".defaults").
func containsSegment(s, needle string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], needle)
		if j < 0 {
			return false
		}
		end := i + j + len(needle)
		if end == len(s) || !isIdent(s[end]) {
			return true
		}
		i = i + j + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// pathCallNames are the field.Path constructors whose string arguments are
// path segments: field.NewPath("spec", "x"), p.Child("x"), p.Key("x").
var pathCallNames = map[string]bool{"NewPath": true, "Child": true}

// segmentArg reports whether a call builds a field path with the field's
// JSON name as a segment.
func segmentArg(call *ast.CallExpr, f Field) bool {
	name := ""
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	case *ast.Ident:
		name = fn.Name
	}
	if !pathCallNames[name] {
		return false
	}
	parent := parentJSON(f)
	for i, a := range call.Args {
		if s, ok := stringLit(a); ok && s == f.JSONName {
			// Child("watchCacheSizes", "default"): the segment before
			// must be the parent's.
			if i > 0 && parent != "" {
				if prev, ok := stringLit(call.Args[i-1]); ok && prev != parent {
					continue
				}
			}
			return true
		}
	}
	return false
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}

// mentions reports whether an expression refers to the field in any of the
// accepted ways; it returns the position of the first reference.
func mentions(n ast.Node, f Field) (token.Pos, bool) {
	var at token.Pos
	ast.Inspect(n, func(n ast.Node) bool {
		if at.IsValid() {
			return false
		}
		switch t := n.(type) {
		case *ast.SelectorExpr:
			if refersTo(t, f) {
				at = t.Sel.Pos()
			}
		case *ast.CallExpr:
			if segmentArg(t, f) {
				at = t.Pos()
			}
		case *ast.BasicLit:
			if s, ok := stringLit(t); ok && namesPath(s, f) {
				at = t.Pos()
			}
		}
		return true
	})
	return at, at.IsValid()
}

// Warnings finds references to the field in the warnings code: a selector
// chain ending in its Go name, a string literal naming its JSON path, or
// a field path built with its JSON name.
func Warnings(files []*File, f Field) []Hit {
	var out []Hit
	for _, file := range files {
		for _, d := range file.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch t := n.(type) {
				case *ast.SelectorExpr:
					if refersTo(t, f) {
						out = append(out, Hit{Pos: file.pos(t.Sel.Pos())})
						return false
					}
				case *ast.CallExpr:
					if segmentArg(t, f) {
						out = append(out, Hit{Pos: file.pos(t.Pos())})
						return false
					}
				case *ast.BasicLit:
					if s, ok := stringLit(t); ok && namesPath(s, f) {
						out = append(out, Hit{Pos: file.pos(t.Pos())})
					}
				}
				return true
			})
		}
	}
	return out
}

// nilAssignments returns the assignments "<ref to field> = nil" in n.
func nilAssignments(file *File, n ast.Node, f Field) []Hit {
	bound := fieldVars(n, f)
	var out []Hit
	var guards []ast.Expr // conditions of the enclosing if bodies
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch t := n.(type) {
			case *ast.IfStmt:
				if t.Init != nil {
					walk(t.Init)
				}
				guards = append(guards, t.Cond)
				walk(t.Body)
				guards = guards[:len(guards)-1]
				if t.Else != nil {
					walk(t.Else)
				}
				return false
			case *ast.AssignStmt:
				if t.Tok != token.ASSIGN || len(t.Lhs) != len(t.Rhs) {
					return true
				}
				for i, l := range t.Lhs {
					sel, ok := l.(*ast.SelectorExpr)
					if !ok || !refersTo(sel, f) {
						continue
					}
					if id, ok := t.Rhs[i].(*ast.Ident); ok && id.Name == "nil" {
						out = append(out, Hit{Pos: file.pos(sel.Sel.Pos()), WhenUnset: testsUnset(guards, f, bound)})
					}
				}
			}
			return true
		})
	}
	walk(n)
	return out
}

// fieldVars are the local variables bound to the field's value
// (`addons := shoot.Spec.Addons`, in a statement or an if's init).
func fieldVars(n ast.Node, f Field) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok && readsField(as.Rhs[i], f, nil) {
					out[id.Name] = true
				}
			}
		}
		return true
	})
	return out
}

// readsField reports whether an expression selects the field, or starts
// from a variable bound to it.
func readsField(e ast.Expr, f Field, bound map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch t := n.(type) {
		case *ast.SelectorExpr:
			if refersTo(t, f) {
				found = true
			}
		case *ast.Ident:
			if bound[t.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// testsUnset reports whether one of the guards tests that the field's
// value carries no setting: a negation, a comparison with false, zero or
// "", a zero length, or a nil comparison of something inside it (not of
// the field itself: `x != nil` only says it is set).
func testsUnset(guards []ast.Expr, f Field, bound map[string]bool) bool {
	for _, g := range guards {
		hit := false
		ast.Inspect(g, func(n ast.Node) bool {
			switch t := n.(type) {
			case *ast.UnaryExpr:
				if t.Op == token.NOT && readsField(t.X, f, bound) {
					hit = true
				}
			case *ast.BinaryExpr:
				if t.Op != token.EQL {
					return true
				}
				switch y := ast.Unparen(t.Y).(type) {
				case *ast.Ident:
					switch {
					case y.Name == "false" && readsField(t.X, f, bound):
						hit = true
					case y.Name == "nil" && readsField(t.X, f, bound) && !isField(t.X, f, bound):
						hit = true
					}
				case *ast.BasicLit:
					if (y.Value == "0" || y.Value == `""`) && readsField(t.X, f, bound) {
						hit = true
					}
				}
			}
			return !hit
		})
		if hit {
			return true
		}
	}
	return false
}

// isField reports whether an expression is the field itself (or a
// variable bound to it), as opposed to something inside it.
func isField(e ast.Expr, f Field, bound map[string]bool) bool {
	switch t := ast.Unparen(e).(type) {
	case *ast.Ident:
		return bound[t.Name]
	case *ast.StarExpr:
		return isField(t.X, f, bound)
	case *ast.SelectorExpr:
		return refersTo(t, f)
	}
	return false
}

// Maintenance finds where the maintenance code sets the field to nil.
func Maintenance(files []*File, f Field) []Hit {
	var out []Hit
	for _, file := range files {
		out = append(out, nilAssignments(file, file.ast, f)...)
	}
	return out
}

// Canonicalize finds where the Canonicalize method or function, or a
// function or method of the same package it calls (transitively), sets
// the field to nil. files are the Go files of the strategy's package.
func Canonicalize(files []*File, f Field) []Hit {
	type fn struct {
		file *File
		decl *ast.FuncDecl
	}
	byName := map[string][]fn{}
	for _, file := range files {
		for _, d := range file.ast.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				byName[fd.Name.Name] = append(byName[fd.Name.Name], fn{file, fd})
			}
		}
	}
	seen := map[*ast.FuncDecl]bool{}
	queue := append([]fn(nil), byName["Canonicalize"]...)
	var out []Hit
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur.decl] {
			continue
		}
		seen[cur.decl] = true
		out = append(out, nilAssignments(cur.file, cur.decl.Body, f)...)
		ast.Inspect(cur.decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch t := call.Fun.(type) {
			case *ast.Ident:
				name = t.Name
			case *ast.SelectorExpr:
				name = t.Sel.Name
			}
			queue = append(queue, byName[name]...)
			return true
		})
	}
	return out
}

// Defaulting finds SetDefaults_* functions that assign the field a
// (non-nil) value.
func Defaulting(files []*File, f Field) []Hit {
	var out []Hit
	for _, file := range files {
		for _, d := range file.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "SetDefaults_") {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
					return true
				}
				for i, l := range as.Lhs {
					sel, ok := l.(*ast.SelectorExpr)
					if !ok || !refersTo(sel, f) {
						continue
					}
					if id, ok := as.Rhs[i].(*ast.Ident); ok && id.Name == "nil" {
						continue
					}
					out = append(out, Hit{Pos: file.pos(sel.Sel.Pos())})
				}
				return true
			})
		}
	}
	return out
}
