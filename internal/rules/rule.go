// Package rules holds the rule catalogue and the engine that runs it.
//
// A rule is plain data (ID, category, default severity, documentation)
// plus one Check function. Rules never pair elements themselves: the diff
// (model.Compare) hands them matched (base, head) pairs, and the engine
// stamps rule ID, severity and position, applies profiles and sorts.
package rules

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// Category groups rules as rules.md does.
type Category string

const (
	CatNewFields Category = "new-fields"
	CatProtobuf  Category = "protobuf"
	CatRemoval   Category = "removal"
	CatCompat    Category = "compatibility"
	CatVersions  Category = "versions"
	CatLifecycle Category = "lifecycle"
	CatShoot     Category = "shoot-deprecation"
	CatMeta      Category = "meta"
)

// Title is the category's section title in docs/rules.md.
func (c Category) Title() string {
	switch c {
	case CatNewFields:
		return "New fields"
	case CatProtobuf:
		return "Protobuf numbers"
	case CatRemoval:
		return "Removal and tombstones"
	case CatCompat:
		return "Wire and source compatibility of existing fields"
	case CatVersions:
		return "Versions of one group"
	case CatLifecycle:
		return "Lifecycle across releases"
	case CatShoot:
		return "Shoot deprecation stages"
	case CatMeta:
		return "Meta"
	case "":
		return "Other"
	}
	return string(c)
}

// Rule is one entry of the catalogue. Everything apicheck knows about a
// rule is a field here: the engine, `apicheck rules`, SARIF, docs/rules.md,
// `apicheck audit` and the release-note stubs all read these fields, so a
// new rule is one value of this type plus its entry in catalog.All.
type Rule struct {
	ID       string
	Category Category
	// Severity is the default severity.
	Severity finding.Severity
	// Relax caps the severity of the rule's findings in groups of a
	// profile (docs/profiles.md): a finding in a group of profile p has at
	// most severity Relax[p]; Off turns the rule off there. Profiles not
	// listed keep Severity.
	Relax map[model.Profile]finding.Severity
	// Alpha caps the severity of findings about alpha versions and alpha
	// fields in profiles whose policy lets alpha APIs break (0: no cap).
	Alpha finding.Severity
	// Audit marks a single-revision invariant that `apicheck audit` runs
	// over every struct of one revision.
	Audit bool
	// AuditHistory marks an invariant over a revision and its release
	// history that `apicheck audit --history` runs: every field of the
	// revision is judged against the earlier releases.
	AuditHistory bool
	// Requires lists the analyses beyond the diff that Check reads; the
	// engine runs the rule only when the run can provide all of them and
	// otherwise says so in a note.
	Requires []Input
	// Uses lists the analyses beyond the diff that Check reads when the
	// run has them; without them the rule still runs (e.g. the CRD
	// manifests that tell a removed version was not served).
	Uses []Input
	// UsagesAt are the revisions whose usages of the removed fields
	// Check asks for (InputUsages): the engine has the searches start
	// side by side, before the first rule runs, when the run has removed
	// fields.
	UsagesAt []lifecycle.Rev
	// Ahead, when set, starts in the background the analyses Check will
	// ask for (e.g. History.ProtoHistoryAhead), so that they run beside
	// the rules before it. It must not report, and it only starts work
	// whose answer Check then asks for in the same terms (the same
	// memoised result). The engine calls it before the first rule runs,
	// when the run provides what the rule Requires.
	Ahead func(d *model.Diff, a Analyses)
	// Judges lists the field attributes whose differences this rule
	// judges. The union over the whole catalogue (disabled rules included)
	// is what UNCLASSIFIED_CHANGE does not report.
	Judges []model.Attr
	// ReleasedOnly: the rule protects what a release shipped. A finding
	// about a field that the release before base did not contain (added
	// since, never released) is information: until a release ships it,
	// nothing outside the repository depends on it. Without release
	// history every finding keeps its severity.
	ReleasedOnly bool
	// ReleasedVersionOnly: the rule protects the versions a release
	// shipped. A finding about a field of a version package that the
	// release before base did not have (a version under development, such
	// as Cluster API's v1beta2 before v1.11) is information. Without
	// release history every finding keeps its severity.
	ReleasedVersionOnly bool
	// ReleasedStructOnly: the rule judges fields added to structs that
	// clients already know. A finding about a field added to a struct that
	// the release before base did not have (a struct added since, which
	// this change extends before any release ships it) is information: the
	// struct reaches clients with the field, as if it had been there from
	// the start. Without release history every finding keeps its severity.
	ReleasedStructOnly bool
	// Last makes the engine run the rule after every other rule (the meta
	// rule, which reports what no rule judged).
	Last bool
	// ReleaseNote, when set, makes the rule's unsuppressed error findings
	// on fields and types that exist at both revisions "breaking" release
	// notes, and says in a few words what changed (fd is nil for a
	// finding about a type).
	ReleaseNote func(fd *model.FieldDiff) string
	// Summary is one line: what fires the rule.
	Summary string
	// Why explains the compatibility risk.
	Why string
	// Fix says how to resolve a finding.
	Fix string
	// Before and After are a short failing and passing Go example.
	Before, After string
	// Check judges the diff and reports findings through the context.
	Check func(c *Context)
}

// SeverityIn is the severity a finding of severity s gets in a group of
// profile p.
func (r *Rule) SeverityIn(p model.Profile, s finding.Severity) finding.Severity {
	if max, ok := r.Relax[p]; ok && s > max {
		return max
	}
	return s
}

// offEverywhere reports whether the rule is off in every profile of the
// change's groups (then it does not run at all).
func (r *Rule) offEverywhere(d *model.Diff) bool {
	if len(d.Groups) == 0 {
		return false
	}
	for _, g := range d.Groups {
		if r.Relax[g.Profile()] != Off {
			return false
		}
	}
	return true
}

