package scan_test

import (
	"fmt"
	"testing"

	"github.com/apicheck/apicheck/internal/scan"
)

// manyVersions is a repository with n version directories: one group
// with versions v1alpha1..v1alpha<n> (layout "versions"), or n groups
// g1..g<n> with a v1 each (layout "groups").
func manyVersions(n int, layout string) mapSource {
	src := mapSource{"go.mod": "module example.com/repo\n\ngo 1.22\n"}
	for i := 1; i <= n; i++ {
		dir, pkg, group := fmt.Sprintf("pkg/apis/core/v1alpha%d", i), fmt.Sprintf("v1alpha%d", i), "core.example.com"
		if layout == "groups" {
			dir, pkg, group = fmt.Sprintf("pkg/apis/g%d/v1", i), "v1", fmt.Sprintf("g%d.example.com", i)
		}
		src[dir+"/doc.go"] = "// +groupName=" + group + "\npackage " + pkg + "\n"
		src[dir+"/types.go"] = "package " + pkg + "\n\ntype Foo struct {\n\tA string `json:\"a\"`\n}\n"
	}
	return src
}

func BenchmarkDiscoverManyVersions(b *testing.B) {
	for _, layout := range []string{"versions", "groups"} {
		for _, n := range []int{1000, 4000, 16000} {
			src := manyVersions(n, layout)
			b.Run(fmt.Sprintf("%s/%d", layout, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := scan.Scan(src, scan.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkPairManyVersions(b *testing.B) {
	for _, layout := range []string{"versions", "groups"} {
		for _, n := range []int{1000, 4000, 16000} {
			base := blobSource{manyVersions(n, layout)}
			head := blobSource{manyVersions(n, layout)}
			head.mapSource["go.mod"] += "// change\n"
			b.Run(fmt.Sprintf("%s/%d", layout, n), func(b *testing.B) {
				for b.Loop() {
					r := scan.NewReuse()
					done := make(chan error)
					go func() { _, err := scan.Scan(base, scan.Options{Record: r}); done <- err }()
					_, err := scan.Scan(head, scan.Options{Reuse: r})
					if e := <-done; err == nil {
						err = e
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
