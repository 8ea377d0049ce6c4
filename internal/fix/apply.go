package fix

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
)

// Options of applying a plan.
type Options struct {
	// DryRun computes everything, writes nothing; Result.Diff shows what
	// would change.
	DryRun bool
}

// Applied is one fix applied (or, in a dry run, that would be).
type Applied struct {
	Path        string
	Description string
	// Findings name the findings it resolves: "RULE_ID Type.Field".
	Findings []string
}

// Result is what applying a plan did.
type Result struct {
	Applied []Applied
	Skipped []Skip
	// Files are the files changed (in a dry run: that would change),
	// sorted.
	Files []string
	// Diff is a unified diff of every changed file, as git diff prints
	// it.
	Diff []byte
}

// Apply applies the plan to the working tree of repo. Only files of the
// analysed API packages are touched, never the index or .git. Files are
// fixed as they are, uncommitted changes and files not committed at all
// included: when the check's head was the working tree, the edits were
// computed on the content the check read, and a file is written only if
// it still has exactly that content (otherwise it is refused: it changed
// since apicheck read it). When the check's head was a revision
// (--head), a file whose content is not that revision's gets its fixes
// located and computed again on what is on disk. Overlapping fixes are
// rejected (the first one in the file wins); the rest are applied, the
// result is formatted with go/format and written atomically, keeping the
// file's mode, unless the file changed between reading and writing.
// Refusals with the same place and reason are reported once, naming
// every finding they leave unfixed.
//
// The error is for failures of the run itself (the repository cannot be
// read); a fix that cannot be applied is a Skip in the result.
func (p *Plan) Apply(repo *git.Repo, opts Options) (*Result, error) {
	res := &Result{}
	if p == nil {
		return res, nil
	}
	res.Skipped = append(res.Skipped, p.skipped...)
	if len(p.items) == 0 {
		return res, nil
	}
	if repo.Bare {
		return nil, fmt.Errorf("%s is a bare repository: there is no working tree to fix", repo.Root)
	}
	root, err := os.OpenRoot(repo.Root)
	if err != nil {
		return nil, fmt.Errorf("working tree: %w", err)
	}
	defer root.Close()
	a := &applier{plan: p, root: root, opts: opts, res: res,
		disk: &diskSource{root: root, dirs: map[string]map[string][]byte{}}}
	var diff bytes.Buffer
	for _, file := range p.files() {
		if err := a.file(file, &diff); err != nil {
			return nil, err
		}
	}
	res.Diff = diff.Bytes()
	res.Skipped = mergeSkips(res.Skipped)
	sort.Strings(res.Files)
	return res, nil
}

// Unfixed counts the findings the result leaves unfixed.
func (r *Result) Unfixed() int {
	n := 0
	for _, s := range r.Skipped {
		n += len(s.Findings)
	}
	return n
}

// mergeSkips reports each refusal once: skips with the same place and
// reason (the fixes of several rules for one field, every fix of a file
// that changed) become one that names all their findings, in the order
// they first came.
func mergeSkips(skips []Skip) []Skip {
	type key struct{ pos, reason string }
	at := map[key]int{}
	var out []Skip
	for _, s := range skips {
		k := key{s.Pos, s.Reason}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, Skip{Pos: s.Pos, Reason: s.Reason})
			i = len(out) - 1
		}
		for _, f := range s.Findings {
			if !slices.Contains(out[i].Findings, f) {
				out[i].Findings = append(out[i].Findings, f)
			}
		}
	}
	return out
}

// changedSince is the refusal of a file whose content is not what
// apicheck read.
func changedSince(name string) string {
	return name + " changed since apicheck read it; run apicheck fix again"
}

// testHookBeforeWrite, when set, runs between the last check of a file
// and its write.
var testHookBeforeWrite func(name string)

type applier struct {
	plan *Plan
	root *os.Root
	opts Options
	res  *Result
	disk *diskSource
}

func (a *applier) skipItems(items []*item, at, why string) {
	for _, it := range items {
		a.res.Skipped = append(a.res.Skipped, Skip{Pos: at, Findings: it.subjects(), Reason: why})
	}
}

