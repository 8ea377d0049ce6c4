package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
)

// GitHub applies one suggested change to a line: several suggestions for
// the same lines conflict, and each one alone leaves the others' fixes
// out (a new field that is not optional, no pointer and has no omitempty
// has three fixes of its line). So the suggestions of a group that
// overlap are combined into one that applies all their fixes, when the
// findings carry enough to do that exactly; else none of them is shown,
// and a line says that `apicheck fix` applies them together.
//
// A fix's suggestion is its edits applied to the lines they change and
// formatted as gofmt would (internal/fix). The lines as they were are
// not in the report, but each suggestion of only insertions gives them
// back with its insertions taken out. They are trusted when every line
// is given by one suggestion and confirmed by another (the same text
// from another one's insertions taken out, or another one's edits
// applied to it giving exactly that one's suggestion); then all edits
// are applied to them at once. Formatting that moved more than the
// edited text (gofmt realigning the columns of neighbouring fields)
// fails that check, and the fixes are not combined.

// mdSuggestion is a suggested change of a group and the descriptions of
// the fixes it applies.
type mdSuggestion struct {
	finding.Suggestion
	fixes []string
}

// mdUnsuggested is a run of lines that several fixes change in ways that
// could not be combined into one suggested change.
type mdUnsuggested struct {
	path       string
	start, end int
	fixes      []string
}

// sgUnit is one fix's suggestion for one file, with that fix's edits of
// the file.
type sgUnit struct {
	desc  string
	sg    finding.Suggestion
	edits []finding.Edit
}

// groupSuggestions are the suggested changes of a group's fixes, each
// fix once, in the findings' order; suggestions of several fixes for
// overlapping lines are combined into one (or, when that cannot be done
// exactly, left out and listed in unsuggested).
func groupSuggestions(g *mdGroup) (out []mdSuggestion, unsuggested []mdUnsuggested) {
	var units []sgUnit
	var seen []string
	for _, f := range g.findings {
		for _, fx := range f.Fixes {
			key := fixKey(fx)
			if slices.Contains(seen, key) {
				continue
			}
			seen = append(seen, key)
			for _, sg := range fx.Suggestions {
				u := sgUnit{desc: fx.Description, sg: sg}
				for _, e := range fx.Edits {
					if e.Path == sg.Path {
						u.edits = append(u.edits, e)
					}
				}
				units = append(units, u)
			}
		}
	}
	for _, c := range overlapping(units) {
		if len(c) == 1 {
			out = append(out, mdSuggestion{Suggestion: c[0].sg, fixes: []string{c[0].desc}})
			continue
		}
		var descs []string
		for _, u := range c {
			descs = appendNew(descs, u.desc)
		}
		if sg, ok := combine(c); ok {
			out = append(out, mdSuggestion{Suggestion: sg, fixes: descs})
			continue
		}
		start, end := span(c)
		unsuggested = append(unsuggested, mdUnsuggested{path: c[0].sg.Path, start: start, end: end, fixes: descs})
	}
	return out, unsuggested
}

// fixKey identifies a fix: the same fix is on every finding it resolves.
func fixKey(fx finding.Fix) string {
	var b strings.Builder
	b.WriteString(fx.Description)
	for _, e := range fx.Edits {
		fmt.Fprintf(&b, "\x00%s\x00%d\x00%d\x00%s", e.Path, e.StartOffset, e.EndOffset, e.NewText)
	}
	for _, s := range fx.Suggestions {
		fmt.Fprintf(&b, "\x01%s\x00%d\x00%d\x00%s", s.Path, s.StartLine, s.EndLine, s.Text)
	}
	return b.String()
}

// overlapping partitions units into clusters whose line ranges overlap
// (transitively), in the order of their first unit.
func overlapping(units []sgUnit) [][]sgUnit {
	var clusters [][]sgUnit
	for _, u := range units {
		var merged []sgUnit
		rest := clusters[:0:0]
		first := -1
		for i, c := range clusters {
			if slices.ContainsFunc(c, func(v sgUnit) bool { return overlaps(u.sg, v.sg) }) {
				if first < 0 {
					first = i
				}
				merged = append(merged, c...)
				continue
			}
			rest = append(rest, c)
		}
		merged = append(merged, u)
		if first < 0 {
			clusters = append(rest, merged)
			continue
		}
		clusters = slices.Insert(rest, min(first, len(rest)), merged)
	}
	return clusters
}

func overlaps(a, b finding.Suggestion) bool {
	return a.Path == b.Path && a.StartLine <= b.EndLine && b.StartLine <= a.EndLine
}

// span is the lines a cluster covers.
func span(c []sgUnit) (start, end int) {
	start, end = c[0].sg.StartLine, c[0].sg.EndLine
	for _, u := range c[1:] {
		start, end = min(start, u.sg.StartLine), max(end, u.sg.EndLine)
	}
	return start, end
}

