package check

import (
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/notes"
	"github.com/apicheck/apicheck/internal/releasenote"
	"github.com/apicheck/apicheck/internal/rules"
)

// The inputs of the rules about what a pull request brings besides the
// API change: the generated code committed with it, and its release note.

// generatedCode is the generated code of the two revisions, read when a
// rule asks; what the rules learn of a file is kept in memo (the
// history's cache).
func generatedCode(res *Result, memo git.Memo) *rules.Generated {
	g := &rules.Generated{
		Base: gencode.New(res.Base), Head: gencode.New(res.Head),
		Worktree: res.Head.Ref() == git.WorktreeRef,
	}
	g.Base.UseMemo(memo)
	g.Head.UseMemo(memo)
	return g
}

// releaseNoteInput is the pull request's release note (nil when the
// request has none) with the stub `apicheck release-notes` drafts from
// findings, the findings of the change (or of the part) as the report has
// them.
func releaseNoteInput(res *Result, req Request, findings []finding.Finding) *rules.ReleaseNote {
	opts := notes.Options{}
	if res.Config != nil {
		opts.ReleaseNotes = res.Config.ReleaseNotes
	}
	return &rules.ReleaseNote{
		Note:     req.ReleaseNote,
		Findings: findings,
		Draft: func(d *model.Diff) []releasenote.Block {
			var out []releasenote.Block
			for _, b := range notes.Generate(d, findings, res.Options.Rules, opts) {
				out = append(out, releasenote.Block{Category: b.Category, Audience: b.Audience, Text: strings.Join(b.Lines, "\n")})
			}
			return out
		},
	}
}

// releaseNoteOf is what the report says of the release note (nil for
// none).
func releaseNoteOf(n *releasenote.Note) *finding.ReleaseNote {
	if n == nil {
		return nil
	}
	return &finding.ReleaseNote{Blocks: append([]string{}, n.Headers()...)}
}
