package check

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/contract"
	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/suppress"
)

// The steps from scan to fixes run part by part: a part's groups are
// scanned at base and head, compared, judged and let go before the next
// part's, so memory holds one part's models, not the tree's. A tree is
// one part, the whole tree, unless Request.Stream lets a large tree be
// split; the whole tree's part keeps its models and diff for the Result.

// DefaultPartFiles is the size of a part when a large tree is judged part
// by part (Request.Stream): about this many Go files of base and head
// together. A tree of more than twice as many is split.
const DefaultPartFiles = 1000

// part is a set of group directories judged on its own (none: the whole
// tree), and what judging it gave.
type part struct {
	dirs []string

	findings []finding.Finding
	// judged and suppressions are the rule runs' results (notes).
	judged, suppressions *rules.Result
	// unused are the configuration's ignore entries no finding of the
	// part matched.
	unused []int
	// notes are the scan's notes of base and head, and reasons what
	// decided their detected profiles (model.Model.ProfileReason).
	notes   [2][]string
	reasons [2]string
	// groups are the groups of base and head without their packages.
	groups [2][]*model.Group
	// models and diff are the whole tree's, kept when it is the one part.
	models [2]*model.Model
	diff   *model.Diff
	// styles are the tombstone styles of the part's head; plan is the
	// plan of its fixes.
	styles *fix.Styles
	plan   *fix.Plan
}

// tree is the parts a run judges the tree in, and what the parts share.
type tree struct {
	res   *Result
	req   Request
	hist  *lifecycle.History
	parts []*part
	// ties are what ties the parts to each other; nil for one part.
	ties *closure
	// profile is the tree's profile, once a part's groups said it
	// (several parts).
	profile model.Profile
	// What the parts share: the CRD manifests, what the usage searches
	// learnt about the repository's files (nil for one part), the
	// tombstone styles of the whole head revision.
	manifests *rules.Manifests
	files     *usage.Index
	styles    *fix.Styles
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
	// external are the import paths of the parts' external packages
	// (model.Model.External) per side, over the parts: parts may share
	// them (they are not judged), but only while a scan of the whole
	// tree would read them all (scan.MaxExternal).
	external [2]map[string]bool
}

// planParts splits the tree into the parts it is judged in (step
// "parts"): one part, the whole tree, unless Request.Stream lets a tree
// larger than two parts (splitTree) be judged part by part. A changed
// configuration is judged against every finding of the tree (an ignore
// entry added or removed, groups discovered): the whole tree.
func planParts(res *Result, req Request, hist *lifecycle.History) (*tree, error) {
	if !req.Stream || req.StreamFiles < 0 || res.HeadConfig == nil || !reflect.DeepEqual(res.BaseConfig, res.HeadConfig) {
		return newTree(res, req, hist, nil, nil), nil
	}
	parts, planned, err := splitTree(res, partSize(req))
	if err != nil {
		return nil, err
	}
	if len(parts) < 2 {
		return newTree(res, req, hist, nil, nil), nil
	}
	return newTree(res, req, hist, parts, planned), nil
}

// newTree is a tree of parts (nil: the whole tree) whose candidates'
// packages planned maps to their parts.
func newTree(res *Result, req Request, hist *lifecycle.History, parts []*part, planned map[string]int) *tree {
	manifests := &rules.Manifests{}
	manifests.Base, manifests.Head = crd.NewPair(res.Base, res.Head)
	t := &tree{
		res: res, req: req, hist: hist, parts: parts,
		profile:   res.Options.Scan.Profile,
		manifests: manifests,
		styles:    fix.HouseStyles(nil),
	}
	if parts == nil {
		t.parts = []*part{{}}
	} else {
		// What a part's usage search learns of the files serves the
		// parts after it; a tree judged whole searches once.
		t.files = usage.NewIndex()
		t.ties = &closure{planned: planned, own: map[string]int{}, imports: map[string]int{}, shared: map[string]int{}, names: map[string]int{}}
	}
	return t
}

// errTied ends the judging of a part that is tied to another (see
// closure): the tree is judged whole instead.
var errTied = errors.New("the part is tied to another")

// each runs judge on the parts in turn. When a part turns out to be tied
// to another (judge returns errTied), it starts over on the whole tree,
// one part.
func (t *tree) each(judge func(i int, p *part) error) error {
	err := t.eachPart(judge)
	if errors.Is(err, errTied) {
		// The whole tree's models come next: what a part's rule started
		// ahead must not read them half set, and what the parts asked
		// of the release does not count.
		t.hist.Settle()
		t.hist.Forget()
		*t = *newTree(t.res, t.req, t.hist, nil, nil)
		err = t.eachPart(judge)
	}
	return err
}

// eachPart runs judge on the parts in turn, until one fails or the run
// is interrupted.
func (t *tree) eachPart(judge func(i int, p *part) error) error {
	for i, p := range t.parts {
		if err := t.req.stopped(); err != nil {
			return err
		}
		if err := judge(i, p); err != nil {
			return err
		}
	}
	return nil
}

