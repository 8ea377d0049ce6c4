package git

import "testing"

func TestTagVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, want string
	}{
		{"v1.10.0", "v1.10.0"},
		{"1.2.3", "v1.2.3"},
		{"v1.2", "v1.2.0"},
		{"v1.2.0-rc.1", "v1.2.0-rc.1"},
		{"v1.2.0+build.5", "v1.2.0"},
		{"api/v1.3.0", "v1.3.0"},
		{"kubernetes-1.35.0", "v1.35.0"},
		{"release-1.30", "v1.30.0"},
		{"k8s-v1.2.0", "v1.2.0"},
		{"latest", ""},
		{"docs-2024", ""},
		{"v2", ""},
		{"v1.x", ""},
		{"v1.2.3.4", ""},
		{"v01.2.3", ""},
		{"", ""},
	} {
		got, ok := TagVersion(c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("TagVersion(%q) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}
