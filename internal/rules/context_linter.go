package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/kal"
	"github.com/apicheck/apicheck/internal/model"
)

// The new-field conventions of the repository's kube-api-linter
// configuration, which the crd profile follows where the configuration
// runs the linter.

// LinterConventions are the conventions the repository's kube-api-linter
// configuration enables for one file (Policy.Linter).
type LinterConventions struct {
	// File names the configuration (and the revision it was read from).
	File string
	// OptionalOrRequired: optionalorrequired asks for +optional or
	// +required on every field.
	OptionalOrRequired bool
	// OptionalFields: optionalfields asks optional fields to be pointers;
	// PointersAlways, also those whose validation rules out the zero
	// value (pointers.preference: Always, its default).
	OptionalFields, PointersAlways bool
}

// newFieldPolicy is the policy that judges new field fd: its group's,
// and under the crd profile, where the repository has a kube-api-linter
// configuration, the conventions that configuration enables for fd's file
// at head: optionalorrequired makes a missing optional marker a warning
// again, optionalfields' pointer preference decides which values need a
// pointer. The report's note names the configuration.
func (c *Context) newFieldPolicy(fd *model.FieldDiff) Policy {
	pol := c.Policy(fd.Type.Pkg)
	if c.linter == nil || fd.Type.Pkg.Group.Profile() != model.ProfileCRD || fd.Head == nil {
		return pol
	}
	file := fd.Head.Pos.File
	where := c.linter.File
	if c.linter.Rev != "" {
		where += " of the " + c.linter.Rev + " revision"
	}
	lc := &LinterConventions{
		File:               where,
		OptionalOrRequired: c.linter.Enabled(kal.OptionalOrRequired, file),
		OptionalFields:     c.linter.Enabled(kal.OptionalFields, file),
	}
	lc.PointersAlways = lc.OptionalFields && c.linter.Pointers() == kal.PointersAlways
	pol.Linter = lc
	if lc.OptionalOrRequired {
		pol.OptionalMarker = finding.Warning
	}
	c.Note(c.linter.Describe())
	return pol
}
