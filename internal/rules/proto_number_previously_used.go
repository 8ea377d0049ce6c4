package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// ProtoNumberPreviouslyUsed is PROTO_NUMBER_PREVIOUSLY_USED.
var ProtoNumberPreviouslyUsed = &Rule{
	ID:           "PROTO_NUMBER_PREVIOUSLY_USED",
	Fixable:      true,
	Relax:        protobufInert,
	Alpha:        finding.Info,
	Category:     CatProtobuf,
	Severity:     finding.Error,
	AuditHistory: true,
	Requires:     []Input{InputRelease},
	ReleaseNote:  fixedNote("proto number previously used"),
	Summary:      "A field new in head takes a protobuf number that a different field of the same struct carried at an earlier release tag (with `audit --history`: any field of the revision).",
	Why: "A removal that left no tombstone is only visible in history: clients built from that release still decode " +
		"the number as the old field.",
	Fix: "Use the next safe number, and add the missing tombstone for the old field.",
	Ahead: func(d *model.Diff, a Analyses) {
		if _, structs := newProtoFields(d); len(structs) > 0 {
			a.Release.ProtoHistoryAhead(structs)
		}
	},
	Check: func(c *Context) {
		news, structs := newProtoFields(c.Diff)
		if len(news) == 0 {
			return
		}
		if _, prob := c.Release().Release(); prob != "" {
			c.Skip(prob)
			return
		}
		h, err := c.Release().ProtoHistory(structs)
		if err != nil {
			c.skipErr("", err)
			return
		}
		for _, fd := range news {
			td, n := fd.Type, fd.Head.Proto.Number
			dir, name := td.Pkg.Head.Dir, td.BaseName()
			old, since, ok := numberReuse(h, dir, name, fd.Head)
			if !ok {
				continue
			}
			var others []lifecycle.Holder
			for _, ho := range h.Holders(dir, name, n) {
				if ho.Field == old.Field {
					others = append(others, ho)
				}
			}
			used := h.Numbers(dir, name)
			for _, f := range td.Head.Fields {
				if f.Proto != nil {
					used = append(used, f.Proto.Number)
				}
			}
			next := protobuf.NextSafe(used, protobuf.Reserved(td.Head.Tombstones))
			var rel []finding.Related
			for i, ho := range others {
				if i == maxListed {
					break
				}
				rel = append(rel, finding.Related{Label: fmt.Sprintf("release %s: %s.%s = %d", ho.Tag, name, ho.Field, n)})
			}
			tomb := fmt.Sprintf("`// %s is tombstoned to show why %d is reserved protobuf tag.` followed by its commented-out declaration from release %s",
				old.Field, n, old.Tag)
			if typ, tag, err := c.Release().FieldDecl(old.Tag, dir, name, old.Field); err == nil {
				tomb = fmt.Sprintf(":\n// %s is tombstoned to show why %d is reserved protobuf tag.\n// %s %s `%s`", old.Field, n, old.Field, typ, tag)
			} else {
				tomb = ": " + tomb
			}
			r := Report{
				Message: fmt.Sprintf("%s.%s takes protobuf number %d, which %s.%s carried at release %s (removed without a tombstone)",
					td.Name(), fd.Head.Name, n, name, old.Field, old.Tag),
				Hint:    fmt.Sprintf("use number %d instead, and reserve %d with the tombstone %s never got%s", next, n, old.Field, tomb),
				Related: rel,
			}
			if c.Auditing() {
				r.Message = fmt.Sprintf("%s.%s carries protobuf number %d, which %s.%s carried at release %s (removed without a tombstone)",
					td.Name(), fd.Head.Name, n, name, old.Field, old.Tag)
				if since != "" {
					r.Message += "; " + fd.Head.Name + " carries it since release " + since
					r.Hint = fmt.Sprintf("the reuse shipped in release %s: clients of %s and earlier decode %d as %s, clients of %s and later as %s. "+
						"Renumbering %s breaks the newer clients, so decide with the API's owners which ones matter. "+
						"If %s moves to number %d, reserve %d with the tombstone %s never got%s",
						since, old.Tag, n, old.Field, since, fd.Head.Name, fd.Head.Name, fd.Head.Name, next, n, old.Field, tomb)
				} else {
					r.Message += "; no release shipped " + fd.Head.Name + " with it yet"
				}
			}
			c.Field(fd, r)
		}
	},
}

// newProtoFields returns the fields new in head with a protobuf number
// that no reservation at base or head covers, and their structs (package
// directory -> type names): PROTO_NUMBER_PREVIOUSLY_USED asks the
// protobuf history of those structs.
func newProtoFields(d *model.Diff) ([]*model.FieldDiff, map[string][]string) {
	var news []*model.FieldDiff
	structs := map[string][]string{}
	for td := range d.HeadStructs() {
		if td.Base == nil && td.Pkg.Base != nil && td.Pkg.Base.Type(td.Name()) != nil {
			// A new struct that took over the name of base's, which went
			// to another name with its history (model.Compare paired
			// them): no release had this struct.
			continue
		}
		dir, name := td.Pkg.Head.Dir, td.BaseName()
		for _, fd := range td.Fields {
			if fd.Base == nil && fd.Head.Proto != nil && !reservedAtBaseOrHead(td, fd.Head.Proto.Number) {
				news = append(news, fd)
				if !slices.Contains(structs[dir], name) {
					structs[dir] = append(structs[dir], name)
				}
			}
		}
	}
	return news, structs
}

// numberReuse walks the holders of field f's protobuf number in struct
// typ of dir from the newest release back: f itself (by Go or wire
// name), then fields f was renamed from (a different field that held the
// number, with the same wire type and label, at the release right before
// the oldest release of the newer name: the same field renamed, as
// check's pairing sees a rename), until a different field. That field is
// the reuse (ok); since is the oldest release at which f, under any of
// its names, carried the number ("" when no release did).
func numberReuse(h *lifecycle.ProtoNumbers, dir, typ string, f *model.Field) (old lifecycle.Holder, since string, ok bool) {
	name, json := f.Name, f.WireName()
	wire := f.Proto.Wire + "," + f.Proto.Label
	last := -1 // index in h.Tags of the oldest release of the current name
	for _, ho := range h.Holders(dir, typ, f.Proto.Number) {
		i := ho.Release
		switch {
		case ho.Same(name, json):
			last = i
		case last >= 0 && i == last+1 && ho.Wire == wire:
			name, json, last = ho.Field, ho.JSON, i // renamed at release h.Tags[last]
		default:
			if last >= 0 {
				since = h.Tags[last]
			}
			return ho, since, true
		}
	}
	return lifecycle.Holder{}, "", false
}

// reservedAtBaseOrHead reports whether a number belonged to a field of the
// struct at base or is reserved by a tombstone at head: that is
// PROTO_NUMBER_REUSED's (or PROTO_NUMBER_DUPLICATE's) finding, not history.
func reservedAtBaseOrHead(td *model.TypeDiff, n int) bool {
	if td.Base != nil {
		for _, f := range td.Base.Fields {
			if f.Proto != nil && f.Proto.Number == n {
				return true
			}
		}
	}
	for _, t := range td.Head.Tombstones {
		if t.Proto != nil && t.Proto.Number == n {
			return true
		}
	}
	return false
}
