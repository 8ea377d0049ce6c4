package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// TypeRenamed is TYPE_RENAMED.
var TypeRenamed = &Rule{
	ID:          "TYPE_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("type renamed"),
	Relax:       relaxedToInfo,
	Summary: "An exported type was renamed in Go: a removed type and a new one with the same fields, or a struct whose name " +
		"a new type took over while every field that used it moved to a new type (its fields are then judged against the old ones).",
	Why: "The wire is unchanged but Go clients stop compiling.",
	Fix: "Intended renames are fine; keep a type alias `type Old = New` for Go clients if possible.",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if !td.Renamed {
					continue
				}
				r := Report{
					Message: fmt.Sprintf("type %s was renamed to %s (same fields)", td.Base.Name, td.Head.Name),
					Hint:    fmt.Sprintf("consider keeping `type %s = %s` for Go clients", td.Base.Name, td.Head.Name),
				}
				if !model.SameShape(td.Base, td.Head) {
					r.Message = fmt.Sprintf("type %s was renamed to %s; its fields are judged against %s's", td.Base.Name, td.Head.Name, td.Base.Name)
				}
				if pd.Head != nil && pd.Head.Type(td.Base.Name) != nil {
					r.Message += fmt.Sprintf(", and %s now names another type", td.Base.Name)
					r.Hint = fmt.Sprintf("Go clients that use %s break, or compile against the new type: mention it in the release note", td.Base.Name)
				}
				c.Type(td, r)
			}
		}
	},
}
