package protobuf

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
)

// Line is one comment line with its position.
//
// Text is the comment text with the leading "//" and ONE optional following
// space removed; for a /* */ comment each line of the block is one Line.
// Pos is the position of the line (file, line, column of the comment start).
type Line struct {
	Text string
	Pos  model.Pos
}

// canonicalForm describes the convention in messages.
const canonicalForm = "<Name> is tombstoned to show why <N> is reserved protobuf tag."

// maxDeclCandidates bounds the parse attempts per comment line (one per
// pair of back quotes), so pathological lines stay cheap.
const maxDeclCandidates = 16

// decl is a field declaration found in a comment line.
type decl struct {
	name string
	typ  string
	tag  string // unquoted struct tag
}

// ParseTombstones finds every tombstone in a struct body's comment groups.
//
// groups are the comment groups inside the struct braces in source order,
// each a slice of consecutive lines (see CommentLines and StructGroups). A
// tombstone is a line that parses as a Go struct field declaration
// `Name Type `+"`...`"+` whose struct tag has a protobuf key other than
// "-". The line must start with the field name; text after the closing back
// quote (a "// Deprecated" comment or plain words) is tolerated. A line
// that merely mentions a struct tag in prose ("Use `json:\"foo\"` here") is
// not a declaration; neither is one whose type would be a bare unexported
// non-predeclared name ("The tag `protobuf:...` is reserved." is prose, not
// field The of type tag), nor an embedded field.
//
// The explanatory line of a tombstone is the nearest preceding line of the
// same group that is not itself a declaration and that mentions
// "tombstone" or "reserved" (case-insensitive); prose in between is
// skipped, as in k8s.io/api networking/v1 NetworkPolicy. The convention is
// "<Name> is tombstoned to show why <N> is reserved protobuf tag." (extra
// spaces, a missing final period and Kubernetes' "is a reserved protobuf
// tag" spelling are accepted).
//
// Problem is set (specific, several joined by "; ") when there is no
// explanatory line, when it does not follow the convention, when its name
// differs from the declaration's Go name, when its number differs from the
// tag's number, or when the protobuf tag is malformed; in the last case
// Proto is nil but the tombstone is still returned.
func ParseTombstones(groups [][]Line) []*model.Tombstone {
	var out []*model.Tombstone
	allDecls := make([][]*decl, len(groups))
	for gi, g := range groups {
		decls := make([]*decl, len(g))
		allDecls[gi] = decls
		for i, l := range g {
			if d, ok := parseDecl(l.Text); ok {
				decls[i] = &d
			}
		}
		for i, d := range decls {
			if d == nil {
				continue
			}
			pt, ok, err := FromStructTag(d.tag)
			if !ok || (err == nil && pt == nil) {
				// no protobuf key, or protobuf:"-": a commented-out field
				// that reserves nothing.
				continue
			}
			if planned(g, decls, i) {
				// A field to add later ("TODO enable it when ..."), not a
				// removed one: no client ever saw its number.
				continue
			}
			ts := &model.Tombstone{
				FieldName: d.name,
				Type:      d.typ,
				JSONName:  jsonName(d),
				Proto:     pt,
				Pos:       g[i].Pos,
			}
			var problems []string
			if err != nil {
				problems = append(problems, "malformed protobuf tag: "+err.Error())
			}
			problems = append(problems, explain(g, decls, i, ts)...)
			ts.Problem = strings.Join(problems, "; ")
			if ts.Proto == nil {
				// A garbled tag still reserves the number it carries, else
				// the one its explanatory line names.
				if n, ok := garbledNumber(d.tag); ok {
					ts.Proto = &model.ProtoTag{Number: n, Raw: d.tag}
				} else if _, n, ok := parseExplanation(ts.Explanation); ok && IsValidNumber(n) {
					ts.Proto = &model.ProtoTag{Number: n}
				}
			}
			out = append(out, ts)
		}
	}
	// Reservations in other forms, for numbers no declaration carries.
	covered := map[int][]*model.Tombstone{}
	for _, t := range out {
		if t.Proto != nil {
			covered[t.Proto.Number] = append(covered[t.Proto.Number], t)
		}
	}
	for gi, g := range groups {
		out = append(out, otherReservations(g, allDecls[gi], covered)...)
	}
	return out
}

