package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
)

// FieldRemovedNotDeprecated is FIELD_REMOVED_NOT_DEPRECATED.
var FieldRemovedNotDeprecated = &Rule{
	ID:       "FIELD_REMOVED_NOT_DEPRECATED",
	Alpha:    finding.Info,
	Category: CatLifecycle,
	Severity: finding.Warning,
	Relax:    relaxedToInfo,
	Requires: []Input{InputRelease},
	Summary: "A field removed from an external version was not marked deprecated at the last release that shipped it: its doc " +
		"comment had no line that starts with the word Deprecated as a statement (Go's `Deprecated:` paragraph, or `Deprecated.`, " +
		"`Deprecated, use …`, `DEPRECATED - …`, `Deprecated in v1.17 …`, a line `Deprecated` alone; not `Deprecated declares …`, " +
		"the doc of a field named Deprecated).",
	Why: "Users need a deprecation period to stop setting a field before it disappears; a release must have announced it.",
	Fix: "Mark the field deprecated (a `Deprecated:` paragraph in its doc comment) in a release before removing it.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		if _, prob := c.Release().Release(); prob != "" {
			c.Skip(prob)
			return
		}
		// The newest release up to the release before head that had each
		// field: the release before base for a pull request.
		last, released, err := c.Release().LastReleases(fields)
		if err != nil {
			c.skipErr("", err)
			return
		}
		for i, fd := range fields {
			f, ok := last[i], released[i]
			if !ok || f.Deprecated {
				continue // never released, or deprecated as it should be
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, but release %s did not mark it deprecated", fd.Type.Name(), fd.Base.Name, f.Tag),
				Hint:    "add a `Deprecated:` paragraph to the field's doc comment, release it, and remove the field after the deprecation period",
				Related: []finding.Related{related(f.Tag, f.Pos)},
			})
		}
	},
}
