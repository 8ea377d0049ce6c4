package golex_test

import (
	"fmt"
	"go/build"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/testutil/gocorpus"
)

// tok is a token as both tokenizers can describe it.
type tok struct {
	Kind       golex.Kind
	Start, End int // -1 for an inserted semicolon (positions differ by design)
	Keyword    string
}

func (t tok) String() string {
	return fmt.Sprintf("%d[%d:%d]%s", t.Kind, t.Start, t.End, t.Keyword)
}

// reference tokenizes src with go/scanner; ok is false when go/scanner
// reports an error (golex promises agreement on valid sources only).
func reference(src []byte) (out []tok, ok bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	errs := 0
	s.Init(file, src, func(token.Position, string) { errs++ }, 0)
	for {
		pos, t, lit := s.Scan()
		off := file.Offset(pos)
		var k golex.Kind
		switch {
		case t == token.EOF:
			return out, errs == 0
		case t == token.IDENT:
			k = golex.Ident
		case t.IsKeyword():
			out = append(out, tok{golex.Keyword, off, off + len(lit), lit})
			continue
		case t.IsLiteral():
			k = golex.Literal
		case t == token.SEMICOLON && lit == "\n":
			out = append(out, tok{golex.Semicolon, -1, -1, ""})
			continue
		default:
			k = map[token.Token]golex.Kind{
				token.LPAREN: golex.LParen, token.RPAREN: golex.RParen,
				token.LBRACK: golex.LBrack, token.RBRACK: golex.RBrack,
				token.LBRACE: golex.LBrace, token.RBRACE: golex.RBrace,
				token.SEMICOLON: golex.Semicolon,
			}[t]
			if k == golex.EOF {
				k = golex.Operator
			}
			lit = t.String()
		}
		out = append(out, tok{k, off, off + len(lit), ""})
	}
}

func skim(src []byte) []tok {
	var out []tok
	l := golex.New(src)
	for {
		k, s, e := l.Next()
		if k == golex.EOF {
			if s != len(src) || e != len(src) {
				out = append(out, tok{golex.EOF, s, e, "bad EOF range"})
			}
			return out
		}
		if k == golex.Semicolon && s == e {
			s, e = -1, -1
		}
		out = append(out, tok{k, s, e, l.Keyword()})
	}
}

// compare reports the first difference between the two tokenizers on a
// source go/scanner accepts; "" when they agree (or go/scanner rejects
// the source).
func compare(src []byte) string {
	want, ok := reference(src)
	if !ok {
		return ""
	}
	got := skim(src)
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("token %d: golex ended, go/scanner has %v", i, want[i])
		case i >= len(want):
			return fmt.Sprintf("token %d: go/scanner ended, golex has %v", i, got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("token %d: golex %v, go/scanner %v (source around it: %q)", i, got[i], want[i], around(src, want[i].Start))
		}
	}
	return ""
}

func around(src []byte, off int) string {
	if off < 0 {
		return ""
	}
	return string(src[max(0, off-20):min(len(src), off+20)])
}

