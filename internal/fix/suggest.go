package fix

import (
	"go/format"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
)

// maxSuggestionLines bounds a suggestion: gofmt may realign a whole
// struct after an edit, and a file that was not gofmt-clean would turn
// into one suggestion over everything that moved; beyond this many lines
// the edits are suggested as they are, unformatted.
const maxSuggestionLines = 40

// suggestions turns a fix's edits into whole-line replacements, one per
// file it touches, as `apicheck fix` would leave the lines (formatted
// with gofmt where the formatted change stays small). content maps paths
// to the content the edits were computed on.
func suggestions(fx finding.Fix, content map[string][]byte) []finding.Suggestion {
	byPath := map[string][]finding.Edit{}
	var paths []string
	for _, e := range fx.Edits {
		if byPath[e.Path] == nil {
			paths = append(paths, e.Path)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}
	slices.Sort(paths)
	var out []finding.Suggestion
	for _, p := range paths {
		src, ok := content[p]
		if !ok {
			return nil // all or nothing: a partial suggestion would mislead
		}
		edited, err := applyEdits(src, byPath[p])
		if err != nil {
			return nil
		}
		s, ok := lineChange(p, src, edited)
		if formatted, err := format.Source(edited); err == nil {
			if fs, fok := lineChange(p, src, formatted); fok && fs.EndLine-fs.StartLine < maxSuggestionLines {
				s, ok = fs, true
			}
		}
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// lineChange is the smallest run of whole lines of a that, replaced,
// gives b; a pure insertion takes the line after it (or before it, at
// the end of the file) along. ok is false when a and b are equal.
func lineChange(path string, a, b []byte) (finding.Suggestion, bool) {
	al, bl := splitLines(a), splitLines(b)
	p, s := commonEnds(al, bl)
	if p == len(al) && p == len(bl) {
		return finding.Suggestion{}, false
	}
	from, to := p, len(al)-s // replaced lines of a: [from, to)
	nfrom, nto := p, len(bl)-s
	if from == to { // insertion: take a neighbouring line along
		if to < len(al) {
			to++
			nto++
		} else if from > 0 {
			from--
			nfrom--
		} else {
			return finding.Suggestion{}, false
		}
	}
	text := strings.TrimSuffix(strings.Join(bl[nfrom:nto], ""), "\n")
	return finding.Suggestion{Path: path, StartLine: from + 1, EndLine: to, Text: text}, true
}
