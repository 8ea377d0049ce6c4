package lifecycle_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
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
				env := lifecycle.NewEnv(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: c.dir}})
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

// BenchmarkUsageScan measures one syntactic usage scan of the base of a
// generated 2,500-file repository: every file read from git objects, the
// ones naming the field parsed.
//
//	go test -run '^$' -bench BenchmarkUsageScan ./internal/lifecycle/
func BenchmarkUsageScan(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Files: 2500})
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := repo.Snapshot(r.Base)
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	head, err := repo.Snapshot(r.Head)
	if err != nil {
		b.Fatal(err)
	}
	defer head.Close()
	if n := len(base.Files()); n < 2500 {
		b.Fatalf("generated %d files, want 2500", n)
	}
	bm, err := scan.Scan(base, scan.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hm, err := scan.Scan(head, scan.Options{})
	if err != nil {
		b.Fatal(err)
	}
	in := lifecycle.Input{Repo: repo, Base: base, Head: head, BaseModel: bm, HeadModel: hm, Diff: model.Compare(bm, hm),
		Options: lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff}}
	removed := lifecycle.NewEnv(in).RemovedFields()
	if len(removed) != 1 {
		b.Fatalf("removed fields: %d, want 1", len(removed))
	}
	for b.Loop() {
		u, err := lifecycle.NewEnv(in).UsagesAtBase()
		if err != nil {
			b.Fatal(err)
		}
		if got := len(u.Of(removed[0])); got != r.UsagesAtBase {
			b.Fatalf("usages: %d, want %d", got, r.UsagesAtBase)
		}
	}
}
