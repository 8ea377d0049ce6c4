package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	t.Parallel()
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"ldflags win", "v9.9.9", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v9.9.9"},
		// make release: -trimpath -buildvcs=false, no module version, the
		// version from -ldflags.
		{"release build", "v0.1.0", &debug.BuildInfo{
			Main:     debug.Module{Path: "github.com/apicheck/apicheck", Version: "(devel)"},
			Settings: vcs("-trimpath", "true", "CGO_ENABLED", "0", "GOOS", "darwin", "GOARCH", "arm64"),
		}, "v0.1.0"},
		{"ldflags from git describe", "2e57c9e-dirty", nil, "2e57c9e-dirty"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"module pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101120000-0123456789ab+dirty"}}, "v0.0.0-20260101120000-0123456789ab+dirty"},
		{"go build of a checkout", "", &debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-03-04T05:06:07Z", "vcs.modified", "false"),
		}, "v0.0.0-20260304050607-0123456789ab"},
		{"go build of a modified checkout", "", &debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-03-04T05:06:07Z", "vcs.modified", "true"),
		}, "v0.0.0-20260304050607-0123456789ab+dirty"},
		{"revision without time", "", &debug.BuildInfo{
			Main:     debug.Module{Version: ""},
			Settings: vcs("vcs.revision", "abc123"),
		}, "v0.0.0-abc123"},
		{"no vcs information", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		// go get -tool + go tool apicheck: the main module is the user's.
		{"go tool of a module", "", &debug.BuildInfo{
			Path:     "github.com/apicheck/apicheck/cmd/apicheck",
			Main:     debug.Module{Path: "github.com/gardener/gardener", Version: "v1.150.0"},
			Deps:     []*debug.Module{{Path: "github.com/spf13/cobra", Version: "v1.10.2"}, {Path: "github.com/apicheck/apicheck", Version: "v1.2.3"}},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-03-04T05:06:07Z"),
		}, "v1.2.3"},
		{"go tool, replaced by a version", "", &debug.BuildInfo{
			Main: debug.Module{Path: "example.com/user", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "github.com/apicheck/apicheck", Version: "v1.2.3", Replace: &debug.Module{Path: "example.com/fork/apicheck", Version: "v1.2.4-fork"}}},
		}, "v1.2.4-fork"},
		{"go tool, replaced by a directory", "", &debug.BuildInfo{
			Main:     debug.Module{Path: "example.com/user", Version: "v0.0.0-20260304050607-0123456789ab"},
			Deps:     []*debug.Module{{Path: "github.com/apicheck/apicheck", Version: "v1.2.3", Replace: &debug.Module{Path: "../apicheck"}}},
			Settings: vcs("vcs.revision", rev),
		}, "dev"},
		{"apicheck's own module", "", &debug.BuildInfo{
			Main: debug.Module{Path: "github.com/apicheck/apicheck", Version: "v1.2.3"},
		}, "v1.2.3"},
		{"no build information", "", nil, "dev"},
	} {
		if got := versionFrom(c.ldflags, c.bi); got != c.want {
			t.Errorf("%s: versionFrom = %q, want %q", c.name, got, c.want)
		}
	}
}
