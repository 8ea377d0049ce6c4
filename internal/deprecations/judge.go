package deprecations

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// judge sets the stage, the next step and the removability of an
// element:
//
//   - a Shoot spec field tied to a Kubernetes version (gardener profile)
//     follows the Shoot process: removable once the deprecation shipped
//     and no supported Kubernetes version allows it;
//   - a field or type of a served version under the kubernetes and crd
//     profiles stays in that version: it goes in the next API version;
//   - everything else follows the two-step removal: removable once a
//     release line before the newest release's shipped the deprecation
//     and no usage is left.
func (r *run) judge(it *item) {
	prof := it.group.Profile
	switch {
	case it.shoot != nil && it.shoot.tied:
		r.judgeShoot(it)
	case it.d.Kind != KindVersion && (prof == model.ProfileKubernetes || prof == model.ProfileCRD):
		if unserved(it.pkg) {
			it.d.Stage, it.d.Next, it.d.Removable = StageRemovable, "remove it (the version is not served)", true
			return
		}
		it.d.Stage, it.d.Next = StageDeprecated, NextAPIVersion
		if it.sinceIdx >= 0 {
			it.d.Stage = StageReleased
		}
	default:
		r.judgeTwoStep(it)
	}
}

// unserved reports a version whose kinds are all marked
// +kubebuilder:unservedversion.
func unserved(p *model.Package) bool {
	kinds, off := 0, 0
	for _, t := range p.Types {
		if t.RootKind {
			kinds++
			if t.Markers.Has("kubebuilder:unservedversion") {
				off++
			}
		}
	}
	return kinds > 0 && off == kinds
}

// what names the element in next steps.
func what(it *item) string {
	switch it.d.Kind {
	case KindVersion:
		return "the version"
	case KindType:
		return "the type"
	}
	return "the field"
}

// usesText is "3 usages" ("2 importing files" for a version).
func usesText(it *item) string {
	word := "usage"
	if it.d.Kind == KindVersion {
		word = "import"
	}
	if it.usages == 1 {
		return "the 1 " + word
	}
	return fmt.Sprintf("the %d %ss", it.usages, word)
}

// olderLine reports whether release tag a is of an older release line
// (major.minor) than b.
func olderLine(a, b string) bool {
	va, ok1 := git.TagVersion(a)
	vb, ok2 := git.TagVersion(b)
	if !ok1 || !ok2 {
		return a != b
	}
	return semver.Compare(semver.MajorMinor(va), semver.MajorMinor(vb)) < 0
}

// judgeTwoStep judges by the two-step removal: the deprecation ships in
// a release; the next release line may remove the element, once the code
// base no longer uses it.
func (r *run) judgeTwoStep(it *item) {
	d := &it.d
	if !r.relOK {
		d.Stage, d.Next = StageDeprecated, "ship the deprecation in a release"
		return
	}
	switch {
	case it.sinceIdx < 0:
		d.Stage, d.Next, d.RemovableFrom = StageDeprecated, "ship the deprecation in "+r.after(1), r.after(2)
	case !olderLine(d.DeprecatedSince, r.newest):
		d.Stage, d.RemovableFrom = StageReleased, r.after(1)
		d.Next = "remove " + what(it) + " after " + r.after(1)
		if it.counted && it.usages > 0 {
			d.Next = "remove " + usesText(it) + "; " + d.Next
		}
	case !it.counted:
		d.Stage, d.Next = StageReleased, "remove "+what(it)+" once unused (the usages could not be counted)"
	case it.usages > 0:
		d.Stage, d.RemovableFrom = StageReleased, r.after(1)
		d.Next = "remove " + usesText(it) + "; remove " + what(it) + " after " + r.after(1)
	default:
		d.Stage, d.Next, d.Removable = StageRemovable, "remove "+what(it), true
	}
}

