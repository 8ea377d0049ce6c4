package rules

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// nextSafe is the next protobuf number that no live field, tombstone or
// base field of the struct has used.
func nextSafe(td *model.TypeDiff) int {
	var used, reserved []int
	for _, t := range []*model.Type{td.Base, td.Head} {
		if t == nil {
			continue
		}
		for _, f := range t.Fields {
			if f.Proto != nil {
				used = append(used, f.Proto.Number)
			}
		}
		for _, tb := range t.Tombstones {
			if tb.Proto != nil {
				reserved = append(reserved, tb.Proto.Number)
			}
		}
	}
	return protobuf.NextSafe(used, reserved)
}

func protoDesc(p *model.ProtoTag) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%s,%d,%s", p.Wire, p.Number, p.Label)
}

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

// duplicates returns, per number, the sorted names of live fields that
// share it.
func duplicates(t *model.Type) map[int][]string {
	by := map[int][]string{}
	if t == nil {
		return by
	}
	for _, f := range t.Fields {
		if f.Proto != nil {
			by[f.Proto.Number] = append(by[f.Proto.Number], f.Name)
		}
	}
	for n, names := range by {
		if len(names) < 2 {
			delete(by, n)
			continue
		}
		sort.Strings(names)
	}
	return by
}

var ProtoNumberDuplicate = &Rule{
	ID:          "PROTO_NUMBER_DUPLICATE",
	Relax:       protobufInert,
	Alpha:       finding.Info,
	Category:    CatProtobuf,
	Severity:    finding.Error,
	ReleaseNote: fixedNote("proto number duplicate"),
	Audit:       true,
	Summary:     "Two live fields of one struct carry the same protobuf number at head (a clash that did not exist at base).",
	Why:         "Protobuf cannot encode two fields under one number; typically a tag was copied from another field.",
	Fix:         "Give the new field the next free number (run `make generate WHAT=protobuf` instead of copying tags).",
	Before:      "A *string `protobuf:\"bytes,1,opt,name=a\"`\nB *string `protobuf:\"bytes,1,opt,name=b\"`",
	After:       "A *string `protobuf:\"bytes,1,opt,name=a\"`\nB *string `protobuf:\"bytes,2,opt,name=b\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			base := duplicates(td.Base)
			for n, names := range duplicates(td.Head) {
				if old, ok := base[n]; ok && strings.Join(old, ",") == strings.Join(names, ",") {
					continue // ratchet: the clash is as old as base
				}
				// Report at every field of the clash that is new or renumbered.
				for _, fd := range td.Fields {
					if fd.Head == nil || fd.Head.Proto == nil || fd.Head.Proto.Number != n {
						continue
					}
					if fd.Base != nil && fd.Base.Proto != nil && fd.Base.Proto.Number == n && len(names) > 1 {
						// An unchanged field is the victim, not the cause,
						// unless every party is unchanged.
						if anyChanged(td, n) {
							continue
						}
					}
					c.Field(fd, Report{
						Message: fmt.Sprintf("protobuf number %d of %s.%s is also used by %s", n, td.Name(), fd.Name(), strings.Join(others(names, fd.Name()), ", ")),
						Hint:    fmt.Sprintf("use the next safe number %d (run make generate WHAT=protobuf instead of copying tags)", nextSafe(td)),
					})
				}
			}
		}
	},
}

func anyChanged(td *model.TypeDiff, n int) bool {
	for _, fd := range td.Fields {
		if fd.Head != nil && fd.Head.Proto != nil && fd.Head.Proto.Number == n {
			if fd.Base == nil || fd.Base.Proto == nil || fd.Base.Proto.Number != n {
				return true
			}
		}
	}
	return false
}

func others(names []string, self string) []string {
	var out []string
	for _, n := range names {
		if n != self {
			out = append(out, n)
		}
	}
	return out
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

var ProtoNumberReused = &Rule{
	ID:          "PROTO_NUMBER_REUSED",
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
				c.Field(fd, c.unreleased(gone, Report{
					Message: fmt.Sprintf("%s.%s takes protobuf number %d, which belonged to the removed field %s", td.Name(), h.Name, h.Proto.Number, old.Name),
					Hint:    fmt.Sprintf("use the next safe number %d and tombstone %s", nextSafe(td), old.Name),
					Related: []finding.Related{related("base", old.Pos)},
				}, old.Name))
			}
		}
	},
}

// explicitlyNoProto reports `protobuf:"-"`.
func explicitlyNoProto(f *model.Field) bool {
	v, ok := reflect.StructTag(f.Tag).Lookup("protobuf")
	return ok && v == "-"
}

var ProtoTagMissing = &Rule{
	ID:          "PROTO_TAG_MISSING",
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
