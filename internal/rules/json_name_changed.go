package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// JSONNameChanged is JSON_NAME_CHANGED.
var JSONNameChanged = &Rule{
	ID:           "JSON_NAME_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Relax:        relaxedToWarning,
	Judges:       []model.Attr{model.AttrJSONName, model.AttrInline},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil {
			return "json name changed"
		}
		return fmt.Sprintf("JSON name changed from %s to %s", jsonNote(fd.Base), jsonNote(fd.Head))
	},
	Summary: "An existing field's json name changed (or became `-`, or inline). Info for a field base did not serialise (`json:\"-\"`) that head does: it joins the wire as a new field would, and the new-field rules judge it.",
	Why:     "The json name is the field's identity in every manifest, patch and stored object.",
	Fix:     "Restore the json name; add a new field and deprecate the old one instead.",
	Before:  "Foo *string `json:\"fooBar,omitempty\"`",
	After:   "Foo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrJSONName) && !fd.Has(model.AttrInline) {
				continue
			}
			if want := listConvention(fd); want != "" {
				// A List kind's metadata and items are what every
				// Kubernetes API server sends and every client reads: a
				// tag that now says so aligns the Go type with the wire.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("json name of %s.%s changed from %s to %s: the Go type now follows the Kubernetes list convention (%s), which API servers and generic clients use",
						fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head), want),
				})
				continue
			}
			if joinsWire(fd) {
				// Not on the wire at base: no object or client has it
				// under any name, so it is new, and the new-field rules
				// judge it.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("json name of %s.%s changed from %s to %s: the field joins the wire, as a new field would (the new-field rules judge it)",
						fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head)),
				})
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("json name of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head)),
				Hint:    fmt.Sprintf("restore json name %s", jsonDesc(fd.Base)),
			})
		}
	},
}

// jsonDesc names how a field appears on the wire.
func jsonDesc(f *model.Field) string {
	c := contractOf(f)
	switch {
	case c.Inline:
		return "inline"
	case c.Name == "-":
		return "- (not serialised)"
	}
	return fmt.Sprintf("%q", c.Name)
}

// jsonNote is jsonDesc for release notes (Markdown).
func jsonNote(f *model.Field) string {
	c := contractOf(f)
	switch {
	case c.Inline:
		return "inline"
	case c.Name == "-":
		return "`-`"
	}
	return "`" + c.Name + "`"
}

// listConvention returns the conventional wire name (quoted) when fd is
// the ListMeta or Items field of a List kind (a root kind named *List)
// and its head json tag now follows the Kubernetes list convention
// ("metadata", "items"); "" otherwise.
func listConvention(fd *model.FieldDiff) string {
	td := fd.Type
	if td.Head == nil || !td.Head.RootKind || !strings.HasSuffix(td.Head.Name, "List") || fd.Head == nil {
		return ""
	}
	c := contractOf(fd.Head)
	if c.Inline {
		return ""
	}
	switch {
	case fd.Name() == "ListMeta" && c.Name == "metadata":
		return `"metadata"`
	case fd.Name() == "Items" && c.Name == "items":
		return `"items"`
	}
	return ""
}