var cases = []string{
	"",
	"package p",
	"package p\n",
	"\xEF\xBB\xBFpackage p\n",
	"package p\nfunc f() { return }\n",
	"package p\nvar x = 1 // c\nvar y = 2 /* c */\nvar z = 3 /* a\nb */ + 4\n",
	"package p\nvar s = \"a\\\"b\" + `raw\nline` + 'x' + '\\'' + \"\\\\\"\n",
	"package p\nvar n = []float64{1, 1.5, .5, 1e9, 1E-9, 0x1p-2, 0X1P+3, 0x1e+2, 0b1010, 0o17, 017, 1_000, 2i, 1.5e+3i}\n",
	"package p\nfunc f() { x++; y--\n a += 1; b -= 2; c <<= 3; d >>= 4; e &^= 5; f &= 6; g |= 7; h ^= 8; i %= 9; j /= 2; k *= 3 }\n",
	"package p\nfunc f(c chan int, a ...int) { x := <-c; c <- 1; _ = x && y || !z; _ = a != b; _ = p == q; _ = m <= n; _ = m >= n; _ = ~t; _ = s[1:2]; _ = &x }\n",
	"package p\ntype (\n\tA struct {\n\t\tB int `json:\"b\"`\n\t}\n\tC[T any] struct{ D T }\n)\n",
	"package p\nfunc f() {\n\tfor {\n\t\tbreak\n\t}\n\tgoto L\nL:\n\tswitch {\n\tcase true:\n\t\tfallthrough\n\tdefault:\n\t}\n}\n",
	"package p\nvar x = y /* c */\nvar w = z /* c */ // d\n",
	"package p\nvar x = y // at the end",
	"package p\nvar x = y /* at the end */",
	"package p\nvar é = 1\nvar 日本 = 2\n",
	"package p\nvar x = a.\n\tb\n",
}

func TestAgreesWithGoScanner(t *testing.T) {
	for _, c := range cases {
		if _, ok := reference([]byte(c)); !ok {
			t.Errorf("case %q is not valid for go/scanner; the case is wrong", c)
			continue
		}
		if d := compare([]byte(c)); d != "" {
			t.Errorf("%q: %s", c, d)
		}
	}
}

// TestAgreesOnRealSources compares the tokenizers on this repository's
// Go files and on part of the standard library's.
func TestAgreesOnRealSources(t *testing.T) {
	files, valid := 0, 0
	for _, p := range gocorpus.Files(t, "../..", "go", "strconv", "fmt", "encoding/json", "regexp", "net/http", "cmd/compile/internal/syntax", "unicode") {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files++
		if _, ok := reference(src); ok {
			valid++
		}
		if d := compare(src); d != "" {
			t.Errorf("%s: %s", p, d)
		}
	}
	if valid < 200 {
		t.Fatalf("only %d valid Go files among %d compared; the corpus is missing", valid, files)
	}
}

// TestMalformed checks that nothing malformed makes the lexer loop, read
// out of bounds or report a range outside the source.
func TestMalformed(t *testing.T) {
	for _, src := range []string{"\"abc", "'a", "`abc", "/* abc", "0x", "1e", "1e+", ".", "..", "\x00\xff", "a\n\"b\nc\"", "\\", "@#$", "\xEF\xBB"} {
		checkBounds(t, []byte(src))
	}
}

func checkBounds(t *testing.T, src []byte) {
	t.Helper()
	l := golex.New(src)
	last := 0
	for i := 0; ; i++ {
		if i > len(src)+2 {
			t.Fatalf("%q: more tokens than bytes", src)
		}
		k, s, e := l.Next()
		if s < last || e < s || e > len(src) {
			t.Fatalf("%q: token %d range [%d:%d] after %d", src, i, s, e, last)
		}
		last = e
		if k == golex.EOF {
			return
		}
	}
}

func FuzzLexer(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkBounds(t, src)
		if d := compare(src); d != "" {
			t.Errorf("%q: %s", src, d)
		}
	})
}

// parserSource is go/parser's parser.go, a large hand-written file.
func parserSource(b *testing.B) []byte {
	src, err := os.ReadFile(filepath.Join(build.Default.GOROOT, "src", "go", "parser", "parser.go"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	return src
}

func BenchmarkLexer(b *testing.B) {
	src := parserSource(b)
	for b.Loop() {
		l := golex.New(src)
		for k, _, _ := l.Next(); k != golex.EOF; k, _, _ = l.Next() {
		}
	}
}

func BenchmarkGoScanner(b *testing.B) {
	src := parserSource(b)
	for b.Loop() {
		fset := token.NewFileSet()
		file := fset.AddFile("", -1, len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, 0)
		for _, t, _ := s.Scan(); t != token.EOF; _, t, _ = s.Scan() {
		}
	}
}
