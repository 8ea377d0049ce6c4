package usage_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
)

// BenchmarkUsages measures the usage search at base of a generated
// 2,500-file repository laid out as real code is (third-party imports,
// chains of in-repository helper packages; lifecycletest.Spec.Deps): every
// file read from git objects, the candidates type-checked in-process with
// the helper packages they need. The module cache is empty or full of the
// repository's dependencies: the search never reads it, so both cost the
// same. "path" leaves type information off (and finds none of these
// usages: they select the field from a helper's result).
//
//	go test -run '^$' -bench BenchmarkUsages ./internal/lifecycle/usage/
func BenchmarkUsages(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Files: 2500, Deps: true})
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
	bm, hm, removed := scanRemoved(b, base, head)
	if len(removed) != 1 {
		b.Fatalf("removed fields: %d, want 1", len(removed))
	}
	full := lifecycletest.ModCache(b, b.TempDir(), 400)
	for _, c := range []struct {
		name, typeInfo, modCache string
	}{
		{"typed/modcache=empty", lifecycle.TypeInfoAuto, b.TempDir()},
		{"typed/modcache=full", lifecycle.TypeInfoAuto, full},
		{"path", lifecycle.TypeInfoOff, b.TempDir()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.Setenv("GOMODCACHE", c.modCache)
			in := lifecycle.Input{Repo: repo, Base: base, Head: head, BaseModel: bm, HeadModel: hm,
				Options: lifecycle.Options{TypeInfo: c.typeInfo, CacheDir: "-"}} // the search, not its memo
			for b.Loop() {
				u, err := usage.New(lifecycle.NewHistory(in), removed).At(lifecycle.RevBase)
				if err != nil {
					b.Fatal(err)
				}
				refs := u.Of(removed[0])
				// By path, util.Spec(s).SeedTemplate is a chain of one name
				// (the root is a call): not a match.
				if c.typeInfo != lifecycle.TypeInfoOff && (len(refs.Typed) != r.UsagesAtBase || len(refs.ByPath) != 0) {
					b.Fatalf("typed %d, by path %d; want %d usages", len(refs.Typed), len(refs.ByPath), r.UsagesAtBase)
				}
			}
		})
	}
}

// BenchmarkNothingRemoved: without removed fields the search reads
// nothing.
func BenchmarkNothingRemoved(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Files: 2500, Deps: true})
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := repo.Snapshot(r.Base)
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	in := lifecycle.Input{Repo: repo, Base: base, Head: base, Options: lifecycle.Options{CacheDir: "-"}}
	for b.Loop() {
		if _, err := usage.New(lifecycle.NewHistory(in), nil).At(lifecycle.RevBase); err != nil {
			b.Fatal(err)
		}
	}
}