// MalformedPrefix starts the Problem of a tombstone whose reservation is
// damaged (a garbled tag, a declaration that does not parse, an
// explanatory line without its declaration): wrong in every house style.
const MalformedPrefix = "malformed "

var (
	// +k8s:deprecated=configMapRef,protobuf=1 (Kubernetes).
	k8sDeprecated = lazyre.New(`^\+k8s:deprecated=([A-Za-z_][A-Za-z0-9_]*)(?:,\s*protobuf=(\d+))?\s*$`)
	// "Future extensions must not use "claims" or field number 3."
	proseNumber = lazyre.New(`(?i)\b(?:field|tag|protobuf)\s+(?:number|tag)\s+(\d+)\b`)
	proseVerb   = lazyre.New(`(?i)\b(?:must\s+not|do\s+not|don't|never|reserved|tombstoned)\b`)
	proseName   = lazyre.New(`"([A-Za-z_][A-Za-z0-9_]*)"`)
	// protobuf:"bytes,3,... inside a line that does not parse.
	garbledTag = lazyre.New(`protobuf:\\?"\s*[A-Za-z0-9]+\s*,\s*(\d+)`)
	// A tag value that did not parse: its second element, if a number.
	garbledValue = lazyre.New(`protobuf:"\s*[A-Za-z0-9]+\s*,\s*(\d+)`)
)

// matchIf is re.FindStringSubmatch(s) when the cheap test that every
// match passes holds, else nil.
func matchIf(maybe bool, re *lazyre.Regexp, s string) []string {
	if !maybe {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// MayReserve reports whether comment text could hold a reservation of
// ParseTombstones: a commented-out declaration (a backquoted tag), a
// +k8s:deprecated tag, a tombstone sentence, a garbled protobuf tag or
// prose that names a field number. A group of comment lines none of which
// may reserve gives ParseTombstones nothing to find, so callers skip it
// (and the positions its lines would need).
//
// It is
//
//	strings.Contains(text, "`") || strings.Contains(text, "+k8s:deprecated=") ||
//		strings.Contains(text, "tombstoned") || strings.Contains(text, "protobuf:") ||
//		strings.ContainsAny(text, "0123456789") && (ContainsFold(text, "tag") || ContainsFold(text, "number"))
//
// with each word looked for by a rare byte of it (IndexByte is fast, and
// the first letters of the words are common in prose): the colon of the
// tag keys, the b of "tombstoned" and "number", the g of "tag".
func MayReserve(text string) bool {
	if strings.IndexByte(text, '`') >= 0 {
		return true
	}
	for i := range bytesOf(text, ':') {
		if strings.HasSuffix(text[:i], "protobuf") || strings.HasSuffix(text[:i], "+k8s") && strings.HasPrefix(text[i:], ":deprecated=") {
			return true
		}
	}
	word := false // "tag" or "number" in some case
	for i := range bytesOf(text, 'b') {
		if i >= 3 && strings.HasPrefix(text[i-3:], "tombstoned") {
			return true
		}
		word = word || numberAt(text, i)
	}
	word = word || anyByte(text, 'B', numberAt) || anyByte(text, 'g', tagAt) || anyByte(text, 'G', tagAt)
	return word && strings.ContainsAny(text, "0123456789")
}

// bytesOf yields the indexes of c in s.
func bytesOf(s string, c byte) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j
		}
	}
}

// anyByte reports whether at holds at an index of c in s.
func anyByte(s string, c byte, at func(s string, i int) bool) bool {
	for i := range bytesOf(s, c) {
		if at(s, i) {
			return true
		}
	}
	return false
}

// numberAt reports "number" in any ASCII case around its b at s[i].
func numberAt(s string, i int) bool {
	return i >= 3 && hasPrefixFold(s[i-3:], "number")
}

// tagAt reports "tag" in any ASCII case around its g at s[i].
func tagAt(s string, i int) bool {
	return i >= 2 && hasPrefixFold(s[i-2:], "tag")
}

