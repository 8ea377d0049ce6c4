package scan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// exprString is types.ExprString, however the expression is written.
func TestExprString(t *testing.T) {
	for _, src := range []string{
		"string", "*string", "[]string", "[]*string", "*[]string", "metav1.Time", "*metav1.Time", "[]metav1.Time",
		"[]*metav1.Time", "map[string]string", "map[string]*v1.X", "[3]int", "[...]int", "[]byte", "**int",
		"chan int", "func(a int) error", "struct{ A int }", "interface{}", "G[int]", "*G[int, string]", "a.b.c",
		"(int)", "*(int)", `"x"`, "1", "-1", "X(1)", "x.y.z", "[][]int", "[]map[string]int", "*a.b.c",
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, want := exprString(e), types.ExprString(e); got != want {
			t.Errorf("exprString(%s) = %q, want %q", src, got, want)
		}
	}
	if got, want := exprString(nil), types.ExprString(nil); got != want {
		t.Errorf("exprString(nil) = %q, want %q", got, want)
	}
	if got, want := exprString(&ast.StarExpr{X: &ast.BadExpr{}}), types.ExprString(&ast.StarExpr{X: &ast.BadExpr{}}); got != want {
		t.Errorf("exprString(*bad) = %q, want %q", got, want)
	}
}

// docTextRef is docText as a join of the lines that are no markers.
func docTextRef(lines []string) string {
	var keep []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "+") {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

func TestDocText(t *testing.T) {
	for _, lines := range [][]string{
		nil, {}, {""}, {"", ""}, {"+optional"}, {"A is a.", "+optional"}, {" A ", "", "B", "+k8s:x", "  C  "},
		{"", "", "A"}, {"+a", "", "+b", ""}, {"\tA", " +b", "c "}, {"A", "+b", "", "", "C", ""},
	} {
		if got, want := docText(lines), docTextRef(lines); got != want {
			t.Errorf("docText(%q) = %q, want %q", lines, got, want)
		}
	}
}

func FuzzDocText(f *testing.F) {
	f.Add("A is a.\n+optional\n\nB")
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		if got, want := docText(lines), docTextRef(lines); got != want {
			t.Fatalf("docText(%q) = %q, want %q", lines, got, want)
		}
	})
}

// ParseMarkers reads a marker line without white space as
// splitMarkerLine would.
func FuzzOneMarkerText(f *testing.F) {
	for _, s := range []string{"+optional", "+a=b +c", "+a=\"b c\"", "+x\u00a0+y", "+k8s:x(1)=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !strings.HasPrefix(text, "+") || !oneMarkerText(text) {
			return // ParseMarkers' marker lines start with "+"
		}
		if got := splitMarkerLine(text); len(got) != 1 || got[0] != text {
			t.Fatalf("splitMarkerLine(%q) = %q", text, got)
		}
	})
}

// position is the FileSet's position of every node of a file, also of a
// file whose //line directives adjust them.
func TestPosition(t *testing.T) {
	for _, src := range []string{
		"package p\n\n// A is a.\ntype A struct {\n\tB int `json:\"b\"` // b\n\t/* c\n\t */\n\tC string\n}\n",
		"package p\n\n//line other.go:10\ntype A struct {\n\tB int\n}\n/*line x.go:3:4*/ type C int\n",
		"\ufeffpackage p\ntype Ä struct{ Ö int }",
	} {
		pf, err := parseOne("f.go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		check := func(p token.Pos) {
			ps := pf.fset.Position(p)
			if line, col := pf.position(p); line != ps.Line || col != ps.Column {
				t.Errorf("%q: position(%d) = %d:%d, want %d:%d", src, p, line, col, ps.Line, ps.Column)
			}
		}
		check(token.NoPos)
		ast.Inspect(pf.file, func(n ast.Node) bool {
			if n != nil {
				check(n.Pos())
				check(n.End())
			}
			return true
		})
		for _, cg := range pf.file.Comments {
			check(cg.Pos())
			check(cg.End())
		}
	}
}
