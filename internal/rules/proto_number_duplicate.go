package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ProtoNumberDuplicate is PROTO_NUMBER_DUPLICATE.
var ProtoNumberDuplicate = &Rule{
	ID:          "PROTO_NUMBER_DUPLICATE",
	Fixable:     true,
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
		slices.Sort(names)
	}
	return by
}

// anyChanged reports whether a field of the struct that carries number n
// at head is new or carried another number at base.
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

// others are the names other than self.
func others(names []string, self string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == self })
}