// relevant is d without the groups whose profile turns the rule off: the
// rule judges, and skips for want of an analysis, only where it is on
// (d itself when it is on everywhere). A tree judged part by part then
// skips a rule in the parts where it has something to judge, as the
// whole tree's run does.
func (r *Rule) relevant(d *model.Diff) *model.Diff {
	off := func(g *model.GroupDiff) bool { return r.Relax[g.Profile()] == Off }
	if !slices.ContainsFunc(d.Groups, off) {
		return d
	}
	cp := *d
	cp.Groups = slices.DeleteFunc(slices.Clone(d.Groups), off)
	return &cp
}

// Needs reports whether the rule requires an input.
func (r *Rule) Needs(in Input) bool { return slices.Contains(r.Requires, in) }

// Doc is the rule's documentation as the reports see it.
func (r *Rule) Doc() finding.RuleDoc {
	why := r.Why
	if r.ReleasedOnly {
		why += " A finding about a field that the release before base did not contain (never released) is info, " +
			"as is every such finding when base predates the repository's first release."
	}
	if r.ReleasedVersionOnly {
		why += " A finding about a version that the release before base did not have, or that no CRD manifest at base serves " +
			"(under development, or no longer served), is info, as is every such finding when base predates the repository's first release."
	}
	if r.ReleasedStructOnly {
		why += " A finding about a field added to a struct that the release before base did not have (a struct not released yet) is info: " +
			"the struct reaches clients with the field."
	}
	return finding.RuleDoc{
		ID: r.ID, Category: string(r.Category), CategoryTitle: r.Category.Title(), Severity: r.Severity,
		Summary: r.Summary, Why: why, Fix: r.Fix, Before: r.Before, After: r.After,
		Requires: inputNames(r.Requires),
	}
}

// Docs returns the documentation of rules, in order.
func Docs(rs []*Rule) []finding.RuleDoc {
	out := make([]finding.RuleDoc, len(rs))
	for i, r := range rs {
		out[i] = r.Doc()
	}
	return out
}

func inputNames(ins []Input) []string {
	var out []string
	for _, in := range ins {
		out = append(out, string(in))
	}
	return out
}

// fixedNote is a ReleaseNote that says the same for every finding.
func fixedNote(text string) func(*model.FieldDiff) string {
	return func(*model.FieldDiff) string { return text }
}

// Relaxations shared by several rules (rules.md "Profiles"): the
// component-config profile never errs on removals and renames, and only
// warns about new-field conventions.
var (
	relaxedToInfo    = map[model.Profile]finding.Severity{model.ProfileComponentConfig: finding.Info}
	relaxedToWarning = map[model.Profile]finding.Severity{model.ProfileComponentConfig: finding.Warning}
	// protobufInert: custom resources are served as JSON only (the API
	// server has no protobuf encoding for them) and component configs are
	// read from files, so protobuf tags there, often copied from built-in
	// types, reach no client.
	protobufInert = map[model.Profile]finding.Severity{model.ProfileCRD: finding.Info, model.ProfileComponentConfig: finding.Info}
	// patchInert: the API server refuses strategic merge patches of custom
	// resources (415 Unsupported Media Type; they are decoded as
	// unstructured, without the Go tags), and server-side apply merges by
	// +listType/+listMapKey, so patchStrategy and patchMergeKey on CRD
	// types reach no server.
	patchInert = map[model.Profile]finding.Severity{model.ProfileCRD: finding.Info}
)

// Options configure a run of the engine.
type Options struct {
	// Disabled rule IDs are not run. Their Judges still count as judged:
	// disabling a rule never turns its changes into UNCLASSIFIED_CHANGE.
	Disabled map[string]bool
	// Severity overrides a rule's severity (after profiles).
	Severity map[string]finding.Severity
	// Analyses are the inputs beyond the diff (release history, usages,
	// Shoot stage code) for the rules that require them.
	Analyses Analyses
	// VersionSkew overrides the profiles' VERSION_SKEW policy ("all" or
	// "newest"; "" keeps them).
	VersionSkew string
	// Context ends the run early (a signal): once it is done, Run runs
	// no further rule and returns an error wrapping its error, never the
	// findings and notes of a run whose analyses the end cut short. Nil
	// never ends.
	Context context.Context
}

// Result is what a run produced.
type Result struct {
	Findings []finding.Finding
	// Notes are statements about the run (e.g. a skipped analysis).
	Notes []string
	// Original holds, by index in Findings, the severity a finding had
	// before Options.Severity replaced it.
	Original map[int]finding.Severity

	// What Notes are made of, for MergeNotes.
	plain  []string
	skips  []skipNote
	counts []countNote
}

type skipNote struct {
	why string
	ids []string
}

type countNote struct {
	format string
	n      int
}

