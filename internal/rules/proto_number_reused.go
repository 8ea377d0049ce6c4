package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ProtoNumberReused is PROTO_NUMBER_REUSED.
var ProtoNumberReused = &Rule{
	ID:          "PROTO_NUMBER_REUSED",
	Fixable:     true,
	Relax:       protobufInert,
	Alpha:       finding.Info,
	Category:    CatProtobuf,
	Severity:    finding.Error,
	ReleaseNote: fixedNote("proto number reused"),
	Audit:       true,
	Summary:     "A live field uses a protobuf number that a tombstone reserves, or that belonged at base to a field head removed.",
	Why: "Clients still holding the old definition decode the new field's data as the removed field " +
		"(or the other way round): silent data corruption. " +
		"A number that a field removed in this change held is information when the release before base did not have that field " +
		"(never released): no client or stored object holds data under it.",
	Fix:    "Use the next safe number named in the hint; a reserved number is never used again.",
	Before: "// Old is tombstoned to show why 2 is reserved protobuf tag.\n// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`\nNew *string `json:\"new,omitempty\" protobuf:\"bytes,2,opt,name=new\"`",
	After:  "// Old is tombstoned to show why 2 is reserved protobuf tag.\n// Old *string `json:\"old,omitempty\" protobuf:\"bytes,2,opt,name=old\"`\nNew *string `json:\"new,omitempty\" protobuf:\"bytes,3,opt,name=new\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			baseReuses := reuses(td.Base)
			reported := map[*model.FieldDiff]bool{}
			for key, tb := range reuses(td.Head) {
				if _, old := baseReuses[key]; old {
					continue
				}
				name := key[:strings.Index(key, "/")]
				for _, fd := range td.Fields {
					if fd.Head != nil && fd.Head.Name == name && !reported[fd] {
						reported[fd] = true
						c.Field(fd, Report{
							Message: fmt.Sprintf("%s.%s uses protobuf number %d, which the tombstone of %s reserves", td.Name(), name, tb.Proto.Number, tb.Name()),
							Hint:    fmt.Sprintf("use the next safe number %d", nextSafe(td)),
							Related: []finding.Related{related("tombstone", tb.Pos)},
						})
					}
				}
			}
			// Numbers of fields removed in this change.
			removed := map[int]*model.FieldDiff{}
			for _, fd := range td.Fields {
				if fd.Head == nil && fd.Base.Proto != nil {
					removed[fd.Base.Proto.Number] = fd
				}
			}
			for _, fd := range td.Fields {
				h := fd.Head
				if h == nil || h.Proto == nil || reported[fd] {
					continue
				}
				gone := removed[h.Proto.Number]
				if gone == nil || gone.Base.Name == h.Name {
					continue
				}
				if fd.Base != nil && fd.Base.Proto != nil && fd.Base.Proto.Number == h.Proto.Number {
					continue
				}
				old := gone.Base
				// A removed field no release shipped left no data and no
				// client behind that could read the number its way.
				c.Field(fd, Report{
					Message: fmt.Sprintf("%s.%s takes protobuf number %d, which belonged to the removed field %s", td.Name(), h.Name, h.Proto.Number, old.Name),
					Hint:    fmt.Sprintf("use the next safe number %d and tombstone %s", nextSafe(td), old.Name),
					Related: []finding.Related{related("base", old.Pos)},
				}.ifFieldUnreleased(gone, old.Name))
			}
		}
	},
}

// reuses lists the live fields of a struct whose numbers a tombstone
// reserves, keyed "Field/number", excluding exact restorations (same name
// and number as the tombstone), which TOMBSTONED_FIELD_RESTORED judges.
func reuses(t *model.Type) map[string]*model.Tombstone {
	out := map[string]*model.Tombstone{}
	if t == nil {
		return out
	}
	for _, f := range t.Fields {
		if f.Proto == nil {
			continue
		}
		for _, tb := range t.Tombstones {
			if tb.Proto != nil && tb.Proto.Number == f.Proto.Number && tb.FieldName != f.Name {
				out[fmt.Sprintf("%s/%d", f.Name, f.Proto.Number)] = tb
			}
		}
	}
	return out
}
