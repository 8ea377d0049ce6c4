package lifecycle_test

import (
	"regexp"
	"testing"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
)

// benchTags is the number of generated releases: more than Gardener
// (about 150 minor releases) or k8s.io/api has.
const benchTags = 400

// BenchmarkReleaseBefore measures finding the release before a commit
// among 400 releases, each on its own release branch (the layout of
// Gardener and k8s.io/api), with 5,000 other tags in the repository:
// "recent" is a commit on main after the newest release branch (a pull
// request's base), "deep" a commit 390 releases back (the worst case:
// nearly every release line is judged).
//
//	go test -run '^$' -bench BenchmarkReleaseBefore ./internal/lifecycle/
func BenchmarkReleaseBefore(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Tags: benchTags, ReleaseBranches: true, OtherTags: 5000})
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	re := regexp.MustCompile(config.DefaultTagPattern)
	for _, c := range []struct{ name, commit, want string }{
		{"recent", r.Base, "v1.400.0"},
		{"deep", "v1.10.0", "v1.10.0"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rs, err := repo.ReleaseTags(re.MatchString)
				if err != nil {
					b.Fatal(err)
				}
				got, err := rs.Before(c.commit)
				if err != nil {
					b.Fatal(err)
				}
				if got[0].Name != c.want || len(rs.Tags) != benchTags {
					b.Fatalf("release before %s = %q of %d, want %s", c.commit, got[0].Name, len(rs.Tags), c.want)
				}
			}
		})
	}
}

// BenchmarkPreviouslyUsed measures the protobuf-number history over 400
// releases on release branches, including the release resolution: every
// release changes two of the six types files of the API package (40
// structs of 15+ fields each), so about 800 distinct files are read and
// searched, and the files declaring the two structs parsed, when cold
// (cache disabled); warm, every release's directory comes from the
// on-disk cache.
//
//	go test -run '^$' -bench BenchmarkPreviouslyUsed ./internal/lifecycle/
func BenchmarkPreviouslyUsed(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Tags: benchTags, ReleaseBranches: true})
	repo, snaps := r.Open(b, r.Base)
	base := snaps[0]
	history := func(dir string) {
		env := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: dir}})
		defer env.Close()
		h, err := env.ProtoHistory(map[string][]string{lifecycletest.APIDir: {"Type0_0", "Type5_1"}})
		if err != nil {
			b.Fatal(err)
		}
		if len(h.Tags) != benchTags || len(h.Holders(lifecycletest.APIDir, "Type0_0", 15+benchTags-5)) == 0 ||
			len(h.Holders(lifecycletest.APIDir, "Type5_1", 99)) == 0 {
			b.Fatalf("history incomplete: %d tags", len(h.Tags))
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			history("-")
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		history(cache) // fills the cache, untimed
		for b.Loop() {
			history(cache)
		}
	})
}
