package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
)

// The usages of a removed field that still exist, at base or at the
// release before base, as FIELD_REMOVED_STILL_USED and
// FIELD_REMOVAL_NOT_RELEASED report them.

// removalGroups are the removed fields by field of their group, as
// usage.Groups has them (one field removed from several version packages
// is one group), each with its most stable version first: a finding
// about the group is about that version, whose maturity the severity
// policy judges (a removal from v1beta1 and v1alpha1 is one from a beta
// version, not an alpha one).
func removalGroups(fields []*model.FieldDiff) [][]*model.FieldDiff {
	groups := usage.Groups(fields)
	for _, fds := range groups {
		slices.SortStableFunc(fds, func(a, b *model.FieldDiff) int {
			return stability(b.Type.Pkg) - stability(a.Type.Pkg)
		})
	}
	return groups
}

// stability ranks a version package's maturity at base: GA above beta
// above alpha.
func stability(pd *model.PackageDiff) int {
	if pd.Base == nil {
		return 0
	}
	switch pd.Base.Maturity {
	case model.Alpha:
		return 0
	case model.Beta:
		return 1
	}
	return 2
}

// places counts places: "1 place", "3 places".
func places(n int) string {
	if n == 1 {
		return "1 place"
	}
	return fmt.Sprintf("%d places", n)
}

// usageNote records once how the usages of a revision were found when
// that is not the default (type-checked), and what went wrong on the way.
func usageNote(c *Context, u *usage.Usages) {
	if !u.TypeChecked {
		c.Note("usages at " + u.Rev + " " + u.Mode())
	}
	for _, p := range u.Problems {
		c.Note("usages at " + u.Rev + ": " + p + " (the references it affects are matched by path)")
	}
}

// shootFinalStep reports whether a removed field is a Shoot spec field
// that validation at base forbids from a Kubernetes version on while every
// Kubernetes version supported at head is at or above that version: the
// removal is the final step of the Shoot deprecation ("remove the field
// once Gardener drops support for the last Kubernetes version that allowed
// it"), so no Shoot that a component of the previous release can still
// meet has the field set, and its remaining reads only ever see it unset.
func shootFinalStep(c *Context, fd *model.FieldDiff) (shoot.Version, bool) {
	st := c.ShootStages()
	p, ok := st.Path(fd)
	if !ok || !strings.HasPrefix(p, "Shoot.spec.") {
		return shoot.Version{}, false
	}
	vers, prob := st.SupportedVersions()
	if prob != "" || len(vers) == 0 {
		return shoot.Version{}, false
	}
	val := st.Stage(lifecycle.RevBase, shoot.StageValidation, "")
	if val.Problem != "" {
		return shoot.Version{}, false
	}
	hits := val.Hits(shoot.NewField(fd.Base, fd.Type.Name(), p, fd.Type.Pkg.Base))
	if len(hits) == 0 {
		return shoot.Version{}, false
	}
	from := hits[0].From
	for _, h := range hits[1:] {
		if h.From.Less(from) {
			from = h.From
		}
	}
	for _, v := range vers {
		if v.Less(from) {
			return shoot.Version{}, false
		}
	}
	return from, true
}

// removedUsage is the report about the usages of one removed field (all
// version packages it was removed from) at a revision, or nil when there
// are none.
func removedUsage(c *Context, fds []*model.FieldDiff, u *usage.Usages, where, tail, hint string) *Report {
	fd := fds[0]
	refs := u.Of(fd)
	if refs.Len() == 0 {
		return nil
	}
	name := fd.Type.Name() + "." + fd.Base.Name
	var msg string
	sev := c.Rule().Severity
	if from, ok := shootFinalStep(c, fd); ok {
		// Not a violation; still shown, so a reviewer sees the reads.
		sev = finding.Info
		tail += fmt.Sprintf("; validation at base forbids it from Kubernetes %s and head supports no older version, "+
			"so this is the final step of the Shoot deprecation and those reads only ever see it unset", from)
		hint = "nothing to do if every remaining usage handles the field being unset"
	}
	switch {
	case len(refs.Typed) > 0:
		msg = fmt.Sprintf("%s was removed, but %s still uses it in %s (type-checked)", name, where, places(len(refs.Typed)))
		if n := len(refs.ByPath); n > 0 {
			msg += fmt.Sprintf(", and in %s possibly (matched by path %s)", places(n), u.Path(fd))
		}
	default:
		// Only possible usages: one severity lower.
		if sev > finding.Info && sev == c.Rule().Severity {
			sev--
		}
		msg = fmt.Sprintf("%s was removed, but %s may still use it in %s (possible usages: receiver types unresolved, matched by path %s)",
			name, where, places(refs.Len()), u.Path(fd))
	}
	msg += tail
	if n := refs.Len(); n > maxListed {
		msg += fmt.Sprintf(" (first %d listed)", maxListed)
	}
	var rel []finding.Related
	for _, p := range refs.Typed {
		if len(rel) == maxListed {
			break
		}
		rel = append(rel, related("usage at "+where, p))
	}
	for _, p := range refs.ByPath {
		if len(rel) == maxListed {
			break
		}
		rel = append(rel, related("possible usage (matched by path) at "+where, p))
	}
	if len(fds) > 1 {
		var vs []string
		for _, o := range fds {
			vs = append(vs, o.Type.Pkg.Version)
		}
		msg += " [removed from " + strings.Join(vs, ", ") + "]"
		for _, o := range fds[1:] {
			rel = append(rel, related("also removed from "+o.Type.Pkg.Version, c.FieldPos(o)))
		}
	}
	return &Report{Message: msg, Hint: hint, Severity: sev, Related: rel}
}