// MergeNotes returns the notes of runs over disjoint parts of one change
// (a large tree judged part by part) as one run over the whole makes
// them: each statement once, the rules skipped for one reason in one
// note (in the order of rs, the catalogue the runs used), counts summed.
func MergeNotes(parts []*Result, rs []*Rule) []string {
	rank := map[string]int{}
	for _, r := range rs {
		if !r.Last {
			rank[r.ID] = len(rank)
		}
	}
	for _, r := range rs {
		if r.Last {
			rank[r.ID] = len(rank)
		}
	}
	var out, whys, formats []string
	skips := map[string][]string{}
	counts := map[string]int{}
	for _, p := range parts {
		for _, n := range p.plain {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		for _, sk := range p.skips {
			if _, ok := skips[sk.why]; !ok {
				whys = append(whys, sk.why)
			}
			for _, id := range sk.ids {
				if !slices.Contains(skips[sk.why], id) {
					skips[sk.why] = append(skips[sk.why], id)
				}
			}
		}
		for _, cn := range p.counts {
			if _, ok := counts[cn.format]; !ok {
				formats = append(formats, cn.format)
			}
			counts[cn.format] += cn.n
		}
	}
	for _, n := range renderNotes(whys, skips, rank, formats, counts) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// renderNotes writes the skipped rules' notes and the counted ones.
func renderNotes(whys []string, skips map[string][]string, rank map[string]int, formats []string, counts map[string]int) []string {
	var out []string
	for _, why := range whys {
		ids := skips[why]
		slices.SortFunc(ids, func(a, b string) int { return rank[a] - rank[b] })
		out = append(out, strings.Join(ids, ", ")+" skipped: "+why)
	}
	for _, f := range formats {
		out = append(out, fmt.Sprintf(f, counts[f]))
	}
	return out
}

// Context is what a rule's Check sees.
type Context struct {
	Diff *model.Diff

	rule        *Rule
	analyses    Analyses
	versionSkew string
	findings    []finding.Finding
	judged      map[model.Attr]bool
	notes       []unjudged
	paths       map[*model.Package]map[string]string
	// statusTypes are head's types only status reaches (statusOnly).
	statusTypes map[string]bool
	// schemalessTypes are head's types only fields without a schema
	// reach (schemalessOnly).
	schemalessTypes map[string]bool
	// reached are the types a kind reaches, at base and at head
	// (reachable), computed on first use.
	reached [2]map[string]bool
	// typeRefs are the type references of base's and head's models.
	typeRefs [2]*typeRefs
	runNotes []string
	skips    map[string][]string // why -> rule IDs, in run order
	skipWhy  []string            // the reasons in order of first appearance
	counts   map[string]int      // NoteCount's formats -> sums
	formats  []string            // the formats in order of first appearance
	// stop is the first error of an analysis that ended because the run
	// was interrupted (skipErr): the engine returns it.
	stop error
}

type unjudged struct {
	field *model.FieldDiff
	msg   string
}

// Rule is the rule whose Check is running.
func (c *Context) Rule() *Rule { return c.rule }

// Judged reports whether some rule of the catalogue judges an attribute.
func (c *Context) Judged(a model.Attr) bool { return c.judged[a] }

// CannotJudge records that a rule could not decide something about a
// field (e.g. its type could not be resolved); the meta rule reports it.
func (c *Context) CannotJudge(fd *model.FieldDiff, msg string) {
	c.notes = append(c.notes, unjudged{field: fd, msg: msg})
}

// Note records a statement about the run itself (shown once in every
// report, not a finding), e.g. that an analysis was skipped.
func (c *Context) Note(msg string) {
	if !slices.Contains(c.runNotes, msg) {
		c.runNotes = append(c.runNotes, msg)
	}
}

// NoteCount records a statement about the run that counts something:
// format holds one %d, which the report fills with the sum of the counts
// every call (and, for a tree judged part by part, every part) gave it.
func (c *Context) NoteCount(format string, n int) {
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	if _, ok := c.counts[format]; !ok {
		c.formats = append(c.formats, format)
	}
	c.counts[format] += n
}

// Skip records that the running rule could not judge this run, and why.
// Rules skipped for the same reason share one note ("A, B skipped: why").
func (c *Context) Skip(why string) {
	if c.skips == nil {
		c.skips = map[string][]string{}
	}
	if _, ok := c.skips[why]; !ok {
		c.skipWhy = append(c.skipWhy, why)
	}
	if !slices.Contains(c.skips[why], c.rule.ID) {
		c.skips[why] = append(c.skips[why], c.rule.ID)
	}
}

// skipErr is Skip for a rule that could not judge because an analysis it
// asked for failed with err (the note: prefix and err). An analysis that
// failed because the run was interrupted (Interrupted) is no reason to
// skip: the run ends with that error instead, and reports nothing.
func (c *Context) skipErr(prefix string, err error) {
	if c.failed(err) && c.stop == nil {
		c.Skip(prefix + err.Error())
	}
}

// failed reports whether an analysis failed (err is not nil), for a rule
// that then judges without it. An interruption is recorded: the engine
// ends the run with it (see skipErr).
func (c *Context) failed(err error) bool {
	if err != nil && Interrupted(err) && c.stop == nil {
		c.stop = err
		if c.rule != nil {
			c.stop = fmt.Errorf("rule %s: %w", c.rule.ID, err)
		}
	}
	return err != nil
}

// Interrupted reports whether err says that the run was interrupted: it
// wraps context.Canceled or context.DeadlineExceeded, as the error of a
// git process killed because the run's context is done does.
func Interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// stopped returns the error that ends a run early: an analysis
// interrupted (skipErr), or ctx done. Analyses turn some of their
// failures into notes and problems ("cannot read release tags: ...")
// that no longer say why they failed, so once ctx is done nothing the
// rules made of them counts.
func (c *Context) stopped(ctx context.Context) error {
	if c.stop != nil {
		return c.stop
	}
	if ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("judging the change: interrupted: %w", ctx.Err())
	}
	return nil
}

// Report is the details of one finding; the engine fills in the rest.
type Report struct {
	Message string
	Hint    string
	// Severity, when set, replaces the rule's default (before profiles).
	Severity finding.Severity
	Related  []finding.Related
}

// related is a position worth showing with a finding, labelled.
func related(label string, p model.Pos) finding.Related {
	return finding.Related{Path: p.File, Line: p.Line, Column: p.Col, Label: label}
}

// FieldPos returns where a finding about a field pair is reported.
func (c *Context) FieldPos(fd *model.FieldDiff) model.Pos { return c.fieldPos(fd) }

// FieldAPIPath returns the JSON path of a field from its root kind.
func (c *Context) FieldAPIPath(fd *model.FieldDiff) string { return c.fieldAPIPath(fd) }

// TypeAPIPath returns the JSON path of a type from its root kind (its
// name when no root kind reaches it).
func (c *Context) TypeAPIPath(pd *model.PackageDiff, typ string) string {
	return c.typeAPIPath(pd, typ)
}

// Field reports on a field pair at its head position (for a removed field,
// its tombstone at head or its struct).
func (c *Context) Field(fd *model.FieldDiff, r Report) {
	c.FieldAt(fd, c.fieldPos(fd), r)
}

// FieldAt reports on a field at an explicit position.
func (c *Context) FieldAt(fd *model.FieldDiff, pos model.Pos, r Report) {
	td := fd.Type
	c.emitField(td.Pkg, td.Name(), fd.Name(), c.fieldAPIPath(fd), pos, c.releasedOnly(fd, r), fieldAlpha(fd), fd)
}

// gatedNew returns the release that introduced the field fd had at base,
// when the field carries a feature gate (+featureGate=) and that release
// is of the line of the release before base: a field behind a gate that
// one release shipped is alpha (Kubernetes features enter as alpha, and
// the gate's stage lives outside the API types, in the feature gate
// list), and alpha fields may still change. "" otherwise.
func (c *Context) gatedNew(fd *model.FieldDiff) string {
	if fd == nil || fd.Base == nil || !fd.Base.Markers.Has("featureGate") || c.analyses.Release == nil {
		return ""
	}
	rel, problem := c.analyses.Release.Release()
	if problem != "" {
		return ""
	}
	tag, ok, err := c.analyses.Release.FieldIntroduced(fd)
	if c.failed(err) || !ok {
		return ""
	}
	v, ok1 := git.TagVersion(tag)
	newest, ok2 := git.TagVersion(rel.Newest.Name)
	if !ok1 || !ok2 || semver.MajorMinor(v) != semver.MajorMinor(newest) {
		return ""
	}
	return tag
}

// releasedOnly makes a finding of a ReleasedOnly rule about a field that
// base has but the release before base did not information.
func (c *Context) releasedOnly(fd *model.FieldDiff, r Report) Report {
	if c.rule.ReleasedVersionOnly {
		r = c.releasedVersionOnly(fd.Type.Pkg, r)
	}
	if c.rule.ReleasedStructOnly && fd.Base == nil {
		r = c.unreleasedType(fd.Type, r)
	}
	if !c.rule.ReleasedOnly {
		return r
	}
	return c.unreleased(fd, r, "the field")
}

// unreleased makes finding r, when it is above info, information if the
// release before base did not have base's field fd (what names that
// field in the message): until a release ships a field, nothing outside
// the repository depends on it. Without release history, or for a field
// base did not have, r is returned as it is.
func (c *Context) unreleased(fd *model.FieldDiff, r Report, what string) Report {
	if fd == nil || fd.Base == nil {
		return r
	}
	return c.relaxByRelease(r, func() (bool, error) {
		released, err := c.analyses.Release.Released(fd)
		return !released, err
	}, func(rel lifecycle.Release) string {
		return fmt.Sprintf("never released: release %s did not have %s", rel.Newest.Name, what)
	})
}

// unreleasedType makes finding r about base's type of td, when it is
// above info, information if the release before base did not have the
// type in its version package: a type added and removed again within
// one release cycle (a revert) never reached a client.
func (c *Context) unreleasedType(td *model.TypeDiff, r Report) Report {
	if td.Base == nil {
		return r
	}
	return c.relaxByRelease(r, func() (bool, error) {
		released, err := c.analyses.Release.TypeReleased(td.Pkg, td.Base.Name)
		return !released, err
	}, func(rel lifecycle.Release) string {
		return fmt.Sprintf("never released: release %s did not have the type", rel.Newest.Name)
	})
}

// relaxByRelease makes finding r information when it is above info, the
// release before base is known and relax (asked only then) says that
// release makes r no break; why, after the message, says how. Base older
// than the repository's first release had nothing released: r is
// information too.
func (c *Context) relaxByRelease(r Report, relax func() (bool, error), why func(rel lifecycle.Release) string) Report {
	return c.relaxIf(r, func() (string, error) {
		rel, ok := c.releaseToJudge()
		if !ok {
			if first, before := c.analyses.Release.BeforeFirstRelease(); before {
				return "never released: base predates the first release, " + first, nil
			}
			return "", nil
		}
		if yes, err := relax(); err != nil || !yes {
			return "", err
		}
		return why(rel), nil
	})
}

// relaxIf makes finding r information when it is above info and because
// (asked only then) gives a reason, which follows the message: the one
// skeleton of the relaxations that ask a question beyond the diff.
func (c *Context) relaxIf(r Report, because func() (string, error)) Report {
	return c.relaxTo(r, finding.Info, because)
}

// relaxTo is relaxIf to severity sev: r is relaxed when it is above sev.
func (c *Context) relaxTo(r Report, sev finding.Severity, because func() (string, error)) Report {
	if c.severityOf(r) <= sev {
		return r
	}
	why, err := because()
	if c.failed(err) || why == "" {
		return r
	}
	r.Severity = sev
	r.Message += " (" + why + ")"
	return r
}

// severityOf is the severity finding r is reported at: its own, or the
// rule's when it sets none.
func (c *Context) severityOf(r Report) finding.Severity {
	if r.Severity == 0 {
		return c.rule.Severity
	}
	return r.Severity
}

// releaseToJudge returns the release before base, which a finding may
// be relaxed by; ok is false when there is no release to ask.
func (c *Context) releaseToJudge() (lifecycle.Release, bool) {
	if c.analyses.Release == nil {
		return lifecycle.Release{}, false
	}
	rel, problem := c.analyses.Release.Release()
	return rel, problem == ""
}

// releasedVersionOnly makes a finding of a ReleasedVersionOnly rule about
// a version package that the release before base did not have, or that
// the API server did not serve at base, information.
func (c *Context) releasedVersionOnly(pd *model.PackageDiff, r Report) Report {
	return c.unservedVersion(pd, c.unreleasedVersion(pd, r))
}

// unreleasedVersion makes finding r, when it is above info, information
// if the release before base did not have the version package of pd (a
// version under development).
func (c *Context) unreleasedVersion(pd *model.PackageDiff, r Report) Report {
	if !pd.External() {
		return r
	}
	return c.relaxByRelease(r, func() (bool, error) {
		released, err := c.analyses.Release.VersionReleased(pd)
		return !released, err
	}, func(rel lifecycle.Release) string {
		return fmt.Sprintf("version under development: release %s did not have %s", rel.Newest.Name, pd.Version)
	})
}

// unservedVersion makes finding r, when it is above info, information if
// the CRD manifests at base define every root kind of the version and
// none serves it (Knative Eventing's v1beta3 EventType before its CRD
// listed it): no client of the API server had the version at base, so
// what changes in it is design. Without manifests, or for a version
// without kinds, r is returned as it is.
func (c *Context) unservedVersion(pd *model.PackageDiff, r Report) Report {
	return c.relaxIf(r, func() (string, error) {
		ms := c.analyses.Manifests
		if !pd.External() || pd.Base == nil || ms == nil {
			return "", nil
		}
		kinds := rootKinds(pd.Base)
		if len(kinds) == 0 {
			return "", nil
		}
		why, _ := unservedKinds(c, ms, pd.Base.GroupName, pd.Base, kinds)
		return why, nil
	})
}

// Type reports on a type pair at its head position (for a removed type,
// the nearest place that exists at head).
func (c *Context) Type(td *model.TypeDiff, r Report) {
	c.emit(td.Pkg, td.Name(), "", c.typeAPIPath(td.Pkg, td.Name()), c.typePos(td), r, typeAlpha(td))
}

// TypeAt reports on a type at an explicit position.
func (c *Context) TypeAt(td *model.TypeDiff, pos model.Pos, r Report) {
	c.emit(td.Pkg, td.Name(), "", c.typeAPIPath(td.Pkg, td.Name()), pos, r, typeAlpha(td))
}

// Tombstone reports on a tombstone pair.
func (c *Context) Tombstone(tb *model.TombstoneDiff, r Report) {
	td := tb.Type
	var pos model.Pos
	name := ""
	switch {
	case tb.Head != nil:
		pos, name = tb.Head.Pos, tb.Head.FieldName
	default:
		pos, name = c.typePos(td), tb.Base.FieldName
	}
	path := c.typeAPIPath(td.Pkg, td.Name())
	if j := tombstoneJSON(tb); j != "" && path != "" {
		path += "." + j
	}
	c.emit(td.Pkg, td.Name(), name, path, pos, r, false)
}

// Package reports on a package pair (a version) at an explicit position.
func (c *Context) Package(pd *model.PackageDiff, pos model.Pos, r Report) {
	c.emit(pd, "", "", "", pos, r, false)
}

// Const reports on a constant pair.
func (c *Context) Const(cd *model.ConstDiff, pos model.Pos, r Report) {
	typ := ""
	if cd.Base != nil {
		typ = cd.Base.Type
	} else {
		typ = cd.Head.Type
	}
	alpha := false
	if cd.Pkg.Base != nil {
		if t := cd.Pkg.Base.Type(typ); t != nil {
			alpha = t.Alpha
		}
	}
	c.emit(cd.Pkg, typ, "", "", pos, r, alpha)
}

func tombstoneJSON(tb *model.TombstoneDiff) string {
	if tb.Head != nil {
		return tb.Head.JSONName
	}
	return tb.Base.JSONName
}

func (c *Context) emit(pd *model.PackageDiff, typ, field, apiPath string, pos model.Pos, r Report, alpha bool) {
	c.emitField(pd, typ, field, apiPath, pos, r, alpha, nil)
}

// emitField is emit for a finding about field pair fd (nil for other
// findings): a finding above warning about a feature-gated field that the
// newest release introduced is a warning where alpha APIs may break (see
// gatedNew).
func (c *Context) emitField(pd *model.PackageDiff, typ, field, apiPath string, pos model.Pos, r Report, alpha bool, fd *model.FieldDiff) {
	sev := c.rule.Severity
	if r.Severity != 0 {
		sev = r.Severity
	}
	sev = c.rule.SeverityIn(pd.Group.Profile(), sev)
	if sev == Off {
		return
	}
	alphaRule := c.rule.Alpha != 0 && c.Policy(pd).AlphaMayBreak
	if alphaRule && sev > c.rule.Alpha && (alpha || isAlpha(pd)) {
		sev = c.rule.Alpha
		r.Message += " (alpha API: may change)"
	} else if alphaRule && sev > finding.Warning {
		if tag := c.gatedNew(fd); tag != "" {
			sev = finding.Warning
			r.Message += fmt.Sprintf(" (feature-gated field first released in %s: alpha if its gate is, and then it may change)", tag)
		}
	}
	if sev > finding.Warning && fd != nil && c.unserved(fd.Type) {
		sev = finding.Warning
		r.Message += fmt.Sprintf(" (no kind of the API reaches %s, at base or head: only Go code uses its json form)", typ)
	}
	pkg := pd.Pkg()
	c.findings = append(c.findings, finding.Finding{
		Rule:     c.rule.ID,
		Severity: sev,
		Path:     pos.File,
		Line:     pos.Line,
		Column:   pos.Col,
		Package:  pkg.ImportPath,
		Group:    pd.Group.Dir,
		Version:  pd.Version,
		Type:     typ,
		Field:    field,
		APIPath:  apiPath,
		Message:  r.Message,
		Hint:     r.Hint,
		Related:  r.Related,
	})
}

// isAlpha reports an alpha version: alpha at base (what clients may rely
// on) or, for a version new in head, at head.
func isAlpha(pd *model.PackageDiff) bool {
	if pd.Base != nil {
		return pd.Base.Maturity == model.Alpha
	}
	return pd.Head != nil && pd.Head.Maturity == model.Alpha
}

// fieldAlpha reports a field marked alpha at base (or, when new, at head).
func fieldAlpha(fd *model.FieldDiff) bool {
	if fd.Base != nil {
		return fd.Base.Alpha || fd.Type.Base != nil && fd.Type.Base.Alpha
	}
	return fd.Head != nil && (fd.Head.Alpha || fd.Type.Head != nil && fd.Type.Head.Alpha)
}

// typeAlpha reports a type that only alpha fields use, at base (or, when
// new, at head).
func typeAlpha(td *model.TypeDiff) bool {
	if td.Base != nil {
		return td.Base.Alpha
	}
	return td.Head != nil && td.Head.Alpha
}

// fieldPos is the head position of a field, or for a removed field the
// tombstone that reserves its number, or its struct at head.
func (c *Context) fieldPos(fd *model.FieldDiff) model.Pos {
	if fd.Head != nil {
		return fd.Head.Pos
	}
	if t := TombstoneFor(fd.Type.Head, fd.Base); t != nil {
		return t.Pos
	}
	if td := fd.Type; td.Head != nil && td.Base != nil {
		// The deletion point: the next field of base that head still has
		// (GitHub shows annotations only on lines of the diff), else the
		// struct's closing brace.
		after := false
		for _, b := range td.Base.Fields {
			if b == fd.Base {
				after = true
				continue
			}
			if !after {
				continue
			}
			for _, x := range td.Fields {
				if x.Base == b && x.Head != nil {
					return x.Head.Pos
				}
			}
		}
		if !td.Head.End.IsZero() {
			return td.Head.End
		}
	}
	return c.typePos(fd.Type)
}

// TombstoneFor returns the head tombstone that covers a removed field: the
// same protobuf number, or (without protobuf) the same Go name.
func TombstoneFor(head *model.Type, removed *model.Field) *model.Tombstone {
	if head == nil {
		return nil
	}
	for _, t := range head.Tombstones {
		if removed.Proto != nil && t.Proto != nil && t.Proto.Number == removed.Proto.Number {
			return t
		}
	}
	for _, t := range head.Tombstones {
		if removed.Proto == nil && t.FieldName == removed.Name {
			return t
		}
	}
	return nil
}

// typePos is the head position of a type; for a removed type its
// deletion point at head: the line after the previous declaration of its
// old file that head still has, else the next such declaration, else the
// first line of the file or package.
func (c *Context) typePos(td *model.TypeDiff) model.Pos {
	if td.Head != nil {
		return td.Head.Pos
	}
	if pos, ok := deletionPoint(td); ok {
		return pos
	}
	if h := td.Pkg.Head; h != nil {
		for _, f := range h.Files {
			if f == td.Base.Pos.File {
				return model.Pos{File: f, Line: 1, Col: 1}
			}
		}
		if len(h.Files) > 0 {
			return model.Pos{File: h.Files[0], Line: 1, Col: 1}
		}
	}
	return td.Base.Pos
}

// deletionPoint finds where a removed type's declaration was at head.
func deletionPoint(td *model.TypeDiff) (model.Pos, bool) {
	pd := td.Pkg
	if pd.Head == nil || pd.Base == nil {
		return model.Pos{}, false
	}
	file, line := td.Base.Pos.File, td.Base.Pos.Line
	var next, prev *model.Type // nearest surviving neighbours in the old file
	for _, bt := range pd.Base.Types {
		if bt.Pos.File != file || bt == td.Base {
			continue
		}
		ht := pd.Head.Type(bt.Name)
		if ht == nil || ht.Pos.File != file {
			continue
		}
		switch {
		case bt.Pos.Line > line && (next == nil || bt.Pos.Line < pd.Base.Type(next.Name).Pos.Line):
			next = ht
		case bt.Pos.Line < line && (prev == nil || bt.Pos.Line > pd.Base.Type(prev.Name).Pos.Line):
			prev = ht
		}
	}
	// Right after the previous surviving declaration is adjacent to the
	// deletion (inside the diff hunk); the next one's name may sit below a
	// long doc comment. The line after the previous declaration exists
	// only if something follows it: after the file's last declaration it
	// may be past the end of the file, so its last line is used.
	switch {
	case prev != nil && !prev.End.IsZero() && next != nil && next.Pos.Line > prev.End.Line:
		return model.Pos{File: file, Line: prev.End.Line + 1, Col: 1}, true
	case prev != nil && !prev.End.IsZero():
		return model.Pos{File: file, Line: prev.End.Line, Col: 1}, true
	case next != nil:
		return model.Pos{File: file, Line: next.Pos.Line, Col: 1}, true
	}
	return model.Pos{}, false
}

func (c *Context) apiPaths(p *model.Package) map[string]string {
	if c.paths == nil {
		c.paths = map[*model.Package]map[string]string{}
	}
	m, ok := c.paths[p]
	if !ok {
		m = p.APIPaths()
		c.paths[p] = m
	}
	return m
}

// typeAPIPath is the JSON path of a type from its root kind, or its name
// when no root kind reaches it.
func (c *Context) typeAPIPath(pd *model.PackageDiff, typ string) string {
	for _, p := range []*model.Package{pd.Head, pd.Base} {
		if p == nil || p.Type(typ) == nil {
			continue
		}
		if path, ok := c.apiPaths(p)[typ]; ok {
			return path
		}
	}
	return typ
}

func (c *Context) fieldAPIPath(fd *model.FieldDiff) string {
	path := c.typeAPIPath(fd.Type.Pkg, fd.Type.Name())
	f := fd.Head
	if f == nil {
		f = fd.Base
	}
	if w := f.WireName(); w != "" && w != "-" && !f.Inline() {
		return path + "." + w
	}
	return path + "." + f.Name
}

// Run executes the rules over a diff and returns their findings (not yet
// sorted; the report finalizes them). Rules marked Last (the meta rule)
// run after all others so they see every judgement. A rule whose required
// analyses the run cannot provide does not run; a note says why. A run
// interrupted (Options.Context done, or an analysis that failed because
// of it) returns an error wrapping the context's error and no result.
func Run(d *model.Diff, rs []*Rule, opts Options) (*Result, error) {
	c := &Context{Diff: d, analyses: opts.Analyses, versionSkew: opts.VersionSkew, judged: map[model.Attr]bool{}}
	for _, r := range rs {
		for _, a := range r.Judges {
			c.judged[a] = true
		}
	}
	var first, last []*Rule
	for _, r := range rs {
		if opts.Disabled[r.ID] || r.Check == nil || r.offEverywhere(d) {
			continue
		}
		if r.Last {
			last = append(last, r)
		} else {
			first = append(first, r)
		}
	}
	// Skipped rules are named in the order of the catalogue (first, then
	// last), whatever order they run in.
	order := map[string]int{}
	for i, r := range append(slices.Clip(first), last...) {
		order[r.ID] = i
	}
	var ahead []lifecycle.Rev
	var waiting []*Rule
	for _, r := range first {
		if opts.Analyses.missing(r.Requires) != "" {
			continue
		}
		ahead = append(ahead, r.UsagesAt...)
		if len(r.UsagesAt) > 0 || r.Ahead != nil {
			waiting = append(waiting, r)
		}
		if r.Ahead != nil {
			startAhead(r, r.relevant(d), opts.Analyses)
		}
	}
	if len(ahead) > 0 {
		opts.Analyses.Usages.Prefetch(ahead...)
	}
	// The rules that wait for work started ahead run after the others,
	// which run meanwhile.
	first = append(slices.DeleteFunc(first, func(r *Rule) bool { return slices.Contains(waiting, r) }), waiting...)
	for _, r := range append(first, last...) {
		if err := c.stopped(opts.Context); err != nil {
			return nil, err
		}
		c.rule = r
		if why := opts.Analyses.missing(r.Requires); why != "" {
			c.Skip(why)
			continue
		}
		c.Diff = r.relevant(d)
		err := safeCheck(r, c)
		c.Diff = d
		if err != nil {
			return nil, err
		}
	}
	if err := c.stopped(opts.Context); err != nil {
		return nil, err
	}
	out := c.findings
	original := map[int]finding.Severity{}
	for i := range out {
		if s, ok := opts.Severity[out[i].Rule]; ok && s != out[i].Severity {
			original[i] = out[i].Severity
			out[i].Severity = s
		}
	}
	res := &Result{Findings: out, Original: original, plain: slices.Clone(c.runNotes)}
	for _, why := range c.skipWhy {
		res.skips = append(res.skips, skipNote{why: why, ids: slices.Clone(c.skips[why])})
	}
	for _, f := range c.formats {
		res.counts = append(res.counts, countNote{format: f, n: c.counts[f]})
	}
	res.Notes = c.runNotes
	for _, n := range renderNotes(c.skipWhy, c.skips, order, c.formats, c.counts) {
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	return res, nil
}

// startAhead calls a rule's Ahead. A panic there is dropped: Check meets
// the same bug when it asks for the same work, and safeCheck reports it.
func startAhead(r *Rule, d *model.Diff, a Analyses) {
	defer func() { _ = recover() }()
	r.Ahead(d, a)
}

// safeCheck turns a panicking rule into an internal error naming it, so a
// bug in one rule never crashes the tool or yields a partial report
// presented as complete.
func safeCheck(r *Rule, c *Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &par.PanicError{In: "rule " + r.ID, Value: p, Stack: debug.Stack()}
		}
	}()
	r.Check(c)
	return nil
}

