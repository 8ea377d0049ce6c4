package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

func tombstoneLine(f *model.Field) string {
	return fmt.Sprintf("// %s is tombstoned to show why %d is reserved protobuf tag.\n// %s %s `%s`",
		f.Name, f.Proto.Number, f.Name, f.Type, f.Tag)
}

var FieldRemovedWithoutTombstone = &Rule{
	ID:       "FIELD_REMOVED_WITHOUT_TOMBSTONE",
	Alpha:    finding.Info,
	Category: CatRemoval,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Summary:  "A protobuf-tagged external field was removed without a tombstone reserving its number.",
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
	Relax:    relaxedToInfo,
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
					Message: fmt.Sprintf("the tombstone of %s.%s (reserving protobuf number %s) was removed", td.Name(), tb.Base.FieldName, num),
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
	Relax:    relaxedToInfo,
	Summary:  "A tombstone's reserved number, field name or wire type differs between base and head.",
	Why:      "The tombstone documents what the number meant on the wire; editing it frees the old number.",
	Fix:      "Restore the tombstone as it was at base.",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, tb := range td.Tombstones {
				if tb.Base == nil || tb.Head == nil {
					continue
				}
				b, h := tb.Base, tb.Head
				var what []string
				if b.FieldName != h.FieldName {
					what = append(what, fmt.Sprintf("field name %s -> %s", b.FieldName, h.FieldName))
				}
				if b.Proto != nil && h.Proto != nil {
					if b.Proto.Number != h.Proto.Number {
						what = append(what, fmt.Sprintf("number %d -> %d", b.Proto.Number, h.Proto.Number))
					}
					if b.Proto.Wire != h.Proto.Wire || model.NormLabel(b.Proto.Label) != model.NormLabel(h.Proto.Label) {
						what = append(what, fmt.Sprintf("encoding %s -> %s", protoDesc(b.Proto), protoDesc(h.Proto)))
					}
				}
				if len(what) == 0 {
					continue
				}
				c.Tombstone(tb, Report{
					Message: fmt.Sprintf("tombstone of %s.%s changed: %s", td.Name(), b.FieldName, strings.Join(what, ", ")),
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
	Relax:    relaxedToInfo,
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
				if !c.Policy(td.Pkg).TombstoneSentence && !strings.HasPrefix(tb.Head.Problem, "malformed protobuf tag") {
					continue // the checklist sentence is Gardener's house style; any explanation reserves the number
				}
				if tb.Base != nil && tb.Base.Problem == tb.Head.Problem {
					continue // ratchet
				}
				hint := "write: // X is tombstoned to show why N is reserved protobuf tag."
				if tb.Head.Proto != nil {
					hint = fmt.Sprintf("write: // %s is tombstoned to show why %d is reserved protobuf tag.", tb.Head.FieldName, tb.Head.Proto.Number)
				}
				c.Tombstone(tb, Report{
					Message: fmt.Sprintf("malformed tombstone for %s.%s: %s", td.Name(), tb.Head.FieldName, tb.Head.Problem),
					Hint:    hint,
				})
			}
		}
	},
}
