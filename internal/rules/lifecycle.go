package rules

import (
	"fmt"
	"slices"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// maxListed is how many usage positions a finding lists.
const maxListed = 5

func listPositions(prefix string, ps []model.Pos) []string {
	var out []string
	for i, p := range ps {
		if i == maxListed {
			break
		}
		out = append(out, prefix+p.String())
	}
	return out
}

func places(n int) string {
	if n == 1 {
		return "1 place"
	}
	return fmt.Sprintf("%d places", n)
}

func shownOf(ps []model.Pos) string {
	if len(ps) <= maxListed {
		return ""
	}
	return fmt.Sprintf(" (first %d listed)", maxListed)
}

// usageNote records once that usages were only matched syntactically.
func usageNote(c *Context, u *usage.Usages) {
	if u.Approx != "" {
		c.Note("usages are approximate (syntactic): " + u.Approx)
	}
}

func modeWord(u *usage.Usages) string {
	if u.Exact {
		return "type-checked"
	}
	return "syntactic match"
}

// FieldRemovedStillUsed is FIELD_REMOVED_STILL_USED.
var FieldRemovedStillUsed = &Rule{
	ID:       "FIELD_REMOVED_STILL_USED",
	Category: CatLifecycle,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Requires: []Input{InputUsages},
	Summary:  "A field removed from an external version still has usages at base (step 1 of the two-step removal not done).",
	Why: "Components of the previous release keep running next to an API server that no longer knows the field " +
		"(gardener-apiserver is upgraded first), so code that still reads or writes it breaks: nil pointers, lost data.",
	Fix: "Remove every usage of the field in one release; remove the field from the API in the next release.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		u, err := c.Usages().At(lifecycle.RevBase)
		if err != nil {
			c.Skip("cannot scan usages at base: " + err.Error())
			return
		}
		usageNote(c, u)
		for _, fd := range fields {
			ps := u.Of(fd)
			if len(ps) == 0 {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, but base still uses it in %s (%s)%s",
					fd.Type.Name(), fd.Base.Name, places(len(ps)), modeWord(u), shownOf(ps)),
				Hint:    "drop the usages first and ship them in a release; remove the field after that release",
				Related: listPositions("usage at base ", ps),
			})
		}
	},
}

// FieldRemovalNotReleased is FIELD_REMOVAL_NOT_RELEASED.
var FieldRemovalNotReleased = &Rule{
	ID:       "FIELD_REMOVAL_NOT_RELEASED",
	Category: CatLifecycle,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Requires: []Input{InputRelease, InputUsages},
	Summary:  "A field removed from an external version had usages at the release before base (step 1 not yet released).",
	Why: "The release that dropped the usages must be the one running before the field disappears; otherwise the " +
		"previous release's components still use a field the new API server no longer has.",
	Fix: "Keep the field until a release without its usages has been tagged; remove it after that release.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		rel, prob := c.Release().Release()
		if prob != "" {
			c.Skip(prob)
			return
		}
		atBase, err := c.Usages().At(lifecycle.RevBase)
		if err != nil {
			c.Skip("cannot scan usages at base: " + err.Error())
			return
		}
		u, err := c.Usages().At(lifecycle.RevRelease)
		if err != nil {
			c.Skip(fmt.Sprintf("cannot scan usages at release %s: %v", rel.Newest.Name, err))
			return
		}
		usageNote(c, u)
		for _, fd := range fields {
			ps := u.Of(fd)
			// Usages still at base are FIELD_REMOVED_STILL_USED's finding.
			if len(ps) == 0 || len(atBase.Of(fd)) > 0 {
				continue
			}
			// A field the release did not have was never released: what
			// matched there is not a usage of it.
			if _, released, err := c.Release().ReleaseField(fd); err != nil || !released {
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, but release %s still used it in %s (%s)%s: the release dropping the usages has not shipped yet",
					fd.Type.Name(), fd.Base.Name, rel.Newest.Name, places(len(ps)), modeWord(u), shownOf(ps)),
				Hint:    fmt.Sprintf("keep the field until a release after %s (which contains the removal of its usages) is tagged", rel.Newest.Name),
				Related: listPositions("usage at "+rel.Newest.Name+" ", ps),
			})
		}
	},
}

