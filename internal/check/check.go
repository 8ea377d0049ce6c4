// Package check is apicheck's pipeline. `apicheck check` runs
//
//	snapshot → config → options → parts → scan → contract → diff → rules → suppress → fixes → supported → finalize
//
// each step a function of the previous steps' output (see run). Step
// "parts" splits the tree into the parts it is judged in: the whole tree,
// one part, unless Request.Stream lets a large tree be judged part by
// part (stream.go). The steps from scan to fixes run once per part; step
// "supported" names the deprecated fields that the Kubernetes versions
// the change drops from the supported versions make removable
// (supported.go), and finalize writes the report from what the parts
// found. The CLI turns
// flags into a Request and a Result into reports and an exit code; it
// knows nothing about the steps.
package check

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/contract"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/glob"
	"github.com/apicheck/apicheck/internal/kal"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/releasenote"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/suppress"
)

// Request is what the user asked for.
type Request struct {
	// Context ends the run early (a signal): every git process is killed
	// with its process group. Nil means context.Background().
	Context context.Context
	// Dir is any directory inside the repository.
	Dir string
	// Base is the base ref; empty means the merge-base of HEAD and the
	// upstream default branch.
	Base string
	// Head is the head ref; empty or git.WorktreeRef means the working tree.
	Head string
	// ConfigPath is a configuration file on disk; empty means
	// .apicheck.yaml of the revision TrustedConfig names (defaults when it
	// has none). A file outside the repository is trusted.
	ConfigPath string
	// TrustedConfig is TrustHead ("" too) or TrustBase: which revision's
	// .apicheck.yaml is in effect when ConfigPath is empty.
	TrustedConfig string
	// Version is apicheck's version for the report.
	Version string
	// Rules is the catalogue (nil: catalog.All()).
	Rules []*rules.Rule
	// Lifecycle holds the lifecycle settings that do not come from the
	// configuration file (cache directory, type information); the file's
	// release and Shoot settings are applied on top.
	Lifecycle lifecycle.Options
	// History makes Audit judge the revision against its release history
	// too (the rules with AuditHistory, e.g. protobuf numbers that an
	// earlier release gave a different field).
	History bool
	// Stream lets Run judge a large tree part by part (see planParts), which
	// bounds its memory by a part's models; the Result then has no Diff
	// and models without packages. Release notes need the whole diff.
	Stream bool
	// StreamFiles is the size of a part in Go files of base and head
	// (0: DefaultPartFiles; negative: never in parts).
	StreamFiles int
	// GCPercent, when positive, is the garbage collector's percentage
	// (debug.SetGCPercent) that Run sets, for the rest of the process,
	// when the tree is small for sure (at most two parts' worth of API
	// Go files over both revisions, see StreamFiles, by the bound
	// smallTree reads off the file lists): a short-lived command trades
	// some memory for fewer collections. A large tree keeps the
	// runtime's setting, so its peak memory stays bounded. 0 leaves it
	// alone (tests, and a GOGC set by the user).
	GCPercent int
	// HeapLimit, when positive, is the least soft memory limit under which
	// Run judges a tree that is not small for sure (the complement of
	// GCPercent's trees), for the rest of the process: 1.5 times the live
	// heap of the last collection, at least HeapLimit bytes, set again
	// after every collection (heapLimit). 0 leaves the runtime's setting
	// alone (tests, and a GOGC or GOMEMLIMIT set by the user).
	HeapLimit int64
	// ReleaseNote is the pull request's release note (check
	// --release-note); nil when none was given.
	ReleaseNote *releasenote.Note
	// ModCache is the module cache directory the scans read types of
	// other modules from (never write to); "" is the go command's.
	ModCache string
	// Reads, when set, records the objects the run reads from git's
	// object store (git.Repo.LogReads): the floor of the benchmarks
	// reads them again.
	Reads *git.ReadLog
}

func (q Request) ctx() context.Context {
	if q.Context != nil {
		return q.Context
	}
	return context.Background()
}

// stopped is the error of a run whose context is done (nil while it is
// not): it wraps the context's error. A step that an interruption cut
// short may have made a note or a changed finding of its failure, so a
// run that was interrupted at any point returns this error and no result.
func (q Request) stopped() error {
	if err := q.ctx().Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return nil
}

// finish ends Run and Audit: err, or the interruption when the context is
// done (err then wraps the context's error too), or the result. A failed
// or interrupted run closes what it opened.
func finish(req Request, res, out *Result, err error) (*Result, error) {
	if stop := req.stopped(); stop != nil && !rules.Interrupted(err) {
		err = stop
	}
	if res.Repo != nil {
		res.Repo.SaveTreeMemo()
	}
	res.Options.Scan.Memo.Wait()
	if err != nil {
		res.Close()
		return nil, err
	}
	return out, nil
}

