package report

import "strings"

// Release-note blocks in hints: RELEASE_NOTE_MISSING's hint ends with the
// blocks to add to the pull request's description (```breaking user …
// ```), which the Markdown report shows as text to copy, not as prose or
// Go code.

// hintNoteBlocks splits a hint into its lines outside release-note
// blocks and the blocks, fences included. A block starts at a line that
// is a fence of backticks with an info string and ends at the next line
// that is a fence alone (or at the end of the hint).
func hintNoteBlocks(h string) (rest string, blocks []string) {
	lines := strings.Split(newlines.Replace(h), "\n")
	var keep []string
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "```") || strings.Trim(t, "`") == "" {
			keep = append(keep, lines[i])
			continue
		}
		block := []string{t}
		for i++; i < len(lines); i++ {
			block = append(block, lines[i])
			if strings.Trim(strings.TrimSpace(lines[i]), "`") == "" && strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
				break
			}
		}
		blocks = append(blocks, strings.Join(block, "\n"))
	}
	return strings.Join(keep, "\n"), blocks
}

// groupNoteBlocks are the release-note blocks of a group's hints, each
// once, as one text ("" when there are none).
func groupNoteBlocks(g *mdGroup) string {
	var all []string
	for _, f := range g.findings {
		_, bs := hintNoteBlocks(f.Hint)
		for _, b := range bs {
			all = appendNew(all, b)
		}
	}
	return strings.Join(all, "\n\n")
}
