package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// pairedExternalFields yields field pairs present at both revisions in
// external versions.
func (c *Context) pairedExternalFields(fn func(fd *model.FieldDiff)) {
	for td := range c.Diff.ExistingStructs() {
		for _, fd := range td.Fields {
			if fd.Base != nil && fd.Head != nil {
				fn(fd)
			}
		}
	}
}

func jsonDesc(f *model.Field) string {
	switch {
	case f.Inline():
		return "inline"
	case f.JSON.Name == "-":
		return "-"
	}
	return fmt.Sprintf("%q", f.WireName())
}

var JSONNameChanged = &Rule{
	ID:       "JSON_NAME_CHANGED",
	Category: CatCompat,
	Severity: finding.Error,
	Relax:    relaxedToWarning,
	Judges:   []model.Attr{model.AttrJSONName, model.AttrInline, model.AttrProtoName},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil {
			return "json name changed"
		}
		return fmt.Sprintf("JSON name changed from `%s` to `%s`", fd.Base.WireName(), fd.Head.WireName())
	},
	Summary: "An existing field's json name changed (or became `-`, or inline).",
	Why:     "The json name is the field's identity in every manifest, patch and stored object.",
	Fix:     "Restore the json name; add a new field and deprecate the old one instead.",
	Before:  "Foo *string `json:\"fooBar,omitempty\"`",
	After:   "Foo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrJSONName) && !fd.Has(model.AttrInline) {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("json name of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head)),
				Hint:    fmt.Sprintf("restore json name %s", jsonDesc(fd.Base)),
			})
		}
	},
}

// stripPointer removes one leading "*".
func stripPointer(s string) string { return strings.TrimPrefix(s, "*") }

var FieldTypeChanged = &Rule{
	ID:       "FIELD_TYPE_CHANGED",
	Category: CatCompat,
	Severity: finding.Error,
	Judges:   []model.Attr{model.AttrGoType, model.AttrEmbedded},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil {
			return "type changed"
		}
		return fmt.Sprintf("type changed from `%s` to `%s`", fd.Base.Type, fd.Head.Type)
	},
	Summary: "An existing field's Go type changed (warning when only pointer-ness changed).",
	Why:     "Stored objects and clients carry values of the old type; Go clients stop compiling.",
	Fix:     "Keep the type; add a new field of the new type and deprecate the old one.",
	Before:  "Replicas *int64",
	After:   "Replicas *int32 // as at base",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if fd.Has(model.AttrEmbedded) {
				c.Field(fd, Report{
					Message: fmt.Sprintf("field %s.%s changed between embedded and named", fd.Type.Name(), fd.Name()),
					Hint:    "restore the field as it was at base",
				})
				continue
			}
			if !fd.Has(model.AttrGoType) {
				continue
			}
			b, h := fd.Base.Type, fd.Head.Type
			if stripPointer(b) == stripPointer(h) && b != h {
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("type of %s.%s changed from %s to %s (pointer-ness only: Go clients break, the wire does not)", fd.Type.Name(), fd.Name(), fd.Base.Type, fd.Head.Type),
					Hint:     fmt.Sprintf("keep %s unless the change is intended for Go clients", fd.Base.Type),
				})
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("type of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), fd.Base.Type, fd.Head.Type),
				Hint:    fmt.Sprintf("restore type %s; add a new field for the new type", fd.Base.Type),
			})
		}
	},
}

var FieldBecameRequired = &Rule{
	ID:          "FIELD_BECAME_REQUIRED",
	Category:    CatCompat,
	Severity:    finding.Error,
	Judges:      []model.Attr{model.AttrRequired, model.AttrOmitEmpty, model.AttrOptional},
	ReleaseNote: fixedNote("it became required"),
	Summary:     "An existing field lost `+optional`, gained `+required`, or lost `omitempty`.",
	Why:         "Clients that never set the field now fail validation, or serialise zero values they never meant.",
	Fix:         "Keep the field optional with omitempty.",
	Before:      "// +required\nFoo *string `json:\"foo\"`",
	After:       "// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			var what []string
			if fd.Base.Optional() && !fd.Head.Optional() {
				what = append(what, "lost +optional")
			}
			if !fd.Base.Required() && fd.Head.Required() {
				what = append(what, "gained +required")
			}
			if fd.Base.Omits() && !fd.Head.Omits() {
				what = append(what, "lost omitempty")
			}
			if len(what) == 0 {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("field %s.%s became required: %s", fd.Type.Name(), fd.Name(), strings.Join(what, ", ")),
				Hint:    "keep the field optional (// +optional and omitempty)",
			})
		}
	},
}

