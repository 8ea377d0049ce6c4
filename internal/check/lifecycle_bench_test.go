package check_test

import (
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
)

// BenchmarkCheckLifecycle runs the whole pipeline on a generated
// repository with 2,500 files and 150 release tags whose head removes a
// field that base still uses in 246 places and revives a protobuf number
// freed without a tombstone: every lifecycle analysis runs (usages at
// base and at the newest release, the release's model, the protobuf
// history). "syntactic" leaves type information off (usages matched by
// path); "typed" resolves them by type-checking in-process.
//
//	go test -run '^$' -bench BenchmarkCheckLifecycle ./internal/check/
func BenchmarkCheckLifecycle(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Files: 2500, Tags: 150})
	for _, mode := range []string{lifecycle.TypeInfoOff, lifecycle.TypeInfoAuto} {
		name := map[string]string{lifecycle.TypeInfoOff: "syntactic", lifecycle.TypeInfoAuto: "typed"}[mode]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := check.Run(check.Request{Dir: r.Dir, Base: r.Base, Head: r.Head,
					Lifecycle: lifecycle.Options{TypeInfo: mode, CacheDir: "-"}})
				if err != nil {
					b.Fatal(err)
				}
				want := map[string]bool{"FIELD_REMOVED_STILL_USED": false, "PROTO_NUMBER_PREVIOUSLY_USED": false}
				for _, f := range res.Report.Findings {
					if _, ok := want[f.Rule]; ok {
						want[f.Rule] = true
					}
				}
				approx := false
				for _, n := range res.Report.Notes {
					approx = approx || strings.Contains(n, "matched by path: type information is off")
				}
				if approx != (mode == lifecycle.TypeInfoOff) {
					b.Fatalf("mode %s: notes %v", mode, res.Report.Notes)
				}
				for id, fired := range want {
					if !fired {
						b.Fatalf("%s did not fire; notes: %v", id, res.Report.Notes)
					}
				}
				res.Close()
			}
		})
	}
}

// BenchmarkAuditHistory runs `apicheck audit --history` on a generated
// repository with 400 release tags: every protobuf-tagged struct of head
// against its history. "cold" has no struct cache; "warm" reuses the
// cache an earlier run filled.
//
//	go test -run '^$' -bench BenchmarkAuditHistory ./internal/check/
func BenchmarkAuditHistory(b *testing.B) {
	r := lifecycletest.Generate(b, lifecycletest.Spec{Files: 2500, Tags: 400})
	warm := b.TempDir()
	for _, c := range []struct{ name, cache string }{{"cold", "-"}, {"warm", warm}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := check.Audit(check.Request{Dir: r.Dir, Head: r.Head, History: true,
					Lifecycle: lifecycle.Options{CacheDir: c.cache}})
				if err != nil {
					b.Fatal(err)
				}
				fired := false
				for _, f := range res.Report.Findings {
					fired = fired || f.Rule == "PROTO_NUMBER_PREVIOUSLY_USED"
				}
				if !fired {
					b.Fatalf("PROTO_NUMBER_PREVIOUSLY_USED did not fire; notes: %v", res.Report.Notes)
				}
				res.Close()
			}
		})
	}
}