// hasPrefixFold reports whether s starts with word (lower-case ASCII
// letters) in any ASCII case.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := 0; j < len(word); j++ {
		if c := s[j]; c != word[j] && c != word[j]-'a'+'A' {
			return false
		}
	}
	return true
}

// ContainsFold reports whether s contains word (lower-case ASCII letters)
// in any ASCII case: a cheap test before a case-insensitive regexp.
func ContainsFold(s, word string) bool {
	if word == "" {
		return true
	}
	// Candidates are where the rarest letter of word is, in either case:
	// the next of each is found by IndexByte (much faster than a byte
	// loop), and each found one is kept until passed.
	k := anchor(word)
	lower, upper := word[k], word[k]-'a'+'A'
	last := len(s) - len(word) // the last start a match can have
	nl, nu := -1, -1           // the next start of each case at or after i, -1 unknown
	next := func(i int, c byte) int {
		if j := strings.IndexByte(s[i+k:last+k+1], c); j >= 0 {
			return i + j
		}
		return len(s)
	}
	for i := 0; i <= last; i++ {
		if nl < i {
			nl = next(i, lower)
		}
		if nu < i {
			nu = next(i, upper)
		}
		if i = min(nl, nu); i > last {
			return false
		}
		if hasPrefixFold(s[i:], word) {
			return true
		}
	}
	return false
}

// letterRarity lists the letters from the most to the least frequent in
// English prose.
const letterRarity = "etaoinshrdlcumwfgypbvkjxqz"

// anchor is the index of the rarest letter of word.
func anchor(word string) int {
	k, rank := 0, -1
	for i := 0; i < len(word); i++ {
		if r := strings.IndexByte(letterRarity, word[i]); r > rank {
			k, rank = i, r
		}
	}
	return k
}

func garbledNumber(tag string) (int, bool) {
	m := garbledValue.FindStringSubmatch(tag)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && IsValidNumber(n)
}

// looksLikeDecl reports whether a line that does not parse still has the
// shape of a field declaration: an exported name, then a type (not a back
// quote), then a back-quoted tag. "Use `protobuf:...` here." is prose.
func looksLikeDecl(text string) bool {
	f := strings.Fields(text)
	if len(f) < 3 || !token.IsIdentifier(f[0]) || !token.IsExported(f[0]) || strings.HasPrefix(f[1], "`") {
		return false
	}
	if typ := strings.TrimRight(f[1], "`"); token.IsIdentifier(typ) && !predeclared[typ] && !token.IsExported(typ) {
		return false // "The tag `protobuf:...`": a bare unexported word is prose, not a type
	}
	return strings.Contains(strings.Join(f[2:], " "), "`")
}

