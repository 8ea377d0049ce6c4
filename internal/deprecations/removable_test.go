package deprecations

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestShootRemovals: a plan of the Shoot removals only lists the Shoot
// spec fields tied to a Kubernetes version, with the removability a full
// plan gives them, and counts no usages.
func TestShootRemovals(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/history.txtar")
	full := plan(t, f.Dir, git.WorktreeRef)
	only := planWith(t, f.Dir, git.WorktreeRef, true)
	type verdict struct {
		Type, Field, Since, From, RemovableFrom string
		Removable                               bool
	}
	pick := func(p *Plan, tiedOnly bool) []verdict {
		var out []verdict
		for _, d := range p.Deprecations {
			if tiedOnly && d.ForbiddenFrom == "" {
				continue
			}
			out = append(out, verdict{d.Type, d.Field, d.DeprecatedSince, d.ForbiddenFrom, d.RemovableFrom, d.Removable})
		}
		return out
	}
	want := pick(full, true)
	if len(want) < 2 {
		t.Fatalf("the fixture has %d Shoot fields tied to a Kubernetes version, want at least 2", len(want))
	}
	if diff := cmp.Diff(want, pick(only, false)); diff != "" {
		t.Errorf("Shoot removals differ from the full plan's (-full +removals):\n%s", diff)
	}
	if diff := cmp.Diff(full.SupportedKubernetesVersions, only.SupportedKubernetesVersions); diff != "" {
		t.Errorf("supported versions (-full +removals):\n%s", diff)
	}
	for _, d := range only.Deprecations {
		if d.Usages != nil {
			t.Errorf("%s.%s: usages counted (%d)", d.Type, d.Field, *d.Usages)
		}
	}
}

func TestNewlyRemovable(t *testing.T) {
	field := func(typ, name, path, from string, removable bool) Deprecation {
		return Deprecation{Kind: KindField, Group: "core.gardener.cloud", Version: "v1beta1", Type: typ, Field: name,
			APIPath: path, ForbiddenFrom: from, Removable: removable}
	}
	base := &Plan{
		SupportedKubernetesVersions: []string{"1.29", "1.30", "1.31", "1.32", "1.33"},
		Deprecations: []Deprecation{
			field("ShootSpec", "A", "Shoot.spec.a", "1.31", false),
			field("ShootSpec", "B", "Shoot.spec.b", "1.32", false),
			field("Networking", "C", "Shoot.spec.networking.c", "1.31", false),
			field("ShootSpec", "Old", "Shoot.spec.old", "1.29", true),
			field("ShootSpec", "Plain", "Shoot.spec.plain", "", false),
			field("ShootSpec", "Kept", "Shoot.spec.kept", "1.33", false),
		},
	}
	head := &Plan{
		SupportedKubernetesVersions: []string{"1.32", "1.33"},
		Deprecations: []Deprecation{
			field("ShootSpec", "A", "Shoot.spec.a", "1.31", true),
			field("ShootSpec", "B", "Shoot.spec.b", "1.32", true),
			field("Networking", "C", "Shoot.spec.networking.c", "1.31", true),
			field("ShootSpec", "Old", "Shoot.spec.old", "1.29", true),                  // removable at base already
			field("ShootSpec", "Plain", "Shoot.spec.plain", "", true),                  // not tied to a Kubernetes version
			field("ShootSpec", "Kept", "Shoot.spec.kept", "1.33", false),               // 1.32 still allows it
			field("ShootSpec", "New", "Shoot.spec.new", "1.31", true),                  // not deprecated at base
			{Kind: KindType, Group: "core.gardener.cloud", Type: "T", Removable: true}, // not a field
		},
	}
	var got []string
	for _, u := range NewlyRemovable(base, head) {
		got = append(got, u.Dropped+" "+u.Deprecation.APIPath)
	}
	want := []string{"1.30 Shoot.spec.a", "1.30 Shoot.spec.networking.c", "1.31 Shoot.spec.b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("newly removable (-want +got):\n%s", diff)
	}
}
