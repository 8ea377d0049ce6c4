package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// OptionalWithoutOmitempty is OPTIONAL_WITHOUT_OMITEMPTY.
var OptionalWithoutOmitempty = &Rule{
	ID:       "OPTIONAL_WITHOUT_OMITEMPTY",
	Fixable:  true,
	Category: CatNewFields,
	Severity: finding.Warning,
	Relax:    offIn(relaxedToInfo, model.ProfileKubernetes),
	Judges:   []model.Attr{model.AttrOptional, model.AttrOmitEmpty},
	Summary: "A field marked `+optional` has no `omitempty`/`omitzero`, where that field is new (fields of new struct types included; not a field " +
		"a new version package copied from a sibling version, nor one added to an existing struct: NEW_FIELD_NO_OMITEMPTY's) or existed at base " +
		"without being marked optional or omitted when empty: it became optional without omitempty (a field that loses omitempty is " +
		"FIELD_BECAME_REQUIRED's). Not a struct value, where omitempty omits nothing. Under the gardener profile the message names the checklist's item.",
	Why:    "An optional field that is always serialised cannot be told apart from an explicit zero value.",
	Fix:    "Add `,omitempty` (or `,omitzero`) to the json tag.",
	Before: "// +optional\nFoo *string `json:\"foo\"`",
	After:  "// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for td := range c.Diff.HeadStructs() {
			for _, fd := range td.Fields {
				f := fd.Head
				if f == nil || !f.Optional() || f.Omits() || f.Inline() || f.JSON.Name == "-" {
					continue
				}
				if f.ValueKind == model.KindStructValue || f.ValueKind == model.KindArray {
					continue // omitempty would omit nothing; omitzero is a style choice
				}
				if fd.Base != nil {
					judgeChangedOptional(c, fd)
					continue
				}
				// Fields added to existing structs are NEW_FIELD_NO_OMITEMPTY's.
				if (td.Base != nil || addedToCopy(td, f)) && InNewFieldScope(td, f) || td.Base != nil && promotedAtBase(td, f) {
					continue
				}
				if copiedFromSibling(c.Diff, td, f) {
					continue
				}
				c.Field(fd, Report{
					Message: fmt.Sprintf("optional field %s.%s has no omitempty in its json tag", td.Name(), f.Name),
					Hint:    fmt.Sprintf("use `json:\"%s,omitempty\"`", f.WireName()),
				})
			}
		}
	},
}

// judgeChangedOptional reports an existing field that head marks
// optional without omitempty (or omitzero) and that base neither marked
// so nor omitted when empty: it became optional without omitempty. A
// field that was omitted and no longer is, is FIELD_BECAME_REQUIRED's
// (it stops being omitted when empty, whatever its markers), and one
// that joins the wire is a new field (NEW_FIELD_NO_OMITEMPTY's).
func judgeChangedOptional(c *Context, fd *model.FieldDiff) {
	b, f, td := fd.Base, fd.Head, fd.Type
	if b.Optional() && !b.Omits() || contractOf(b).Omit || joinsWire(fd) && InNewFieldScope(td, f) {
		return
	}
	r := Report{
		Message: fmt.Sprintf("field %s.%s is now marked optional but has no omitempty in its json tag", td.Name(), f.Name),
		Hint:    fmt.Sprintf("use `json:\"%s,omitempty\"`", f.WireName()),
	}
	if b.Optional() {
		// A struct value, whose omitempty omitted nothing, became a
		// pointer that is written as null when unset.
		r.Message = fmt.Sprintf("optional field %s.%s has no omitempty in its json tag at head (its type is now %s)", td.Name(), f.Name, f.Type)
	}
	if c.Policy(td.Pkg).Checklist {
		r.Message += " (the checklist: an optional field is a pointer with // +optional and omitempty)"
	}
	c.Field(fd, r)
}

// addedToCopy reports a field addedToCopies yields.
func addedToCopy(td *model.TypeDiff, f *model.Field) bool {
	pd := td.Pkg
	if pd.Base != nil || pd.Head == nil || pd.Group.Base == nil || !pd.External() || td.Head == nil {
		return false
	}
	sib := siblingsAtBase(pd.Group)
	return sib.structs[td.Head.Name] && !sib.known(td.Head.Name, f)
}

// copiedFromSibling reports whether a field of a struct new in head
// already existed, with the same json tag, in the same-named struct of
// another package of the API group at base (a new version copied from a
// sibling version, or a struct that moved to another directory of the
// same group version: Cluster API merged exp/api/v1beta1 into
// api/core/v1beta1), or, for a struct of a version package new in head
// (a member the copy moved between structs, as addedToCopies matches
// them), in any struct of a version at base: a copy does not make its
// fields new.
func copiedFromSibling(d *model.Diff, td *model.TypeDiff, f *model.Field) bool {
	pd := td.Pkg
	if td.Base != nil || pd.Group.Base == nil && pd.Group.Head == nil {
		return false
	}
	var groups []*model.Group
	if pd.Group.Base != nil {
		groups = append(groups, pd.Group.Base)
	}
	if pd.Group.Head != nil && pd.Group.Head.Name != "" && d.Base != nil {
		name := pd.Group.Head.Name
		for _, g := range d.Base.Groups {
			if g.Name == name && g != pd.Group.Base {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		for _, p := range g.Packages() {
			if pd.Base != nil && p == pd.Base {
				continue // the struct is new in its own package
			}
			if t := p.Type(td.Name()); t != nil {
				if bf := t.Field(f.Name); bf != nil && bf.JSON == f.JSON {
					return true
				}
			}
		}
	}
	if pd.Group.Base == nil || td.Head == nil || !siblingsAtBase(pd.Group).structs[td.Head.Name] {
		return false
	}
	for _, p := range pd.Group.Base.Versions {
		for _, t := range p.Types {
			if bf := t.Field(f.Name); bf != nil && bf.JSON == f.JSON {
				return true
			}
		}
	}
	return false
}