// otherReservations finds the reservations of a comment group that are
// not a commented-out declaration, for numbers no declaration of the
// group carries: Kubernetes' "+k8s:deprecated=name,protobuf=N" marker,
// prose such as "must not use ... field number N", an explanatory line
// whose declaration is missing, and a declaration too garbled to parse
// whose protobuf tag still shows the number.
func otherReservations(g []Line, decls []*decl, covered map[int][]*model.Tombstone) []*model.Tombstone {
	var out []*model.Tombstone
	// add keeps a reservation unless one of the same number names the
	// same field (or names none); one of another name is kept, so that
	// the number reserved twice shows.
	add := func(t *model.Tombstone) {
		for _, c := range covered[t.Proto.Number] {
			if SameReservation(c, t) {
				return
			}
		}
		covered[t.Proto.Number] = append(covered[t.Proto.Number], t)
		out = append(out, t)
	}
	for i, l := range g {
		if decls[i] != nil {
			continue
		}
		text := strings.TrimSpace(l.Text)
		if m := matchIf(strings.HasPrefix(text, "+k8s:deprecated="), k8sDeprecated, text); m != nil {
			if n, err := strconv.Atoi(m[2]); err == nil && IsValidNumber(n) {
				add(&model.Tombstone{JSONName: m[1], Proto: &model.ProtoTag{Number: n}, Explanation: text, Pos: l.Pos})
			}
			continue
		}
		if name, n, ok := parseExplanation(text); ok && IsValidNumber(n) {
			t := &model.Tombstone{FieldName: name, Proto: &model.ProtoTag{Number: n}, Explanation: text, Pos: l.Pos,
				Problem: MalformedPrefix + "tombstone: no commented-out declaration follows the explanatory line"}
			if i+1 < len(g) && decls[i+1] == nil && looksLikeDecl(g[i+1].Text) && garbledTag.MatchString(g[i+1].Text) {
				t.Problem = MalformedPrefix + "tombstone: the commented-out declaration below the explanatory line does not parse"
			}
			if i+1 < len(g) && decls[i+1] != nil {
				// The sentence reserves the number of a declaration that
				// has no protobuf tag (Kubernetes' EphemeralVolumeSource):
				// a complete tombstone.
				d := decls[i+1]
				if _, hasProto, _ := FromStructTag(d.tag); hasProto {
					continue // the declaration's own tombstone explains it
				}
				t.Type, t.JSONName, t.Pos = d.typ, jsonName(d), g[i+1].Pos
				t.Problem = ""
				if d.name != name {
					t.Problem = fmt.Sprintf("explanatory line names %s but the commented-out field is %s", name, d.name)
				}
				t.FieldName = d.name
			}
			add(t)
			continue
		}
		if m := matchIf(strings.Contains(text, "protobuf:"), garbledTag, text); m != nil && looksLikeDecl(text) {
			if n, err := strconv.Atoi(m[1]); err == nil && IsValidNumber(n) {
				name := strings.Fields(text)[0]
				add(&model.Tombstone{FieldName: name, Proto: &model.ProtoTag{Number: n, Raw: text}, Pos: l.Pos,
					Problem: fmt.Sprintf("%sdeclaration: the commented-out field does not parse: %q", MalformedPrefix, text)})
			}
			continue
		}
		// proseNumber needs a digit (\d is ASCII in RE2) and "tag" or
		// "number" in some case (whose folds are ASCII): most comment lines
		// have neither, and the regexp is the costliest part of a scan.
		if !strings.ContainsAny(text, "0123456789") || !ContainsFold(text, "tag") && !ContainsFold(text, "number") {
			continue
		}
		if m := proseNumber.FindStringSubmatch(text); m != nil && proseVerb.MatchString(text) {
			if n, err := strconv.Atoi(m[1]); err == nil && IsValidNumber(n) {
				t := &model.Tombstone{Proto: &model.ProtoTag{Number: n}, Explanation: text, Pos: l.Pos,
					Problem: fmt.Sprintf("a reservation in prose (%q) instead of a commented-out declaration", text)}
				if nm := proseName.FindStringSubmatch(text); nm != nil {
					t.JSONName = nm[1]
				}
				add(t)
			}
		}
	}
	return out
}

// explain finds the explanatory line of the tombstone at g[i], sets
// ts.Explanation and returns the problems with it.
// planned reports whether the commented-out declaration decls[i] is a
// field still to be added, not a removed one: its comment (the lines
// above it back to the previous declaration) has a line that starts with
// TODO and none that explains a reservation. Kubernetes writes
// "// TODO enabled it when <issue> has been fixed" over a declaration
// that was never live (batch/v1 JobSpec.FailedPodsLimit).
func planned(g []Line, decls []*decl, i int) bool {
	todo := false
	for j := i - 1; j >= 0 && decls[j] == nil; j-- {
		text := strings.TrimSpace(g[j].Text)
		if mentionsTombstone(text) {
			return false
		}
		todo = todo || strings.HasPrefix(text, "TODO")
	}
	return todo
}

func explain(g []Line, decls []*decl, i int, ts *model.Tombstone) []string {
	want := wantExplanation(ts)
	var passed []string // declarations between the tombstone and the line
	for j := i - 1; j >= 0; j-- {
		if decls[j] != nil {
			passed = append(passed, decls[j].name)
			continue
		}
		text := strings.TrimSpace(g[j].Text)
		if !mentionsTombstone(text) {
			continue
		}
		name, num, canonical := parseExplanation(text)
		if canonical && name != ts.FieldName && contains(passed, name) {
			return []string{fmt.Sprintf("no explanatory line of its own: the nearest one (%q) explains %s; want %q",
				text, name, want)}
		}
		ts.Explanation = text
		if !canonical {
			return []string{fmt.Sprintf("explanatory line %q does not follow the form %q; want %q",
				text, canonicalForm, want)}
		}
		var problems []string
		if name != ts.FieldName {
			problems = append(problems, fmt.Sprintf("explanatory line names %s but the commented-out field is %s",
				name, ts.FieldName))
		}
		if ts.Proto != nil && num != ts.Proto.Number {
			problems = append(problems, fmt.Sprintf("explanatory line reserves %d but the protobuf tag has number %d",
				num, ts.Proto.Number))
		}
		return problems
	}
	return []string{fmt.Sprintf("no explanatory line precedes the commented-out field %s; want %q", ts.FieldName, want)}
}