// openRepo opens the repository of the request; a failure is a usage error.
func openRepo(req Request) (*git.Repo, error) {
	repo, err := git.OpenContext(req.ctx(), req.Dir)
	if err != nil {
		return nil, &UsageError{err}
	}
	repo.UseTreeMemo(lifecycle.TreeMemoPath(req.Lifecycle.CacheDir, repo.Root))
	if req.Reads != nil {
		repo.LogReads(req.Reads)
	}
	return repo, nil
}

// scanMemo is the memo of scanned commits (scan.Memo) in the cache the
// request names; nil when there is no cache.
func scanMemo(req Request, repo *git.Repo) *scan.Memo {
	return scan.NewMemo(lifecycle.ScanMemoDir(req.Lifecycle.CacheDir, repo.Root))
}

func (q Request) catalogue() []*rules.Rule {
	if q.Rules != nil {
		return q.Rules
	}
	return catalog.All()
}

// Options are the settings of one run, derived from the request and the
// configuration (step "options").
type Options struct {
	Scan      scan.Options
	Rules     []*rules.Rule
	Engine    rules.Options
	Lifecycle lifecycle.Options
}

// Result is everything a run produced.
type Result struct {
	Repo *git.Repo
	// BaseLabel describes a base that apicheck chose (no --base given).
	BaseLabel string
	// DefaultBase is how apicheck chose the base (nil with --base).
	DefaultBase *git.Base
	Base, Head  git.Snapshot
	// Config is the configuration in effect.
	Config *config.Config
	// ConfigTrusted is set when Config does not come from the change (the
	// base revision, or a file outside the repository); ConfigSource then
	// says where it comes from.
	ConfigTrusted bool
	ConfigSource  string
	// BaseConfig and HeadConfig are the repository's configuration at the
	// two revisions, which SUPPRESSION_ADDED compares. HeadConfig is nil
	// when head's is not valid and not in effect.
	BaseConfig, HeadConfig *config.Config
	Options                Options
	// BaseModel and HeadModel are the scanned revisions; Diff compares
	// them. A tree judged in parts (Request.Stream) has models with the
	// groups but not their packages, and no Diff.
	BaseModel *model.Model
	HeadModel *model.Model
	Diff      *model.Diff
	Report    *finding.Report

	// Parts is the number of parts the tree was judged in (0: whole; see
	// Request.Stream).
	Parts int

	// candidates bounds the API Go files of base and head from above
	// (scan.CandidateFilesAtMost), once counted.
	candidates int
	counted    bool

	// Fixes are the safe fixes of the report's findings (set on the
	// findings too); `apicheck fix` applies them. Nil for audit.
	Fixes *fix.Plan

	configNotes []string // statements about the configurations read
	// supportedNotes name the deprecated fields that the Kubernetes
	// versions the change drops from the supported versions make
	// removable (supportedNotes).
	supportedNotes []string
	// linter is the kube-api-linter configuration of the trusted
	// revision (readLinter), for the engine's options.
	linter *kal.Config
}

// Close releases the snapshots.
func (r *Result) Close() {
	if r.Base != nil {
		r.Base.Close()
	}
	if r.Head != nil {
		r.Head.Close()
	}
}

// UsageError marks errors caused by what the user asked for (unknown
// ref, not a repository, a bad configuration): the CLI exits 2 for those.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Run is `apicheck check`: it compares two revisions and judges the diff.
//
// A run whose Request.Context is done, however far it got, returns an
// error wrapping the context's error and no Result.
func Run(req Request) (*Result, error) {
	res := &Result{}
	out, err := run(res, req)
	return finish(req, res, out, err)
}

