package lifecycle

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"hash/maphash"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/protobuf"
	"github.com/apicheck/apicheck/internal/scan"
)

// A release file is read for one struct at a time: the file is searched
// for the struct's declaration, and only that declaration is parsed.
// Most files of a package do not declare the struct (a cheap regular
// expression tells), and in the one that does, tokenizing the file to
// find the declaration costs a fraction of parsing all of it.

// relField is a field of a struct at a release.
type relField struct {
	Name       string
	JSON       string // wire name; "" inline or skipped
	Number     int    // protobuf number; 0 none
	Wire       string // protobuf wire type and label, e.g. "bytes,rep"; "" none
	Deprecated bool
	Line, Col  int
}

// decl is what a file, or a directory (tree), says about one struct
// type: whether it declares it, in which file (for a tree), and its
// fields.
type decl struct {
	Found  bool
	File   string
	Fields []relField
}

// mayDeclare reports whether src contains text that may start the
// declaration of struct typ: the name as a whole word, then optionally
// type parameters, then "struct" ("T struct", "T[P any] struct"). It is
// a fast filter: most files of a package do not mention the struct at
// all, and a file it passes is tokenized to be sure.
func mayDeclare(src []byte, typ string) bool {
	name := []byte(typ)
	for i := 0; ; {
		k := bytes.Index(src[i:], name)
		if k < 0 {
			return false
		}
		at := i + k
		i = at + len(name)
		if at > 0 && isIdentByte(src[at-1]) || i < len(src) && isIdentByte(src[i]) {
			continue
		}
		j := skipSpace(src, i)
		if j < len(src) && src[j] == '[' {
			close := bytes.IndexByte(src[j:], ']')
			if close < 0 {
				return false
			}
			j = skipSpace(src, j+close+1)
		}
		if bytes.HasPrefix(src[j:], []byte("struct")) && (j+6 == len(src) || !isIdentByte(src[j+6])) {
			return true
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// findStruct returns the fields of struct type typ declared at the top
// level of Go source src (found is false when src does not declare it,
// also when it declares typ as something else or does not tokenize).
func findStruct(src []byte, typ string) decl {
	start, end, ok := declRange(src, typ)
	if !ok {
		return decl{}
	}
	return structAt(src, typ, start, end)
}

// declRange is structRange after a cheap test that src may declare typ.
func declRange(src []byte, typ string) (start, end int, ok bool) {
	if !mayDeclare(src, typ) {
		return 0, 0, false
	}
	return structRange(src, typ)
}

// structAt reads the struct typ declared at src[start:end] (see
// structRange): from its tokens (lexStruct) when it can, else from its
// syntax tree.
func structAt(src []byte, typ string, start, end int) decl {
	if d, ok := lexStruct(src, start, end); ok {
		return d
	}
	fset, st, shift, ok := parseStructAt(src, typ, start, end)
	if !ok {
		return decl{}
	}
	return structDecl(fset, st, shift)
}

func structDecl(fset *token.FileSet, st *ast.StructType, shift int) decl {
	d := decl{Found: true, Fields: []relField{}}
	for _, fld := range st.Fields.List {
		for _, rf := range relFields(fset, fld) {
			rf.Line += shift
			d.Fields = append(d.Fields, rf)
		}
	}
	return d
}

// fieldDecl returns the declaration of field name of struct type typ
// declared at the top level of src: its type as written and its struct
// tag's value (ok is false when there is no such tagged field).
func fieldDecl(src []byte, typ, name string) (typExpr, tag string, ok bool) {
	_, st, _, ok := parseStruct(src, typ)
	if !ok {
		return "", "", false
	}
	for _, fld := range st.Fields.List {
		for _, n := range fld.Names {
			if n.Name != name || fld.Tag == nil {
				continue
			}
			tv, err := strconv.Unquote(fld.Tag.Value)
			if err != nil {
				return "", "", false
			}
			return types.ExprString(fld.Type), tv, true
		}
	}
	return "", "", false
}

// parseStruct parses the top-level declaration of struct type typ in src
// alone; a line of the result plus shift is the line in src.
func parseStruct(src []byte, typ string) (_ *token.FileSet, _ *ast.StructType, shift int, ok bool) {
	start, end, ok := declRange(src, typ)
	if !ok {
		return nil, nil, 0, false
	}
	return parseStructAt(src, typ, start, end)
}

// declMemo keeps what structAt read of a struct's declaration, by the
// declaration's text: most releases of a large file leave a struct as it
// was (the file changed elsewhere), so a cold protobuf history, which
// reads the struct at every distinct blob of its file, reads each distinct
// declaration once. Lines are kept relative to the declaration's first
// line. Safe for concurrent use; the zero value is ready, a nil one keeps
// nothing.
type declMemo struct {
	mu sync.Mutex
	m  map[declText][]memoDecl
}

// declText names a declaration's text cheaply: its type, a hash of the
// text and the column it starts at (a one-line struct's fields' columns
// depend on it).
type declText struct {
	typ  string
	hash uint64
	col  int
}

type memoDecl struct {
	text string
	d    decl // lines relative: the declaration's first line is 1
}

var declSeed = maphash.MakeSeed()

// at is structAt, remembered.
func (m *declMemo) at(src []byte, typ string, start, end int) decl {
	if m == nil {
		return structAt(src, typ, start, end)
	}
	text := src[start:end]
	k := declText{typ, maphash.Bytes(declSeed, text), start - (bytes.LastIndexByte(src[:start], '\n') + 1)}
	shift := bytes.Count(src[:start], []byte("\n")) // lines before the declaration's
	m.mu.Lock()
	for _, e := range m.m[k] {
		if e.text == string(text) {
			m.mu.Unlock()
			return shiftLines(e.d, shift)
		}
	}
	m.mu.Unlock()
	d := structAt(src, typ, start, end)
	m.mu.Lock()
	if m.m == nil {
		m.m = map[declText][]memoDecl{}
	}
	m.m[k] = append(m.m[k], memoDecl{string(text), shiftLines(d, -shift)})
	m.mu.Unlock()
	return d
}

// shiftLines returns d with every field's line moved by n, in a slice of
// its own.
func shiftLines(d decl, n int) decl {
	if d.Fields == nil {
		return d
	}
	fs := slices.Clone(d.Fields)
	for i := range fs {
		fs[i].Line += n
	}
	d.Fields = fs
	return d
}

// findStructs is findStruct for several types of one file: the file is
// tokenized once for all of them. A memo, when given, remembers what
// each declaration says (see declMemo).
func findStructs(src []byte, typs []string, memo *declMemo) []decl {
	out := make([]decl, len(typs))
	// The types the text may declare (mayDeclare), found in one pass of
	// the lexer that stops when it has them all.
	var want []string
	for _, typ := range typs {
		if !slices.Contains(want, typ) && mayDeclare(src, typ) {
			want = append(want, typ)
		}
	}
	if len(want) == 0 {
		return out
	}
	ranges := make(map[string][2]int, len(want))
	scanStructs(src, func(name string) bool {
		_, done := ranges[name]
		return !done && slices.Contains(want, name)
	}, func(name string, s, e int) bool {
		ranges[name] = [2]int{s, e} // the first declaration, as structRange
		return len(ranges) < len(want)
	})
	for i, typ := range typs {
		if r, ok := ranges[typ]; ok {
			out[i] = memo.at(src, typ, r[0], r[1])
		}
	}
	return out
}

// parseStructAt parses the declaration of struct typ at src[start:end]
// (see structRange) alone.
func parseStructAt(src []byte, typ string, start, end int) (_ *token.FileSet, _ *ast.StructType, shift int, ok bool) {
	// Parse the declaration alone, inside a type group, with the text
	// before it on its line blanked (so columns stay); lines are shifted
	// back to the file's afterwards (padding the snippet with line breaks
	// instead would cost time proportional to the file per struct).
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	line := bytes.Count(src[:start], []byte("\n")) + 1
	var b bytes.Buffer
	b.Grow(end - lineStart + 32)
	b.WriteString("package p\ntype (\n")
	for _, c := range src[lineStart:start] {
		if c == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.Write(src[start:end])
	b.WriteString("\n)\n")
	shift = line - 3 // file line = snippet line + shift
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", b.Bytes(), parser.SkipObjectResolution|parser.ParseComments)
	if err != nil || len(f.Decls) != 1 {
		return nil, nil, 0, false
	}
	gd, ok := f.Decls[0].(*ast.GenDecl)
	if !ok || len(gd.Specs) != 1 {
		return nil, nil, 0, false
	}
	ts := gd.Specs[0].(*ast.TypeSpec)
	st, ok := ts.Type.(*ast.StructType)
	if !ok || ts.Assign.IsValid() || ts.Name.Name != typ {
		return nil, nil, 0, false
	}
	return fset, st, shift, true
}

// structRange finds the top-level declaration "typ [params] struct {...}"
// (alone after "type" or in a "type (...)" group) and returns the byte
// range from the type name to the closing brace.
func structRange(src []byte, typ string) (start, end int, ok bool) {
	found := false
	scanStructs(src, func(name string) bool { return name == typ }, func(name string, s, e int) bool {
		start, end, found = s, e, true
		return false
	})
	return start, end, found
}

// scanStructs tokenizes src once and calls found with the range of every
// top-level struct declaration whose name want accepts, until found
// returns false.
func scanStructs(src []byte, want func(string) bool, found func(name string, start, end int) bool) {
	l := golex.New(src)
	depth, group := 0, -1
	specNext, afterType := false, false
	for {
		tok, start, end := l.Next()
		if tok == golex.EOF {
			return
		}
		if specNext && tok == golex.Ident && want(string(src[start:end])) {
			if e, ok := structBody(l); ok && !found(string(src[start:end]), start, e) {
				return
			}
			specNext, afterType = false, false
			continue // keep looking (the declaration's tokens were balanced)
		}
		specNext = false
		wasType := afterType
		afterType = false
		switch tok {
		case golex.Keyword:
			if depth == 0 && l.Keyword() == "type" {
				specNext, afterType = true, true
			}
		case golex.LParen:
			depth++
			if wasType {
				group, specNext = depth, true
			}
		case golex.LBrace, golex.LBrack:
			depth++
		case golex.RParen, golex.RBrace, golex.RBrack:
			if tok == golex.RParen && depth == group {
				group = -1
			}
			depth--
		case golex.Semicolon:
			specNext = group >= 0 && depth == group
		}
	}
}

// structBody reads what follows a type name: optional type parameters,
// "struct", and the braced field list, returning the offset after the
// closing brace. On anything else it stops with brackets balanced.
func structBody(l *golex.Lexer) (int, bool) {
	tok, _, _ := l.Next()
	if tok == golex.LBrack { // type parameters
		if !skipBalanced(l, golex.LBrack, golex.RBrack) {
			return 0, false
		}
		tok, _, _ = l.Next()
	}
	if tok != golex.Keyword || l.Keyword() != "struct" {
		switch tok { // keep brackets balanced for the caller
		case golex.LParen:
			skipBalanced(l, golex.LParen, golex.RParen)
		case golex.LBrace:
			skipBalanced(l, golex.LBrace, golex.RBrace)
		case golex.LBrack:
			skipBalanced(l, golex.LBrack, golex.RBrack)
		}
		return 0, false
	}
	if tok, _, _ = l.Next(); tok != golex.LBrace {
		return 0, false
	}
	depth := 1
	for depth > 0 {
		tok, _, end := l.Next()
		switch tok {
		case golex.EOF:
			return 0, false
		case golex.LBrace:
			depth++
		case golex.RBrace:
			depth--
			if depth == 0 {
				return end, true
			}
		}
	}
	return 0, false
}

// skipBalanced reads up to the close token matching an open one already
// read.
func skipBalanced(l *golex.Lexer, open, close golex.Kind) bool {
	for depth := 1; depth > 0; {
		tok, _, _ := l.Next()
		switch tok {
		case golex.EOF:
			return false
		case open:
			depth++
		case close:
			depth--
		}
	}
	return true
}

// commentDeprecated reports whether a comment of a field's doc comment
// ("// ..." or "/* ... */", as go/ast holds it) has a line that says the
// field is deprecated, as the scan reads it (scan.DeprecationLine).
func commentDeprecated(text string) bool {
	for _, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(text, "//"), "/*"), "*/"), "\n") {
		if scan.DeprecationLine(strings.TrimPrefix(strings.TrimSpace(l), "* ")) {
			return true
		}
	}
	return false
}

// relFields describes one field declaration (one entry per name).
func relFields(fset *token.FileSet, fld *ast.Field) []relField {
	tagLit := ""
	if fld.Tag != nil {
		tagLit = fld.Tag.Value
	}
	deprecated := false
	if fld.Doc != nil {
		for _, c := range fld.Doc.List {
			deprecated = deprecated || commentDeprecated(c.Text)
		}
	}
	if len(fld.Names) == 0 {
		p := fset.Position(fld.Type.Pos())
		return newRelFields([]string{scan.EmbeddedName(fld.Type)}, [][2]int{{p.Line, p.Column}}, true, tagLit, deprecated)
	}
	names := make([]string, len(fld.Names))
	at := make([][2]int, len(fld.Names))
	for i, n := range fld.Names {
		p := fset.Position(n.Pos())
		names[i], at[i] = n.Name, [2]int{p.Line, p.Column}
	}
	return newRelFields(names, at, false, tagLit, deprecated)
}

// newRelFields describes a field declaration: its names (the type's
// name for an embedded field) at their lines and columns, and its tag
// as written (a Go string literal, "" without one).
func newRelFields(names []string, at [][2]int, embedded bool, tagLit string, deprecated bool) []relField {
	var tag reflect.StructTag
	if tagLit != "" {
		if s, err := strconv.Unquote(tagLit); err == nil {
			tag = reflect.StructTag(s)
		}
	}
	number, wireSpec := 0, ""
	if pt, ok, err := protobuf.FromStructTag(string(tag)); ok && err == nil && pt != nil {
		number, wireSpec = pt.Number, pt.Wire+","+pt.Label
	}
	jsonName, hasJSON := tag.Lookup("json")
	jsonName, _, _ = strings.Cut(jsonName, ",")
	out := make([]relField, len(names))
	for i, name := range names {
		wire := name
		switch {
		case hasJSON && jsonName != "":
			wire = jsonName
		case embedded:
			wire = ""
		}
		out[i] = relField{Name: name, JSON: wire, Number: number, Wire: wireSpec, Deprecated: deprecated, Line: at[i][0], Col: at[i][1]}
	}
	return out
}