// FieldRemovedNotDeprecated is FIELD_REMOVED_NOT_DEPRECATED.
var FieldRemovedNotDeprecated = &Rule{
	ID:       "FIELD_REMOVED_NOT_DEPRECATED",
	Category: CatLifecycle,
	Severity: finding.Warning,
	Relax:    relaxedToInfo,
	Requires: []Input{InputRelease},
	Summary:  "A field removed from an external version had no `Deprecated:` paragraph at the last release that shipped it.",
	Why:      "Users need a deprecation period to stop setting a field before it disappears; a release must have announced it.",
	Fix:      "Mark the field deprecated (a `Deprecated:` paragraph in its doc comment) in a release before removing it.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		if _, prob := c.Release().Release(); prob != "" {
			c.Skip(prob)
			return
		}
		// The newest release up to the release before head that had each
		// field: the release before base for a pull request.
		last, released, err := c.Release().LastReleases(fields)
		if err != nil {
			c.Skip(err.Error())
			return
		}
		for i, fd := range fields {
			f, ok := last[i], released[i]
			if !ok || f.Deprecated {
				continue // never released, or deprecated as it should be
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s was removed, but release %s did not mark it deprecated", fd.Type.Name(), fd.Base.Name, f.Tag),
				Hint:    "add a `Deprecated:` paragraph to the field's doc comment, release it, and remove the field after the deprecation period",
				Related: []string{f.Tag + " " + f.Pos.String()},
			})
		}
	},
}

// ProtoNumberPreviouslyUsed is PROTO_NUMBER_PREVIOUSLY_USED.
var ProtoNumberPreviouslyUsed = &Rule{
	ID:          "PROTO_NUMBER_PREVIOUSLY_USED",
	Category:    CatProtobuf,
	Severity:    finding.Error,
	Requires:    []Input{InputRelease},
	ReleaseNote: fixedNote("proto number previously used"),
	Summary:     "A field new in head takes a protobuf number that a different field of the same struct carried at an earlier release tag.",
	Why: "A removal that left no tombstone is only visible in history: clients built from that release still decode " +
		"the number as the old field.",
	Fix: "Use the next safe number, and add the missing tombstone for the old field.",
	Check: func(c *Context) {
		var news []*model.FieldDiff
		structs := map[string][]string{}
		for td := range c.Diff.HeadStructs() {
			dir := td.Pkg.Head.Dir
			for _, fd := range td.Fields {
				if fd.Base == nil && fd.Head.Proto != nil && !reservedAtBaseOrHead(td, fd.Head.Proto.Number) {
					news = append(news, fd)
					if !slices.Contains(structs[dir], td.Name()) {
						structs[dir] = append(structs[dir], td.Name())
					}
				}
			}
		}
		if len(news) == 0 {
			return
		}
		if _, prob := c.Release().Release(); prob != "" {
			c.Skip(prob)
			return
		}
		h, err := c.Release().ProtoHistory(structs)
		if err != nil {
			c.Skip(err.Error())
			return
		}
		for _, fd := range news {
			td, n := fd.Type, fd.Head.Proto.Number
			dir := td.Pkg.Head.Dir
			var others []lifecycle.Holder
			for _, ho := range h.Holders(dir, td.Name(), n) {
				if ho.Field != fd.Head.Name {
					others = append(others, ho)
				}
			}
			if len(others) == 0 {
				continue
			}
			used := h.Numbers(dir, td.Name())
			for _, f := range td.Head.Fields {
				if f.Proto != nil {
					used = append(used, f.Proto.Number)
				}
			}
			next := protobuf.NextSafe(used, protobuf.Reserved(td.Head.Tombstones))
			old := others[0]
			var related []string
			for i, ho := range others {
				if i == maxListed {
					break
				}
				related = append(related, fmt.Sprintf("release %s: %s.%s = %d", ho.Tag, td.Name(), ho.Field, n))
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("%s.%s takes protobuf number %d, which %s.%s carried at release %s (removed without a tombstone)",
					td.Name(), fd.Head.Name, n, td.Name(), old.Field, old.Tag),
				Hint: fmt.Sprintf("use number %d instead, and reserve %d with the tombstone %s never got: the line "+
					"`// %s is tombstoned to show why %d is reserved protobuf tag.` followed by its commented-out declaration from release %s",
					next, n, old.Field, old.Field, n, old.Tag),
				Related: related,
			})
		}
	},
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