// combine is one suggestion applying every unit's edits, when the lines
// as they were can be told exactly (see above).
func combine(c []sgUnit) (finding.Suggestion, bool) {
	start, end := span(c)
	n := end - start + 1
	orig := make([]string, n)
	known := make([]bool, n)
	cover := make([]int, n) // how many units' lines hold the line
	for _, u := range c {
		for l := u.sg.StartLine; l <= u.sg.EndLine; l++ {
			cover[l-start]++
		}
		lines, ok := unapply(u)
		if !ok {
			continue
		}
		for i, text := range lines {
			j := u.sg.StartLine - start + i
			switch {
			case !known[j]:
				orig[j], known[j] = text, true
			case orig[j] != text:
				return finding.Suggestion{}, false
			}
		}
	}
	// Every line is given, and held by a second unit: the same text
	// given by it too, or (next) its edits applied must give exactly its
	// suggestion.
	for i := range orig {
		if !known[i] || cover[i] < 2 {
			return finding.Suggestion{}, false
		}
	}
	for _, u := range c {
		got, ok := applyLines(orig, start, u.edits)
		if !ok {
			return finding.Suggestion{}, false
		}
		want := strings.Join(slices.Concat(orig[:u.sg.StartLine-start], []string{u.sg.Text}, orig[u.sg.EndLine-start+1:]), "\n")
		if got != want {
			return finding.Suggestion{}, false
		}
	}
	var all []finding.Edit
	for _, u := range c {
		for _, e := range u.edits {
			if !slices.Contains(all, e) {
				all = append(all, e)
			}
		}
	}
	text, ok := applyLines(orig, start, all)
	if !ok {
		return finding.Suggestion{}, false
	}
	return finding.Suggestion{Path: c[0].sg.Path, StartLine: start, EndLine: end, Text: text}, true
}

// unapply gives back the lines a unit's suggestion replaces, as they
// were, by taking its insertions out of its text; false when the unit
// has an edit that is no insertion or outside its lines, or its text
// does not hold the insertions where they go.
func unapply(u sgUnit) ([]string, bool) {
	if len(u.edits) == 0 {
		return nil, false
	}
	es := sortedEdits(u.edits)
	text := u.sg.Text
	// The first edit's place in the text: the lines before its line are
	// as they were.
	e0 := es[0]
	if e0.StartOffset != e0.EndOffset || e0.StartLine < u.sg.StartLine || e0.StartLine > u.sg.EndLine || e0.StartCol < 1 {
		return nil, false
	}
	pos := 0
	for l := u.sg.StartLine; l < e0.StartLine; l++ {
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 {
			return nil, false
		}
		pos += i + 1
	}
	pos += e0.StartCol - 1
	var b strings.Builder
	b.WriteString(text[:min(pos, len(text))])
	prevEnd := e0.StartOffset
	for _, e := range es {
		if e.StartOffset != e.EndOffset || e.StartOffset < prevEnd {
			return nil, false
		}
		pos += e.StartOffset - prevEnd
		if pos > len(text) || !strings.HasPrefix(text[pos:], e.NewText) {
			return nil, false
		}
		b.WriteString(text[pos-(e.StartOffset-prevEnd) : pos])
		pos += len(e.NewText)
		prevEnd = e.EndOffset
	}
	b.WriteString(text[pos:])
	lines := strings.Split(b.String(), "\n")
	if len(lines) != u.sg.EndLine-u.sg.StartLine+1 {
		return nil, false
	}
	return lines, true
}

// applyLines applies edits to lines (the first is line start of the
// file) and returns the result; false when an edit is outside the lines,
// does not agree with them (its offsets against its line and column), or
// two edits overlap or insert at the same place.
func applyLines(lines []string, start int, edits []finding.Edit) (string, bool) {
	src := strings.Join(lines, "\n")
	lineAt := make([]int, len(lines)) // offset of each line in src
	for i := 1; i < len(lines); i++ {
		lineAt[i] = lineAt[i-1] + len(lines[i-1]) + 1
	}
	at := func(line, col int) (int, bool) {
		i := line - start
		if i < 0 || i >= len(lines) || col < 1 || col-1 > len(lines[i]) {
			return 0, false
		}
		return lineAt[i] + col - 1, true
	}
	es := sortedEdits(edits)
	var b strings.Builder
	pos, base := 0, -1 // base: the file offset of src[0], from the first edit
	for i, e := range es {
		s, ok1 := at(e.StartLine, e.StartCol)
		t, ok2 := at(e.EndLine, e.EndCol)
		if !ok1 || !ok2 || t-s != e.EndOffset-e.StartOffset || s < pos {
			return "", false
		}
		if base < 0 {
			base = e.StartOffset - s
		} else if e.StartOffset-s != base {
			return "", false
		}
		if i > 0 && s == pos && es[i-1].StartOffset == e.StartOffset {
			return "", false // two edits at one place: their order is not known
		}
		b.WriteString(src[pos:s])
		b.WriteString(e.NewText)
		pos = t
	}
	b.WriteString(src[pos:])
	return b.String(), true
}

func sortedEdits(edits []finding.Edit) []finding.Edit {
	es := slices.Clone(edits)
	sort.SliceStable(es, func(i, j int) bool { return es[i].StartOffset < es[j].StartOffset })
	return es
}
