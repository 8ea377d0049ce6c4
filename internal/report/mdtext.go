package report

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/quote"
)

// Everything the Markdown report prints from the analysed repository
// (names, messages, hints, paths, reasons, notes, ref names) is written
// by whoever opens the pull request. It goes through the helpers of this
// file, which make it literal text on GitHub: no Markdown or HTML takes
// effect, no @mention pings anyone, no URL, e-mail address or #123
// becomes a link, and no table cell is split. They render either escaped
// text (mdText) or code spans (mdCode); fenced code blocks (mdFence) are
// used for hints that are code.

// zwj (U+200D ZERO WIDTH JOINER) is put after '@', '#' and ':' of "://"
// and inside "www.": GitHub then finds no mention, issue reference or
// autolink there, and the text reads the same.
const zwj = "\u200d"

// mdContext says where text goes: a table cell (one line, '|' ends the
// cell) or running text (a paragraph or list item).
type mdContext int

const (
	inCell mdContext = iota
	inText
)

// newlines turns every line break into "\n".
var newlines = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// sanitize replaces control characters (but tab and newline), the line
// and paragraph separators U+2028 and U+2029 and the Unicode
// bidirectional controls, which could make a line read other than it is,
// by U+FFFD; invalid UTF-8 too.
func sanitize(s string) string {
	if !strings.ContainsFunc(s, badRune) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if badRune(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

func badRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == utf8.RuneError, unicode.IsControl(r), r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// shorten cuts s to at most limit characters, marking the cut with "…".
func shorten(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	rs := []rune(s)
	return string(rs[:limit-1]) + "…"
}

// mdText renders s as literal text. Markdown punctuation is escaped with a
// backslash, HTML specials become entities, '@', '#' (before a letter or
// digit), "GH-" (before a digit), "://" and "www." get a zero-width
// joiner, and line breaks become <br> in a cell and a space in running
// text.
func mdText(s string, ctx mdContext) string {
	s = sanitize(newlines.Replace(s))
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '~', '|', '!', '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '#':
			b.WriteString(`\#`)
			if i+1 < len(s) && isWordByte(s[i+1]) {
				b.WriteString(zwj)
			}
		case '@':
			b.WriteString("@" + zwj)
		case ':':
			b.WriteByte(':')
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteString(zwj)
			}
		case 'w', 'W':
			if len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www.") {
				b.WriteString(s[i:i+3] + zwj + ".")
				i += 3
				continue
			}
			b.WriteByte(c)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '-':
			b.WriteByte('-')
			// "GH-123" is an issue reference too.
			if i >= 2 && strings.EqualFold(s[i-2:i], "gh") && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				b.WriteString(zwj)
			}
		case '\n':
			b.WriteString(lineBreak(ctx))
		case '\t':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func lineBreak(ctx mdContext) string {
	if ctx == inCell {
		return "<br>"
	}
	return " "
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// blockStart matches what would start a block (list item, heading,
// setext underline, thematic break) at the beginning of a line of
// running text.
var blockStart = lazyre.New(`^(?:[-+=]|\d+[.)])`)

// mdLine renders s (prose, as mdProse) to begin a line of running text
// (a list item's content): a leading list or heading marker is escaped
// too.
func mdLine(s string) string {
	t := mdProse(s, inText)
	if m := blockStart.FindString(t); m != "" {
		return m[:len(m)-1] + `\` + t[len(m)-1:]
	}
	return t
}

// mdCode renders s as a code span: its content is never interpreted (no
// Markdown, HTML, mention or link), the fence is longer than any backtick
// run inside, and line breaks become spaces. In a table cell a '|' would
// end the cell even inside the span, and GitHub's "\|" escape cannot be
// written exactly in every case, so text with '|' is rendered as escaped
// text there instead. So is text with "##[", which the GitHub Actions
// runner reads as a workflow command anywhere in a line of a job's log
// (a report printed there); escaped text writes it "\#\#\[".
func mdCode(s string, ctx mdContext) string {
	s = sanitize(strings.ReplaceAll(newlines.Replace(s), "\n", " "))
	if s == "" {
		return ""
	}
	if ctx == inCell && strings.Contains(s, "|") || quote.Command(s) {
		return mdText(s, ctx)
	}
	fence := strings.Repeat("`", backtickRun(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdFence renders code as a fenced ```go block, each line prefixed by
// indent (the content indentation of the list item it belongs to). The
// fence is longer than any backtick run of the code, so no line of it
// can close the block.
func mdFence(code, indent string) string { return mdFenceLang(code, "go", indent) }

// mdFenceLang is mdFence with another info string, e.g. "suggestion"
// (GitHub's suggested change).
//
// Code is shown as it is, so code with a line that the GitHub Actions
// runner would read as a workflow command (quote.Command: it starts with
// "::" or holds "##[") is not shown: a line says so instead. Changing
// the code would change what a suggestion commits.
func mdFenceLang(code, lang, indent string) string {
	code = sanitize(newlines.Replace(code))
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	if slices.ContainsFunc(lines, quote.Command) {
		return indent + mdCodeHidden + "\n"
	}
	fence := strings.Repeat("`", max(3, backtickRun(code)+1))
	var b strings.Builder
	b.WriteString(indent + fence + lang + "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent + l + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
}

// mdCodeHidden stands for code that mdFenceLang does not show.
const mdCodeHidden = "*Code not shown: a line of it would read as a GitHub Actions workflow command " +
	"(`--format json` has it).*"

// markerRe finds markers in prose ("// +optional", "+required",
// "+apicheck:ignore"), which mdProse shows as code.
var markerRe = lazyre.New(`(?://\s?)?\+[a-z][A-Za-z0-9_:.\-]*(?:=[^\s,;]*)?`)

// mdProse renders text that may quote code between single backticks (as
// the rules' messages and hints do) and name markers: the quoted parts
// and markers become code spans, the rest escaped text. Text with
// unbalanced backticks is escaped as a whole.
func mdProse(s string, ctx mdContext) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return mdText(s, ctx)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			if p == "" {
				continue
			}
			b.WriteString(mdCode(p, ctx))
			continue
		}
		last := 0
		for _, m := range markerRe.FindAllStringIndex(p, -1) {
			// A marker starts a word: "+x" inside "a+x" is arithmetic.
			if m[0] > 0 && !strings.ContainsRune(" \t\n(", rune(p[m[0]-1])) {
				continue
			}
			b.WriteString(mdText(p[last:m[0]], ctx))
			b.WriteString(mdCode(p[m[0]:m[1]], ctx))
			last = m[1]
		}
		b.WriteString(mdText(p[last:], ctx))
	}
	return b.String()
}

// goDecl matches a Go field or type alias declaration on one line, the
// forms the rules' hints propose ("Replicas *int32", "Foo *string
// `json:...`", "type A = B"). A field's type must look like one (a
// pointer, slice, map, qualified or predeclared type, or a struct tag must
// follow), so that two words of prose are not taken for code.
var goDecl = lazyre.New("^(?:type\\s+[A-Za-z_]\\w*\\s*=\\s*\\S+|[A-Z]\\w*\\s+(?:" +
	"(?:\\*|\\[\\d*\\]|map\\[[^\\]]+\\])+[A-Za-z_][\\w.]*|[A-Za-z_]\\w*\\.[A-Za-z_]\\w*|" +
	"(?:string|bool|byte|rune|u?int(?:8|16|32|64)?|float(?:32|64))|[A-Za-z_][\\w.]*\\s+`[^`]*`)(?:\\s+`[^`]*`)?)$")

// looksLikeCode reports whether a line of a hint is Go code: a comment
// (a marker, or a tombstone and its commented-out declaration) or a
// declaration.
func looksLikeCode(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "//") || goDecl.MatchString(t)
}

// splitHint separates a hint into its prose and its code: lines that are
// code, and a declaration or comment after the last ": " of a prose line
// ("make it a pointer: Replicas *int32", "write: // X is tombstoned ...").
// The prose keeps its order, the code lines theirs.
func splitHint(h string) (prose []string, code string) {
	var codeLines []string
	for _, l := range strings.Split(newlines.Replace(h), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
		case looksLikeCode(l):
			codeLines = append(codeLines, l)
		default:
			if i := strings.LastIndex(l, ": "); i >= 0 && looksLikeCode(l[i+2:]) {
				prose = append(prose, l[:i+1])
				codeLines = append(codeLines, strings.TrimSpace(l[i+2:]))
				continue
			}
			prose = append(prose, l)
		}
	}
	return prose, strings.Join(codeLines, "\n")
}

// backtickRun is the length of the longest run of backticks in s.
func backtickRun(s string) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
