package deprecations

import (
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
)

// Unblocked is a deprecated Shoot field that a change of the supported
// Kubernetes versions makes removable.
type Unblocked struct {
	// Deprecation is the field's entry in head's plan: removable, with
	// ForbiddenFrom set.
	Deprecation Deprecation
	// Dropped is the last Kubernetes version that allowed the field
	// among base's supported versions; head no longer supports it.
	Dropped string
}

// NewlyRemovable compares the plans of two revisions, base's and head's
// (full plans or Input.ShootRemovals ones), and returns the deprecated
// Shoot fields that head's supported Kubernetes versions make removable:
// the fields forbidden from a Kubernetes version that head's plan judges
// removable, that base's plan lists and does not judge removable, and
// that a version base supported allowed (the highest below the one that
// forbids them is Dropped). Fields removable at base, and fields base
// does not list as deprecated, are not returned. Sorted by Dropped, then
// by API path, group, version, type and field.
func NewlyRemovable(base, head *Plan) []Unblocked {
	var baseVers []shoot.Version
	for _, s := range base.SupportedKubernetesVersions {
		if v, ok := shoot.ParseVersion(s); ok {
			baseVers = append(baseVers, v)
		}
	}
	type key struct{ group, version, typ, field string }
	was := map[key]Deprecation{}
	for _, d := range base.Deprecations {
		if d.Kind == KindField {
			was[key{d.Group, d.Version, d.Type, d.Field}] = d
		}
	}
	var out []Unblocked
	for _, d := range head.Deprecations {
		if d.Kind != KindField || !d.Removable || d.ForbiddenFrom == "" {
			continue
		}
		b, ok := was[key{d.Group, d.Version, d.Type, d.Field}]
		if !ok || b.Removable {
			continue
		}
		from, ok := shoot.ParseVersion(d.ForbiddenFrom)
		if !ok {
			continue
		}
		var last *shoot.Version
		for i, v := range baseVers {
			if v.Less(from) && (last == nil || last.Less(v)) {
				last = &baseVers[i]
			}
		}
		if last != nil {
			out = append(out, Unblocked{Deprecation: d, Dropped: last.String()})
		}
	}
	slices.SortStableFunc(out, func(a, b Unblocked) int {
		va, _ := shoot.ParseVersion(a.Dropped)
		vb, _ := shoot.ParseVersion(b.Dropped)
		switch {
		case va.Less(vb):
			return -1
		case vb.Less(va):
			return 1
		}
		for _, c := range [][2]string{
			{a.Deprecation.APIPath, b.Deprecation.APIPath},
			{a.Deprecation.Group, b.Deprecation.Group},
			{a.Deprecation.Version, b.Deprecation.Version},
			{a.Deprecation.Type, b.Deprecation.Type},
			{a.Deprecation.Field, b.Deprecation.Field},
		} {
			if n := strings.Compare(c[0], c[1]); n != 0 {
				return n
			}
		}
		return 0
	})
	return out
}
