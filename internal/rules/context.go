package rules

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/kal"
	"github.com/apicheck/apicheck/internal/model"
)

// The Context and what a rule records through it beyond findings: notes
// about the run, rules skipped, fields it could not judge, and analyses
// interrupted.

// Context is what a rule's Check sees.
type Context struct {
	Diff *model.Diff

	rule        *Rule
	analyses    Analyses
	versionSkew string
	// linter is the repository's kube-api-linter configuration (nil:
	// none), which newFieldPolicy applies under the crd profile.
	linter *kal.Config
	// findings are what the rules reported, for the severity policy.
	findings []reported
	judged   map[model.Attr]bool
	notes    []unjudged
	paths    map[*model.Package]map[string]string
	// statusTypes are head's types only status reaches (statusOnly).
	statusTypes map[string]bool
	// serverTypes are head's types only the server writes
	// (serverWritten).
	serverTypes map[string]bool
	// schemalessTypes are head's types only fields without a schema
	// reach (schemalessOnly).
	schemalessTypes map[string]bool
	// reached are the types a kind reaches, at base and at head
	// (reachable), computed on first use.
	reached [2]map[string]bool
	// typeRefs are the type references of base's and head's models.
	typeRefs [2]*typeRefs
	// ran are the rules that judged this run: their Check ran, or the
	// configuration disabled them (see judges).
	ran      map[string]bool
	runNotes []string
	skips    map[string][]string // why -> rule IDs, in run order
	skipWhy  []string            // the reasons in order of first appearance
	counts   map[string]int      // NoteCount's formats -> sums
	formats  []string            // the formats in order of first appearance
	// stop is the first error of an analysis that ended because the run
	// was interrupted (skipErr): the engine returns it.
	stop error
}

// unjudged is what a rule could not decide about a field (CannotJudge).
type unjudged struct {
	field *model.FieldDiff
	msg   string
}

// Rule is the rule whose Check is running.
func (c *Context) Rule() *Rule { return c.rule }

// Judged reports whether some rule of the catalogue judges an attribute.
func (c *Context) Judged(a model.Attr) bool { return c.judged[a] }

// judges reports whether rule r judged the groups of profile p in this
// run: it is on in p, and its Check ran without skipping the run, or the
// configuration disabled it (disabling a rule never turns what it judges
// into UNCLASSIFIED_CHANGE).
func (c *Context) judges(r *Rule, p model.Profile) bool {
	if r.Relax[p] == Off || !c.ran[r.ID] {
		return false
	}
	for _, ids := range c.skips {
		if slices.Contains(ids, r.ID) {
			return false
		}
	}
	return true
}

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
// interrupted (skipErr), ctx done, or Shoot stage code that a rule needed
// late and could not read (shoot.Stages.Err: judged without it, nothing
// is a report). Analyses turn some of their failures into notes and
// problems ("cannot read release tags: ...") that no longer say why they
// failed, so once ctx is done nothing the rules made of them counts.
func (c *Context) stopped(ctx context.Context) error {
	if c.stop != nil {
		return c.stop
	}
	if st := c.analyses.Shoot; st != nil {
		if err := st.Err(); err != nil {
			return err
		}
	}
	if ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("judging the change: interrupted: %w", ctx.Err())
	}
	return nil
}
