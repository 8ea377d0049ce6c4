package fix

import (
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// gardenerStyle is the explanatory line of Gardener's API change
// checklist ("Removing a Field"): the tombstone style when the repository
// has none of its own.
const gardenerStyle = "{name} is tombstoned to show why {number} is reserved protobuf tag."

// styles are the tombstone explanations the repository already uses, as
// templates with {name} and {number}, counted.
type styles struct {
	votes  map[string]int
	strict map[string]bool // the template follows the checklist's sentence exactly
}

// houseStyles derives a template from the explanatory line of every
// tombstone at head: the field name and the number become placeholders.
// A template that apicheck's tombstone parser would not recognise as the
// explanation of a tombstone is dropped.
func houseStyles(m *model.Model) *styles {
	s := &styles{votes: map[string]int{}, strict: map[string]bool{}}
	if m == nil {
		return s
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			for _, t := range p.Types {
				for _, tb := range t.Tombstones {
					if tb.Explanation == "" || tb.Proto == nil {
						continue
					}
					tmpl := replaceWord(tb.Explanation, strconv.Itoa(tb.Proto.Number), "{number}")
					tmpl = replaceWord(tmpl, tb.FieldName, "{name}")
					if !strings.Contains(tmpl, "{number}") || !strings.Contains(tmpl, "{name}") {
						continue
					}
					if _, seen := s.votes[tmpl]; !seen {
						ok, strict := recognised(tmpl)
						if !ok {
							continue
						}
						s.strict[tmpl] = strict
					}
					s.votes[tmpl]++
				}
			}
		}
	}
	return s
}

// recognised instantiates a template and parses it back: ok when the
// line is taken as the tombstone's explanation, strict when it has no
// problem at all (the checklist's sentence, either spelling).
func recognised(tmpl string) (ok, strict bool) {
	const name, n = "Sample", 7
	decl := "Sample *string `json:\"sample,omitempty\" protobuf:\"bytes,7,opt,name=sample\"`"
	text := instantiate(tmpl, name, n)
	ts := protobuf.ParseTombstones([][]protobuf.Line{{{Text: text}, {Text: decl}}})
	if len(ts) != 1 || ts[0].Explanation != strings.TrimSpace(text) {
		return false, false
	}
	return true, ts[0].Problem == ""
}

// explanation is the explanatory line for a tombstone of field name
// reserving n: the repository's most used template, else Gardener's.
// Where the profile requires the checklist's sentence only its spellings
// count. Wording of the repository's own counts only when at least two
// tombstones share it: a single explanation may hold facts of its own
// (a release, a link) that a template would copy into the new one.
func (s *styles) explanation(name string, n int, sentence bool) string {
	var cands []string
	for t, votes := range s.votes {
		if s.strict[t] || (!sentence && votes >= 2) {
			cands = append(cands, t)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if s.votes[a] != s.votes[b] {
			return s.votes[a] > s.votes[b]
		}
		if (a == gardenerStyle) != (b == gardenerStyle) {
			return a == gardenerStyle
		}
		return a < b
	})
	tmpl := gardenerStyle
	if len(cands) > 0 {
		tmpl = cands[0]
	}
	return instantiate(tmpl, name, n)
}

func instantiate(tmpl, name string, n int) string {
	return strings.NewReplacer("{name}", name, "{number}", strconv.Itoa(n)).Replace(tmpl)
}

// replaceWord replaces the occurrences of word in s that are whole words
// (not part of a longer identifier or number).
func replaceWord(s, word, repl string) string {
	if word == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(word)
		if (i > 0 && isWordByte(s[i-1])) || (j < len(s) && isWordByte(s[j])) {
			b.WriteString(s[:j])
			s = s[j:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[j:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tombstoneDecl is the commented-out declaration of a removed field.
func tombstoneDecl(name, typ, tag string) string {
	return name + " " + typ + " `" + tag + "`"
}
