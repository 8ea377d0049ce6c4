package lifecycle_test

import (
	"reflect"
	"testing"

	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
)

// TestReadsSplit: the protobuf history read with its large batches split
// between two cat-file processes equals the history read through one,
// object for object.
func TestReadsSplit(t *testing.T) {
	const tags = 40
	r := lifecycletest.Generate(t, lifecycletest.Spec{Tags: tags})
	repo, snaps := r.Open(t, r.Base)
	base := snaps[0]
	structs := map[string][]string{lifecycletest.APIDir: {"Type0_0", "Type5_1", "Type3_7"}}
	history := func(split int) (map[int][]lifecycle.Holder, int) {
		defer lifecycle.SetSplitAt(lifecycle.SetSplitAt(split))
		env := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: "-"}})
		defer env.Close()
		h, err := env.ProtoHistory(structs)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Tags) != tags {
			t.Fatalf("%d tags, want %d", len(h.Tags), tags)
		}
		out := map[int][]lifecycle.Holder{}
		for _, typ := range structs[lifecycletest.APIDir] {
			for _, n := range h.Numbers(lifecycletest.APIDir, typ) {
				out[n] = append(out[n], h.Holders(lifecycletest.APIDir, typ, n)...)
			}
		}
		return out, lifecycle.GitReads(env)
	}
	one, readsOne := history(1 << 30)
	two, readsTwo := history(2)
	if len(one) == 0 {
		t.Fatal("no protobuf numbers in the history")
	}
	if !reflect.DeepEqual(one, two) || readsOne != readsTwo {
		t.Errorf("split reads differ: %d numbers in %d reads, %d numbers in %d reads", len(two), readsTwo, len(one), readsOne)
	}
}
