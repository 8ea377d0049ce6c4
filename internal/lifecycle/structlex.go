package lifecycle

import (
	"bytes"
	"strings"

	"github.com/apicheck/apicheck/internal/golex"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// lexStruct reads the fields of the struct declared at src[start:end]
// (see structRange) from its tokens, without building a syntax tree: the
// protobuf history reads every struct it follows at every release blob
// that changed, and parsing was most of that work. ok is false when the
// declaration is not in the plain shapes below (then the caller parses
// it): a field declaration is names and a type, or an embedded type
// (["*"] [pkg "."] T [type arguments]), each with an optional tag, in a
// struct without type parameters. A field is deprecated when its doc
// comment, grouped as go/parser groups comments (leadComment), has a
// "Deprecated:" line.
func lexStruct(src []byte, start, end int) (decl, bool) {
	body := src[start:end]
	mentions := protobuf.ContainsFold(string(body), "deprecated")
	lc := lineCounter{src: src, off: start, line: 1 + bytes.Count(src[:start], []byte("\n"))}
	l := golex.New(body)
	next := func() (golex.Kind, int, int) {
		k, s, e := l.Next()
		return k, s + start, e + start
	}
	if k, _, _ := next(); k != golex.Ident { // the type's name
		return decl{}, false
	}
	// Type parameters, or an array of structs ("type A [4]struct{...}"),
	// are the parser's to tell apart.
	if k, _, _ := next(); k != golex.Keyword || l.Keyword() != "struct" {
		return decl{}, false
	}
	k, prevStart, prevEnd := next()
	if k != golex.LBrace {
		return decl{}, false
	}
	d := decl{Found: true, Fields: []relField{}}
	var toks []lexTok
	// field adds the declaration in toks, whose doc comment lies between
	// the token before it (prevStart, prevEnd) and its first token.
	field := func() bool {
		deprecated := false
		if mentions && len(toks) > 0 {
			var ok bool
			prevLine := lc.at(prevStart)[0]
			if deprecated, ok = leadDeprecated(src, prevEnd, prevLine, toks[0].start); !ok {
				return false
			}
		}
		return lexField(src, toks, &lc, &d, deprecated)
	}
	depth := 0
	for {
		k, s, e := next()
		switch k {
		case golex.EOF:
			return decl{}, false
		case golex.LParen, golex.LBrack, golex.LBrace:
			depth++
		case golex.RParen, golex.RBrack:
			depth--
		case golex.RBrace:
			if depth == 0 { // the struct's end
				if e != end || !field() {
					return decl{}, false
				}
				if k, _, _ := next(); k != golex.EOF && k != golex.Semicolon {
					return decl{}, false
				}
				return d, true
			}
			depth--
		case golex.Semicolon:
			if depth == 0 {
				if !field() {
					return decl{}, false
				}
				toks = toks[:0]
				prevStart, prevEnd = s, e
				continue
			}
		}
		if depth < 0 {
			return decl{}, false
		}
		toks = append(toks, lexTok{k, s, e})
	}
}

// leadDeprecated reads the comments of src[from:to], the text between a
// field declaration's first token (at to) and the token before it (which
// ends at from, on line prevLine): whitespace and comments only (ok is
// false otherwise). It groups them as go/parser does (parser.next): a
// group starting on the previous token's line is that line's comment;
// later comments on adjacent lines form groups; the last group is the
// declaration's doc comment when it ends on the line before to. It
// reports whether that doc comment has a "Deprecated:" line.
func leadDeprecated(src []byte, from, prevLine, to int) (deprecated, ok bool) {
	type comment struct{ start, end, line, endLine int }
	var cs []comment
	line := prevLine
	for i := from; i < to; {
		switch c := src[i]; {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < to && src[i+1] == '/':
			e := to
			if k := bytes.IndexByte(src[i:to], '\n'); k >= 0 {
				e = i + k
			}
			cs = append(cs, comment{i, e, line, line})
			i = e
		case c == '/' && i+1 < to && src[i+1] == '*':
			k := bytes.Index(src[i+2:to], []byte("*/"))
			if k < 0 {
				return false, false
			}
			e := i + 2 + k + 2
			n := bytes.Count(src[i:e], []byte("\n"))
			cs = append(cs, comment{i, e, line, line + n})
			line += n
			i = e
		default:
			return false, false
		}
	}
	j := 0
	if len(cs) > 0 && cs[0].line == prevLine { // the previous line's comment
		for end := cs[0].line; j < len(cs) && cs[j].line <= end; j++ {
			end = cs[j].endLine
		}
	}
	endLine, first := -1, j
	for j < len(cs) {
		first, endLine = j, cs[j].line
		for ; j < len(cs) && cs[j].line <= endLine+1; j++ {
			endLine = cs[j].endLine
		}
	}
	if endLine+1 != line {
		return false, true // no doc comment
	}
	for _, c := range cs[first:] {
		if commentDeprecated(strings.ReplaceAll(string(src[c.start:c.end]), "\r", "")) {
			return true, true
		}
	}
	return false, true
}

// lexTok is a token of a field declaration.
type lexTok struct {
	kind       golex.Kind
	start, end int
}

// lexField adds the fields of one declaration (its tokens, without the
// semicolon; none for an empty declaration) to d; false when it is not
// one of lexStruct's shapes.
func lexField(src []byte, toks []lexTok, lc *lineCounter, d *decl, deprecated bool) bool {
	if len(toks) == 0 {
		return true
	}
	is := func(i int, op string) bool {
		return i < len(toks) && toks[i].kind == golex.Operator && string(src[toks[i].start:toks[i].end]) == op
	}
	text := func(i int) string { return string(src[toks[i].start:toks[i].end]) }
	tagLit := ""
	if last := toks[len(toks)-1]; last.kind == golex.Literal && (src[last.start] == '"' || src[last.start] == '`') {
		tagLit = string(src[last.start:last.end])
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return false
	}
	// An embedded type: ["*"] T or ["*"] pkg.T, then type arguments.
	embedded := func() (name string, ok bool) {
		i := 0
		if is(0, "*") {
			i++
		}
		if i >= len(toks) || toks[i].kind != golex.Ident {
			return "", false
		}
		name = text(i)
		i++
		if is(i, ".") {
			if i+1 >= len(toks) || toks[i+1].kind != golex.Ident {
				return "", false
			}
			name = text(i + 1)
			i += 2
		}
		if i < len(toks) && toks[i].kind == golex.LBrack {
			j, ok := matching(toks, i)
			if !ok || j != len(toks)-1 || j == i+1 {
				return "", false
			}
			i = j + 1
		}
		return name, i == len(toks)
	}
	if toks[0].kind == golex.Ident && len(toks) > 1 && toks[1].kind == golex.LBrack {
		// Name [N]T (an array or slice field) or T[P] (embedded, generic):
		// the latter ends at the bracket's match.
		if j, ok := matching(toks, 1); !ok {
			return false
		} else if j == len(toks)-1 {
			name, ok := embedded()
			if !ok {
				return false
			}
			d.Fields = append(d.Fields, newRelFields([]string{name}, [][2]int{lc.at(toks[0].start)}, true, tagLit, deprecated)...)
			return true
		}
		d.Fields = append(d.Fields, newRelFields([]string{text(0)}, [][2]int{lc.at(toks[0].start)}, false, tagLit, deprecated)...)
		return true
	}
	if is(0, "*") || len(toks) == 1 || is(1, ".") {
		name, ok := embedded()
		if !ok {
			return false
		}
		d.Fields = append(d.Fields, newRelFields([]string{name}, [][2]int{lc.at(toks[0].start)}, true, tagLit, deprecated)...)
		return true
	}
	// Names, then a type.
	var names []string
	var at [][2]int
	i := 0
	for {
		if i >= len(toks) || toks[i].kind != golex.Ident {
			return false
		}
		names, at = append(names, text(i)), append(at, lc.at(toks[i].start))
		i++
		if !is(i, ",") {
			break
		}
		i++
	}
	if i >= len(toks) || toks[i].kind == golex.Operator && !is(i, "*") && !is(i, "<-") {
		return false // no type, or not one a type can start with
	}
	d.Fields = append(d.Fields, newRelFields(names, at, false, tagLit, deprecated)...)
	return true
}

// matching returns the index of the bracket that closes toks[i].
func matching(toks []lexTok, i int) (int, bool) {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].kind {
		case golex.LParen, golex.LBrack, golex.LBrace:
			depth++
		case golex.RParen, golex.RBrack, golex.RBrace:
			depth--
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// lineCounter turns offsets of src, asked in increasing order, into
// 1-based lines and byte columns, as go/token counts them.
type lineCounter struct {
	src       []byte
	off, line int // line is the line of off
}

func (c *lineCounter) at(p int) [2]int {
	c.line += bytes.Count(c.src[c.off:p], []byte("\n"))
	c.off = p
	return [2]int{c.line, p - (bytes.LastIndexByte(c.src[:p], '\n') + 1) + 1}
}
