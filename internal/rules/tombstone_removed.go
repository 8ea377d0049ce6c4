package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
)

// TombstoneRemoved is TOMBSTONE_REMOVED.
var TombstoneRemoved = &Rule{
	ID:       "TOMBSTONE_REMOVED",
	Alpha:    finding.Info,
	Category: CatRemoval,
	Severity: finding.Error,
	Relax:    protobufInert,
	Summary:  "A tombstone present at base is gone at head.",
	Why:      "A tombstone reserves its number forever; once it is gone the number looks free.",
	Fix:      "Restore the tombstone comment.",
	Before:   "type S struct {\n}",
	After:    "type S struct {\n\t// Old is tombstoned to show why 2 is reserved protobuf tag.\n\t// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`\n}",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, tb := range td.Tombstones {
				if tb.Head != nil || restoredBy(td.Head, tb.Base) != nil {
					continue
				}
				num := "?"
				if tb.Base.Proto != nil {
					num = fmt.Sprint(tb.Base.Proto.Number)
				}
				c.Tombstone(tb, Report{
					Message: fmt.Sprintf("the tombstone of %s.%s (reserving protobuf number %s) was removed", td.Name(), tb.Base.Name(), num),
					Hint:    "restore the tombstone comment from base " + tb.Base.Pos.String(),
					Related: []finding.Related{related("base", tb.Base.Pos)},
				})
			}
		}
	},
}