// Lookup finds a rule by ID in a list.
func Lookup(rs []*Rule, id string) *Rule {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// newFieldsInScope yields fields added to struct types that existed at
// base, or that join the wire in them (joinsWire), and those added to a
// version package's copies of a sibling's structs (addedToCopies),
// excluding embedded/inline fields and the value-typed Spec/Status fields
// of a root kind (the scope of the NEW_FIELD_* rules).
func newFieldsInScope(c *Context) iter.Seq[*model.FieldDiff] {
	d := c.Diff
	return func(yield func(*model.FieldDiff) bool) {
		// Added to an existing struct, or joining the wire in one.
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				var isNew bool
				switch {
				case fd.Head == nil:
				case fd.Base == nil:
					isNew = !promotedAtBase(td, fd.Head) && unresolvedDroppedEmbedding(td) == ""
				default:
					isNew = joinsWire(fd)
				}
				// A struct that joins the wire has no new fields, as a new
				// type has none (asked last: it needs both models' reach).
				if isNew && InNewFieldScope(td, fd.Head) && !c.newToTheWire(td) && !yield(fd) {
					return
				}
			}
		}
		for fd := range addedToCopies(d) {
			if InNewFieldScope(fd.Type, fd.Head) && !c.newToTheWire(fd.Type) && !yield(fd) {
				return
			}
		}
	}
}