func wantExplanation(ts *model.Tombstone) string {
	n := "<N>"
	if ts.Proto != nil {
		n = strconv.Itoa(ts.Proto.Number)
	}
	return fmt.Sprintf("%s is tombstoned to show why %s is reserved protobuf tag.", ts.FieldName, n)
}

func mentionsTombstone(text string) bool {
	l := strings.ToLower(text)
	return strings.Contains(l, "tombstone") || strings.Contains(l, "reserved") ||
		proseNumber.MatchString(text) && proseVerb.MatchString(text)
}

// parseExplanation matches text against the convention
// "<Name> is tombstoned to show why <N> is [a ]reserved protobuf tag[.]",
// tolerating runs of white space.
func parseExplanation(text string) (name string, num int, ok bool) {
	if !strings.Contains(text, "tombstoned") { // its third word; spares splitting every comment line
		return "", 0, false
	}
	w := strings.Fields(text)
	if n := len(w); n > 0 {
		if w[n-1] == "." {
			w = w[:n-1]
		} else {
			w[n-1] = strings.TrimSuffix(w[n-1], ".")
		}
	}
	if len(w) == 12 && w[8] == "a" { // Kubernetes: "... is a reserved protobuf tag."
		w = append(w[:8:8], w[9:]...)
	}
	want := []string{"", "is", "tombstoned", "to", "show", "why", "", "is", "reserved", "protobuf", "tag"}
	if len(w) != len(want) {
		return "", 0, false
	}
	for k, word := range want {
		if word != "" && w[k] != word {
			return "", 0, false
		}
	}
	if !token.IsIdentifier(w[0]) {
		return "", 0, false
	}
	if w[6] == "" || strings.TrimLeft(w[6], "0123456789") != "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(w[6])
	if err != nil {
		return "", 0, false
	}
	return w[0], n, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonName is the name part of the json tag, or the Go name when the tag
// has none.
func jsonName(d *decl) string {
	v, ok, err := lookupTag(d.tag, "json")
	if !ok || err != nil {
		return d.name
	}
	name, _, _ := strings.Cut(v, ",")
	if name == "" {
		return d.name
	}
	return name
}

// parseDecl reports whether text (one comment line) is a struct field
// declaration "Name Type `tag`" with a back-quoted tag, possibly followed by
// other text. It parses with go/parser, trying the whole line first and
// then prefixes ending at a closing back quote, longest first.
func parseDecl(text string) (decl, bool) {
	t := strings.TrimSpace(text)
	if prose(t) {
		return decl{}, false
	}
	for _, c := range declCandidates(t) {
		if d, ok := parseField(c); ok {
			return d, true
		}
	}
	return decl{}, false
}

// declCandidates are the texts parseDecl parses of a trimmed comment line
// t, in order: the whole line, then its prefixes that end at a closing
// back quote, longest first; none when t cannot start a declaration.
func declCandidates(t string) []string {
	if t == "" || strings.ContainsAny(t, "\n\r") || !strings.Contains(t, "`") {
		return nil
	}
	r, _ := utf8.DecodeRuneInString(t)
	if r != '_' && !unicode.IsLetter(r) {
		return nil
	}
	candidates := []string{t}
	var quotes []int
	for i := 0; i < len(t); i++ {
		if t[i] == '`' {
			quotes = append(quotes, i)
		}
	}
	for k := len(quotes) - 1; k >= 1; k-- {
		if k%2 == 1 && quotes[k] != len(t)-1 {
			candidates = append(candidates, t[:quotes[k]+1])
		}
	}
	if len(candidates) > maxDeclCandidates {
		candidates = candidates[:maxDeclCandidates]
	}
	return candidates
}

// prose reports a comment line that parseField rejects in every
// candidate parseDecl would try, told by its first words alone (which every
// candidate shares: each one reaches past the first back quote). Most
// lines with a back quote are doc comments that quote a name ("Foo is the
// `bar` of ..."), and parsing each candidate is most of a tombstone
// search. Inside a struct, go/parser reads "A B ..." as field A of type B
// and then wants a tag or the end of the field, and "A" followed by a
// tag, a string or "." as an embedded field (no name); so the line is no
// single named field when, after an ASCII identifier A that is not a
// keyword:
//   - the next token is a string, a raw string or "." (an embedded field),
//     "," (more names, or an error), ":" or "'" (an error: no type starts
//     so);
//   - or the next token is a non-keyword identifier B, and after it comes
//     another identifier or number, or one of ",:('={" (an error: the type
//     B is complete and neither a tag nor the end of the field follows),
//     or a back quote while B is unexported and not predeclared (a tag
//     after a bare lower-case word: prose, as parseField decides).
func prose(t string) bool {
	a := identEnd(t)
	if a == 0 || a < len(t) && t[a] >= utf8.RuneSelf || token.IsKeyword(t[:a]) {
		return false
	}
	i := skipBlanks(t, a)
	if i == len(t) {
		return false
	}
	switch t[i] {
	case '`', '"', '.', ',', ':', '\'':
		return true
	}
	if i == a || !identStart(t[i]) {
		return false
	}
	b := i + identEnd(t[i:])
	typ := t[i:b]
	if b < len(t) && t[b] >= utf8.RuneSelf || token.IsKeyword(typ) {
		return false
	}
	j := skipBlanks(t, b)
	if j == len(t) {
		return false
	}
	switch c := t[j]; {
	case identByte(c), strings.IndexByte(",:('={", c) >= 0:
		return true // (an identifier byte only after a blank: B took them all)
	case c == '`':
		return !predeclared[typ] && !token.IsExported(typ)
	}
	return false
}

// identEnd is the length of the ASCII identifier that starts s (0 for none).
func identEnd(s string) int {
	if s == "" || !identStart(s[0]) {
		return 0
	}
	n := 1
	for n < len(s) && identByte(s[n]) {
		n++
	}
	return n
}

func identStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func identByte(c byte) bool { return identStart(c) || '0' <= c && c <= '9' }

// skipBlanks is the index of the first byte of s at or after i that is
// neither a space nor a tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// predeclared are Go's predeclared type names.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true,
}