// judgeShoot judges a Shoot spec field by the Shoot process.
func (r *run) judgeShoot(it *item) {
	d, s := &it.d, it.shoot
	last := shoot.Version{Major: s.from.Major, Minor: s.from.Minor - 1}
	minV, known := r.minSupported()
	allForbid := known && !minV.Less(s.from)
	released := it.sinceIdx >= 0
	uses := ""
	if it.counted && it.usages > 0 {
		uses = usesText(it)
	}
	if allForbid && released {
		d.Stage, d.Next, d.Removable = StageRemovable, "remove the field", true
		if uses != "" {
			d.Next = "remove the field and " + uses
		}
		return
	}
	d.Stage = StageDeprecated
	if released {
		d.Stage = StageReleased
	}
	var missing *stageHit
	for _, h := range s.stages {
		switch {
		case h.present:
			d.Stage = h.name
		case missing == nil:
			missing = h
		}
	}
	final := fmt.Sprintf("remove the field once Kubernetes %s is unsupported", last)
	d.RemovableFrom = fmt.Sprintf("when Kubernetes %s is unsupported", last)
	if allForbid { // the deprecation has yet to ship
		final, d.RemovableFrom = "remove the field after "+r.after(1), r.after(1)
	}
	if missing == nil {
		d.Next = final
		if uses != "" {
			d.Next = "remove " + uses + "; " + strings.Replace(final, "remove the field", "then the field", 1)
		}
		return
	}
	switch missing.name {
	case StageWarning:
		d.Next = "warn when it is set (WarningsOnCreate/WarningsOnUpdate)"
	case StageValidation:
		d.Next = fmt.Sprintf("forbid it from Kubernetes %s on (validation)", s.from)
	case StageMaintenance:
		d.Next = fmt.Sprintf("set it to nil in maintenance on forced upgrades to Kubernetes %s", s.from)
	case StageCanonicalize:
		d.Next = "force it to nil in Canonicalize"
		if !released {
			d.Next += ", in a release after the deprecation's (" + r.after(1) + " ships it)"
		}
	}
}

// holdTypes keeps a deprecated type while fields of its package use it
// (a field of another type whose type names it): a field that is not
// deprecated (nor in a deprecated type) must be deprecated first; a
// deprecated one, or a deprecated type, takes the type along when it
// goes, so the type is removable no earlier than they are.
func holdTypes(items []*item) {
	fields := map[*model.Field]*item{}
	types := map[*model.Type]*item{}
	for _, it := range items {
		switch it.d.Kind {
		case KindField:
			fields[it.field] = it
		case KindType:
			types[it.typ] = it
		}
	}
	for _, it := range items {
		if it.d.Kind != KindType {
			continue
		}
		var live []string
		var holder *item
		for _, t := range it.pkg.Types {
			if t == it.typ {
				continue
			}
			for _, f := range t.Fields {
				if model.LocalTypeName(f.Type) != it.typ.Name {
					continue
				}
				by := fields[f]
				if by == nil {
					by = types[t]
				}
				switch {
				case by == nil:
					live = append(live, t.Name+"."+f.Name)
				case !by.d.Removable && holder == nil:
					holder = by
				}
			}
		}
		switch {
		case len(live) > 0:
			it.d.Removable, it.d.RemovableFrom = false, ""
			if it.d.Stage == StageRemovable {
				it.d.Stage = StageReleased
			}
			it.d.Next = "deprecate " + strings.Join(live, ", ") + " (it uses the type)"
		case holder != nil && it.d.Removable:
			it.d.Removable, it.d.Stage = false, StageReleased
			it.d.RemovableFrom = holder.d.RemovableFrom
			it.d.Next = "remove it with " + holderName(holder)
		}
	}
}

// holderName names the element that holds a type: "SecretBinding",
// "ShootSpec.Template".
func holderName(it *item) string {
	if it.d.Field != "" {
		return it.d.Type + "." + it.d.Field
	}
	return it.d.Type
}
