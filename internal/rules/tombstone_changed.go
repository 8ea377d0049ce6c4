package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
)

// TombstoneChanged is TOMBSTONE_CHANGED.
var TombstoneChanged = &Rule{
	ID:       "TOMBSTONE_CHANGED",
	Alpha:    finding.Info,
	Category: CatRemoval,
	Severity: finding.Error,
	Relax:    protobufInert,
	Summary: "A tombstone reserves another protobuf number at head than at base. A fixed name, wire type or " +
		"another reservation form with the same number is no change.",
	Why: "Renumbering a tombstone frees the number it reserved: a later field may take it.",
	Fix: "Restore the tombstone as it was at base.",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, tb := range td.Tombstones {
				if tb.Base == nil || tb.Head == nil {
					continue
				}
				// What a tombstone reserves is its number: a fixed name, a
				// corrected wire type or another reservation form (Kubernetes'
				// marker, prose) with the same number change no contract.
				b, h := tb.Base, tb.Head
				if b.Proto == nil || h.Proto == nil || b.Proto.Number == h.Proto.Number {
					continue
				}
				c.Tombstone(tb, Report{
					Message: fmt.Sprintf("tombstone of %s.%s changed: number %d -> %d", td.Name(), b.Name(), b.Proto.Number, h.Proto.Number),
					Hint:    "restore the tombstone as it was at base " + b.Pos.String(),
				})
			}
		}
	},
}