// parseField parses src as the only field of a struct type.
func parseField(src string) (decl, bool) {
	file := "package p\ntype _ struct {\n" + src + "\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", file, parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return decl{}, false
	}
	gd, ok := f.Decls[0].(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE || len(gd.Specs) != 1 {
		return decl{}, false
	}
	spec, ok := gd.Specs[0].(*ast.TypeSpec)
	if !ok {
		return decl{}, false
	}
	st, ok := spec.Type.(*ast.StructType)
	if !ok || st.Fields == nil || len(st.Fields.List) != 1 {
		return decl{}, false
	}
	field := st.Fields.List[0]
	if len(field.Names) != 1 || field.Tag == nil || !strings.HasPrefix(field.Tag.Value, "`") {
		return decl{}, false
	}
	if id, ok := field.Type.(*ast.Ident); ok && !predeclared[id.Name] && !ast.IsExported(id.Name) {
		// "The tag `protobuf:...` is reserved." parses as field The of
		// type tag. API field types are predeclared, exported, qualified
		// or composite, so a bare unexported type name means prose.
		return decl{}, false
	}
	tag, err := strconv.Unquote(field.Tag.Value)
	if err != nil {
		return decl{}, false
	}
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, fset, field.Type); err != nil {
		return decl{}, false
	}
	return decl{name: field.Names[0].Name, typ: buf.String(), tag: tag}, true
}

