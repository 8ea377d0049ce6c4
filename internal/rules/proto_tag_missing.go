package rules

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ProtoTagMissing is PROTO_TAG_MISSING.
var ProtoTagMissing = &Rule{
	ID:          "PROTO_TAG_MISSING",
	Fixable:     true,
	Relax:       protobufInert,
	Alpha:       finding.Info,
	Category:    CatProtobuf,
	Severity:    finding.Warning,
	ReleaseNote: fixedNote("proto tag missing"),
	Judges:      []model.Attr{model.AttrProtoPresence},
	Summary:     "A new external field has no protobuf tag while other fields of its struct have one.",
	Why:         "Expected before `make generate WHAT=protobuf`; merged without it the field is dropped from protobuf encoding.",
	Fix:         "Run `make generate WHAT=protobuf` (the hint names the next safe number).",
	Before:      "Foo *string `json:\"foo,omitempty\"`",
	After:       "Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,7,opt,name=foo\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			others := false
			for _, f := range td.Head.Fields {
				if f.Proto != nil {
					others = true
					break
				}
			}
			if !others {
				continue
			}
			next := nextSafe(td)
			for _, fd := range td.Fields {
				f := fd.Head
				if f == nil || f.Proto != nil || f.ProtoErr != "" || explicitlyNoProto(f) || f.JSON.Name == "-" {
					continue
				}
				if f.Embedded && strings.HasSuffix(f.Name, "TypeMeta") {
					continue
				}
				if fd.Base != nil {
					if fd.Base.Proto == nil {
						continue // ratchet: it never had one
					}
					c.Field(fd, Report{
						Message:  fmt.Sprintf("field %s.%s lost its protobuf tag (was %s)", td.Name(), f.Name, fd.Base.Proto.Raw),
						Hint:     fmt.Sprintf("restore `protobuf:%q`", fd.Base.Proto.Raw),
						Severity: finding.Error,
					})
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("new field %s.%s has no protobuf tag while other fields of %s have one", td.Name(), f.Name, td.Name()),
					Hint:    fmt.Sprintf("run make generate WHAT=protobuf; the next safe number is %d", next),
				})
				next++
			}
		}
	},
}

// explicitlyNoProto reports `protobuf:"-"`.
func explicitlyNoProto(f *model.Field) bool {
	v, ok := reflect.StructTag(f.Tag).Lookup("protobuf")
	return ok && v == "-"
}
