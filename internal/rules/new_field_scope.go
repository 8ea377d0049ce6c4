package rules

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// The scope of the NEW_FIELD_* rules: the fields added to structs that
// clients already know (not the fields of new types, nor what a new version
// copied from a sibling), and the fields a struct that stopped embedding a
// type may have written out. OPTIONAL_WITHOUT_OMITEMPTY judges the rest.

// newFieldsInScope yields fields added to struct types that existed at
// base, or that join the wire in them (joinsWire), and those added to a
// version package's copies of a sibling's structs (addedToCopies),
// excluding embedded/inline fields and the value-typed Spec/Status fields
// of a root kind (the scope of the NEW_FIELD_* rules).
func newFieldsInScope(c *Context) iter.Seq[*model.FieldDiff] {
	d := c.Diff
	return func(yield func(*model.FieldDiff) bool) {
		// Added to an existing struct, or joining the wire in one.
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				var isNew bool
				switch {
				case fd.Head == nil:
				case fd.Base == nil:
					isNew = !promotedAtBase(td, fd.Head) && unresolvedDroppedEmbedding(td) == ""
				default:
					isNew = joinsWire(fd)
				}
				// A struct that joins the wire has no new fields, as a new
				// type has none (asked last: it needs both models' reach).
				if isNew && InNewFieldScope(td, fd.Head) && !c.newToTheWire(td) && !yield(fd) {
					return
				}
			}
		}
		for fd := range addedToCopies(d) {
			if InNewFieldScope(fd.Type, fd.Head) && !c.newToTheWire(fd.Type) && !yield(fd) {
				return
			}
		}
	}
}

// joinsWire reports a field that base did not serialise (json:"-") and
// head does under a name: new on the wire, as an added field is
// (Karpenter's EC2NodeClassSpec.InstanceProfile).
func joinsWire(fd *model.FieldDiff) bool {
	bc, hc := contractOf(fd.Base), contractOf(fd.Head)
	return bc.Name == "-" && !bc.Inline && hc.Name != "-" && hc.Name != "" && !hc.Inline
}

// promotedAtBase reports whether base's struct already had f's json name
// through an inline embedded struct: a field written out where the struct
// used to embed its type (Karpenter replaced an embedded
// v1.NodeSelectorRequirement by key, operator and values) is not new on
// the wire.
func promotedAtBase(td *model.TypeDiff, f *model.Field) bool {
	if td.Base == nil {
		return false
	}
	for _, bf := range td.Base.Fields {
		if bf.Embedded && bf.Inline() && slices.Contains(bf.Promoted, f.WireName()) {
			return true
		}
	}
	return false
}

// addedToCopies yields the fields that a version package new at head adds
// to the structs it copied from a sibling: a new version of an existing
// group is compared against the group's versions at base, so a struct
// that one of them already had (by name) is not new, and neither are the
// members it had. A member is the sibling's when the same-named struct of
// a version at base has a field with its Go name, its json name, or its
// protobuf number, wire type and Go type (a field renamed in the copy, as
// the pairing ladder pairs renames), or when any struct of a version at base has a field
// with its Go name and json name (a member moved between structs of the
// copy). Any other member is a new field of an existing struct.
func addedToCopies(d *model.Diff) iter.Seq[*model.FieldDiff] {
	return func(yield func(*model.FieldDiff) bool) {
		for pd := range d.ExternalPackages() {
			if pd.Base != nil || pd.Head == nil || pd.Group.Base == nil {
				continue
			}
			sib := siblingsAtBase(pd.Group)
			if len(sib.structs) == 0 {
				continue
			}
			for _, td := range pd.Types {
				if td.Head == nil || td.Head.Kind != model.KindStruct || !sib.structs[td.Head.Name] {
					continue
				}
				for _, fd := range td.Fields {
					if f := fd.Head; f != nil && !sib.known(td.Head.Name, f) && !yield(fd) {
						return
					}
				}
			}
		}
	}
}

// siblings are the struct names and members of a group's external
// versions at base.
type siblings struct {
	structs map[string]bool
	// members are "Go name, json name" of every struct's fields;
	// byStruct "struct, key" with key one of "go:Name", "json:name",
	// "pb:N".
	members, byStruct map[string]bool
}

// siblingsAtBase are the struct names and members of group gd's
// versions at base.
func siblingsAtBase(gd *model.GroupDiff) siblings {
	s := siblings{structs: map[string]bool{}, members: map[string]bool{}, byStruct: map[string]bool{}}
	for _, p := range gd.Base.Versions {
		for _, t := range p.Types {
			if t.Kind != model.KindStruct {
				continue
			}
			s.structs[t.Name] = true
			for _, f := range t.Fields {
				s.members[f.Name+"\x00"+f.WireName()] = true
				for _, k := range memberKeys(f) {
					s.byStruct[t.Name+"\x00"+k] = true
				}
			}
		}
	}
	return s
}

// memberKeys are the names a field is recognised by in the same-named
// struct of a sibling version.
func memberKeys(f *model.Field) []string {
	keys := []string{"go:" + f.Name}
	if w := f.WireName(); w != "" && w != "-" {
		keys = append(keys, "json:"+w)
	}
	if f.Proto != nil {
		// As the pairing ladder's last step: the number with the same
		// wire type and Go type (a number alone is reused freely across
		// versions).
		keys = append(keys, fmt.Sprintf("pb:%d:%s:%s", f.Proto.Number, f.Proto.Wire, f.Type))
	}
	return keys
}

// known reports whether a member of struct typ in a new version package
// was the sibling's (see addedToCopies).
func (s siblings) known(typ string, f *model.Field) bool {
	if s.members[f.Name+"\x00"+f.WireName()] {
		return true
	}
	for _, k := range memberKeys(f) {
		if s.byStruct[typ+"\x00"+k] {
			return true
		}
	}
	return false
}

// unresolvedDroppedEmbedding names an inline embedded field of base's
// struct that head no longer has, not even through a struct of the
// package it embeds inline (model.TypeDiff.StillInlines), and whose
// members could not be resolved (a module not in the module cache): the
// fields head added may be its members written out, so the new-field
// rules cannot tell whether they are new. "" when there is none.
func unresolvedDroppedEmbedding(td *model.TypeDiff) string {
	if td.Base == nil || td.Head == nil {
		return ""
	}
	for _, bf := range td.Base.Fields {
		if bf.Embedded && bf.Inline() && bf.Promoted == nil && td.Head.Field(bf.Name) == nil && !td.StillInlines(bf) {
			return bf.Type
		}
	}
	return ""
}

// InNewFieldScope reports whether an added field of an existing struct is
// judged by the new-field rules.
func InNewFieldScope(td *model.TypeDiff, f *model.Field) bool {
	if f.Embedded || f.Inline() || f.JSON.Name == "-" {
		return false
	}
	if td.Head.RootKind && (f.Name == "Spec" || f.Name == "Status") && !strings.HasPrefix(f.Type, "*") {
		return false
	}
	return true
}
