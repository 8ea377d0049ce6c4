package config

import "testing"

func TestAudienceFor(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(`releaseNotes:
  audiences:
    - {group: "core.gardener.cloud", kind: "Shoot*", audience: user}
    - {group: "*.gardener.cloud", kind: Seed, audience: operator}
    - {group: "pkg/apis/extensions", audience: developer}
    - {group: "pkg/**/config", audience: operator}
    - {kind: Quota, audience: Dependency}
`), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, kind, want string }{
		{"core.gardener.cloud", "pkg/apis/core", "Shoot", "user"},
		{"core.gardener.cloud", "pkg/apis/core", "ShootState", "user"},
		{"core.gardener.cloud", "pkg/apis/core", "Seed", "operator"},
		{"seedmanagement.gardener.cloud", "pkg/apis/seedmanagement", "Seed", "operator"},
		{"extensions.gardener.cloud", "pkg/apis/extensions", "Worker", "developer"},
		{"", "pkg/apis/extensions/v1alpha1", "Worker", "developer"}, // below the directory
		{"", "pkg/gardenlet/apis/config", "GardenletConfiguration", "operator"},
		{"core.gardener.cloud", "pkg/apis/core", "Quota", "dependency"},
		{"core.gardener.cloud", "pkg/apis/core", "Project", ""},
		{"", "pkg/apis/core", "Seed", ""}, // a group name pattern needs a group name
	} {
		if got := cfg.ReleaseNotes.AudienceFor(c.name, c.dir, c.kind); got != c.want {
			t.Errorf("AudienceFor(%q, %q, %q) = %q, want %q", c.name, c.dir, c.kind, got, c.want)
		}
	}
}
