// Package quote prints strings that come from the analysed repository —
// file paths, type, field and key names, marker text, ref names — so
// that they cannot forge output. Whoever opens a pull request chooses
// them, and a file named "x\n::error file=README.md::y.go" would
// otherwise end a line of apicheck's output and start one that the
// GitHub Actions runner reads as a workflow command (an annotation,
// ::add-mask::, ::stop-commands::).
//
// The runner reads a log line as a command when it starts with "::" after
// white space, or when it holds "##[" anywhere (the legacy syntax), and
// it ends lines at "\r" as well as "\n". Terminals act on escape
// sequences (ESC) and other control characters.
//
// Name is for names within a message; Text and Lines are for whole
// messages, which are sentences and may quote names already.
package quote

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// legacyCommand starts a workflow command anywhere in a line; Name, Text
// and Lines write it "##\x5b" (the escape of '[').
const legacyCommand = "##["

// Name returns s unchanged when it is plain, otherwise s quoted as a Go
// string literal (strconv.Quote) with "##[" written "##\x5b". A string is
// plain when it is valid UTF-8 of graphic characters only
// (strconv.IsGraphic: no control character such as "\n", "\r", "\t", ESC,
// DEL or a C1 control, no U+2028 or U+2029 separator, no format
// character such as the bidirectional controls), does not start with
// "::" after white space, and holds no "##[". Plain names, which are all
// but hostile ones, print as they are.
func Name(s string) string {
	if Plain(s) {
		return s
	}
	return strings.ReplaceAll(strconv.Quote(s), legacyCommand, `##\x5b`)
}

// Plain reports whether Name returns s unchanged.
func Plain(s string) bool {
	if !utf8.ValidString(s) || strings.Contains(s, legacyCommand) || commandStart(s) {
		return false
	}
	for _, r := range s {
		if !strconv.IsGraphic(r) {
			return false
		}
	}
	return true
}

// Text makes a message safe to print as (part of) one line: every
// character that is not graphic (see Name) is written as its Go escape
// ("\n", "\r", "\t", "\x1b", "\u2028"; "\xff" for a byte that is not
// UTF-8), "##[" as "##\x5b", and a leading "::" (after white space) as
// "\x3a:". It adds no quotes, and plain text is unchanged.
func Text(s string) string {
	return fixStart(Escape(s, ""))
}

// Lines is Text for a message of several lines, such as an error followed
// by hint lines or an indented list: a "\n" stays a line break, except
// before a line that would start with "::", where it is written "\n" and
// the two lines read as one; a tab stays a tab. Every other character is
// escaped as by Text.
func Lines(s string) string {
	lines := strings.Split(Escape(s, "\n\t"), "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i, l := range lines {
		switch {
		case i == 0:
			b.WriteString(fixStart(l))
			continue
		case commandStart(l):
			b.WriteString(`\n`)
		default:
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

// Escape writes every character of s that is not graphic (see Name) as
// its Go escape, except the characters in keep, and "##[" as "##\x5b". It
// adds no quotes and leaves a leading "::" as it is: for output whose
// lines start with text of the caller's (a workflow command's data, whose
// line breaks the caller escapes itself).
func Escape(s, keep string) string {
	if safe(s, keep) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[s[i]>>4])
			b.WriteByte(hexDigits[s[i]&0xf])
		case strconv.IsGraphic(r) || strings.ContainsRune(keep, r):
			if r == '#' && strings.HasPrefix(s[i:], legacyCommand) {
				b.WriteString(`##\x5b`)
				n = len(legacyCommand)
				break
			}
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// safe reports whether Escape(s, keep) is s.
func safe(s, keep string) bool {
	if !utf8.ValidString(s) || strings.Contains(s, legacyCommand) {
		return false
	}
	for _, r := range s {
		if !strconv.IsGraphic(r) && !strings.ContainsRune(keep, r) {
			return false
		}
	}
	return true
}

// Command reports whether the GitHub Actions runner would read line as a
// workflow command: it starts with "::" after white space, or holds
// "##[".
func Command(line string) bool {
	return commandStart(line) || strings.Contains(line, legacyCommand)
}

// commandStart reports whether s starts with "::" after white space.
func commandStart(s string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::")
}

// fixStart writes the first ':' of a leading "::" as "\x3a".
func fixStart(s string) string {
	if !commandStart(s) {
		return s
	}
	i := strings.IndexByte(s, ':')
	return s[:i] + `\x3a` + s[i+1:]
}
