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
	"github.com/apicheck/apicheck/internal/protobuf"
)

// maxListed is how many usage positions a finding lists.
const maxListed = 5

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
	hits := shoot.Validation(val.Files, shoot.NewField(fd.Base, fd.Type.Name(), p, fd.Type.Pkg.Base))
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

// FieldRemovedStillUsed is FIELD_REMOVED_STILL_USED.
var FieldRemovedStillUsed = &Rule{
	ID: "FIELD_REMOVED_STILL_USED",
	// A field no release shipped is unknown to the previous release's
	// components: its usages go with it in the same change.
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatLifecycle,
	Severity:     finding.Error,
	Relax:        offIn(relaxedToInfo, model.ProfileCRD),
	Requires:     []Input{InputUsages, InputShootStages},
	UsagesAt:     []lifecycle.Rev{lifecycle.RevBase},
	Summary:      "A field removed from an external version still has usages at base (step 1 of the two-step removal not done).",
	Why: "Components of the previous release keep running next to an API server that no longer knows the field " +
		"(gardener-apiserver is upgraded first), so code that still reads or writes it breaks: nil pointers, lost data. " +
		"A usage is a selector or composite-literal key whose receiver type-checks to the field's struct (any version of its group), " +
		"outside the group and the code excluded by usages.exclude (tests, mocks, generated code, code that runs in or with the API server); " +
		"a receiver of unresolved type whose selector chain matches the field's path is a possible usage, one severity lower. " +
		"A Shoot field that validation at base forbids for every Kubernetes version head supports is removed in its final step: info.",
	Fix: "Remove every usage of the field in one release; remove the field from the API in the next release.",
	Check: func(c *Context) {
		fields := slices.Collect(c.Diff.RemovedFields())
		if len(fields) == 0 {
			return
		}
		u, err := c.Usages().At(lifecycle.RevBase)
		if err != nil {
			c.skipErr("cannot scan usages at base: ", err)
			return
		}
		usageNote(c, u)
		for _, fds := range usage.Groups(fields) {
			r := removedUsage(c, fds, u, "base", "", "drop the usages first and ship them in a release; remove the field after that release")
			if r != nil {
				c.Field(fds[0], *r)
			}
		}
	},
}

// FieldRemovalNotReleased is FIELD_REMOVAL_NOT_RELEASED.
var FieldRemovalNotReleased = &Rule{
	ID:       "FIELD_REMOVAL_NOT_RELEASED",
	Alpha:    finding.Info,
	Category: CatLifecycle,
	Severity: finding.Error,
	Relax:    offIn(relaxedToInfo, model.ProfileCRD),
	Requires: []Input{InputRelease, InputUsages, InputShootStages},
	UsagesAt: []lifecycle.Rev{lifecycle.RevBase, lifecycle.RevRelease},
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
			c.skipErr("cannot scan usages at base: ", err)
			return
		}
		u, err := c.Usages().At(lifecycle.RevRelease)
		if err != nil {
			c.skipErr(fmt.Sprintf("cannot scan usages at release %s: ", rel.Newest.Name), err)
			return
		}
		usageNote(c, u)
		for _, fds := range usage.Groups(fields) {
			// Usages still at base are FIELD_REMOVED_STILL_USED's finding.
			if atBase.Of(fds[0]).Len() > 0 {
				continue
			}
			// A field the release did not have was never released: what
			// matched there is not a usage of it.
			if released, err := releasedAny(c, fds); c.failed(err) || !released {
				continue
			}
			r := removedUsage(c, fds, u, "release "+rel.Newest.Name, ": the release dropping the usages has not shipped yet",
				fmt.Sprintf("keep the field until a release after %s (which contains the removal of its usages) is tagged", rel.Newest.Name))
			if r != nil {
				c.Field(fds[0], *r)
			}
		}
	},
}

// releasedAny reports whether the release before base had the removed
// field in any of the version packages it was removed from.
func releasedAny(c *Context, fds []*model.FieldDiff) (bool, error) {
	for _, fd := range fds {
		_, released, err := c.Release().ReleaseField(fd)
		if err != nil || released {
			return released, err
		}
	}
	return false, nil
}

// FieldRemovedNotDeprecated is FIELD_REMOVED_NOT_DEPRECATED.
var FieldRemovedNotDeprecated = &Rule{
	ID:       "FIELD_REMOVED_NOT_DEPRECATED",
	Alpha:    finding.Info,
	Category: CatLifecycle,
	Severity: finding.Warning,
	Relax:    relaxedToInfo,
	Requires: []Input{InputRelease},
	Summary: "A field removed from an external version was not marked deprecated at the last release that shipped it: its doc " +
		"comment had no line that starts with the word Deprecated as a statement (Go's `Deprecated:` paragraph, or `Deprecated.`, " +
		"`Deprecated, use …`, `DEPRECATED - …`, `Deprecated in v1.17 …`, a line `Deprecated` alone; not `Deprecated declares …`, " +
		"the doc of a field named Deprecated).",
	Why: "Users need a deprecation period to stop setting a field before it disappears; a release must have announced it.",
	Fix: "Mark the field deprecated (a `Deprecated:` paragraph in its doc comment) in a release before removing it.",
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
			c.skipErr("", err)
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
				Related: []finding.Related{related(f.Tag, f.Pos)},
			})
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

// ProtoNumberPreviouslyUsed is PROTO_NUMBER_PREVIOUSLY_USED.
var ProtoNumberPreviouslyUsed = &Rule{
	ID:           "PROTO_NUMBER_PREVIOUSLY_USED",
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
