package check

import (
	"reflect"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/suppress"
)

// DefaultPartFiles is the size of a part when a large tree is judged part
// by part (Request.Stream): about this many Go files of base and head
// together. A tree of more than twice as many is split.
const DefaultPartFiles = 1000

// part is a set of group directories judged on its own, and what judging
// it gave.
type part struct {
	dirs []string

	findings []finding.Finding
	// judged and suppressions are the rule runs' results (notes).
	judged, suppressions *rules.Result
	// unused are the configuration's ignore entries no finding of the
	// part matched.
	unused []int
	// notes are the scan's notes of base and head.
	notes [2][]string
	// groups are the groups of base and head without their packages.
	groups [2][]*model.Group
	// styles are the tombstone styles of the part's head; plan is the
	// plan of its fixes (nil: no finding of a rule that fixes).
	styles *fix.Styles
	plan   *fix.Plan
}

// closure is what ties a part's groups to other parts': a rule that looks
// across groups (type references, shared packages, a group name in two
// directories) sees only the part it judges, so parts must not share any
// of these.
type closure struct {
	planned map[string]int // import paths of every part's candidate directories -> part
	own     map[string]int // import paths of the parts' group packages -> part
	imports map[string]int // import paths the parts' group packages import -> part
	shared  map[string]int // import paths of the parts' shared packages -> part
	names   map[string]int // API group names -> part
	nShared [2]int         // shared packages per side, summed over the parts
}

// stream judges a large tree part by part: a part's groups are scanned at
// base and head, compared, judged and let go before the next part's, so
// memory holds one part's models, not the tree's. It reports false (and
// no error) when the tree is small, or when the parts turn out to be tied
// (see closure), or the configuration changed: the caller judges the
// tree whole.
func stream(res *Result, req Request, hist *lifecycle.History) (ok bool, err error) {
	size := partSize(req)
	if !req.Stream || req.StreamFiles < 0 || res.HeadConfig == nil || !reflect.DeepEqual(res.BaseConfig, res.HeadConfig) {
		// A changed configuration is judged against every finding of the
		// tree (an ignore entry added or removed, groups discovered).
		return false, nil
	}
	parts, planned, err := planParts(res, size)
	if err != nil || len(parts) < 2 {
		return false, err
	}
	defer func() {
		if !ok {
			// The whole tree's models come next: what a part's rule
			// started ahead must not read them half set, and what the
			// parts asked of the release does not count.
			hist.Settle()
			hist.Forget()
		}
	}()
	profile := res.Options.Scan.Profile
	cl := &closure{planned: planned, own: map[string]int{}, imports: map[string]int{}, shared: map[string]int{}, names: map[string]int{}}
	// What the parts share: the CRD manifests, what the usage searches
	// learnt about the repository's files.
	manifests := &rules.Manifests{Base: crd.New(res.Base), Head: crd.New(res.Head)}
	files := usage.NewIndex()
	styles := fix.HouseStyles(nil)
	for i, p := range parts {
		if err := req.stopped(); err != nil {
			return false, err
		}
		models, err := scanPart(res, p.dirs)
		if err != nil {
			return false, err
		}
		if !cl.add(i, models) {
			return false, nil
		}
		for side, m := range models {
			switch {
			case len(m.Groups) == 0 && profile == "":
				return false, nil // the tree's profile is not known yet
			case len(m.Groups) == 0:
				m.Profile = profile
			case profile == "":
				profile = m.Profile
			case m.Profile != profile:
				return false, nil // the parts' groups say different things
			}
			p.notes[side] = m.Notes
			for _, g := range m.Groups {
				p.groups[side] = append(p.groups[side], &model.Group{Dir: g.Dir, Name: g.Name, Profile: g.Profile})
			}
		}
		p.styles = fix.HouseStyles(models[1])
		styles.Add(p.styles)
		if err := judgePart(res, req, hist, manifests, files, p, models); err != nil {
			return false, err
		}
	}
	plan := fix.New(fix.Input{})
	for _, p := range parts {
		if p.plan != nil && !p.styles.Agrees(styles) {
			// A tombstone's explanation follows the styles of the whole
			// tree, which differ from the part's: plan it again.
			models, err := scanPart(res, p.dirs)
			if err != nil {
				return false, err
			}
			hist.NextPart()
			hist.Scanned(models[0], models[1])
			hist.Aside(func() { planFixes(res, hist, p, partResult(res, models).Diff, styles) })
		}
		if p.plan != nil {
			plan.Merge(p.plan)
		}
	}
	hist.Settle()
	hist.Scanned(nil, nil)
	assemble(res, req, hist, parts, profile)
	res.Fixes = plan
	res.Parts = len(parts)
	return true, nil
}

