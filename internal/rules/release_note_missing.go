package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/releasenote"
)

// ReleaseNoteMissing is RELEASE_NOTE_MISSING. It runs with the rules
// about suppressions, once the suppressions are applied (it requires
// InputSuppressions for that): the stub it compares the note with is
// drafted from the findings as the report has them.
var ReleaseNoteMissing = &Rule{
	ID:       "RELEASE_NOTE_MISSING",
	Category: CatMeta,
	Severity: finding.Error,
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD),
	Requires: []Input{InputSuppressions},
	Uses:     []Input{InputReleaseNote},
	Summary: "The pull request's release note (`check --release-note FILE`, or `-` for standard input: Markdown such as the pull " +
		"request's description, which the GitHub Action passes by default) lacks a block the change needs: a change " +
		"`apicheck release-notes` drafts a `breaking` block for (removed fields and types, and what errors of the compatibility " +
		"rules call incompatible) has no `breaking` block in its note, of any audience; a change with other notes to make " +
		"(new fields, deprecations) has no block at all, or only NONE (a warning). One finding per API group, with the group's " +
		"stub in the hint. The checklist's own exception for component configurations is enforced too: a field removed from a " +
		"component configuration (componentconfig profile) that base did not mark deprecated is allowed only when the note " +
		"has a `breaking operator` block; an error when a note without one was given, a warning when the run has no note. " +
		"Without a note only that warning is reported (the report's checklist says that the release note was not checked). Off under the kubernetes and " +
		"crd profiles, whose projects do not write Gardener's release-note blocks.",
	Why: "The checklist's \"When opening the pull request, always add a release note so that end-users are becoming aware of " +
		"the changes\": a breaking change that the release notes do not call breaking reaches users and operators as a " +
		"surprise. Component configurations may drop a field without a deprecation period, \"if the release note uses the " +
		"breaking operator keywords\".",
	Fix: "Add the block the hint shows (the stub `apicheck release-notes` drafts; edit its lines) to the pull request's " +
		"description, e.g. ```` ```breaking user ````, and keep it outside HTML comments.",
	Before: "```other operator\nNONE\n```",
	After:  "```breaking user\n`Shoot`: field `.spec.seedTemplate` was removed.\n```",
	Check: func(c *Context) {
		rn := c.ReleaseNote()
		var note *releasenote.Note
		if rn != nil {
			note = rn.Note
		}
		for _, gd := range c.Diff.Groups {
			var blocks []releasenote.Block
			if rn != nil && rn.Draft != nil {
				blocks = rn.Draft(&model.Diff{Base: c.Diff.Base, Head: c.Diff.Head, Groups: []*model.GroupDiff{gd}})
			}
			if componentConfigRemovals(c, gd, note, blocks) {
				continue // the finding about the removal has the block to add
			}
			if len(blocks) > 0 && note != nil {
				judgeNote(c, rn, gd, note, blocks)
			}
		}
	},
}

// judgeNote compares the note with the blocks drafted for one group.
func judgeNote(c *Context, rn *ReleaseNote, gd *model.GroupDiff, note *releasenote.Note, blocks []releasenote.Block) {
	breaking := slices.DeleteFunc(slices.Clone(blocks), func(b releasenote.Block) bool { return b.Category != "breaking" })
	var r Report
	switch {
	case len(breaking) > 0 && !note.Has("breaking", ""):
		r = Report{
			Message: fmt.Sprintf("the release note %s, but the change to %s is breaking", noteSays(note, "has no `breaking` block"), groupLabel(gd)),
			Hint:    noteHint + renderBlocks(breaking),
		}
	case len(breaking) == 0 && !note.Noted():
		r = Report{
			Message:  fmt.Sprintf("the release note %s, but the change to %s needs one (%s)", noteSays(note, ""), groupLabel(gd), categories(blocks)),
			Hint:     noteHint + renderBlocks(blocks),
			Severity: finding.Warning,
		}
	default:
		return
	}
	pd, pos := notePosition(c, rn, gd)
	if pd != nil {
		c.Package(pd, pos, r)
	}
}

// noteSays describes what the note holds, or lacks ("" when it has
// blocks: then lacks).
func noteSays(note *releasenote.Note, lacks string) string {
	var s string
	switch {
	case len(note.Blocks) == 0:
		s = "has no release-note block (```<category> <audience>)"
	case note.None():
		s = "says NONE"
	default:
		s = lacks
	}
	if h := unknownHeaders(note); h != "" {
		s += " (not in the template's format: " + h + ")"
	}
	return s
}

// headerRe is a fence header worth naming in a message: words only, so
// that no text of the pull request's description reaches the report
// but what could be a header.
var headerRe = lazyre.New(`^[A-Za-z]+( [A-Za-z]+){0,3}$`)

