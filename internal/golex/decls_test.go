package golex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/testutil/gocorpus"
)

func TestDeclsOnly(t *testing.T) {
	src := `package p

import "strings"

type T struct{ f func() int }

type I interface{ M() }

func F(x int) (struct{ A int }, error) {
	if x > 0 { return struct{ A int }{x}, nil }
	return struct{ A int }{}, nil
}

func (t *T) M() interface{ N() } { return nil }

func G() func() int { return func() int { return strings.Count("a", "b") } }

var V = func() int { return 1 }()

func Asm(x int) int
`
	out := string(golex.DeclsOnly([]byte(src)))
	for _, gone := range []string{"if x > 0", "return nil", "strings.Count"} {
		if strings.Contains(out, gone) {
			t.Errorf("body text %q kept:\n%s", gone, out)
		}
	}
	for _, kept := range []string{"type T struct{ f func() int }", "type I interface{ M() }", "func F(x int) (struct{ A int }, error)",
		"func (t *T) M() interface{ N() }", "func G() func() int", "var V = func() int { return 1 }()", "func Asm(x int) int"} {
		if !strings.Contains(out, kept) {
			t.Errorf("declaration %q lost:\n%s", kept, out)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Errorf("result does not parse: %v\n%s", err, out)
	}
	if got := string(golex.DeclsOnly([]byte("package p\nfunc F() {"))); got != "package p\nfunc F() {" {
		t.Errorf("unbalanced input changed: %q", got)
	}
}

// TestDeclsOnlyRealSources checks DeclsOnly against go/parser on this
// repository's Go files and part of the standard library's: the result
// parses, every function declaration in it has no body, and every other
// declaration and every signature is the source's text unchanged.
func TestDeclsOnlyRealSources(t *testing.T) {
	corpus := gocorpus.Parsed(t, "../..", "go", "net/http", "encoding/json")
	for _, c := range corpus {
		p, src, f := c.Path, c.Src, c.File
		out := golex.DeclsOnly(src)
		g, err := parser.ParseFile(token.NewFileSet(), p, out, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: DeclsOnly's result does not parse: %v", p, err)
			continue
		}
		want, got := declTexts(src, f), declTexts(out, g)
		if len(got) != len(want) {
			t.Errorf("%s: %d declarations, want %d", p, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: declaration %d is\n%s\nwant\n%s", p, i, got[i], want[i])
				break
			}
		}
		for _, d := range g.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				t.Errorf("%s: func %s kept its body", p, fd.Name.Name)
			}
		}
	}
	if len(corpus) < 200 {
		t.Fatalf("only %d Go files compared; the corpus is missing", len(corpus))
	}
}

// declTexts returns the text of each top-level declaration: whole for a
// type, var, const or import declaration, the signature for a function.
func declTexts(src []byte, f *ast.File) []string {
	var out []string
	base := f.FileStart
	for _, d := range f.Decls {
		end := d.End()
		if fd, ok := d.(*ast.FuncDecl); ok {
			end = fd.Type.End()
		}
		out = append(out, string(src[d.Pos()-base:end-base]))
	}
	return out
}
