// Package golex skims Go source: a tokenizer for the callers that only
// need the shape of a file (where its declarations, brackets and
// statement ends are), not its tokens' values.
//
// It reports what go/scanner reports for the same source — token
// boundaries, brackets, and the semicolons the language inserts at line
// ends — in coarser classes, and allocates nothing: go/scanner makes a
// string of every identifier and literal, which is most of its cost when
// a caller looks at a few tokens of a large file. A source that
// go/scanner tokenizes without error gets the same token starts and ends
// and the same semicolons (the tests compare the two on the standard
// library and by fuzzing); on a malformed source it stops at the same
// places or keeps going, never reading out of bounds.
package golex

import "bytes"

// Kind classifies a token.
type Kind uint8

const (
	EOF Kind = iota
	// Ident is an identifier that is not a keyword.
	Ident
	// Keyword is a keyword; Lexer.Keyword says which.
	Keyword
	// Literal is a number, string, raw string or rune literal.
	Literal
	LParen    // (
	RParen    // )
	LBrack    // [
	RBrack    // ]
	LBrace    // {
	RBrace    // }
	Semicolon // ";" or a line end (or end of file) where Go inserts one
	// Operator is any other operator or punctuation (",", ".", ":=",
	// "...", "<-", "++", ...).
	Operator
)

// Lexer tokenizes one source. The zero value is not usable; use New.
type Lexer struct {
	src        []byte
	off        int  // next byte to read
	insertSemi bool // a line end here ends a statement
	kw         string
}

// New returns a lexer at the start of src (after a byte order mark).
func New(src []byte) *Lexer {
	l := &Lexer{src: src}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		l.off = 3
	}
	return l
}

// Keyword returns the keyword the last token was ("type", "func", ...),
// "" when it was not a keyword.
func (l *Lexer) Keyword() string { return l.kw }

