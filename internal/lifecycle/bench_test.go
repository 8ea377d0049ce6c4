package lifecycle_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
)

// BenchmarkPreviouslyUsed measures the protobuf-number history over 150
// release tags: every release changes two of the six types files of the
// API package (40 structs of 15+ fields each), so about 300 distinct files
// are read and parsed when cold (cache disabled); warm, every release's
// tree comes from the on-disk cache.
//
//	go test -run '^$' -bench BenchmarkPreviouslyUsed ./internal/lifecycle/
func BenchmarkPreviouslyUsed(b *testing.B) {
	const tags = 150
	r := lifecycletest.Generate(b, lifecycletest.Spec{Tags: tags})
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := repo.Snapshot(r.Base)
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	cache := b.TempDir()
	for _, c := range []struct{ name, dir string }{{"cold", "-"}, {"warm", cache}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				env := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: c.dir}})
				h, err := env.ProtoHistory(map[string][]string{lifecycletest.APIDir: {"Type0_0", "Type5_1"}})
				if err != nil {
					b.Fatal(err)
				}
				if len(h.Tags) != tags || len(h.Holders(lifecycletest.APIDir, "Type0_0", 15+tags)) == 0 ||
					len(h.Holders(lifecycletest.APIDir, "Type5_1", 99)) == 0 {
					b.Fatalf("history incomplete: %d tags", len(h.Tags))
				}
				env.Close()
			}
		})
	}
}
