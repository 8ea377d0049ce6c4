package notes

import "testing"

// A change seen in several versions is noted in the words of the version
// the API server prefers (GA over beta over alpha, then the higher
// major), whatever order the versions come in.
func TestAddKeepsPreferredVersion(t *testing.T) {
	for _, order := range [][]string{
		{"v1alpha1", "v2alpha1", "v1", "v1beta1", "v2beta1"},
		{"v1", "v2alpha1", "v2beta1", "v1beta1", "v1alpha1"},
		{"v2beta1", "v2alpha1", "v1alpha1", "v1beta1", "v1"},
	} {
		g := &generator{entries: map[key]entry{}}
		k := key{category: "feature", audience: "user", dir: "pkg/apis/core", subject: "Shoot.spec", change: "added"}
		for _, v := range order {
			g.add(k, v, "seen in "+v)
		}
		if got := g.entries[k]; got.version != "v1" || got.line != "seen in v1" {
			t.Errorf("versions %v: kept %+v, want v1's line", order, got)
		}
	}
}