// file applies the fixes of one file.
func (a *applier) file(name string, diff *bytes.Buffer) error {
	items := a.plan.itemsOf(name)
	if !a.plan.apiFiles[name] {
		a.skipItems(items, name, "not a file of the analysed API packages")
		return nil
	}
	var want []*item
	for _, it := range items {
		if it.out.fix != nil {
			want = append(want, it)
		}
	}
	disk, err := readRegular(a.root, name)
	if err != nil {
		a.skipItems(items, name, "cannot read it from the working tree: "+err.Error())
		return nil
	}
	planned, ok := a.plan.planned[name]
	switch {
	case a.plan.worktree && !ok:
		// Planning could not read it: its items say why.
	case a.plan.worktree && !bytes.Equal(disk, planned):
		// The edits were computed on the working tree as the check read
		// it, and the file is no longer that: whatever changed it, the
		// check's findings may not hold for it.
		a.skipItems(items, name, changedSince(name))
		return nil
	case !ok || !bytes.Equal(disk, planned):
		// The check's head is a revision whose file is not what is on
		// disk: locate every intent again in what is.
		planFile(name, disk, items, a.disk)
		want = want[:0]
		for _, it := range items {
			if it.out.fix != nil {
				want = append(want, it)
			}
		}
	}
	for _, it := range items {
		if it.out.skip != "" {
			a.res.Skipped = append(a.res.Skipped, Skip{Pos: it.out.at, Findings: it.subjects(), Reason: it.out.skip})
		}
	}
	if len(want) == 0 {
		return nil
	}
	// Reject fixes whose edits overlap edits already accepted.
	var accepted []*item
	var edits []finding.Edit
	for _, it := range want {
		if other := overlapping(it.out.fix.Edits, accepted); other != nil {
			a.skipItems([]*item{it}, editPos(it.out.fix.Edits[0]),
				fmt.Sprintf("its edits overlap those of the fix for %s (%s)", strings.Join(other.subjects(), ", "), other.out.fix.Description))
			continue
		}
		accepted = append(accepted, it)
		edits = append(edits, it.out.fix.Edits...)
	}
	out, err := applyEdits(disk, edits)
	if err != nil {
		a.skipItems(accepted, name, err.Error())
		return nil
	}
	formatted, err := format.Source(out)
	if err != nil {
		a.skipItems(accepted, name, "the fixed file does not format (a bug in apicheck, please report it): "+err.Error())
		return nil
	}
	for _, it := range accepted {
		a.res.Applied = append(a.res.Applied, Applied{Path: name, Description: it.out.fix.Description, Findings: it.subjects()})
	}
	if bytes.Equal(formatted, disk) {
		return nil
	}
	a.res.Files = append(a.res.Files, name)
	diff.Write(unifiedDiff("a/"+name, "b/"+name, disk, formatted))
	if a.opts.DryRun {
		return nil
	}
	// The file must still be what was read: a change in between is
	// never overwritten.
	now, err := readRegular(a.root, name)
	if err != nil || !bytes.Equal(now, disk) {
		a.res.Applied = a.res.Applied[:len(a.res.Applied)-len(accepted)]
		a.res.Files = a.res.Files[:len(a.res.Files)-1]
		a.skipItems(accepted, name, changedSince(name))
		return nil
	}
	if testHookBeforeWrite != nil {
		testHookBeforeWrite(name)
	}
	// Through the root like every read: a directory swapped for a symlink
	// since the check cannot lead the write out of the working tree.
	if err := atomicfile.ReplaceIn(a.root, filepath.FromSlash(name), formatted); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

func editPos(e finding.Edit) string {
	return fmt.Sprintf("%s:%d:%d", e.Path, e.StartLine, e.StartCol)
}

// overlapping returns the accepted item whose edits overlap one of es.
// Insertions at the same place do not overlap (they apply in order); an
// insertion inside a replaced range does.
func overlapping(es []finding.Edit, accepted []*item) *item {
	for _, it := range accepted {
		for _, x := range it.out.fix.Edits {
			for _, e := range es {
				if overlap(e, x) {
					return it
				}
			}
		}
	}
	return nil
}

func overlap(a, b finding.Edit) bool {
	if a.Path != b.Path {
		return false
	}
	lo, hi := max(a.StartOffset, b.StartOffset), min(a.EndOffset, b.EndOffset)
	if lo < hi {
		return true
	}
	inside := func(ins, r finding.Edit) bool {
		return ins.StartOffset == ins.EndOffset && r.StartOffset < ins.StartOffset && ins.StartOffset < r.EndOffset
	}
	// Two replacements that start at one place.
	if a.StartOffset == b.StartOffset && a.StartOffset != a.EndOffset && b.StartOffset != b.EndOffset {
		return true
	}
	return inside(a, b) || inside(b, a)
}

// applyEdits applies non-overlapping edits to src: sorted by place,
// insertions before a replacement that starts at the same place, and
// otherwise in the order given.
func applyEdits(src []byte, edits []finding.Edit) ([]byte, error) {
	es := append([]finding.Edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].StartOffset != es[j].StartOffset {
			return es[i].StartOffset < es[j].StartOffset
		}
		return es[i].StartOffset == es[i].EndOffset && es[j].StartOffset != es[j].EndOffset
	})
	var out bytes.Buffer
	pos := 0
	for _, e := range es {
		if e.StartOffset < pos || e.EndOffset < e.StartOffset || e.EndOffset > len(src) {
			return nil, fmt.Errorf("edit at %s is out of range or overlaps another", editPos(e))
		}
		out.Write(src[pos:e.StartOffset])
		out.WriteString(e.NewText)
		pos = e.EndOffset
	}
	out.Write(src[pos:])
	return out.Bytes(), nil
}
