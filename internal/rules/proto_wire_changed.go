package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ProtoWireChanged is PROTO_WIRE_CHANGED.
var ProtoWireChanged = &Rule{
	ID:           "PROTO_WIRE_CHANGED",
	Relax:        protobufInert,
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatProtobuf,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrProtoWire, model.AttrProtoLabel},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil || fd.Base.Proto == nil || fd.Head.Proto == nil {
			return "protobuf encoding changed"
		}
		return fmt.Sprintf("protobuf encoding changed from `%s,%s` to `%s,%s`", fd.Base.Proto.Wire, model.NormLabel(fd.Base.Proto.Label), fd.Head.Proto.Wire, model.NormLabel(fd.Head.Proto.Label))
	},
	Summary: "An existing field's protobuf wire type (`bytes`, `varint`, …) or label (`opt`/`rep`) changed.",
	Why:     "Decoders of the old definition cannot read the new encoding of the field.",
	Fix:     "Keep the field's type; introduce a new field with a new number instead.",
	Before:  "Count *int64 `protobuf:\"bytes,4,opt,name=count\"`",
	After:   "Count *int64 `protobuf:\"varint,4,opt,name=count\"` // as at base",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Base == nil || fd.Head == nil {
					continue
				}
				if !fd.Has(model.AttrProtoWire) && !fd.Has(model.AttrProtoLabel) {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("protobuf encoding of %s.%s changed from %s to %s", td.Name(), fd.Name(), protoDesc(fd.Base.Proto), protoDesc(fd.Head.Proto)),
					Hint:    "keep the wire type and label; add a new field with a new number for a new type",
				})
			}
		}
	},
}

// protoDesc describes a protobuf tag as "wire,number,label" ("none"
// without one).
func protoDesc(p *model.ProtoTag) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%s,%d,%s", p.Wire, p.Number, p.Label)
}