// joinsWire reports a field that base did not serialise (json:"-") and
// head does under a name: new on the wire, as an added field is
// (Karpenter's EC2NodeClassSpec.InstanceProfile).
func joinsWire(fd *model.FieldDiff) bool {
	bc, hc := contractOf(fd.Base), contractOf(fd.Head)
	return bc.Name == "-" && !bc.Inline && hc.Name != "-" && hc.Name != "" && !hc.Inline
}

// promotedAtBase reports whether base's struct already had f's json name
// through an inline embedded struct: a field written out where the struct
// used to embed its type (Karpenter replaced an embedded
// v1.NodeSelectorRequirement by key, operator and values) is not new on
// the wire.
func promotedAtBase(td *model.TypeDiff, f *model.Field) bool {
	if td.Base == nil {
		return false
	}
	for _, bf := range td.Base.Fields {
		if bf.Embedded && bf.Inline() && slices.Contains(bf.Promoted, f.WireName()) {
			return true
		}
	}
	return false
}

// addedToCopies yields the fields that a version package new at head adds
// to the structs it copied from a sibling: a new version of an existing
// group is compared against the group's versions at base, so a struct
// that one of them already had (by name) is not new, and neither are the
// members it had. A member is the sibling's when the same-named struct of
// a version at base has a field with its Go name, its json name, or its
// protobuf number, wire type and Go type (a field renamed in the copy, as
// the pairing ladder pairs renames), or when any struct of a version at base has a field
// with its Go name and json name (a member moved between structs of the
// copy). Any other member is a new field of an existing struct.
func addedToCopies(d *model.Diff) iter.Seq[*model.FieldDiff] {
	return func(yield func(*model.FieldDiff) bool) {
		for pd := range d.ExternalPackages() {
			if pd.Base != nil || pd.Head == nil || pd.Group.Base == nil {
				continue
			}
			sib := siblingsAtBase(pd.Group)
			if len(sib.structs) == 0 {
				continue
			}
			for _, td := range pd.Types {
				if td.Head == nil || td.Head.Kind != model.KindStruct || !sib.structs[td.Head.Name] {
					continue
				}
				for _, fd := range td.Fields {
					if f := fd.Head; f != nil && !sib.known(td.Head.Name, f) && !yield(fd) {
						return
					}
				}
			}
		}
	}
}

