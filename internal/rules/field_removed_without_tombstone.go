package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldRemovedWithoutTombstone is FIELD_REMOVED_WITHOUT_TOMBSTONE.
var FieldRemovedWithoutTombstone = &Rule{
	ID:           "FIELD_REMOVED_WITHOUT_TOMBSTONE",
	Fixable:      true,
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

// tombstoneLine is the tombstone that reserves removed field f's number:
// the explanatory line and the commented-out declaration.
func tombstoneLine(f *model.Field) string {
	return fmt.Sprintf("// %s is tombstoned to show why %d is reserved protobuf tag.\n// %s %s `%s`",
		f.Name, f.Proto.Number, f.Name, f.Type, f.Tag)
}