// Reserved collects the numbers the tombstones reserve (those whose
// protobuf tag parsed), sorted and without duplicates. A tombstone with an
// explanation problem still reserves its number.
func Reserved(tombstones []*model.Tombstone) []int {
	seen := map[int]bool{}
	var out []int
	for _, ts := range tombstones {
		if ts == nil || ts.Proto == nil || seen[ts.Proto.Number] {
			continue
		}
		seen[ts.Proto.Number] = true
		out = append(out, ts.Proto.Number)
	}
	sort.Ints(out)
	return out
}

// NextSafe returns the smallest number greater than every used and
// reserved number, skipping protobuf's own range 19000-19999; 1 when both
// are empty. It is NOT go-to-protobuf's "highest live number plus one",
// which would hand out a tombstoned highest number again. Non-positive
// entries are ignored. NextSafe returns 0 when no valid number is left
// (the maximum is already MaxNumber).
func NextSafe(used []int, reserved []int) int {
	highest := 0
	for _, list := range [][]int{used, reserved} {
		for _, n := range list {
			if n > highest {
				highest = n
			}
		}
	}
	if highest >= MaxNumber {
		return 0
	}
	next := highest + 1
	if inReservedRange(next) {
		next = LastReservedNumber + 1
	}
	return next
}

// CommentLines turns a comment group into Lines. file is the
// repository-relative path written into the positions. For /* */ comments
// every line of the block is a Line; continuation lines lose their
// indentation and an optional leading "*" decoration, and their column is 1.
func CommentLines(fset *token.FileSet, file string, cg *ast.CommentGroup) []Line {
	if cg == nil {
		return nil
	}
	var out []Line
	for _, c := range cg.List {
		p := fset.Position(c.Slash)
		if text, ok := strings.CutPrefix(c.Text, "//"); ok {
			text = strings.TrimPrefix(text, " ")
			text = strings.TrimSuffix(text, "\r")
			out = append(out, Line{Text: text, Pos: model.Pos{File: file, Line: p.Line, Col: p.Column}})
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		for k, ln := range strings.Split(body, "\n") {
			ln = strings.TrimSuffix(ln, "\r")
			pos := model.Pos{File: file, Line: p.Line + k, Col: p.Column}
			if k == 0 {
				ln = strings.TrimPrefix(ln, " ")
			} else {
				pos.Col = 1
				ln = strings.TrimLeft(ln, " \t")
				if rest, ok := strings.CutPrefix(ln, "*"); ok {
					ln = strings.TrimPrefix(rest, " ")
				}
			}
			out = append(out, Line{Text: ln, Pos: pos})
		}
	}
	return out
}

// StructGroups returns the comment groups of f that lie inside the braces
// of st, in source order, as Lines ready for ParseTombstones. Comments
// inside the braces of a nested anonymous struct type belong to that struct
// and are left out.
func StructGroups(fset *token.FileSet, file string, f *ast.File, st *ast.StructType) [][]Line {
	if f == nil || st == nil || st.Fields == nil || !st.Fields.Opening.IsValid() {
		return nil
	}
	open, closing := st.Fields.Opening, st.Fields.Closing
	var nested [][2]token.Pos
	ast.Inspect(st.Fields, func(n ast.Node) bool {
		if s, ok := n.(*ast.StructType); ok && s.Fields != nil {
			nested = append(nested, [2]token.Pos{s.Fields.Opening, s.Fields.Closing})
		}
		return true
	})
	var out [][]Line
outer:
	for _, cg := range f.Comments {
		if cg.Pos() <= open || cg.End() > closing {
			continue
		}
		for _, r := range nested {
			if cg.Pos() > r[0] && cg.End() <= r[1] {
				continue outer
			}
		}
		if lines := CommentLines(fset, file, cg); len(lines) > 0 {
			out = append(out, lines)
		}
	}
	return out
}

// SameReservation reports whether two reservations of one number may name the
// same field: their Go names agree, else their json names, or one of
// them names nothing comparable.
func SameReservation(a, b *model.Tombstone) bool {
	if a.FieldName != "" && b.FieldName != "" {
		return a.FieldName == b.FieldName
	}
	if a.JSONName != "" && b.JSONName != "" {
		return a.JSONName == b.JSONName
	}
	return true
}
