// Package releasenote reads the release note of a pull request: the
// fenced blocks of Gardener's pull request template, whose info string is
// "<category> <audience>",
//
//	```breaking operator
//	The `foo` field of the gardenlet's configuration was removed.
//	```
//
// found in Markdown with any other text around them (the pull request's
// description). A block holding only NONE says that the change needs no
// release note; an empty block (the template left as it was) says
// nothing.
package releasenote

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// Categories and audiences of Gardener's release-note blocks
// (internal/notes drafts blocks of the same vocabulary).
var (
	Categories = []string{"breaking", "noteworthy", "feature", "bugfix", "doc", "other"}
	Audiences  = []string{"user", "operator", "developer", "dependency"}
)

// Block is one release-note block.
type Block struct {
	Category string
	Audience string
	// Text is the block's content, trimmed ("" for an empty block).
	Text string
	// None is set for a block that holds only NONE: the change needs no
	// release note.
	None bool
	// Line is the line of the block's opening fence (from 1).
	Line int
}

// Note is the release note of a pull request.
type Note struct {
	// Blocks are the release-note blocks with content (NONE included),
	// in the order of the text; empty blocks are left out.
	Blocks []Block
	// Unknown are the info strings of fences that name a category but an
	// audience that is none of Audiences ("breaking users"), or the
	// reverse: meant as release notes, but not in the template's format.
	Unknown []string
}

// Has reports whether the note has a block of the category for the
// audience ("" for any audience) that is not NONE.
func (n *Note) Has(category, audience string) bool {
	if n == nil {
		return false
	}
	return slices.ContainsFunc(n.Blocks, func(b Block) bool {
		return !b.None && b.Category == category && (audience == "" || b.Audience == audience)
	})
}

// Noted reports whether the note has any block that is not NONE.
func (n *Note) Noted() bool {
	if n == nil {
		return false
	}
	return slices.ContainsFunc(n.Blocks, func(b Block) bool { return !b.None })
}

// None reports whether the note says the change needs no release note:
// it has a NONE block and no other.
func (n *Note) None() bool {
	return n != nil && len(n.Blocks) > 0 && !n.Noted()
}

// Headers lists the headers of the note's blocks ("breaking operator",
// "other operator NONE"), for messages.
func (n *Note) Headers() []string {
	if n == nil {
		return nil
	}
	var out []string
	for _, b := range n.Blocks {
		h := b.Category + " " + b.Audience
		if b.None {
			h += " NONE"
		}
		out = append(out, h)
	}
	return out
}

// noneRe is a block that says NONE (in any case, with punctuation around
// it), as the release-note tooling of Gardener and Kubernetes reads it.
var noneRe = lazyre.New(`(?i)^\W*NONE\W*$`)

// commentRe is an HTML comment: text the rendered description does not
// show (the template's instructions), blocks inside it included.
var commentRe = lazyre.New(`(?s)<!--.*?(-->|$)`)

// Parse reads the release-note blocks of Markdown text. Line ends may be
// LF, CRLF or CR; fences may be indented (in a list item) and use three
// or more backticks or tildes, closed by a fence of the same character at
// least as long; the info string is "<category> <audience>" in any case,
// words separated by white space (more words may follow). Fences of other info strings (```yaml)
// are code: what they hold is not read. HTML comments are skipped. An
// unclosed block runs to the end of the text.
func Parse(text string) *Note {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	// Comments become as many empty lines as they span, so that line
	// numbers stay those of the text.
	text = commentRe.ReplaceAllStringFunc(text, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
	n := &Note{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		start := i
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
		var body []string
		for i++; i < len(lines) && !closes(lines[i], fence); i++ {
			// As CommonMark does, the content loses as much indentation as
			// the fence has.
			l := lines[i]
			for k := 0; k < indent && l != "" && (l[0] == ' ' || l[0] == '\t'); k++ {
				l = l[1:]
			}
			body = append(body, l)
		}
		cat, aud, kind := header(info)
		switch kind {
		case headerUnknown:
			if !slices.Contains(n.Unknown, info) {
				n.Unknown = append(n.Unknown, info)
			}
			continue
		case headerOther:
			continue
		}
		content := strings.TrimSpace(strings.Join(body, "\n"))
		if content == "" {
			continue
		}
		n.Blocks = append(n.Blocks, Block{Category: cat, Audience: aud, Text: content, None: noneRe.MatchString(content), Line: start + 1})
	}
	return n
}

// openingFence is a fence line's fence (its run of backticks or tildes)
// and info string.
func openingFence(line string) (fence, info string, ok bool) {
	l := strings.TrimLeft(line, " \t")
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return "", "", false
	}
	k := 0
	for k < len(l) && l[k] == l[0] {
		k++
	}
	if k < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(l[k:])
	if l[0] == '`' && strings.Contains(info, "`") {
		return "", "", false // CommonMark: not a fence
	}
	return l[:k], info, true
}

// closes reports whether line closes a block opened by fence.
func closes(line, fence string) bool {
	l := strings.TrimSpace(line)
	return len(l) >= len(fence) && strings.Trim(l, fence[:1]) == ""
}

// Kinds of info string.
const (
	headerNote    = iota // "<category> <audience>"
	headerUnknown        // a category or an audience, not both
	headerOther          // anything else: code
)

// header reads an info string as a release-note header.
func header(info string) (category, audience string, kind int) {
	words := strings.Fields(strings.ToLower(info))
	if len(words) == 0 {
		return "", "", headerOther
	}
	cat := slices.Contains(Categories, words[0])
	aud := len(words) > 1 && slices.Contains(Audiences, words[1])
	switch {
	case cat && aud:
		// Words after the audience are free: the tooling reads the first
		// two.
		return words[0], words[1], headerNote
	case cat || len(words) > 1 && slices.Contains(Audiences, words[1]):
		return "", "", headerUnknown
	}
	return "", "", headerOther
}

// MaxSize is the most bytes Read reads: GitHub bounds a pull request's
// description to 65,536 characters, which UTF-8 holds in four times as
// many bytes.
const MaxSize = 4 << 16

// Read reads the release note from a file, or from stdin when path is
// "-".
func Read(path string, stdin io.Reader) (*Note, error) {
	var r io.Reader = stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, name = f, path
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d bytes, more than a pull request's description holds", name, MaxSize)
	}
	return Parse(string(b)), nil
}