var FieldRenamed = &Rule{
	ID:          "FIELD_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("field renamed"),
	Relax:       relaxedToInfo,
	Judges:      []model.Attr{model.AttrGoName},
	Summary:     "A Go field name changed while its json name and protobuf number stayed.",
	Why:         "The wire is unchanged, but Go clients of the API package stop compiling.",
	Fix:         "Intended renames are fine; mention them in the release note for Go clients.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Renamed {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("Go field %s.%s was renamed to %s (json and protobuf unchanged)", fd.Type.Name(), fd.Base.Name, fd.Head.Name),
				Hint:    "Go clients must be updated; mention the rename in the release note",
			})
		}
	},
}

var FieldDefaultChanged = &Rule{
	ID:          "FIELD_DEFAULT_CHANGED",
	Category:    CatCompat,
	Severity:    finding.Warning,
	Judges:      []model.Attr{model.AttrDefault},
	ReleaseNote: fixedNote("default changed"),
	Summary:     "A `+default=`/`+kubebuilder:default=` marker was added, removed or changed on an existing field.",
	Why:         "Defaults are applied when objects are read from storage: changing one silently changes existing objects.",
	Fix:         "Keep the default; if it must change, handle it through a new field or version.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrDefault) {
				continue
			}
			b, bok := fd.Base.Default()
			h, hok := fd.Head.Default()
			var msg string
			switch {
			case !bok:
				msg = fmt.Sprintf("default %s was added to existing field %s.%s", h, fd.Type.Name(), fd.Name())
			case !hok:
				msg = fmt.Sprintf("default %s was removed from field %s.%s", b, fd.Type.Name(), fd.Name())
			default:
				msg = fmt.Sprintf("default of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), b, h)
			}
			c.Field(fd, Report{Message: msg, Hint: "changing a default changes existing stored objects when they are read; keep it or add a new field"})
		}
	},
}

var PatchStrategyChanged = &Rule{
	ID:          "PATCH_STRATEGY_CHANGED",
	Category:    CatCompat,
	Severity:    finding.Error,
	Judges:      []model.Attr{model.AttrPatchStrategy, model.AttrPatchMergeKey},
	ReleaseNote: fixedNote("patch strategy changed"),
	Summary:     "`patchStrategy` or `patchMergeKey` (tag or marker) changed on an existing field.",
	Why: "Strategic merge patch uses them to merge lists: clients built against the old metadata send " +
		"patches that now replace or merge differently.",
	Fix:    "Keep the patch metadata; to support a new merge key use a recommended merge key that starts with the old one.",
	Before: "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"name\"`",
	After:  "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"port\"` // as at base",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			var what []string
			if fd.Has(model.AttrPatchStrategy) {
				what = append(what, fmt.Sprintf("patchStrategy %q -> %q", fd.Base.EffectivePatchStrategy(), fd.Head.EffectivePatchStrategy()))
			}
			if fd.Has(model.AttrPatchMergeKey) {
				what = append(what, fmt.Sprintf("patchMergeKey %q -> %q", fd.Base.EffectivePatchMergeKey(), fd.Head.EffectivePatchMergeKey()))
			}
			if len(what) == 0 {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("patch metadata of %s.%s changed: %s", fd.Type.Name(), fd.Name(), strings.Join(what, ", ")),
				Hint:    "restore the patch strategy and merge key; they are part of the wire contract",
			})
		}
	},
}

