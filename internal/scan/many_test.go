package scan_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// manyVersions is a repository with n version directories: one group
// pkg/apis/core with versions v1alpha1..v1alpha<n> (layout "versions"),
// or n groups pkg/apis/g1..g<n> with a v1 each (layout "groups"). Every
// tenth version declares no group (no +groupName): a version directory
// that discovery drops; in layout "groups" it is a v2 beside the v1.
func manyVersions(n int, layout string) mapSource {
	src := mapSource{"go.mod": "module example.com/repo\n\ngo 1.22\n"}
	types := func(pkg string) string {
		return "package " + pkg + "\n\ntype Foo struct {\n\tA string `json:\"a\"`\n}\n"
	}
	for i := 1; i <= n; i++ {
		dir, pkg, group := fmt.Sprintf("pkg/apis/core/v1alpha%d", i), fmt.Sprintf("v1alpha%d", i), "core.example.com"
		if layout == "groups" {
			dir, pkg, group = fmt.Sprintf("pkg/apis/g%d/v1", i), "v1", fmt.Sprintf("g%d.example.com", i)
		}
		src[dir+"/types.go"] = types(pkg)
		switch {
		case i%10 != 0:
			src[dir+"/doc.go"] = "// +groupName=" + group + "\npackage " + pkg + "\n"
		case layout == "groups":
			src[dir+"/doc.go"] = "// +groupName=" + group + "\npackage " + pkg + "\n"
			src[fmt.Sprintf("pkg/apis/g%d/v2/types.go", i)] = types("v2")
		}
	}
	return src
}

// keptSource is a source with an identity, as a git snapshot is: scans
// of it keep the index of its file list.
type keptSource struct{ blobSource }

func newKept(m mapSource) *keptSource { return &keptSource{blobSource{m}} }

// groupJSON is a model's groups by directory, as JSON.
func groupJSON(t testing.TB, m *model.Model) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, g := range m.Groups {
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		out[g.Dir] = string(b)
	}
	return out
}

