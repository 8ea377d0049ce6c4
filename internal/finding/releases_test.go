package finding

import "testing"

func TestReleasesUsed(t *testing.T) {
	base := &Release{Tag: "v1.120.0", Commit: "a", Date: "2025-05-30"}
	head := &Release{Tag: "v1.149.0", Commit: "b", Date: "2026-08-13"}
	for _, c := range []struct {
		r    *Releases
		want string
	}{
		{nil, ""},
		{&Releases{}, ""},
		{&Releases{NewestBeforeBase: head}, "release used: v1.149.0 (2026-08-13)"},
		{&Releases{NewestBeforeBase: &Release{Tag: "v1.0.0"}}, "release used: v1.0.0"},
		{&Releases{NewestBeforeBase: base, NewestBeforeHead: head}, "releases used: v1.120.0 (2025-05-30) before base, v1.149.0 (2026-08-13) before head"},
	} {
		if got := c.r.Used(); got != c.want {
			t.Errorf("Used() = %q, want %q", got, c.want)
		}
	}
}
