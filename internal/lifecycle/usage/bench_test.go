package usage_test

import (
	"slices"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// BenchmarkUsageScan measures one syntactic usage scan of the base of a
// generated 2,500-file repository: every file read from git objects, the
// ones naming the field parsed.
//
//	go test -run '^$' -bench BenchmarkUsageScan ./internal/lifecycle/usage/
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
	in := lifecycle.Input{Repo: repo, Base: base, Head: head, BaseModel: bm, HeadModel: hm,
		Options: lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff}}
	removed := slices.Collect(model.Compare(bm, hm).RemovedFields())
	if len(removed) != 1 {
		b.Fatalf("removed fields: %d, want 1", len(removed))
	}
	for b.Loop() {
		u, err := usage.New(lifecycle.NewHistory(in), removed).At(lifecycle.RevBase)
		if err != nil {
			b.Fatal(err)
		}
		if got := len(u.Of(removed[0])); got != r.UsagesAtBase {
			b.Fatalf("usages: %d, want %d", got, r.UsagesAtBase)
		}
	}
}