// scanParts scans base and head part by part (Options.Only, parts of
// size group directories in directory order), a Reuse per part, as a
// large tree is judged, and returns head's groups.
func scanParts(t testing.TB, base, head scan.Source, size int) *model.Model {
	t.Helper()
	cands, err := scan.Candidates(head, scan.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := &model.Model{}
	for lo := 0; lo < len(cands); lo += size {
		var dirs []string
		for _, c := range cands[lo:min(lo+size, len(cands))] {
			dirs = append(dirs, c.Dir)
		}
		r := scan.NewReuse()
		done := make(chan error)
		go func() {
			_, err := scan.Scan(base, scan.Options{Only: dirs, Profile: model.ProfileCRD, Record: r})
			done <- err
		}()
		m, err := scan.Scan(head, scan.Options{Only: dirs, Profile: model.ProfileCRD, Reuse: r})
		if berr := <-done; err == nil {
			err = berr
		}
		if err != nil {
			t.Fatal(err)
		}
		out.Groups = append(out.Groups, m.Groups...)
	}
	return out
}

// TestDiscoverManyVersions: discovery of 2,000 version directories, as
// one group's versions or as groups of their own, finds each version
// that declares its group and no other; judged part by part, the groups
// are those of a scan of the whole tree, and the file list is indexed
// once per source.
func TestDiscoverManyVersions(t *testing.T) {
	const n = 2000
	for _, layout := range []string{"versions", "groups"} {
		t.Run(layout, func(t *testing.T) {
			src := manyVersions(n, layout)
			want := map[string][]string{}
			for i := 1; i <= n; i++ {
				if layout == "groups" {
					want[fmt.Sprintf("pkg/apis/g%d", i)] = []string{fmt.Sprintf("pkg/apis/g%d/v1", i)}
				} else if i%10 != 0 {
					want["pkg/apis/core"] = append(want["pkg/apis/core"], fmt.Sprintf("pkg/apis/core/v1alpha%d", i))
				}
			}
			sort.Strings(want["pkg/apis/core"])
			for _, s := range []scan.Source{src, newKept(src)} {
				got, err := scan.Discover(s, scan.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("Discover (-want +got):\n%s", d)
				}
			}
			// The candidates count what a scan reads, the versions that
			// declare no group too.
			cands, err := scan.Candidates(newKept(src), scan.Options{}, false)
			if err != nil {
				t.Fatal(err)
			}
			files := 0
			for _, c := range cands {
				files += c.Files
			}
			if wantC := map[string]int{"versions": 1, "groups": n}[layout]; len(cands) != wantC || files != len(src)-1 {
				t.Errorf("Candidates: %d, reading %d files; want %d, reading %d", len(cands), files, wantC, len(src)-1)
			}

			head := maps.Clone(src)
			changed := "pkg/apis/core/v1alpha7/types.go"
			if layout == "groups" {
				changed = "pkg/apis/g7/v1/types.go"
			}
			head[changed] = strings.Replace(head[changed], "A string", "A int", 1)
			whole, err := scan.Scan(head, scan.Options{Profile: model.ProfileCRD})
			if err != nil {
				t.Fatal(err)
			}
			builds := scan.IndexBuilds()
			parts := scanParts(t, newKept(src), newKept(head), 250)
			if got := scan.IndexBuilds() - builds; got != 2 {
				t.Errorf("judged part by part, %d indexes built; want 2 (one a revision)", got)
			}
			if d := cmp.Diff(groupJSON(t, whole), groupJSON(t, parts)); d != "" {
				t.Errorf("head part by part differs from the whole scan (-whole +parts):\n%s", d)
			}
		})
	}
}

// TestIndexFollowsOptions: the index of a source answers each
// configuration with its own discovery, and the candidates a scan
// changes (dropping versions that declare no group) are its own.
func TestIndexFollowsOptions(t *testing.T) {
	src := newKept(manyVersions(30, "groups"))
	all, err := scan.Discover(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	some, err := scan.Discover(src, scan.Options{Exclude: []string{"pkg/apis/g1*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 30 || len(some) != 30-11 { // g1, g10..g19
		t.Errorf("%d groups, %d without g1*; want 30 and 19", len(all), len(some))
	}
	configured, err := scan.Discover(src, scan.Options{Groups: []scan.GroupSpec{{Dir: "pkg/apis/g10"}}})
	if err != nil {
		t.Fatal(err)
	}
	// A configured group keeps the version that declares no group.
	if d := cmp.Diff(map[string][]string{"pkg/apis/g10": {"pkg/apis/g10/v1", "pkg/apis/g10/v2"}}, configured); d != "" {
		t.Errorf("configured group (-want +got):\n%s", d)
	}
	again, err := scan.Discover(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(all, again); d != "" {
		t.Errorf("second discovery (-first +second):\n%s", d)
	}
	cands, err := scan.Candidates(src, scan.Options{Groups: []scan.GroupSpec{{Dir: "pkg/apis/g10"}}}, false)
	if err != nil || len(cands) != 1 || cands[0].Files != 3 {
		t.Errorf("Candidates of the configured group: %+v, %v; want g10 reading 3 files", cands, err)
	}
}

// TestIndexDroppedWithSource: a source's index goes once the source is
// collected, and no more than MaxIndexes are kept however many sources
// live.
func TestIndexDroppedWithSource(t *testing.T) {
	kept := scan.IndexesKept()
	func() {
		src := newKept(manyVersions(3, "groups"))
		if _, err := scan.Scan(src, scan.Options{}); err != nil {
			t.Fatal(err)
		}
		if scan.IndexesKept() != kept+1 {
			t.Errorf("%d indexes kept, want %d", scan.IndexesKept(), kept+1)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); scan.IndexesKept() > kept; {
		if time.Now().After(deadline) {
			t.Fatalf("%d indexes kept after the source was collected, want %d", scan.IndexesKept(), kept)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}

	m := manyVersions(3, "groups")
	var live []*keptSource
	for range scan.MaxIndexes + 5 {
		src := newKept(m)
		live = append(live, src)
		got, err := scan.Discover(src, scan.Options{})
		if err != nil || len(got) != 3 {
			t.Fatalf("Discover: %v, %v; want 3 groups", got, err)
		}
	}
	if n := scan.IndexesKept(); n > scan.MaxIndexes {
		t.Errorf("%d indexes kept, want at most %d", n, scan.MaxIndexes)
	}
	runtime.KeepAlive(live)
}

// BenchmarkDiscoverManyVersions scans trees of many version
// directories: whole ("versions": one group's versions; "groups": a
// group each), and "parts": the groups judged part by part, 250 groups a
// part with base and head side by side, as a large tree is. Each should
// grow linearly with the number of directories.
func BenchmarkDiscoverManyVersions(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		for _, layout := range []string{"versions", "groups"} {
			src := manyVersions(n, layout)
			b.Run(fmt.Sprintf("%s/%d", layout, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := scan.Scan(src, scan.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		base := manyVersions(n, "groups")
		head := maps.Clone(base)
		head["pkg/apis/g7/v1/types.go"] = strings.Replace(head["pkg/apis/g7/v1/types.go"], "A string", "A int", 1)
		b.Run(fmt.Sprintf("parts/%d", n), func(b *testing.B) {
			for b.Loop() {
				// New sources each time: the index is built in the loop.
				if m := scanParts(b, newKept(base), newKept(head), 250); len(m.Groups) != n {
					b.Fatalf("%d groups, want %d", len(m.Groups), n)
				}
			}
		})
	}
}
