package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
)

// ProtoTagMalformed is PROTO_TAG_MALFORMED.
var ProtoTagMalformed = &Rule{
	ID:          "PROTO_TAG_MALFORMED",
	Relax:       protobufInert,
	Category:    CatProtobuf,
	Severity:    finding.Error,
	ReleaseNote: fixedNote("proto tag malformed"),
	Audit:       true,
	Summary:     "A field's protobuf struct tag does not parse (introduced by this change).",
	Why:         "go-to-protobuf and the protobuf codec cannot use the field; every protobuf rule is blind to it.",
	Fix:         "Regenerate the tag with `make generate WHAT=protobuf`.",
	Before:      "Foo *string `protobuf:\"bytes,x,opt,name=foo\"`",
	After:       "Foo *string `protobuf:\"bytes,3,opt,name=foo\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			for _, fd := range td.Fields {
				f := fd.Head
				if f == nil || f.ProtoErr == "" {
					continue
				}
				if fd.Base != nil && fd.Base.ProtoErr == f.ProtoErr {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("malformed protobuf tag on %s.%s: %s", td.Name(), f.Name, f.ProtoErr),
					Hint:    fmt.Sprintf("regenerate the tag (make generate WHAT=protobuf); the next safe number is %d", nextSafe(td)),
				})
			}
		}
	},
}
