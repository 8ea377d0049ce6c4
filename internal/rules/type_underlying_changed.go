package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// TypeUnderlyingChanged is TYPE_UNDERLYING_CHANGED.
var TypeUnderlyingChanged = &Rule{
	ID:       "TYPE_UNDERLYING_CHANGED",
	Alpha:    finding.Info,
	Category: CatCompat,
	Severity: finding.Error,
	Judges:   []model.Attr{model.AttrUnderlying},
	Summary: "A named type kept its name but its declaration changed (`type Mode string` became `type Mode int32`, " +
		"a struct became a string): every field that uses it changes its wire type. A warning when the wire shape " +
		"stayed (Go clients break), the type has its own MarshalJSON and UnmarshalJSON at base and at head (they, not the declaration, decide its JSON form), or no field of the version uses the type at base and at head (a field new at head never had the old type); info for types that are not serialised (interfaces, funcs).",
	Why: "Stored objects and clients carry values of the old type under the same field names; the field diff shows no " +
		"change because the fields still name the type.",
	Fix:    "Keep the type's declaration; add a new type (and a new field using it) for the new shape.",
	Before: "type Mode string",
	After:  "type Mode string // as at base; a new ModeV2 int32 for the new field",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil || !underlyingChanged(td) {
					continue
				}
				name := td.Name()
				what := fmt.Sprintf("type %s changed from %s to %s", name, typeDesc(td.Base), typeDesc(td.Head))
				users := fieldsUsing(pd.Head, name)
				if pd.IsShared() {
					users = c.sharedUsers(1, pd.Head, name)
				}
				if td.Head.Alias && len(users) > 0 {
					// The fields' contracts name the aliased type:
					// FIELD_TYPE_CHANGED judges each field that uses it.
					continue
				}
				// Only a field that used the type at base and still does
				// changes its wire type; one new at head never had the
				// old one, one gone or retyped is judged as such.
				if pd.IsShared() {
					users = keptSharedUsers(c.sharedUsers(0, pd.Base, td.Base.Name), users)
				} else {
					users = keptUsers(pd.Base, users, name)
				}
				r := Report{Hint: fmt.Sprintf("restore type %s as it was at base; declare a new type for the new shape", name)}
				for i, f := range users {
					if i == 5 {
						break
					}
					r.Related = append(r.Related, related("used by "+f.typ+"."+f.field.Name, f.field.Pos))
				}
				shape := underlyingShape(c, td)
				if shape == shapeSame && td.Base.Underlying == td.Head.Underlying {
					// Written the same and the same on the wire: a type it
					// names changed (e.g. became an alias), judged there.
					continue
				}
				switch {
				case !serialised(td.Base) && !serialised(td.Head):
					r.Severity = finding.Info
					r.Message = fmt.Sprintf("type %s changed; values of it are not serialised (an interface or func type)", name)
					r.Hint = ""
				case td.Base.CustomJSON && td.Head.CustomJSON:
					// Its own MarshalJSON and UnmarshalJSON decide its JSON
					// form at both revisions: the declaration says nothing
					// of the wire (ClickHouse operator's Settings went from
					// a struct to a map, its methods writing the same list).
					r.Severity = finding.Warning
					r.Message = what + "; its own MarshalJSON and UnmarshalJSON decide its JSON form at base and at head, not its declaration (Go clients break; apicheck does not read the methods' code)"
					r.Hint = fmt.Sprintf("confirm %s's methods still write and read the form of base, and keep the declaration unless the change is intended for Go clients", name)
				case shape == shapeSame && td.Head.Alias:
					r.Severity = finding.Info
					r.Message = fmt.Sprintf("type %s became an alias of %s; the wire shape is unchanged and code that names %s keeps compiling", name, typeDesc(td.Head), name)
					r.Hint = ""
				case shape == shapeUnknown:
					r.Severity = finding.Warning
					r.Message = what + "; a type outside the API groups could not be resolved (in a package of the repository that is not an API group, or a module that is not in the module cache), so the wire shapes were not compared"
				case shape == shapeSame || shape == shapeSuperset:
					r.Severity = finding.Warning
					r.Message = what + "; the wire shape is unchanged (Go clients break, the wire does not)"
					r.Hint = fmt.Sprintf("keep %s's declaration unless the change is intended for Go clients", name)
				case len(users) == 0:
					r.Severity = finding.Warning
					r.Message = what + "; no field of " + pd.Version + " uses it at base and at head (Go clients break; fields in other packages that use it change their wire type)"
					if pd.IsShared() {
						r.Message = what + "; no field of the API uses it at base and at head (Go clients break)"
					}
				default:
					r.Message = what + ": the wire type of " + usersDesc(users) + " changes"
				}
				c.Type(td, r)
			}
		}
	},
}

