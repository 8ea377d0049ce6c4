package fix

import (
	"maps"
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

// Styles are the tombstone explanations the repository already uses, as
// templates with {name} and {number}, counted.
type Styles struct {
	votes  map[string]int
	strict map[string]bool // the template follows the checklist's sentence exactly
	asked  map[bool]bool   // the sentence arguments explanation was called with
}

// Add counts the styles of another part of the revision.
func (s *Styles) Add(o *Styles) {
	for t, n := range o.votes {
		s.votes[t] += n
	}
	maps.Copy(s.strict, o.strict)
}

// HouseStyles derives a template from the explanatory line of every
// tombstone at head: the field name and the number become placeholders.
// A template that apicheck's tombstone parser would not recognise as the
// explanation of a tombstone is dropped.
func HouseStyles(m *model.Model) *Styles {
	s := &Styles{votes: map[string]int{}, strict: map[string]bool{}}
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
func (s *Styles) explanation(name string, n int, sentence bool) string {
	if s.asked == nil {
		s.asked = map[bool]bool{}
	}
	s.asked[sentence] = true
	return instantiate(s.template(sentence), name, n)
}

// template is the template explanation picks.
func (s *Styles) template(sentence bool) string {
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
	if len(cands) > 0 {
		return cands[0]
	}
	return gardenerStyle
}

// Agrees reports whether o gives every explanation that planning with s
// gave: a plan made with the styles of a part of the tree stands when
// those of the whole tree agree.
func (s *Styles) Agrees(o *Styles) bool {
	for sentence := range s.asked {
		if s.template(sentence) != o.template(sentence) {
			return false
		}
	}
	return true
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