// planParts splits the candidate groups of base and head, in directory
// order, into parts of about size Go files; nil when the tree is not
// larger than two parts. planned maps the import paths of the candidates'
// packages to their parts: a part that imports another's is tied to it
// before that one is scanned.
// partSize is the size of a part in Go files of base and head
// (Request.StreamFiles; DefaultPartFiles when it is 0 or negative).
func partSize(req Request) int {
	if req.StreamFiles > 0 {
		return req.StreamFiles
	}
	return DefaultPartFiles
}

func planParts(res *Result, size int) (parts []*part, planned map[string]int, err error) {
	snaps := []scan.Source{res.Base, res.Head}
	if res.smallTree(size) {
		return nil, nil, nil // small for sure
	}
	total := 0
	for _, snap := range snaps { // first from the file lists alone
		cands, err := scan.Candidates(snap, res.Options.Scan, false)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range cands {
			total += c.Files
		}
	}
	if total <= 2*size {
		return nil, nil, nil
	}
	files := map[string]int{}
	paths := map[string][]string{}
	var dirs []string
	for _, snap := range snaps {
		cands, err := scan.Candidates(snap, res.Options.Scan, true)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range cands {
			if _, ok := files[c.Dir]; !ok {
				dirs = append(dirs, c.Dir)
			}
			files[c.Dir] += c.Files
			paths[c.Dir] = append(paths[c.Dir], c.ImportPaths...)
		}
	}
	slices.Sort(dirs)
	planned = map[string]int{}
	cur, n := &part{}, 0
	for _, d := range dirs {
		cur.dirs = append(cur.dirs, d)
		for _, ip := range paths[d] {
			if j, ok := planned[ip]; ok && j != len(parts) {
				return nil, nil, nil // two candidates of different parts share a package
			}
			planned[ip] = len(parts)
		}
		if n += files[d]; n >= size {
			parts = append(parts, cur)
			cur, n = &part{}, 0
		}
	}
	if len(cur.dirs) > 0 {
		parts = append(parts, cur)
	}
	return parts, planned, nil
}

// scanPart scans the groups of dirs at base and head.
func scanPart(res *Result, dirs []string) ([2]*model.Model, error) {
	pres := *res
	pres.Options.Scan.Only = dirs
	if err := scanBoth(&pres); err != nil {
		return [2]*model.Model{}, err
	}
	return [2]*model.Model{pres.BaseModel, pres.HeadModel}, nil
}

// partResult is res with a part's models and their diff.
func partResult(res *Result, models [2]*model.Model) *Result {
	pres := *res
	pres.BaseModel, pres.HeadModel = models[0], models[1]
	pres.Diff = model.Compare(models[0], models[1])
	return &pres
}

// add records part i's ties; false when one is another part's.
func (cl *closure) add(i int, models [2]*model.Model) bool {
	tied := func(m map[string]int, k string) bool {
		j, ok := m[k]
		return ok && j != i
	}
	own, imports, shared, names := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for side, m := range models {
		for _, g := range m.Groups {
			if g.Name != "" {
				names[g.Name] = true
			}
			for _, p := range g.Packages() {
				own[p.ImportPath] = true
				for _, file := range p.Imports {
					for _, ip := range file {
						imports[ip] = true
					}
				}
			}
		}
		for _, p := range m.Shared {
			shared[p.ImportPath] = true
		}
		cl.nShared[side] += len(m.Shared)
		if cl.nShared[side] >= scan.MaxShared {
			return false // a scan of the whole tree may read fewer
		}
	}
	for k := range own {
		if tied(cl.planned, k) || tied(cl.own, k) || tied(cl.imports, k) || tied(cl.shared, k) {
			return false
		}
	}
	for k := range imports {
		if tied(cl.planned, k) || tied(cl.own, k) {
			return false
		}
	}
	for k := range shared {
		if tied(cl.planned, k) || tied(cl.own, k) || tied(cl.shared, k) {
			return false
		}
	}
	for k := range names {
		if tied(cl.names, k) {
			return false
		}
	}
	for _, s := range []struct {
		from map[string]bool
		to   map[string]int
	}{{own, cl.own}, {imports, cl.imports}, {shared, cl.shared}, {names, cl.names}} {
		for k := range s.from {
			s.to[k] = i
		}
	}
	return true
}

