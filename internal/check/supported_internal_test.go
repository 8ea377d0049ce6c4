package check

import (
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestDroppedVersions: the supported versions file is compared by blob,
// then parsed at both revisions; only versions base lists and head does
// not count, and nothing does when the file is missing or unreadable at
// either revision.
func TestDroppedVersions(t *testing.T) {
	const file = "supported-kubernetes-versions.yaml"
	fx := gitfixture.FromTxtarCommits(t, []byte(`
-- s1/`+file+` --
versions:
- version: "1.30"
- version: "1.31"
- version: "1.32"
-- s2/README.md --
the versions file is the same as in s1
-- s3/`+file+` --
versions:
- version: "1.30"
- version: "1.31"
- version: "1.32"
- version: "1.33"
-- s4/`+file+` --
- "1.33"
- "1.32"
- "1.32"
-- s5/`+file+` --
(deleted)
-- s6/`+file+` --
versions: [
-- s7/versions.yaml --
- "1.33"
- "1.34"
-- s8/versions.yaml --
- "1.34"
`))
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, base, head, path, want string
	}{
		{"file unchanged", "s1", "s2", "", ""},
		{"version added", "s2", "s3", "", ""},
		{"versions dropped, head reordered", "s3", "s4", "", "1.30, 1.31"},
		{"versions added back", "s4", "s3", "", ""},
		{"file deleted at head", "s4", "s5", "", ""},
		{"file not parsable at head", "s3", "s6", "", ""},
		{"configured file", "s7", "s8", "versions.yaml", "1.33"},
		{"configured file missing at base", "s6", "s7", "versions.yaml", ""},
		{"another file than the configured one", "s3", "s4", "versions.yaml", ""},
		{"the default file, unchanged", "s7", "s8", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &Result{}
			for i, step := range []string{c.base, c.head} {
				s, err := repo.Snapshot(fx.Commits[step])
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if i == 0 {
					res.Base = s
				} else {
					res.Head = s
				}
			}
			res.Options.Lifecycle.Shoot.SupportedVersions = c.path
			if got := versionList(droppedVersions(res)); got != c.want {
				t.Errorf("dropped %q, want %q", got, c.want)
			}
		})
	}
}