// Next returns the next token's kind and its byte range in the source.
// An inserted semicolon is an empty range at the line end (or comment)
// that ends the statement. At the end it returns EOF, len(src), len(src)
// (after an inserted semicolon when the last line ends a statement).
func (l *Lexer) Next() (k Kind, start, end int) {
	l.kw = ""
	src := l.src
	for {
		// Skip blanks; a line end may end a statement.
		for l.off < len(src) {
			c := src[l.off]
			if c == '\n' {
				if l.insertSemi {
					l.insertSemi = false
					l.off++
					return Semicolon, l.off - 1, l.off - 1
				}
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
			l.off++
		}
		if l.off >= len(src) {
			if l.insertSemi {
				l.insertSemi = false
				return Semicolon, len(src), len(src)
			}
			return EOF, len(src), len(src)
		}
		// A comment may end a statement as a line end does (skipComment).
		if src[l.off] != '/' || l.off+1 >= len(src) || src[l.off+1] != '/' && src[l.off+1] != '*' {
			break
		}
		if start := l.off; l.skipComment() {
			return Semicolon, start, start
		}
	}
	start = l.off
	c := src[l.off]
	switch {
	case isLetter(c):
		l.off++
		for l.off < len(src) && (isLetter(src[l.off]) || isDigit(src[l.off])) {
			l.off++
		}
		if kw, ok := keyword(src[start:l.off]); ok {
			l.kw = kw
			l.insertSemi = kw == "break" || kw == "continue" || kw == "fallthrough" || kw == "return"
			return Keyword, start, l.off
		}
		l.insertSemi = true
		return Ident, start, l.off
	case isDigit(c) || c == '.' && l.off+1 < len(src) && isDigit(src[l.off+1]):
		l.number()
	case c == '"' || c == '\'':
		l.quoted(c)
	case c == '`':
		l.rawString()
	default:
		return l.operator(c, start)
	}
	l.insertSemi = true
	return Literal, start, l.off
}

// skipComment skips the comment at the offset and reports whether it
// ends a statement: a line comment, or a general comment spanning lines,
// ends one like a line end would.
func (l *Lexer) skipComment() bool {
	src := l.src
	if src[l.off+1] == '/' {
		// To the line end (bytes.IndexByte: API files are mostly
		// comments).
		if k := bytes.IndexByte(src[l.off+2:], '\n'); k >= 0 {
			l.off += 2 + k
		} else {
			l.off = len(src)
		}
		if l.insertSemi {
			l.insertSemi = false
			return true
		}
		return false
	}
	l.off += 2
	body := src[l.off:]
	k := bytes.Index(body, []byte("*/"))
	closed := k >= 0
	if !closed {
		k = len(body)
	}
	newline := bytes.IndexByte(body[:k], '\n') >= 0
	l.off += k
	if closed {
		l.off += 2
	}
	if l.insertSemi && (newline || !closed) {
		l.insertSemi = false
		return true
	}
	return false
}

// quoted reads a string or rune literal that quote q opens.
func (l *Lexer) quoted(q byte) {
	src := l.src
	l.off++
	for l.off < len(src) {
		b := src[l.off]
		if b == '\n' {
			break // unterminated: go/scanner stops here too
		}
		l.off++
		if b == '\\' && l.off < len(src) && src[l.off] != '\n' {
			l.off++
		} else if b == q {
			break
		}
	}
}

// rawString reads a raw string literal.
func (l *Lexer) rawString() {
	src := l.src
	l.off++
	for l.off < len(src) && src[l.off] != '`' {
		l.off++
	}
	if l.off < len(src) {
		l.off++
	}
}

// operator reads a bracket, a semicolon or an operator that byte c at
// start begins.
func (l *Lexer) operator(c byte, start int) (Kind, int, int) {
	src := l.src
	l.off++
	l.insertSemi = false
	switch c {
	case '(':
		return LParen, start, l.off
	case ')':
		l.insertSemi = true
		return RParen, start, l.off
	case '[':
		return LBrack, start, l.off
	case ']':
		l.insertSemi = true
		return RBrack, start, l.off
	case '{':
		return LBrace, start, l.off
	case '}':
		l.insertSemi = true
		return RBrace, start, l.off
	case ';':
		return Semicolon, start, l.off
	case '+', '-':
		if l.off < len(src) && src[l.off] == c { // ++ --
			l.off++
			l.insertSemi = true
			return Operator, start, l.off
		}
	case '.':
		if l.off+1 < len(src) && src[l.off] == '.' && src[l.off+1] == '.' {
			l.off += 2
			return Operator, start, l.off
		}
		return Operator, start, l.off
	case ',', ':', '~', '*', '^', '%', '=', '!', '<', '>', '&', '|', '/':
	default:
		return Operator, start, l.off // a byte no token starts with
	}
	// The rest of a multi-byte operator: a following '=', and the
	// second byte of &&, ||, <<, >>, &^, <-, ++, --. Which operator it
	// is does not matter here, only where it ends.
	if l.off < len(src) {
		n := src[l.off]
		switch {
		case (c == '&' || c == '|') && n == c, c == '&' && n == '^', c == '<' && (n == '<' || n == '-'), c == '>' && n == '>':
			l.off++
			if l.off < len(src) && src[l.off] == '=' && c != '|' && !(c == '<' && n == '-') && !(c == '&' && n == '&') {
				l.off++ // <<= >>= &^=
			}
		case n == '=' && c != '~' && c != ',':
			l.off++
		}
	}
	return Operator, start, l.off
}

// number reads a number literal the way go/scanner delimits one: a base
// prefix, digits of the base (any decimal digit after a leading 0), a
// fraction, an exponent with its sign, the imaginary suffix; '_'
// separates digits. Letters beyond those start the next token.
func (l *Lexer) number() {
	src := l.src
	hex := false
	if src[l.off] != '.' {
		if src[l.off] == '0' && l.off+1 < len(src) {
			switch src[l.off+1] | 0x20 { // lower case
			case 'x':
				hex = true
				l.off += 2
			case 'o', 'b':
				l.off += 2
			}
		}
		l.digits(hex)
	}
	if l.off < len(src) && src[l.off] == '.' {
		l.off++
		l.digits(hex)
	}
	if l.off < len(src) {
		if e := src[l.off] | 0x20; e == 'e' || e == 'p' {
			l.off++
			if l.off < len(src) && (src[l.off] == '+' || src[l.off] == '-') {
				l.off++
			}
			l.digits(false)
		}
	}
	if l.off < len(src) && src[l.off] == 'i' {
		l.off++
	}
}

func (l *Lexer) digits(hex bool) {
	for l.off < len(l.src) {
		c := l.src[l.off]
		if !isDigit(c) && c != '_' && !(hex && (c|0x20 >= 'a' && c|0x20 <= 'f')) {
			return
		}
		l.off++
	}
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// keyword returns the keyword b spells, if any.
func keyword(b []byte) (string, bool) {
	if len(b) < 2 || len(b) > 11 || b[0] < 'b' || b[0] > 'v' {
		return "", false
	}
	switch string(b) { // no allocation: the compiler compares in place
	case "break":
		return "break", true
	case "case":
		return "case", true
	case "chan":
		return "chan", true
	case "const":
		return "const", true
	case "continue":
		return "continue", true
	case "default":
		return "default", true
	case "defer":
		return "defer", true
	case "else":
		return "else", true
	case "fallthrough":
		return "fallthrough", true
	case "for":
		return "for", true
	case "func":
		return "func", true
	case "go":
		return "go", true
	case "goto":
		return "goto", true
	case "if":
		return "if", true
	case "import":
		return "import", true
	case "interface":
		return "interface", true
	case "map":
		return "map", true
	case "package":
		return "package", true
	case "range":
		return "range", true
	case "return":
		return "return", true
	case "select":
		return "select", true
	case "struct":
		return "struct", true
	case "switch":
		return "switch", true
	case "type":
		return "type", true
	case "var":
		return "var", true
	}
	return "", false
}