// judgePart runs the rules and suppressions on one part, as run does on
// the whole tree.
func judgePart(res *Result, req Request, hist *lifecycle.History, manifests *rules.Manifests, files *usage.Index, p *part, models [2]*model.Model) error {
	pres := partResult(res, models)
	hist.NextPart()
	hist.Scanned(models[0], models[1])
	an := rules.Analyses{
		Release:   hist,
		Usages:    usage.NewIn(files, hist, slices.Collect(pres.Diff.RemovedFields())),
		Shoot:     shoot.NewStages(hist),
		Manifests: manifests,
	}
	defer an.Usages.Close()
	out, err := judge(pres, an)
	if err != nil {
		return err
	}
	rep := &finding.Report{Findings: out.Findings}
	markers, err := suppressFindings(pres, rep)
	if err != nil {
		return err
	}
	// What follows asks the release aside: run says which releases the
	// rules used before it judges suppressions and plans fixes.
	var found *rules.Result
	hist.Aside(func() { found, err = judgeSuppressions(pres, req, an, out, markers, rep.Findings) })
	if err != nil {
		return err
	}
	p.findings = append(rep.Findings, found.Findings...)
	p.judged, p.suppressions, p.unused = out, found, markers.Unused
	fixable := fix.Rules()
	for _, f := range p.findings {
		if f.Suppressed == "" && slices.Contains(fixable, f.Rule) {
			hist.Aside(func() { planFixes(res, hist, p, pres.Diff, p.styles) })
			break
		}
	}
	return nil
}

// planFixes plans the fixes of a part's findings (run plans them on the
// report's findings: sorted, without duplicates).
func planFixes(res *Result, hist *lifecycle.History, p *part, diff *model.Diff, styles *fix.Styles) {
	pr := &finding.Report{Findings: p.findings}
	pr.Finalize()
	for i := range pr.Findings {
		pr.Findings[i].Fixes = nil
	}
	p.findings = pr.Findings
	p.plan = fix.New(fix.Input{Findings: p.findings, Diff: diff, Head: res.Head, History: hist, Styles: styles})
}

// assemble writes the report of a tree judged in parts: what run writes
// for the whole tree, from the parts' findings and notes.
func assemble(res *Result, req Request, hist *lifecycle.History, parts []*part, profile model.Profile) {
	var found []finding.Finding
	var judged, supp []*rules.Result
	var notes [2][]string
	var groups [2][]*model.Group
	unused := map[int]int{}
	for _, p := range parts {
		found = append(found, p.findings...)
		judged = append(judged, p.judged)
		supp = append(supp, p.suppressions)
		for side := range notes {
			notes[side] = append(notes[side], p.notes[side]...)
			groups[side] = append(groups[side], p.groups[side]...)
		}
		for _, j := range p.unused {
			unused[j]++
		}
	}
	for side := range notes {
		slices.Sort(notes[side])
		m := &model.Model{Profile: profile, Groups: groups[side], Notes: slices.Compact(notes[side])}
		slices.SortFunc(m.Groups, func(a, b *model.Group) int { return strings.Compare(a.Dir, b.Dir) })
		if side == 0 {
			res.BaseModel = m
		} else {
			res.HeadModel = m
		}
	}
	report := newReport(res, req, &rules.Result{Findings: found, Notes: rules.MergeNotes(judged, res.Options.Rules)})
	report.Releases = releasesUsed(hist)
	report.Notes = append(report.Notes, releaseNotes(hist)...)
	if res.Config != nil {
		for j := range res.Config.Ignore {
			if unused[j] == len(parts) { // no part's finding matched it
				report.Notes = append(report.Notes, suppress.UnusedNote(&res.Config.Ignore[j]))
			}
		}
	}
	report.Notes = append(report.Notes, rules.MergeNotes(supp, res.Options.Rules)...)
	report.Finalize()
	res.Report = report
}
