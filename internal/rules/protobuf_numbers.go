package rules

import (
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// Protobuf numbers of a struct: the next one that is safe to take, and the
// live field that takes a tombstone back. The PROTO_* and TOMBSTONE_* rules
// ask these.

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
