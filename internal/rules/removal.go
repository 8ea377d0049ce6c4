package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

func tombstoneLine(f *model.Field) string {
	return fmt.Sprintf("// %s is tombstoned to show why %d is reserved protobuf tag.\n// %s %s `%s`",
		f.Name, f.Proto.Number, f.Name, f.Type, f.Tag)
}

var FieldRemovedWithoutTombstone = &Rule{
	ID:           "FIELD_REMOVED_WITHOUT_TOMBSTONE",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatRemoval,
	Severity:     finding.Error,
	Relax:        protobufInert,
	Summary:      "A protobuf-tagged external field was removed without a tombstone reserving its number.",
	Why: "Without the tombstone nothing stops a later field from taking the number, which corrupts data " +
		"for every client still holding the old definition.",
	Fix: "Replace the field by a tombstone comment: `// X is tombstoned to show why N is reserved protobuf tag.` " +
		"followed by the commented-out declaration.",
	Before: "type S struct {\n}",
	After:  "type S struct {\n\t// Old is tombstoned to show why 2 is reserved protobuf tag.\n\t// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`\n}",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Head != nil || fd.Base.Proto == nil {
					continue
				}
				if TombstoneFor(td.Head, fd.Base) != nil {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("field %s.%s (protobuf number %d) was removed without a tombstone", td.Name(), fd.Base.Name, fd.Base.Proto.Number),
					Hint:    "leave in its place:\n" + tombstoneLine(fd.Base),
					Related: []finding.Related{related("base", fd.Base.Pos)},
				})
			}
		}
	},
}

// restoredBy returns the live head field that took a tombstone back
// unchanged (same Go name and number).
func restoredBy(head *model.Type, tb *model.Tombstone) *model.Field {
	if head == nil || tb.Proto == nil {
		return nil
	}
	for _, f := range head.Fields {
		if f.Name == tb.FieldName && f.Proto != nil && f.Proto.Number == tb.Proto.Number {
			return f
		}
	}
	return nil
}

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
