package golex

// DeclsOnly returns a Go file's source without the bodies of its functions
// and methods, which the type checker does not need for a package loaded
// for its declarations. Tokenizing is much cheaper than parsing the
// bodies. Positions in the result are not those of the file: no position
// of such a file is ever reported. A body is the "{" at the top level of
// a func declaration that does not open a struct or interface type.
func DeclsOnly(src []byte) []byte {
	l := New(src)
	out := make([]byte, 0, len(src)/2)
	last := 0
	depth, nest := 0, 0 // braces; parentheses and brackets
	inFunc := false
	prev, prevKw := EOF, "" // EOF: nothing read yet
	for {
		tok, start, _ := l.Next()
		if tok == EOF {
			break
		}
		kw := l.Keyword()
		switch tok {
		case Keyword:
			// A declaration, not a function literal in a var initializer.
			if kw == "func" && depth == 0 && nest == 0 && (prev == Semicolon || prev == EOF) {
				inFunc = true
			}
		case LParen, LBrack:
			nest++
		case RParen, RBrack:
			nest--
		case Semicolon:
			if depth == 0 && nest == 0 {
				inFunc = false
			}
		case LBrace:
			if depth == 0 && nest == 0 && inFunc && !(prev == Keyword && (prevKw == "struct" || prevKw == "interface")) {
				end := -1
				for d := 1; d > 0; {
					t, _, e := l.Next()
					switch t {
					case EOF:
						d = 0
					case LBrace:
						d++
					case RBrace:
						if d--; d == 0 {
							end = e
						}
					}
				}
				if end < 0 {
					return src // unbalanced: leave it to the parser
				}
				out = append(out, src[last:start]...)
				out = append(out, ';')
				last = end
				inFunc = false
				prev, prevKw = RBrace, ""
				continue
			}
			depth++
		case RBrace:
			depth--
		}
		prev, prevKw = tok, kw
	}
	return append(out, src[last:]...)
}
