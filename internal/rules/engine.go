package rules

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/kal"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// The engine: a run of the rules over a diff, and the notes of runs over
// parts of one change.

// Options configure a run of the engine.
type Options struct {
	// Disabled rule IDs are not run. Their Judges still count as judged:
	// disabling a rule never turns its changes into UNCLASSIFIED_CHANGE.
	Disabled map[string]bool
	// Severity overrides a rule's severity: the severity policy's last
	// step (policy.go), after profiles, maturity and the release history.
	Severity map[string]finding.Severity
	// Analyses are the inputs beyond the diff (release history, usages,
	// Shoot stage code) for the rules that require them.
	Analyses Analyses
	// VersionSkew overrides the profiles' VERSION_SKEW policy ("all" or
	// "newest"; "" keeps them).
	VersionSkew string
	// Linter is the repository's kube-api-linter configuration, read from
	// the revision the run trusts (nil without one): the crd profile
	// follows the conventions it enables for new fields.
	Linter *kal.Config
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

// skipNote is the rules skipped for one reason, in run order.
type skipNote struct {
	why string
	ids []string
}

// countNote is the sum a NoteCount format says.
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

// Run executes the rules over a diff and returns their findings (not yet
// sorted; the report finalizes them), judged by the severity policy
// (policy.go) once every rule ran. Rules marked Last (the meta rule) run
// after all others so they see every judgement. A rule whose required
// analyses the run cannot provide does not run; a note says why. A run
// interrupted (Options.Context done, or an analysis that failed because
// of it) returns an error wrapping the context's error and no result.
func Run(d *model.Diff, rs []*Rule, opts Options) (*Result, error) {
	c := &Context{Diff: d, analyses: opts.Analyses, versionSkew: opts.VersionSkew, linter: opts.Linter, judged: map[model.Attr]bool{}, ran: map[string]bool{}}
	for _, r := range rs {
		for _, a := range r.Judges {
			c.judged[a] = true
		}
		if opts.Disabled[r.ID] {
			c.ran[r.ID] = true
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
		c.ran[r.ID] = true
		if err != nil {
			return nil, err
		}
	}
	if err := c.stopped(opts.Context); err != nil {
		return nil, err
	}
	// A rule says what it found; the severity policy says how much it
	// matters, once every rule ran.
	out, original, err := safePolicy(c, opts.Severity)
	if err != nil {
		return nil, err
	}
	if err := c.stopped(opts.Context); err != nil {
		return nil, err
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

// safePolicy is applyPolicy that turns a panic (in the policy, or in a
// question a rule asked of it) into an internal error naming the rule
// whose finding was being judged.
func safePolicy(c *Context, overrides map[string]finding.Severity) (out []finding.Finding, original map[int]finding.Severity, err error) {
	c.rule = nil
	defer func() {
		if p := recover(); p != nil {
			in := "the severity policy"
			if c.rule != nil {
				in = "rule " + c.rule.ID + " (severity policy)"
			}
			out, original, err = nil, nil, &par.PanicError{In: in, Value: p, Stack: debug.Stack()}
		}
	}()
	out, original = c.applyPolicy(overrides)
	return out, original, nil
}
