package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
)

// ConflictingMarkers is CONFLICTING_MARKERS.
var ConflictingMarkers = &Rule{
	ID:       "CONFLICTING_MARKERS",
	Category: CatCompat,
	Severity: finding.Warning,
	Audit:    true,
	Summary: "A field's markers and tags contradict each other (`+listType=map` without `+listMapKey`, a `patchMergeKey` " +
		"without `patchStrategy:\"merge\"`, a merge key that is not a list-map key), introduced by this change.",
	Why: "The code generators and the API server each pick one of the forms: server-side apply, strategic merge " +
		"patch and the OpenAPI schema end up disagreeing about the field.",
	Fix: "Make the forms agree (see the message for both sources).",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			for _, fd := range td.Fields {
				if fd.Head == nil {
					continue
				}
				for _, conflict := range contractOf(fd.Head).Conflicts {
					if fd.Base != nil && slices.Contains(contractOf(fd.Base).Conflicts, conflict) {
						continue // ratchet: as old as base
					}
					c.Field(fd, Report{
						Message: fmt.Sprintf("field %s.%s has conflicting forms: %s", td.Name(), fd.Name(), conflict),
						Hint:    "make the markers and the struct tag agree",
					})
				}
			}
		}
	},
}
