package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
)

// TombstonedFieldRestored is TOMBSTONED_FIELD_RESTORED.
var TombstonedFieldRestored = &Rule{
	ID:       "TOMBSTONED_FIELD_RESTORED",
	Alpha:    finding.Info,
	Category: CatRemoval,
	Severity: finding.Warning,
	Relax:    relaxedToInfo,
	Summary:  "A field comes back with the same name and number that its tombstone reserved (a revert).",
	Why:      "Fine only if the removal was never released; otherwise clients may hold data written without it.",
	Fix:      "Confirm the removal was never part of a release; otherwise use a new field with a new number.",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, tb := range td.Tombstones {
				if tb.Base == nil {
					continue
				}
				f := restoredBy(td.Head, tb.Base)
				if f == nil {
					continue
				}
				for _, fd := range td.Fields {
					if fd.Head == f && fd.Base == nil {
						c.Field(fd, Report{
							Message: fmt.Sprintf("field %s.%s is restored with protobuf number %d that its tombstone reserved", td.Name(), f.Name, f.Proto.Number),
							Hint:    "fine only if the removal was never released; otherwise add a new field with a new number",
						})
					}
				}
			}
		}
	},
}
