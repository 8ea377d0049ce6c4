package git

import "testing"

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"v1.10.0", "v1.9.0", 1},
		{"v1.2.0", "v1.2.0", 0},
		{"v1.2", "v1.2.0", 0},
		{"v2.0.0", "v10.0.0", -1},
		{"v1.2.0", "v1.2.0-rc.1", 1},
		{"v1.2.0-rc.2", "v1.2.0-rc.10", -1},
		{"v1.2.0-alpha", "v1.2.0-beta", -1},
		{"v1.2.0-alpha.1", "v1.2.0-alpha", 1},
		{"v1.2.0-1", "v1.2.0-alpha", -1},
		{"v1.2.0+build.5", "v1.2.0", 0},
		{"api/v1.3.0", "v1.2.9", 1},
		{"release-1.30", "release-1.4", 1},
		{"latest", "v1.0.0", 0}, // not a version: left to name order
		{"v1.x", "v1.0", 0},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := compareVersions(c.b, c.a); got != -c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	if !tagAfter("v1.10.0", "v1.9.0") || tagAfter("v1.9.0", "v1.10.0") {
		t.Errorf("tagAfter does not order by version")
	}
	if !tagAfter("zeta", "alpha") {
		t.Errorf("tagAfter does not fall back to names")
	}
}