// addedToCopy reports a field addedToCopies yields.
func addedToCopy(td *model.TypeDiff, f *model.Field) bool {
	pd := td.Pkg
	if pd.Base != nil || pd.Head == nil || pd.Group.Base == nil || !pd.External() || td.Head == nil {
		return false
	}
	sib := siblingsAtBase(pd.Group)
	return sib.structs[td.Head.Name] && !sib.known(td.Head.Name, f)
}

// siblings are the struct names and members of a group's external
// versions at base.
type siblings struct {
	structs map[string]bool
	// members are "Go name, json name" of every struct's fields;
	// byStruct "struct, key" with key one of "go:Name", "json:name",
	// "pb:N".
	members, byStruct map[string]bool
}

func siblingsAtBase(gd *model.GroupDiff) siblings {
	s := siblings{structs: map[string]bool{}, members: map[string]bool{}, byStruct: map[string]bool{}}
	for _, p := range gd.Base.Versions {
		for _, t := range p.Types {
			if t.Kind != model.KindStruct {
				continue
			}
			s.structs[t.Name] = true
			for _, f := range t.Fields {
				s.members[f.Name+"\x00"+f.WireName()] = true
				for _, k := range memberKeys(f) {
					s.byStruct[t.Name+"\x00"+k] = true
				}
			}
		}
	}
	return s
}

