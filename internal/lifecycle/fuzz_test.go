package lifecycle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"testing"
)

// FuzzLexStruct: on any source, lexStruct neither panics nor loops, and
// for a source go/parser accepts, every struct it reads from its tokens
// reads as the syntax tree says (the shapes it does not know it leaves to
// the parser).
func FuzzLexStruct(f *testing.F) {
	for _, seed := range []string{
		"package p\ntype S struct {\n\tA, B int `json:\"a\" protobuf:\"varint,1,opt,name=a\"`\n\t*pkg.T\n\tU[int] `json:\",inline\"`\n\tC [4]string\n\tD []T; E map[string]struct{ X int }\n\tF func(a, b int) (c string)\n\tG <-chan int\n}\n",
		"package p\ntype S struct{ meta.TypeMeta `json:\",inline\"`; X *int }\n",
		"package p\ntype (\n\tS struct {\n\t\t// A is a.\n\t\tA string // trailing\n\t\t/* B */ B string\n\t}\n)\n",
		"package p\ntype S struct {\n\tpkg.T[int, string]\n\tV interface{ M() }\n\tW struct {\n\t\tY int\n\t}\n}\n",
		"package p\ntype S struct { A int; }; type T struct {}\n",
		"package p\ntype S struct {\n\tA int\n", // unterminated
		// Deprecation: which comment group is a field's doc comment.
		"package p\ntype S struct {\n\t// Deprecated: a.\n\tA int // Deprecated: trailing, not B's.\n\tB int\n\t// Deprecated: parted by a blank line.\n\n\tC int\n\t/* Deprecated: block */ D int\n\t/*\n\t * Deprecated: starred.\n\t */\n\tE int\n\t// x\n\t// deprecated: lower case\n\tF, G int\n}\n",
		"package p\ntype S struct { // Deprecated: the struct's line.\n\tA int\n\tB int /* Deprecated: x\n\t*/\n\tC int\n}\n",
		"package p\ntype S struct {\n\tA int; /* Deprecated: y */ B int\n\t// Deprecated:\r\n\tC int\n\tD int // a\n\t// Deprecated: after a line comment.\n\tE int\n}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ranges := structRanges(src)
		read := map[string]decl{}
		for name, r := range ranges {
			if r[0] < 0 || r[1] > len(src) || r[0] > r[1] {
				t.Fatalf("range of %s out of the source: %v", name, r)
			}
			if d, ok := lexStruct(src, r[0], r[1]); ok {
				read[name] = d
			}
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return
		}
		for _, ts := range topStructs(f) {
			d, ok := read[ts.Name.Name]
			if !ok {
				continue
			}
			if want := structDecl(fset, ts.Type.(*ast.StructType), 0); !reflect.DeepEqual(d, want) {
				t.Errorf("struct %s: lexStruct = %+v, want %+v", ts.Name.Name, d, want)
			}
		}
	})
}
