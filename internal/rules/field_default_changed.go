package rules

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldDefaultChanged is FIELD_DEFAULT_CHANGED.
var FieldDefaultChanged = &Rule{
	ID:           "FIELD_DEFAULT_CHANGED",
	Uses:         []Input{InputManifests},
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Warning,
	Judges:       []model.Attr{model.AttrDefault},
	ReleaseNote:  fixedNote("default changed"),
	Summary: "The default (`+default=`, `+kubebuilder:default=`, `+k8s:default=`) of an existing field was added, removed or changed. " +
		"A zero-value default added to a field that cannot be nil is no change. Info where the CRD manifests are hand-written (see " +
		"NEW_FIELD_NOT_OPTIONAL) and gave the field the new default already (or, for a removed marker, still give the old one): " +
		"the API server applies what the manifests say.",
	Why: "Defaults are applied when objects are read from storage: changing one silently changes existing objects.",
	Fix: "Keep the default; if it must change, handle it through a new field or version.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrDefault) {
				continue
			}
			bd, hd := contractOf(fd.Base).Default, contractOf(fd.Head).Default
			var msg string
			switch {
			case bd == nil:
				if isZeroDefault(*hd, fd.Head) {
					continue // the zero value of a non-nillable field: what an absent value decodes to anyway
				}
				msg = fmt.Sprintf("default %s was added to existing field %s.%s", *hd, fd.Type.Name(), fd.Name())
				if c.Policy(fd.Type.Pkg).DefaultsAreDocumentation {
					// Built-in types are defaulted in Go code; the marker
					// usually documents a default that was applied already.
					c.Field(fd, Report{Severity: finding.Info, Message: msg + " (a default marker on a built-in type documents Go defaulting; confirm the defaulter applied it before)",
						Hint: "fine when the defaulting code already set this value"})
					continue
				}
			case hd == nil:
				if isZeroDefault(*bd, fd.Base) {
					continue
				}
				msg = fmt.Sprintf("default %s was removed from field %s.%s", *bd, fd.Type.Name(), fd.Name())
			default:
				msg = fmt.Sprintf("default of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), *bd, *hd)
			}
			r := Report{Message: msg, Hint: "changing a default changes existing stored objects when they are read; keep it or add a new field"}
			same, differs := manifestDefault(c, fd)
			r.Message += differs
			c.Field(fd, c.relaxTo(r, finding.Info, func() (string, error) { return same, nil }))
		}
	},
}

// manifestDefault compares a default that field fd's markers add at
// head (or drop from it) with what the hand-written CRD manifests
// (handWrittenPlaces) give: those at base for an added or changed
// default, those at head for a dropped one. same says why the API server
// applies the same default as before (the manifests gave it already, or
// still give it); otherwise differs names the one default every place
// of the manifests gave at base, when the marker adds another. Both ""
// when the manifests do not say.
func manifestDefault(c *Context, fd *model.FieldDiff) (same, differs string) {
	bd, hd := contractOf(fd.Base).Default, contractOf(fd.Head).Default
	side, want, at := 0, hd, "base"
	if hd == nil {
		side, want, at = 1, bd, "head"
	}
	if want == nil {
		return "", ""
	}
	value := contractOf(fd.Head).DefaultJSON
	if side == 1 {
		value = contractOf(fd.Base).DefaultJSON
	}
	given := "" // the one default of every place, once one has one
	where, files, ok := c.handWrittenPlaces(side, fd, func(s *crd.Schema, path []string) bool {
		n := s.At(path)
		if n == nil || n.Default == "" || given != "" && string(n.Default) != given {
			return false
		}
		given = string(n.Default)
		return true
	})
	switch {
	case !ok || value == "":
		return "", ""
	case given == value:
		return fmt.Sprintf("the hand-written CRD manifests at %s (%s) give %s the default %s: the API server applies the same default", at, files, where, *want), ""
	case side == 0:
		return "", fmt.Sprintf("; the hand-written CRD manifests at base (%s) gave %s the default %s, so the API server's default changes from %s to %s",
			files, where, given, given, *want)
	}
	return "", ""
}