var ListTypeChanged = &Rule{
	ID:          "LIST_TYPE_CHANGED",
	Category:    CatCompat,
	Severity:    finding.Error,
	Judges:      []model.Attr{model.AttrListType, model.AttrListMapKey},
	ReleaseNote: fixedNote("list type changed"),
	Summary:     "`+listType` or `+listMapKey` markers changed on an existing field.",
	Why:         "Server-side apply merges lists by these markers; changing them changes field ownership and merge results.",
	Fix:         "Keep the list markers as they were.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			var what []string
			if fd.Has(model.AttrListType) {
				what = append(what, fmt.Sprintf("listType %q -> %q", strings.Join(fd.Base.Markers.All("listType"), ","), strings.Join(fd.Head.Markers.All("listType"), ",")))
			}
			if fd.Has(model.AttrListMapKey) {
				what = append(what, fmt.Sprintf("listMapKey %q -> %q", strings.Join(fd.Base.Markers.All("listMapKey"), ","), strings.Join(fd.Head.Markers.All("listMapKey"), ",")))
			}
			if len(what) == 0 {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("list markers of %s.%s changed: %s", fd.Type.Name(), fd.Name(), strings.Join(what, ", ")),
				Hint:    "restore the +listType/+listMapKey markers",
			})
		}
	},
}

var TypeRemoved = &Rule{
	ID:          "TYPE_REMOVED",
	Category:    CatCompat,
	Severity:    finding.Error,
	ReleaseNote: fixedNote("type removed"),
	Relax:       relaxedToInfo,
	Summary:     "An exported type of an external version at base is gone at head.",
	Why:         "Go clients referring to the type stop compiling; if it was a kind or field type, the wire changes too.",
	Fix:         "Keep the type (deprecate it) until the API version is removed.",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			if pd.Head == nil {
				return // the whole version went away: reported per type below would be noise
			}
			for _, td := range pd.Types {
				if td.Base == nil || td.Head != nil {
					continue
				}
				c.Type(td, Report{
					Message: fmt.Sprintf("type %s was removed from %s", td.Base.Name, pd.Version),
					Hint:    "keep the type until the API version itself is removed",
					Related: []string{"base " + td.Base.Pos.String()},
				})
			}
		}
	},
}

var TypeRenamed = &Rule{
	ID:          "TYPE_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("type renamed"),
	Relax:       relaxedToInfo,
	Summary:     "An exported type was renamed in Go while its fields stayed the same.",
	Why:         "The wire is unchanged but Go clients stop compiling.",
	Fix:         "Intended renames are fine; keep a type alias `type Old = New` for Go clients if possible.",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if !td.Renamed {
					continue
				}
				c.Type(td, Report{
					Message: fmt.Sprintf("type %s was renamed to %s (same fields)", td.Base.Name, td.Head.Name),
					Hint:    fmt.Sprintf("consider keeping `type %s = %s` for Go clients", td.Base.Name, td.Head.Name),
				})
			}
		}
	},
}

var EnumValueRemoved = &Rule{
	ID:          "ENUM_VALUE_REMOVED",
	Category:    CatCompat,
	Severity:    finding.Warning,
	ReleaseNote: fixedNote("enum value removed"),
	Relax:       relaxedToInfo,
	Summary:     "A constant of a named API string/int type at base is gone at head.",
	Why:         "Stored objects and clients may still use the value; Go clients referring to the constant break.",
	Fix:         "Keep the constant (deprecated) while the value can still be stored.",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			if pd.Head == nil {
				continue
			}
			for _, cd := range pd.Consts {
				if cd.Base == nil || cd.Head != nil {
					continue
				}
				t := pd.Head.Type(cd.Base.Type)
				if t == nil {
					continue // the type itself was removed: TYPE_REMOVED
				}
				c.Const(cd, t.Pos, Report{
					Message: fmt.Sprintf("constant %s (%s = %s) was removed", cd.Base.Name, cd.Base.Type, cd.Base.Value),
					Hint:    "keep the constant while stored objects may carry the value",
					Related: []string{"base " + cd.Base.Pos.String()},
				})
			}
		}
	},
}
