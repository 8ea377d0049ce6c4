package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldRenamed is FIELD_RENAMED.
var FieldRenamed = &Rule{
	ID:          "FIELD_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("field renamed"),
	Relax:       relaxedToInfo,
	Judges:      []model.Attr{model.AttrGoName},
	Summary:     "A Go field name changed while its json name and protobuf number stayed.",
	Why:         "The wire is unchanged, but Go clients of the API package stop compiling.",
	Fix:         "Intended renames are fine; mention them in the release note for Go clients.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Renamed {
				continue
			}
			what := "json and protobuf unchanged"
			if fd.Has(model.AttrJSONName) || fd.Has(model.AttrInline) {
				what = "the json name changed too, reported separately"
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("Go field %s.%s was renamed to %s (%s)", fd.Type.Name(), fd.Base.Name, fd.Head.Name, what),
				Hint:    "Go clients must be updated; mention the rename in the release note",
			})
		}
	},
}
