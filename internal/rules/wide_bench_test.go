package rules

import (
	"fmt"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

// wideDiff is a group with an internal and a v1 version whose struct Spec
// gains n fields in v1 only: pairing and version skew must stay linear in
// the number of fields (a quadratic pass took minutes at 100k).
func wideDiff(n int) *model.Diff {
	mk := func(version string, extra int) *model.Package {
		t := &model.Type{Name: "Spec", Kind: model.KindStruct}
		for i := range extra {
			t.Fields = append(t.Fields, &model.Field{Name: fmt.Sprintf("F%d", i), Type: "*string",
				JSON:  model.JSONTag{Present: true, Name: fmt.Sprintf("f%d", i), OmitEmpty: true},
				Proto: &model.ProtoTag{Wire: "bytes", Number: i + 1, Label: "opt"}})
		}
		return &model.Package{Dir: "api/" + version, Version: version, Types: []*model.Type{t}}
	}
	base := &model.Model{Groups: []*model.Group{{Dir: "api", Internal: mk("", 0), Versions: []*model.Package{mk("v1", 0)}}}}
	head := &model.Model{Groups: []*model.Group{{Dir: "api", Internal: mk("", 0), Versions: []*model.Package{mk("v1", n)}}}}
	base.Sort()
	head.Sort()
	return model.Compare(base, head)
}

func BenchmarkWideStruct(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				d := wideDiff(n)
				res, err := Run(d, []*Rule{VersionSkew, ProtoNumberDuplicate}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Findings) != n {
					b.Fatalf("%d findings, want %d", len(res.Findings), n)
				}
			}
		})
	}
}
