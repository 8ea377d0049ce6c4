package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ProtoNumberChanged is PROTO_NUMBER_CHANGED.
var ProtoNumberChanged = &Rule{
	ID:           "PROTO_NUMBER_CHANGED",
	Relax:        protobufInert,
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatProtobuf,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrProtoNumber},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil || fd.Base.Proto == nil || fd.Head.Proto == nil {
			return "protobuf number changed"
		}
		return fmt.Sprintf("protobuf number changed from %d to %d", fd.Base.Proto.Number, fd.Head.Proto.Number)
	},
	Summary: "An existing field's protobuf number changed.",
	Why: "The number is the field's identity on the protobuf wire: clients and stored objects encoded " +
		"with the old number decode into the wrong field or lose the value.",
	Fix:    "Restore the old number; never edit generated protobuf tags by hand.",
	Before: "Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,3,opt,name=foo\"`",
	After:  "Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,2,opt,name=foo\"` // unchanged from base",
	Check: func(c *Context) {
		for td := range c.Diff.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Base == nil || fd.Head == nil {
					continue
				}
				if !fd.Has(model.AttrProtoNumber) {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("protobuf number of %s.%s changed from %d to %d", td.Name(), fd.Name(), fd.Base.Proto.Number, fd.Head.Proto.Number),
					Hint:    fmt.Sprintf("restore protobuf number %d", fd.Base.Proto.Number),
				})
			}
		}
	},
}
