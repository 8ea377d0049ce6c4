package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// TombstoneMalformed is TOMBSTONE_MALFORMED.
var TombstoneMalformed = &Rule{
	ID:       "TOMBSTONE_MALFORMED",
	Category: CatRemoval,
	Severity: finding.Warning,
	Relax:    protobufInert,
	Audit:    true,
	Summary:  "A tombstone does not follow the convention `X is tombstoned to show why N is reserved protobuf tag.` matching its declaration.",
	Why:      "A tombstone whose explanation disagrees with its declaration leaves reviewers unsure which number is reserved.",
	Fix:      "Write the explanatory line exactly as `X is tombstoned to show why N is reserved protobuf tag.` above the commented-out declaration.",
	Before:   "// removed\n// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`",
	After:    "// Old is tombstoned to show why 2 is reserved protobuf tag.\n// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			for _, tb := range td.Tombstones {
				if tb.Head == nil || tb.Head.Problem == "" {
					continue
				}
				malformed := strings.HasPrefix(tb.Head.Problem, protobuf.MalformedPrefix)
				if !c.Policy(td.Pkg).TombstoneSentence && !malformed {
					continue // the checklist sentence is Gardener's house style; any explanation reserves the number
				}
				if tb.Base != nil && tb.Base.Problem == tb.Head.Problem {
					continue // ratchet
				}
				hint := "write: // X is tombstoned to show why N is reserved protobuf tag."
				switch {
				case malformed && tb.Head.Type == "":
					hint = "write the explanatory line and, below it, the removed field's declaration as a comment"
				case tb.Head.Proto != nil && tb.Head.FieldName != "":
					hint = fmt.Sprintf("write: // %s is tombstoned to show why %d is reserved protobuf tag.", tb.Head.FieldName, tb.Head.Proto.Number)
				}
				c.Tombstone(tb, Report{
					Message: fmt.Sprintf("malformed tombstone for %s.%s: %s", td.Name(), tb.Head.Name(), strings.TrimPrefix(tb.Head.Problem, "malformed tombstone: ")),
					Hint:    hint,
				})
			}
			// One number reserved twice under different names: which
			// field did the number belong to?
			for _, dup := range duplicateReservations(td.Head, td.Base) {
				c.TypeAt(td, dup.second.Pos, Report{
					Message: fmt.Sprintf("protobuf number %d of %s is reserved twice: by %s (%s) and by %s (%s)",
						dup.number, td.Name(), dup.first.Name(), dup.first.Pos, dup.second.Name(), dup.second.Pos),
					Hint:    "keep the tombstone of the field that really held the number",
					Related: []finding.Related{related("", dup.first.Pos)},
				})
			}
		}
	},
}

// duplicate is a protobuf number two tombstones of a struct reserve.
type duplicate struct {
	number        int
	first, second *model.Tombstone
}

// duplicateReservations are the numbers head reserves in two tombstones
// with different names, unless base already did.
func duplicateReservations(head, base *model.Type) []duplicate {
	find := func(t *model.Type) []duplicate {
		if t == nil {
			return nil
		}
		var out []duplicate
		first := map[int]*model.Tombstone{}
		for _, tb := range t.Tombstones {
			if tb.Proto == nil {
				continue
			}
			f, ok := first[tb.Proto.Number]
			if !ok {
				first[tb.Proto.Number] = tb
				continue
			}
			if !protobuf.SameReservation(f, tb) {
				out = append(out, duplicate{tb.Proto.Number, f, tb})
			}
		}
		return out
	}
	old := map[int]bool{}
	for _, d := range find(base) {
		old[d.number] = true
	}
	var out []duplicate
	for _, d := range find(head) {
		if !old[d.number] {
			out = append(out, d)
		}
	}
	return out
}