func unknownHeaders(note *releasenote.Note) string {
	var hs []string
	for _, h := range note.Unknown {
		if headerRe.MatchString(h) && len(hs) < 3 {
			hs = append(hs, "```"+h)
		}
	}
	return strings.Join(hs, ", ")
}

// componentConfigRemovals judges the fields removed from a component
// configuration's versions that base did not mark deprecated: allowed
// with a `breaking operator` block, an error with a note without one, a
// warning without a note. It reports whether it found such a field that
// the note does not allow.
func componentConfigRemovals(c *Context, gd *model.GroupDiff, note *releasenote.Note, blocks []releasenote.Block) bool {
	if gd.Profile() != model.ProfileComponentConfig || note.Has("breaking", "operator") {
		return false
	}
	var lines []string
	for _, b := range blocks {
		if b.Category == "breaking" {
			lines = append(lines, b.Text)
		}
	}
	block := "```breaking operator\n" + strings.Join(lines, "\n") + "\n```"
	if len(lines) == 0 {
		block = "```breaking operator\n```"
	}
	found := false
	for fd := range c.Diff.RemovedFields() {
		if fd.Type.Pkg.Group != gd || fd.Base.Deprecated {
			continue
		}
		found = true
		subject := fmt.Sprintf("field %s.%s was removed from a component configuration without deprecation", fd.Type.Name(), fd.Base.Name)
		if note == nil {
			c.Field(fd, Report{
				Message:  subject + ": the checklist allows that when the release note has a `breaking operator` block, and the run has no release note",
				Hint:     "give check the pull request's description (--release-note FILE), which needs:\n" + block,
				Severity: finding.Warning,
			})
			continue
		}
		c.Field(fd, Report{
			Message: subject + ", which the checklist allows only with a `breaking operator` block in the release note, and the release note " + noteSays(note, "has none"),
			Hint:    noteHint + block,
		})
	}
	return found
}

// notePosition is where a finding about a group's release note is
// reported: the first error finding of the group that is not suppressed,
// else the first field the change added or removed, else the first file
// of the group's first version.
func notePosition(c *Context, rn *ReleaseNote, gd *model.GroupDiff) (*model.PackageDiff, model.Pos) {
	var best *finding.Finding
	for i := range rn.Findings {
		f := &rn.Findings[i]
		if f.Group != gd.Dir || f.Suppressed != "" || f.Severity != finding.Error || f.Path == "" || f.Rule == c.Rule().ID {
			continue
		}
		if best == nil || f.Path < best.Path || f.Path == best.Path && (f.Line < best.Line || f.Line == best.Line && f.Column < best.Column) {
			best = f
		}
	}
	var first *model.PackageDiff
	for _, pd := range gd.Packages {
		if !pd.External() || pd.Head == nil {
			continue
		}
		if first == nil {
			first = pd
		}
		if best != nil && pd.Head.ImportPath == best.Package {
			return pd, model.Pos{File: best.Path, Line: best.Line, Col: best.Column}
		}
	}
	for _, pd := range gd.Packages {
		if !pd.External() || pd.Head == nil {
			continue
		}
		for _, td := range pd.Types {
			for _, fd := range td.Fields {
				if fd.Base == nil || fd.Head == nil {
					return pd, c.FieldPos(fd)
				}
			}
		}
	}
	if first == nil || len(first.Head.Files) == 0 {
		return first, model.Pos{}
	}
	return first, model.Pos{File: first.Head.Files[0], Line: 1, Col: 1}
}

// groupLabel names a group in a message: its API group and directory.
func groupLabel(gd *model.GroupDiff) string {
	for _, pd := range gd.Packages {
		if n := pd.Pkg().GroupName; n != "" {
			return n + " (" + gd.Dir + ")"
		}
	}
	return gd.Dir
}

// categories lists the categories of blocks, each once.
func categories(blocks []releasenote.Block) string {
	var out []string
	for _, b := range blocks {
		if !slices.Contains(out, b.Category) {
			out = append(out, b.Category)
		}
	}
	return strings.Join(out, ", ")
}

// renderBlocks writes blocks as `apicheck release-notes` does.
func renderBlocks(blocks []releasenote.Block) string {
	var parts []string
	for _, b := range blocks {
		parts = append(parts, "```"+b.Category+" "+b.Audience+"\n"+b.Text+"\n```")
	}
	return strings.Join(parts, "\n")
}

// noteHint introduces the blocks a hint ends with.
const noteHint = "add to the pull request's description, and edit, the stub `apicheck release-notes` drafts:\n"