// underlyingChanged reports a named type whose declaration changed: its
// kind (struct or not) or its underlying type. Struct fields are diffed
// field by field; this is about what the name stands for.
func underlyingChanged(td *model.TypeDiff) bool {
	if td.Base.Kind != td.Head.Kind {
		return true
	}
	return td.Base.Kind != model.KindStruct && td.Base.UnderlyingIdentity() != td.Head.UnderlyingIdentity()
}

// underlyingShape compares what a named type's declaration looks like on
// the wire at base and at head.
func underlyingShape(c *Context, td *model.TypeDiff) shapeMatch {
	// A struct side is compared by its declaration (its members), the
	// other side by what it stands for: a struct that became an alias of
	// another struct of the same members keeps its wire shape.
	side := func(m *model.Model, pkg *model.Package, t *model.Type) typeSide {
		if t.Kind == model.KindStruct {
			return typeSide{m: m, pkg: pkg, id: t.Name}
		}
		return typeSide{m: m, pkg: pkg, id: t.UnderlyingIdentity()}
	}
	return compareShapes(side(c.Diff.Base, td.Pkg.Base, td.Base), side(c.Diff.Head, td.Pkg.Head, td.Head), shapeOpts{alphaGoes: c.Policy(td.Pkg).AlphaMayBreak})
}

// serialised reports whether values of a type appear on the wire:
// interfaces and funcs do not.
func serialised(t *model.Type) bool {
	u := t.UnderlyingIdentity()
	return t.Kind == model.KindStruct || !strings.HasPrefix(u, "interface{") && !strings.HasPrefix(u, "func(") && !strings.HasPrefix(u, "chan ")
}

// typeDesc describes a type declaration in a few words: never a dump of
// a long interface or struct literal.
func typeDesc(t *model.Type) string {
	if t.Kind == model.KindStruct {
		return "struct"
	}
	u := t.UnderlyingIdentity()
	switch {
	case strings.HasPrefix(u, "interface{"):
		return "an interface (its method set changed)"
	case strings.HasPrefix(u, "struct{"):
		return "an unnamed struct"
	case strings.HasPrefix(u, "func("):
		return "a func type"
	case len(u) > 80:
		return u[:77] + "..."
	}
	return u
}

// typeUser is a field whose type names a type of its own package.
type typeUser struct {
	typ   string
	owner string // the struct's identity ("importpath.Name"), for sharedUsers
	field *model.Field
}

// fieldsUsing lists the fields of a package whose type refers to the
// named type of that package (directly, through pointers, slices or
// maps), in declaration order.
func fieldsUsing(p *model.Package, name string) []typeUser {
	var out []typeUser
	for _, t := range p.Types {
		for _, f := range t.Fields {
			if mentionsType(f.Type, name) {
				out = append(out, typeUser{typ: t.Name, field: f})
			}
		}
	}
	return out
}

// keptSharedUsers are the users at head (sharedUsers) whose struct, by
// identity, had a field of the same name using the type at base.
func keptSharedUsers(base, head []typeUser) []typeUser {
	var out []typeUser
	for _, h := range head {
		if slices.ContainsFunc(base, func(b typeUser) bool { return b.owner == h.owner && b.field.Name == h.field.Name }) {
			out = append(out, h)
		}
	}
	return out
}

// keptUsers are the users (at head) of type name whose field base's
// package p had in the same struct, using the type too.
func keptUsers(p *model.Package, users []typeUser, name string) []typeUser {
	if p == nil {
		return nil
	}
	var out []typeUser
	for _, u := range users {
		if t := p.Type(u.typ); t != nil {
			if f := t.Field(u.field.Name); f != nil && mentionsType(f.Type, name) {
				out = append(out, u)
			}
		}
	}
	return out
}

// usersDesc names the fields that use a type: "WidgetSpec.mode and
// WidgetSpec.modes", "A.x, B.y and 3 more".
func usersDesc(us []typeUser) string {
	var names []string
	for _, u := range us {
		names = append(names, u.typ+"."+u.field.Name)
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(us)-3))
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