// run is `apicheck check`'s pipeline: the steps of the package doc, in
// their order, the steps from scan to fixes once per part of the tree.
func run(res *Result, req Request) (*Result, error) {
	if err := openSnapshots(res, req); err != nil { // snapshot
		return nil, err
	}
	if err := loadConfigs(res, req); err != nil { // config
		return nil, err
	}
	if err := req.stopped(); err != nil {
		return nil, err
	}
	res.Options = OptionsFor(res.Config, req) // options
	res.Options.Engine.Linter = res.linter    // the trusted revision's kube-api-linter configuration
	res.Options.Scan.Memo = scanMemo(req, res.Repo)
	setCollector(res, req)
	hist := releaseHistory(res)
	defer hist.Close()
	t, err := planParts(res, req, hist) // parts
	if err != nil {
		return nil, err
	}
	err = t.each(func(i int, p *part) error {
		models, reuse, err := scanPart(res, p.dirs) // scan
		if err != nil {
			return err
		}
		if !t.fits(i, p, models) {
			return errTied
		}
		if err := contracts(models, reuse); err != nil { // contract
			return err
		}
		pres := t.diff(p, models) // diff
		an := t.analyses(pres)
		defer an.Usages.Close()
		out, err := judge(pres, an) // rules
		if err != nil {
			return err
		}
		rep := &finding.Report{Findings: out.Findings}
		markers, err := suppressFindings(pres, rep) // suppress
		if err != nil {
			return err
		}
		found, err := t.judgeSuppressions(pres, an, out, markers, rep.Findings) // rules about suppressions
		if err != nil {
			return err
		}
		p.findings = append(rep.Findings, found.Findings...)
		p.judged, p.suppressions, p.unused = out, found, markers.Unused
		t.planFixes(p, pres) // fixes
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := t.replan(); err != nil { // fixes, with the tombstone styles of the whole head
		return nil, err
	}
	if res.supportedNotes, err = supportedNotes(res, req); err != nil { // supported
		return nil, err
	}
	t.finalize() // finalize
	if err := req.stopped(); err != nil {
		return nil, err
	}
	return res, nil
}

// releaseHistory prepares the release history of the comparison. It
// needs the commits and tags, not the models: it is found while the
// revisions are scanned.
func releaseHistory(res *Result) *lifecycle.History {
	hist := lifecycle.NewHistory(lifecycle.Input{
		Repo: res.Repo, Base: res.Base, Head: res.Head,
		Scan: res.Options.Scan, Options: res.Options.Lifecycle,
	})
	if res.Base.Commit() != res.Head.Commit() {
		hist.ReleaseAhead()
	}
	return hist
}

// smallTree reports a tree that is small for sure: at most 2 x size API
// Go files over base and head (over the one revision an audit reads), by
// a bound read off the file lists only: scan.CandidateFilesAtMost for
// discovered groups, configuredFilesAtMost for configured ones.
func (res *Result) smallTree(size int) bool {
	if !res.counted {
		for _, snap := range []git.Snapshot{res.Base, res.Head} {
			switch {
			case snap == nil: // audit reads one revision
			case len(res.Options.Scan.Groups) > 0:
				res.candidates += configuredFilesAtMost(snap, res.Options.Scan.Groups)
			default:
				files, _ := git.Select(snap, scan.Selection) // opened: selected without error
				res.candidates += scan.CandidateFilesAtMost(files)
			}
		}
		res.counted = true
	}
	return res.candidates <= 2*size
}

// configuredFilesAtMost bounds from above the Go files a scan reads of
// configured groups: every .go file below a group's directory or one of
// its version directories (the whole tree when one cannot be listed).
func configuredFilesAtMost(snap git.Snapshot, groups []scan.GroupSpec) int {
	seen := map[string]bool{}
	for _, g := range groups {
		for _, d := range append([]string{g.Dir}, g.Versions...) {
			files, err := git.FilesUnder(snap, strings.TrimSuffix(d, "/"))
			if err != nil {
				return math.MaxInt / 4 // unknown: not small
			}
			for _, f := range files {
				if strings.HasSuffix(f, ".go") {
					seen[f] = true
				}
			}
		}
	}
	return len(seen)
}

// releasesUsed names the releases the rules judged against, if any.
func releasesUsed(h *lifecycle.History) *finding.Releases {
	rel, ok := h.Used()
	if !ok {
		return nil
	}
	ref := func(t git.Tag) *finding.Release {
		r := &finding.Release{Tag: t.Name, Commit: t.Commit}
		if !t.Date.IsZero() {
			r.Date = t.Date.Format(time.DateOnly)
		}
		return r
	}
	out := &finding.Releases{NewestBeforeBase: ref(rel.Newest)}
	if rel.Head.Name != rel.Newest.Name {
		out.NewestBeforeHead = ref(rel.Head)
	}
	return out
}

// releaseNotes say what the release history the rules used left out.
func releaseNotes(h *lifecycle.History) []string {
	if rel, ok := h.Used(); ok && rel.Note != "" {
		return []string{rel.Note}
	}
	return nil
}

// Audit is `apicheck audit`: the single-revision invariants (rules with
// Audit set) over every struct of one revision (req.Head), judged against
// an empty base so that existing violations are reported too. It runs
// snapshot → config → options → scan → contract → diff → rules →
// suppress → finalize on the one revision, the whole tree, with the
// steps of check that a revision on its own has.
//
// An interrupted audit returns an error and no Result, as Run does.
func Audit(req Request) (*Result, error) {
	res := &Result{BaseLabel: "(none: audit of one revision)"}
	out, err := audit(res, req)
	return finish(req, res, out, err)
}

func audit(res *Result, req Request) (_ *Result, err error) {
	if res.Repo, err = openRepo(req); err != nil { // snapshot
		return nil, err
	}
	if res.Head, err = snapshot(res.Repo, headRef(req)); err != nil {
		return nil, refError(res.Repo, err)
	}
	if err = git.SelectAll(scan.Selection, res.Head); err != nil {
		return nil, err
	}
	if res.Config, err = LoadConfig(res.Head, req.ConfigPath, req.catalogue()); err != nil { // config
		return nil, err
	}
	res.Options = OptionsFor(res.Config, req) // options
	res.Options.Scan.Memo = scanMemo(req, res.Repo)
	setCollector(res, req)
	for _, r := range res.Options.Rules {
		if !r.Audit && !(req.History && r.AuditHistory) {
			res.Options.Engine.Disabled[r.ID] = true
		}
	}
	if res.HeadModel, err = scan.Build(res.Head, res.Options.Scan); err != nil { // scan
		return nil, fmt.Errorf("scanning %s: %w", describe(res.Head), err)
	}
	if err := contract.Normalize(res.HeadModel); err != nil { // contract
		return nil, err
	}
	if err := req.stopped(); err != nil {
		return nil, err
	}
	res.BaseModel = &model.Model{}
	res.Diff = model.Compare(res.BaseModel, res.HeadModel) // diff
	an := rules.Analyses{Audit: true, Unavailable: "audit reads one revision"}
	if req.History {
		// The releases before the audited revision: base and head are
		// both the revision, base's model is empty (every field is new).
		an.Release = lifecycle.NewHistory(lifecycle.Input{
			Repo: res.Repo, Base: res.Head, Head: res.Head,
			BaseModel: res.BaseModel, HeadModel: res.HeadModel,
			Scan: res.Options.Scan, Options: res.Options.Lifecycle,
		})
		an.Unavailable = "audit reads one revision and its release tags"
		defer an.Release.Close()
	}
	out, err := judge(res, an) // rules
	if err != nil {
		return nil, err
	}
	report := newReport(res, req, out)
	report.Releases = releasesUsed(an.Release)
	report.Notes = append(report.Notes, releaseNotes(an.Release)...)
	if _, err := suppressFindings(res, report); err != nil { // suppress
		return nil, err
	}
	report.Finalize() // finalize
	res.Report = report
	if err := req.stopped(); err != nil {
		return nil, err
	}
	return res, nil
}

// Dump is `apicheck dump`: the scanned model of one revision, with the
// groups of that revision's configuration.
func Dump(req Request) (*model.Model, error) {
	repo, err := openRepo(req)
	if err != nil {
		return nil, err
	}
	snap, err := repo.Snapshot(headRef(req))
	if err != nil {
		return nil, refError(repo, err)
	}
	defer snap.Close()
	cfg, err := LoadConfig(snap, req.ConfigPath, req.catalogue())
	if err != nil {
		return nil, err
	}
	m, err := scan.Scan(snap, OptionsFor(cfg, req).Scan)
	if err != nil {
		return nil, fmt.Errorf("scanning %s: %w", describe(snap), err)
	}
	if err := req.stopped(); err != nil {
		return nil, err
	}
	return m, nil
}

func headRef(req Request) string {
	if req.Head == "" {
		return git.WorktreeRef
	}
	return req.Head
}

// openSnapshots resolves the two revisions (step "snapshot").
func openSnapshots(res *Result, req Request) error {
	repo, err := openRepo(req)
	if err != nil {
		return err
	}
	res.Repo = repo
	baseRef := req.Base
	if baseRef == "" {
		b, err := repo.DefaultBase()
		if err != nil {
			return &UsageError{err}
		}
		baseRef = b.Commit
		res.DefaultBase = b
		res.BaseLabel = "merge-base of HEAD and " + b.Upstream
	}
	// Both revisions at once: listing a large tree is most of the cost.
	refs := []string{baseRef, headRef(req)}
	var snaps [2]git.Snapshot
	var errs [2]error
	err = par.Do(2, func(i int) error {
		snaps[i], errs[i] = snapshot(repo, refs[i])
		return nil
	})
	for _, e := range errs { // base's error first, as when they were opened in turn
		if err == nil && e != nil {
			err = refError(repo, e)
		}
	}
	if err == nil {
		// What the scans read of the file lists, for both revisions in one
		// walk of their trees (the directories they share once).
		err = git.SelectAll(scan.Selection, snaps[0], snaps[1])
	}
	if err != nil { // a failure, or a panic
		for _, s := range snaps {
			if s != nil {
				s.Close()
			}
		}
		return err
	}
	res.Base, res.Head = snaps[0], snaps[1]
	return nil
}

// staleBaseNote says that the chosen base is far behind the freshest
// default branch of the remotes ("" when it is not, or --base was given).
func staleBaseNote(b *git.Base) string {
	if b == nil || b.Fresher == nil {
		return ""
	}
	how := plural(b.Behind, "commit")
	if days := int(b.Older.Hours() / 24); days > 0 {
		how += " and " + plural(days, "day")
	}
	fresh := b.Fresher.Short()
	return fmt.Sprintf("the base %s is %s behind %s, the freshest default branch among the remotes: "+
		"what changed there since (a protobuf number taken, a field removed) is not taken into account; "+
		"rebase onto %s or pass --base %s", short(b.Commit), how, fresh, fresh, fresh)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// snapshot opens a revision; on failure the snapshot is a nil interface
// (never a typed nil that Close would dereference).
func snapshot(repo *git.Repo, ref string) (git.Snapshot, error) {
	s, err := repo.Snapshot(ref)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// refError makes an unknown revision a usage error, with hints: a
// remote-tracking branch of that name, a shallow clone, the git fetch
// that brings it.
func refError(repo *git.Repo, err error) error {
	var u *git.UnknownRefError
	if errors.As(err, &u) {
		if u.Err == nil && len(u.Hints) == 0 {
			u.Hints = repo.RefHints(u.Ref)
		}
		return &UsageError{err}
	}
	return err
}

// withProfiles is o with the repository and group profiles of cfg.
func withProfiles(o scan.Options, cfg *config.Config) scan.Options {
	o.Profile = model.Profile(cfg.Profile)
	o.Groups = slices.Clone(o.Groups)
	for i := range o.Groups {
		o.Groups[i].Profile = ""
		for _, g := range cfg.Groups {
			if g.Dir == o.Groups[i].Dir {
				o.Groups[i].Profile = model.Profile(g.Profile)
			}
		}
	}
	return o
}

// trustProfiles judges head under the profiles base was detected with,
// for a run whose configuration the change does not control: a change
// that edits go.mod's module path, adds a kubebuilder PROJECT file or
// removes generated.proto would otherwise choose a laxer profile for
// itself. A group of both revisions takes base's group profile; a group
// new at head that took head's repository profile takes base's. The
// profile head's own detection gave stays in UntrustedProfile, for
// SUPPRESSION_ADDED, as does a profile head's own configuration (headCfg,
// not in effect; nil when it is not valid) would set.
func trustProfiles(base, head *model.Model, headCfg *config.Config) {
	if base == nil || head == nil || len(base.Groups) == 0 || base.Profile == "" {
		return
	}
	own := head.Profile
	head.Profile = base.Profile
	byDir := map[string]*model.Group{}
	for _, g := range base.Groups {
		byDir[g.Dir] = g
	}
	for _, g := range head.Groups {
		want := g.Profile
		if b := byDir[g.Dir]; b != nil {
			want = b.Profile
		} else if g.Profile == own {
			want = base.Profile
		}
		if p := configuredProfile(headCfg, g.Dir); p != "" {
			g.UntrustedProfile = p
		}
		if want != g.Profile {
			if g.UntrustedProfile == "" {
				g.UntrustedProfile = g.Profile
			}
			g.Profile = want
		}
		if g.UntrustedProfile == g.Profile {
			g.UntrustedProfile = ""
		}
	}
}

// configuredProfile is the profile cfg sets for the group in dir: its
// entry's, else the repository's; "" when it sets none.
func configuredProfile(cfg *config.Config, dir string) model.Profile {
	if cfg == nil {
		return ""
	}
	for _, g := range cfg.Groups {
		if g.Dir == dir && g.Profile != "" {
			return model.Profile(g.Profile)
		}
	}
	return model.Profile(cfg.Profile)
}

// judge runs the rules (step "rules"), all but those that judge the
// suppressions (judgeSuppressions runs them once suppressions are
// applied).
func judge(res *Result, an rules.Analyses) (*rules.Result, error) {
	eng := res.Options.Engine
	eng.Analyses = an
	eng.Disabled = maps.Clone(eng.Disabled)
	for _, r := range res.Options.Rules {
		if r.Needs(rules.InputSuppressions) {
			eng.Disabled[r.ID] = true
		}
	}
	return rules.Run(res.Diff, res.Options.Rules, eng)
}

// judgeSuppressions runs the rules about suppressions: it compares the
// suppressions of base and head (configuration and markers), finds what
// each added one hides among the findings, and returns the rules'
// findings and notes. Their own settings and ignore entries come from a
// configuration the change does not control: the trusted one, else
// base's.
func judgeSuppressions(res *Result, req Request, an rules.Analyses, out *rules.Result, markers *suppress.Result, findings []finding.Finding) (*rules.Result, error) {
	trusted := res.BaseConfig
	if res.ConfigTrusted {
		trusted = res.Config
	}
	disabled := trusted.DisabledRules()
	var rs []*rules.Rule
	for _, r := range res.Options.Rules {
		if r.Needs(rules.InputSuppressions) && !disabled[r.ID] {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return &rules.Result{}, nil
	}
	cmp := suppress.Comparison{
		Base: res.BaseConfig, Head: res.HeadConfig, HeadInEffect: res.HeadConfig != nil && res.HeadConfig == res.Config,
		BaseMarkers: markers.Base, HeadMarkers: markers.Head, MarkersInEffect: !res.ConfigTrusted,
		Findings: findings, Original: out.Original, Severity: map[string]finding.Severity{},
	}
	if res.ConfigTrusted {
		cmp.Trusted = res.Config
	}
	for _, r := range res.Options.Rules {
		cmp.Severity[r.ID] = r.Severity
	}
	cmp.InvalidMarkers = markers.Invalid
	if cmp.HeadInEffect {
		// Rules the change disabled did not run: run them for what they hide.
		var err error
		if cmp.Disabled, err = disabledFindings(res, an); err != nil {
			return nil, err
		}
	}
	var err error
	if cmp.Profiles, err = profileChanges(res, an, out.Findings); err != nil {
		return nil, err
	}
	if cmp.SkewStrict, cmp.SkewLax, err = skewFindings(res, an, out.Findings); err != nil {
		return nil, err
	}
	if res.HeadConfig != nil && discoveryChanged(res.BaseConfig, res.HeadConfig) {
		old, err := scan.Discover(res.Head, OptionsFor(res.BaseConfig, req).Scan)
		if err != nil {
			return nil, fmt.Errorf("scanning head with base's configuration: %w", err)
		}
		cur, err := scan.Discover(res.Head, OptionsFor(res.HeadConfig, req).Scan)
		if err != nil {
			return nil, fmt.Errorf("scanning head: %w", err)
		}
		cmp.OldGroups, cmp.NewGroups = old, cur
	}
	why := ""
	if res.ConfigTrusted {
		why = "the configuration is read from " + res.ConfigSource
	}
	eng := rules.Options{
		Disabled: map[string]bool{},
		Severity: map[string]finding.Severity{},
		Analyses: rules.Analyses{Suppressions: &rules.Suppressions{Added: suppress.Added(cmp), NotInEffect: why}, ReleaseNote: releaseNoteInput(res, req, findings)},
		Context:  res.Options.Engine.Context,
	}
	for id, name := range trusted.SeverityOverrides() {
		if sev, err := finding.ParseSeverity(name); err == nil {
			eng.Severity[id] = sev
		}
	}
	found, err := rules.Run(res.Diff, rs, eng)
	if err != nil {
		return nil, err
	}
	for i := range found.Findings {
		f := &found.Findings[i]
		for j := range trusted.Ignore {
			if suppress.Matches(&trusted.Ignore[j], f) {
				f.Suppressed = trusted.Ignore[j].Reason
				break
			}
		}
	}
	return found, nil
}

// rerun runs the rules other than those about suppressions again, with
// the engine options edit makes of the run's, and returns their findings.
func rerun(res *Result, an rules.Analyses, edit func(*rules.Options)) ([]finding.Finding, error) {
	eng := res.Options.Engine
	eng.Analyses = an
	eng.Disabled = maps.Clone(eng.Disabled)
	for _, r := range res.Options.Rules {
		if r.Needs(rules.InputSuppressions) {
			eng.Disabled[r.ID] = true
		}
	}
	eng.Severity = maps.Clone(eng.Severity)
	if edit != nil {
		edit(&eng)
	}
	out, err := rules.Run(res.Diff, res.Options.Rules, eng)
	if err != nil {
		return nil, err
	}
	return out.Findings, nil
}

// profileChanges finds the groups whose profile differs between base and
// head (head's configuration sets another, or head's own detection gives
// another) and judges them under the other side's profile too, for what
// the difference lowers. In a run whose configuration is trusted, head's
// groups are judged under base's profiles (trustProfiles) and the run
// under head's says what the change would lower.
func profileChanges(res *Result, an rules.Analyses, findings []finding.Finding) ([]suppress.ProfileChange, error) {
	type key struct {
		from, to model.Profile
		inEffect bool
	}
	var keys []key
	byKey := map[key]*suppress.ProfileChange{}
	type swap struct {
		g        *model.Group
		old, tmp model.Profile
	}
	var swaps []swap
	for _, gd := range res.Diff.Groups {
		if gd.Base == nil || gd.Head == nil {
			continue
		}
		from, to, inEffect := gd.Base.Profile, gd.Head.Profile, true
		if gd.Head.UntrustedProfile != "" {
			to, inEffect = gd.Head.UntrustedProfile, false
		}
		if from == to {
			continue
		}
		k := key{from, to, inEffect}
		pc := byKey[k]
		if pc == nil {
			pc = &suppress.ProfileChange{From: from, To: to, InEffect: inEffect}
			pc.Pos, pc.Configured = profilePos(res, gd.Head)
			byKey[k] = pc
			keys = append(keys, k)
		}
		pc.Groups = append(pc.Groups, gd.Head.Dir)
		other := from
		if !inEffect {
			other = to
		}
		swaps = append(swaps, swap{gd.Head, gd.Head.Profile, other})
	}
	if len(keys) == 0 {
		return nil, nil
	}
	for _, s := range swaps {
		s.g.Profile = s.tmp
	}
	other, err := rerun(res, an, nil)
	for _, s := range swaps {
		s.g.Profile = s.old
	}
	if err != nil {
		return nil, err
	}
	var out []suppress.ProfileChange
	for _, k := range keys {
		pc := byKey[k]
		slices.Sort(pc.Groups)
		if k.inEffect {
			pc.Strict, pc.Lax = other, findings
		} else {
			pc.Strict, pc.Lax = findings, other
		}
		out = append(out, *pc)
	}
	return out, nil
}

// profilePos is where head sets a group's profile: the group's entry or
// the profile key of head's configuration, else (detection) the group's
// first file at head.
func profilePos(res *Result, g *model.Group) (model.Pos, bool) {
	if h := res.HeadConfig; h != nil && configuredProfile(h, g.Dir) != configuredProfile(res.BaseConfig, g.Dir) {
		for _, cg := range h.Groups {
			if cg.Dir == g.Dir && cg.Profile != "" {
				return model.Pos{File: cg.Pos.File, Line: cg.Pos.Line, Col: cg.Pos.Col}, true
			}
		}
		if h.Profile != "" {
			return model.Pos{File: h.ProfilePos.File, Line: h.ProfilePos.Line, Col: h.ProfilePos.Col}, true
		}
	}
	for _, p := range g.Packages() {
		if len(p.Files) > 0 {
			return model.Pos{File: p.Files[0], Line: 1, Col: 1}, false
		}
	}
	return model.Pos{File: g.Dir}, false
}

// skewFindings judges VERSION_SKEW under base's versionSkew policy when
// head's configuration sets "newest" and base's does not: strict is what
// base's policy finds, lax what head's does (one of them is the run's).
func skewFindings(res *Result, an rules.Analyses, findings []finding.Finding) (strict, lax []finding.Finding, err error) {
	if res.HeadConfig == nil || res.HeadConfig.VersionSkew != "newest" || res.BaseConfig.VersionSkew == "newest" {
		return nil, nil, nil
	}
	only := func(policy string) func(*rules.Options) {
		return func(o *rules.Options) {
			o.VersionSkew = policy
			for _, r := range res.Options.Rules {
				if r.ID != rules.VersionSkew.ID {
					o.Disabled[r.ID] = true
				}
			}
		}
	}
	mine := func(fs []finding.Finding) []finding.Finding {
		return slices.DeleteFunc(slices.Clone(fs), func(f finding.Finding) bool { return f.Rule != rules.VersionSkew.ID })
	}
	if res.HeadConfig == res.Config { // head's policy is the run's
		strict, err = rerun(res, an, only(res.BaseConfig.VersionSkew))
		return strict, mine(findings), err
	}
	lax, err = rerun(res, an, only(res.HeadConfig.VersionSkew))
	return mine(findings), lax, err
}

// disabledFindings runs the rules that the configuration in effect
// disables and base's did not, and returns their findings.
func disabledFindings(res *Result, an rules.Analyses) ([]finding.Finding, error) {
	before := res.BaseConfig.DisabledRules()
	now := res.Options.Engine.Disabled
	eng := rules.Options{Disabled: map[string]bool{}, Analyses: an, VersionSkew: res.Options.Engine.VersionSkew, Linter: res.Options.Engine.Linter, Context: res.Options.Engine.Context}
	some := false
	for _, r := range res.Options.Rules {
		if now[r.ID] && !before[r.ID] && !r.Needs(rules.InputSuppressions) {
			some = true
			continue
		}
		eng.Disabled[r.ID] = true
	}
	if !some {
		return nil, nil
	}
	out, err := rules.Run(res.Diff, res.Options.Rules, eng)
	if err != nil {
		return nil, err
	}
	return out.Findings, nil
}

// discoveryChanged reports whether two configurations may discover
// different API groups.
func discoveryChanged(a, b *config.Config) bool {
	if len(a.Exclude) != len(b.Exclude) || len(a.Groups) != len(b.Groups) {
		return true
	}
	for i := range a.Exclude {
		if a.Exclude[i].Pattern != b.Exclude[i].Pattern {
			return true
		}
	}
	for i := range a.Groups {
		if a.Groups[i].Dir != b.Groups[i].Dir || !slices.Equal(a.Groups[i].Versions, b.Groups[i].Versions) {
			return true
		}
	}
	return false
}

func newReport(res *Result, req Request, out *rules.Result) *finding.Report {
	base := finding.Rev{Ref: res.BaseLabel}
	if res.Base != nil {
		base.Commit = res.Base.Commit()
		if res.BaseLabel == "" {
			base.Ref = res.Base.Ref()
		}
	}
	if res.DefaultBase != nil {
		base.Reason = res.DefaultBase.Why
	}
	r := &finding.Report{
		Tool:     finding.Tool{Name: "apicheck", Version: req.Version},
		Base:     base,
		Head:     finding.Rev{Ref: res.Head.Ref(), Commit: res.Head.Commit()},
		Findings: out.Findings,
		Notes:    out.Notes,
		Rules:    rules.Docs(req.catalogue()),
	}
	r.ReleaseNote = releaseNoteOf(req.ReleaseNote)
	if n := base.ChoiceNote(); n != "" {
		r.Notes = append(r.Notes, n)
	}
	if n := staleBaseNote(res.DefaultBase); n != "" {
		r.Notes = append(r.Notes, n)
	}
	r.Notes = append(r.Notes, snapshotNotes(res.Base, res.Head)...)
	r.Notes = append(r.Notes, scanNotes(res.BaseModel, res.HeadModel)...)
	r.Notes = append(r.Notes, res.configNotes...)
	r.Notes = append(r.Notes, res.supportedNotes...)
	if n := profileNote(res); n != "" {
		r.Notes = append(r.Notes, n)
	}
	r.Notes = append(r.Notes, excludeNotes(res)...)
	if len(res.HeadModel.Groups) == 0 && len(res.BaseModel.Groups) == 0 {
		r.Notes = append(r.Notes, "no API groups found (a directory with version sub-packages such as v1beta1 that declare +groupName or SchemeGroupVersion); list them in .apicheck.yaml if discovery misses them")
	}
	return r
}

// scanNotes are the scanner's notes about head, and those about base
// that head does not repeat.
func scanNotes(base, head *model.Model) []string {
	var out []string
	if head != nil {
		out = append(out, head.Notes...)
	}
	if base != nil {
		for _, n := range base.Notes {
			if head == nil || !slices.Contains(head.Notes, n) {
				out = append(out, n+" (at base)")
			}
		}
	}
	return out
}

// suppressFindings applies the configuration's ignore entries and the
// inline markers of head (step "suppress"). With a trusted configuration,
// only the markers base already had suppress.
func suppressFindings(res *Result, r *finding.Report) (*suppress.Result, error) {
	out, err := suppress.Apply(r.Findings, suppress.Options{
		Config: res.Config, Head: res.HeadModel, Base: res.BaseModel,
		RuleIDs: ruleIDs(res.Options.Rules), BaseMarkersOnly: res.ConfigTrusted,
	})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	r.Notes = append(r.Notes, out.Notes...)
	return out, nil
}

func describe(s git.Snapshot) string {
	if s.Commit() != "" && s.Ref() != s.Commit() {
		return fmt.Sprintf("%s (%s)", s.Ref(), short(s.Commit()))
	}
	return s.Ref()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// profileNote says which profile judged the change: the repository's
// (configured or detected) and the groups that differ from it.
func profileNote(res *Result) string {
	m := res.HeadModel
	if m == nil || len(m.Groups) == 0 {
		m = res.BaseModel
	}
	if m == nil || m.Profile == "" || len(m.Groups) == 0 {
		return ""
	}
	how := "detected; set profile in .apicheck.yaml to choose another"
	if res.Config != nil && res.Config.Profile != "" {
		how = "configured"
	} else if m.ProfileReason != "" {
		// What decided it: "detected; CRD manifests in config/crd/bases
		// serve the kinds; set profile ...".
		how = "detected; " + m.ProfileReason + "; set profile in .apicheck.yaml to choose another"
	}
	note := fmt.Sprintf("profile %s (%s)", m.Profile, how)
	var other []string
	for _, g := range m.Groups {
		if g.Profile != m.Profile {
			other = append(other, g.Dir+": "+string(g.Profile))
		}
	}
	if len(other) > 0 {
		note += "; groups with their own profile: " + strings.Join(other, ", ")
	}
	var untrusted []string
	for _, g := range m.Groups {
		if g.UntrustedProfile != "" {
			untrusted = append(untrusted, g.Dir+": "+string(g.UntrustedProfile))
		}
	}
	if len(untrusted) > 0 {
		note += "; judged under base's profiles (" + res.ConfigSource + "), not head's own (" + strings.Join(untrusted, ", ") + ")"
	}
	return note
}

// excludeNotes name the exclude patterns of the configuration that match
// no directory of head (a typo, or a directory that is gone).
func excludeNotes(res *Result) []string {
	if res.Config == nil || len(res.Config.Exclude) == 0 || res.Head == nil {
		return nil
	}
	dirs := map[string]bool{}
	for _, f := range res.Head.Files() {
		for d := path.Dir(f); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var notes []string
	for _, g := range res.Config.Exclude {
		matched := false
		for d := range dirs {
			if glob.Match(g.Pattern, d) {
				matched = true
				break
			}
		}
		if !matched {
			notes = append(notes, fmt.Sprintf("exclude pattern %q (%s:%d) matches no directory; remove or fix it", g.Pattern, g.Pos.File, g.Pos.Line))
		}
	}
	return notes
}
