package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
)

// A rule's own relaxation of what it found.

// relaxTo is a rule's own relaxation: it makes finding r severity sev
// when r is above sev and because (asked only then) gives a reason, which
// follows the message. It asks at once, while the rule runs, what the
// rule needs to know about what it found (the schema a field has, the
// default the CRD manifests give); what the release history says of a
// finding the severity policy asks after every rule ran (see
// Report.ifFieldUnreleased).
func (c *Context) relaxTo(r Report, sev finding.Severity, because func() (string, error)) Report {
	v := verdict{sev: c.severityOf(r), message: r.Message}
	if !c.relax(&v, sev, because) {
		return r
	}
	r.Severity, r.Message = v.sev, v.message
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