// partSize is the size of a part in Go files of base and head
// (Request.StreamFiles; DefaultPartFiles when it is 0 or negative).
func partSize(req Request) int {
	if req.StreamFiles > 0 {
		return req.StreamFiles
	}
	return DefaultPartFiles
}

// splitTree splits the candidate groups of base and head, in directory
// order, into parts of about size Go files; nil when the tree is not
// larger than two parts. planned maps the import paths of the candidates'
// packages to their parts: a part that imports another's is tied to it
// before that one is scanned.
func splitTree(res *Result, size int) (parts []*part, planned map[string]int, err error) {
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

// fits records what ties part i to the others, and what the Result keeps
// of its models; false when it is tied to another part, or when its
// groups do not say the tree's profile. The whole tree fits.
func (t *tree) fits(i int, p *part, models [2]*model.Model) bool {
	if t.ties == nil {
		return true
	}
	if !t.ties.add(i, models) {
		return false
	}
	for side, m := range models {
		switch {
		case len(m.Groups) == 0 && t.profile == "":
			return false // the tree's profile is not known yet
		case len(m.Groups) == 0:
			m.Profile = t.profile
		case t.profile == "":
			t.profile = m.Profile
		case m.Profile != t.profile:
			return false // the parts' groups say different things
		}
		p.notes[side], p.reasons[side] = m.Notes, m.ProfileReason
		for _, g := range m.Groups {
			p.groups[side] = append(p.groups[side], &model.Group{Dir: g.Dir, Name: g.Name, Profile: g.Profile})
		}
	}
	return true
}

// replan plans the fixes of a part again when its tombstone styles are
// not the whole head revision's: a tombstone's explanation follows the
// styles of the whole tree.
func (t *tree) replan() error {
	for _, p := range t.parts {
		if p.styles.Agrees(t.styles) {
			continue
		}
		models, reuse, err := scanPart(t.res, p.dirs) // scan
		if err != nil {
			return err
		}
		if err := contracts(models, reuse); err != nil { // contract
			return err
		}
		pres := partResult(t.res, models) // diff
		t.hist.NextPart()
		t.hist.Scanned(models[0], models[1])
		t.hist.Aside(func() { planFixes(t.res, t.hist, p, pres.Diff, t.styles) }) // fixes
	}
	return nil
}

// scanPart scans the groups of dirs (all when there are none) at base
// and head, side by side (step "scan"). The fields have no contracts yet
// (step "contract"); reuse is what lets head hold base's equal types
// once they do.
func scanPart(res *Result, dirs []string) (models [2]*model.Model, reuse *scan.Reuse, err error) {
	snaps := []git.Snapshot{res.Base, res.Head}
	// A group head did not change is built once (base's), a file both
	// build is parsed once.
	opts := [2]scan.Options{res.Options.Scan, res.Options.Scan}
	if !res.ConfigTrusted && res.BaseConfig != nil && res.BaseConfig != res.Config {
		// Base's groups keep the profiles base's configuration gives
		// them, so that a profile head's configuration sets shows as a
		// difference (SUPPRESSION_ADDED); the rules judge head's.
		opts[0] = withProfiles(opts[0], res.BaseConfig)
	}
	reuse = scan.NewReuse()
	for i := range opts {
		opts[i].Only = dirs
	}
	opts[0].Record, opts[1].Reuse = reuse, reuse
	// Side by side whatever the number of cores: with a Reuse each scan
	// waits on the other.
	err = par.Together(2, func(i int) error {
		m, err := scan.Build(snaps[i], opts[i])
		if err != nil {
			return fmt.Errorf("scanning %s %s: %w", [2]string{"base", "head"}[i], describe(snaps[i]), err)
		}
		models[i] = m
		return nil
	})
	if err != nil {
		return [2]*model.Model{}, nil, err
	}
	if res.ConfigTrusted {
		trustProfiles(models[0], models[1], res.HeadConfig)
	}
	return models, reuse, nil
}

// contracts computes the wire contract of every field of base and head
// (step "contract"; a group head took from base is base's, computed
// once), then lets head hold base's types wherever they are equal,
// contracts included.
func contracts(models [2]*model.Model, reuse *scan.Reuse) error {
	if err := contract.Normalize(models[0], models[1]); err != nil {
		return err
	}
	reuse.ShareTypes(models[1])
	return nil
}

// partResult is res with a part's models and their diff.
func partResult(res *Result, models [2]*model.Model) *Result {
	pres := *res
	pres.BaseModel, pres.HeadModel = models[0], models[1]
	pres.Diff = model.Compare(models[0], models[1])
	return &pres
}

// diff compares a part's models (step "diff"): the Result of the part,
// with its models and diff. The whole tree's part keeps them.
func (t *tree) diff(p *part, models [2]*model.Model) *Result {
	pres := partResult(t.res, models)
	if t.ties == nil {
		p.models, p.diff = models, pres.Diff
	}
	return pres
}

// analyses hands the release history a part's models and prepares the
// inputs beyond the diff; each runs lazily, when a rule that requires it
// first asks.
func (t *tree) analyses(pres *Result) rules.Analyses {
	t.hist.NextPart()
	t.hist.Scanned(pres.BaseModel, pres.HeadModel)
	return rules.Analyses{
		Release:   t.hist,
		Usages:    usage.NewIn(t.files, t.hist, slices.Collect(pres.Diff.RemovedFields())),
		Shoot:     shoot.NewStages(t.hist),
		Manifests: t.manifests, // read only when a rule asks (a removed version or kind)
		Generated: generatedCode(pres, t.hist.Memo()),
	}
}

// judgeSuppressions is the package's judgeSuppressions on a part, run
// aside (lifecycle.History.Aside): the report names the releases the
// rules used, not those that judging the suppressions reads.
func (t *tree) judgeSuppressions(pres *Result, an rules.Analyses, out *rules.Result, markers *suppress.Result, findings []finding.Finding) (found *rules.Result, err error) {
	t.hist.Aside(func() { found, err = judgeSuppressions(pres, t.req, an, out, markers, findings) })
	return found, err
}

// planFixes plans the fixes of a part's findings (step "fixes") with the
// tombstone styles of the part's head, aside (as judgeSuppressions);
// replan plans them again if the whole head's styles differ.
func (t *tree) planFixes(p *part, pres *Result) {
	p.styles = fix.HouseStyles(pres.HeadModel)
	t.styles.Add(p.styles)
	t.hist.Aside(func() { planFixes(t.res, t.hist, p, pres.Diff, p.styles) })
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
		if cl.external[side] == nil {
			cl.external[side] = map[string]bool{}
		}
		for _, p := range m.External {
			cl.external[side][p.ImportPath] = true
		}
		if len(cl.external[side]) >= scan.MaxExternal {
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

// planFixes plans the fixes of a part's findings on the findings as the
// report has them: sorted, without duplicates.
func planFixes(res *Result, hist *lifecycle.History, p *part, diff *model.Diff, styles *fix.Styles) {
	pr := &finding.Report{Findings: p.findings}
	pr.Finalize()
	for i := range pr.Findings {
		pr.Findings[i].Fixes = nil
	}
	p.findings = pr.Findings
	p.plan = fix.New(fix.Input{Findings: p.findings, Diff: diff, Head: res.Head, History: hist, Styles: styles})
}

// finalize writes the report from the parts' findings and notes (step
// "finalize") and merges their fixes. The Result has the whole tree's
// models and diff when it is the one part; those of a tree judged in
// parts have the groups without their packages, and no diff.
func (t *tree) finalize() {
	res, hist := t.res, t.hist
	hist.Settle()
	hist.Scanned(nil, nil)
	var found []finding.Finding
	var judged, supp []*rules.Result
	unused := map[int]int{}
	plan := t.parts[0].plan
	for i, p := range t.parts {
		found = append(found, p.findings...)
		judged = append(judged, p.judged)
		supp = append(supp, p.suppressions)
		for _, j := range p.unused {
			unused[j]++
		}
		if i > 0 {
			plan.Merge(p.plan)
		}
	}
	if t.ties == nil {
		p := t.parts[0]
		res.BaseModel, res.HeadModel, res.Diff = p.models[0], p.models[1], p.diff
	} else {
		res.BaseModel, res.HeadModel = t.outline(0), t.outline(1)
		res.Parts = len(t.parts)
	}
	report := newReport(res, t.req, &rules.Result{Findings: found, Notes: rules.MergeNotes(judged, res.Options.Rules)})
	report.Releases = releasesUsed(hist)
	report.Notes = append(report.Notes, releaseNotes(hist)...)
	if res.Config != nil {
		for j := range res.Config.Ignore {
			if unused[j] == len(t.parts) { // no part's finding matched it
				report.Notes = append(report.Notes, suppress.UnusedNote(&res.Config.Ignore[j]))
			}
		}
	}
	report.Notes = append(report.Notes, rules.MergeNotes(supp, res.Options.Rules)...)
	report.Finalize()
	res.Report = report
	res.Fixes = plan
}

// outline is the model of one side (0 base, 1 head) of a tree judged in
// parts: the parts' groups without their packages, and their notes.
func (t *tree) outline(side int) *model.Model {
	var notes []string
	var groups []*model.Group
	reason := "" // the first part's with groups: the profile note says what decided it
	for _, p := range t.parts {
		notes = append(notes, p.notes[side]...)
		groups = append(groups, p.groups[side]...)
		if reason == "" && len(p.groups[side]) > 0 {
			reason = p.reasons[side]
		}
	}
	slices.Sort(notes)
	m := &model.Model{Profile: t.profile, ProfileReason: reason, Groups: groups, Notes: slices.Compact(notes)}
	slices.SortFunc(m.Groups, func(a, b *model.Group) int { return strings.Compare(a.Dir, b.Dir) })
	return m
}
