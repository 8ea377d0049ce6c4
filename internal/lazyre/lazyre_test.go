package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLazy: an expression is compiled on first use, once, and answers as
// regexp does; one that does not compile panics then, not before.
func TestLazy(t *testing.T) {
	r := New(`a(b+)`)
	if r.String() != `a(b+)` {
		t.Errorf("String = %q", r.String())
	}
	want := regexp.MustCompile(`a(b+)`)
	for _, s := range []string{"", "ab", "xabbb abx", "ba"} {
		if r.MatchString(s) != want.MatchString(s) ||
			!slices.Equal(r.FindStringSubmatch(s), want.FindStringSubmatch(s)) ||
			len(r.FindAllStringSubmatchIndex(s, -1)) != len(want.FindAllStringSubmatchIndex(s, -1)) ||
			r.ReplaceAllString(s, "<$1>") != want.ReplaceAllString(s, "<$1>") {
			t.Errorf("%q: the lazy expression answers otherwise", s)
		}
	}
	if r.Regexp() != r.Regexp() {
		t.Error("compiled twice")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("an expression that does not compile did not panic on first use")
		}
	}()
	bad.MatchString("x")
}

// TestNoCompileAtInit: no package of apicheck's (internal/ and cmd/,
// test helpers aside) compiles a regular expression in a package-level
// variable (every apicheck process, the supervising one too, would pay
// for it before main): use New.
func TestNoCompileAtInit(t *testing.T) {
	checked := 0
	walk := func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "testutil") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			ast.Inspect(gd, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called
				}
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" {
							t.Errorf("%s: a package-level variable compiles a regular expression: use lazyre.New", p)
						}
					}
				}
				return true
			})
		}
		return nil
	}
	for _, dir := range []string{"..", filepath.Join("..", "..", "cmd")} {
		if err := filepath.WalkDir(dir, walk); err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files: not the module's", checked)
	}
}