// memberKeys are the names a field is recognised by in the same-named
// struct of a sibling version.
func memberKeys(f *model.Field) []string {
	keys := []string{"go:" + f.Name}
	if w := f.WireName(); w != "" && w != "-" {
		keys = append(keys, "json:"+w)
	}
	if f.Proto != nil {
		// As the pairing ladder's last step: the number with the same
		// wire type and Go type (a number alone is reused freely across
		// versions).
		keys = append(keys, fmt.Sprintf("pb:%d:%s:%s", f.Proto.Number, f.Proto.Wire, f.Type))
	}
	return keys
}

// known reports whether a member of struct typ in a new version package
// was the sibling's (see addedToCopies).
func (s siblings) known(typ string, f *model.Field) bool {
	if s.members[f.Name+"\x00"+f.WireName()] {
		return true
	}
	for _, k := range memberKeys(f) {
		if s.byStruct[typ+"\x00"+k] {
			return true
		}
	}
	return false
}

// unresolvedDroppedEmbedding names an inline embedded field of base's
// struct that head no longer has and whose members could not be resolved
// (a module not in the module cache): the fields head added may be its
// members written out, so the new-field rules cannot tell whether they
// are new. "" when there is none.
func unresolvedDroppedEmbedding(td *model.TypeDiff) string {
	if td.Base == nil || td.Head == nil {
		return ""
	}
	for _, bf := range td.Base.Fields {
		if bf.Embedded && bf.Inline() && bf.Promoted == nil && td.Head.Field(bf.Name) == nil {
			return bf.Type
		}
	}
	return ""
}

// InNewFieldScope reports whether an added field of an existing struct is
// judged by the new-field rules.
func InNewFieldScope(td *model.TypeDiff, f *model.Field) bool {
	if f.Embedded || f.Inline() || f.JSON.Name == "-" {
		return false
	}
	if td.Head.RootKind && (f.Name == "Spec" || f.Name == "Status") && !strings.HasPrefix(f.Type, "*") {
		return false
	}
	return true
}
