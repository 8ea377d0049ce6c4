package glob

import (
	"path"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		yes, no []string
	}{
		// No slash: any segment, directories or the file name.
		{"*_test.go", []string{"a_test.go", "pkg/x/a_test.go"}, []string{"pkg/x/a.go"}},
		{"testing", []string{"pkg/testing/x.go", "testing/x.go"}, []string{"pkg/testingx/x.go", "pkg/x/testing.go"}},
		{"*test", []string{"test/e2e/x.go", "pkg/utils/test/x.go", "pkg/envtest/x.go"}, []string{"pkg/tests/x.go", "pkg/x/x_test.go"}},
		{"*fake*", []string{"pkg/client/fake/x.go", "pkg/x/fakeclient.go"}, []string{"pkg/x/x.go"}},
		{"mock*", []string{"pkg/mock/x.go", "pkg/x/mocks/y.go", "pkg/x/mock_client.go"}, []string{"pkg/unmock/x.go"}},
		// With a slash: from the start, ** any number of segments.
		{"pkg/registry/**", []string{"pkg/registry/core/shoot/strategy.go", "pkg/registry/x.go"}, []string{"pkg/registryx/a.go", "x/pkg/registry/a.go"}},
		{"pkg/apis/**/validation/**", []string{"pkg/apis/core/validation/shoot.go", "pkg/apis/validation/a.go", "pkg/apis/a/b/validation/c/d.go"}, []string{"pkg/apis/core/v1/shoot.go"}},
		{"**/webhook/defaulting/**", []string{"pkg/operator/webhook/defaulting/extension/handler.go", "webhook/defaulting/a.go"}, []string{"pkg/webhook/mutating/a.go"}},
		{"cmd/*apiserver*/**", []string{"cmd/gardener-apiserver/app/app.go"}, []string{"cmd/gardenlet/app/app.go"}},
		{"a/*.go", []string{"a/x.go"}, []string{"a/b/x.go", "b/a/x.go"}},
		{"**", []string{"a", "a/b/c.go"}, nil},
		{"**/**/x.go", []string{"x.go", "a/b/x.go"}, []string{"a/b/y.go"}},
	} {
		g, err := Compile(tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		for _, p := range tc.yes {
			if !g.Match(p) {
				t.Errorf("%s does not match %s", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.Match(p) {
				t.Errorf("%s matches %s", tc.pattern, p)
			}
		}
	}
}

// TestGlobManyStars: patterns from an untrusted configuration match in
// polynomial time.
func TestGlobManyStars(t *testing.T) {
	p := ""
	for range 200 {
		p += "**/a/"
	}
	g, err := Compile(p + "b")
	if err != nil {
		t.Fatal(err)
	}
	path := ""
	for range 100 {
		path += "a/"
	}
	if g.Match(path + "c") {
		t.Error("matched")
	}
}

// TestMatchDirectory: a directory pattern matches the directory and
// everything below it; a trailing "/" is dropped; an invalid pattern
// matches nothing.
func TestMatchDirectory(t *testing.T) {
	for _, tc := range []struct {
		pattern, dir string
		want         bool
	}{
		{"legacy", "legacy", true},
		{"legacy", "pkg/legacy/v1", true},
		{"legacy/", "legacy/v1", true},
		{"pkg/apis/old", "pkg/apis/old/v1beta1", true},
		{"pkg/apis/old", "pkg/apis/older/v1", false},
		{"pkg/*/internal", "pkg/a/internal/v1", true},
		{"pkg/*/internal", "x/pkg/a/internal", false},
		{"**/v1alpha1", "pkg/apis/a/v1alpha1", true},
		{"apis/a/v1", "apis/a", false},
		{"x/[", "x/[", false},
		{"", "a", false},
	} {
		if got := Match(tc.pattern, tc.dir); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.dir, got, tc.want)
		}
	}
}

// refMatch is the definition of Glob.Match: path.Match on every segment,
// "**" any number of segments (exponential; small inputs only).
func refMatch(pattern, file string) bool {
	var match func(pat, parts []string) bool
	match = func(pat, parts []string) bool {
		if len(pat) == 0 {
			return len(parts) == 0
		}
		if pat[0] == "**" {
			for k := 0; k <= len(parts); k++ {
				if match(pat[1:], parts[k:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		ok, _ := path.Match(pat[0], parts[0])
		return ok && match(pat[1:], parts[1:])
	}
	parts := strings.Split(file, "/")
	if !strings.Contains(pattern, "/") && pattern != "**" {
		for _, s := range parts {
			if ok, _ := path.Match(pattern, s); ok {
				return true
			}
		}
		return false
	}
	return match(strings.Split(pattern, "/"), parts)
}

// TestGlobMatchesDefinition: the compiled segments (literal, prefix,
// suffix, contains, path.Match) match as path.Match does, over every
// pattern and path built from a small alphabet of segments.
func TestGlobMatchesDefinition(t *testing.T) {
	segs := []string{"a", "ab", "b", "*", "a*", "*a", "*a*", "*b*", "a*b", "?b", "[ab]", "**", "x_test.go", "*_test.go", "*.go"}
	names := []string{"a", "ab", "ba", "b", "bab", "x_test.go", "a.go", "aa", "c"}
	patterns := joinAll(segs, []string{"a", "**", "*b*"})
	files := joinAll(names, []string{"a", "x_test.go", "ab"})
	n := 0
	for _, p := range patterns {
		g, err := Compile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, f := range files {
			if got, want := g.Match(f), refMatch(p, f); got != want {
				t.Errorf("Compile(%q).Match(%q) = %v, want %v", p, f, got, want)
				if n++; n > 20 {
					t.FailNow()
				}
			}
		}
	}
}

// BenchmarkMatchUsageExcludes matches repository paths against a list
// like the default usages.exclude.
func BenchmarkMatchUsageExcludes(b *testing.B) {
	var gs []Glob
	for _, p := range []string{"*_test.go", "*test", "testing", "*fake*", "mock*", "zz_generated*", "*.pb.go",
		"pkg/apiserver/**", "pkg/registry/**", "pkg/api/**", "pkg/apis/**/validation/**", "plugin/**", "cmd/*apiserver*/**",
		"pkg/admissioncontroller/**", "**/webhook/defaulting/**", "**/webhook/validation/**"} {
		g, err := Compile(p)
		if err != nil {
			b.Fatal(err)
		}
		gs = append(gs, g)
	}
	var files [][]string
	for _, d := range []string{"pkg/gardenlet/controller/shoot/care", "pkg/operator/webhook/validation/garden", "extensions/pkg/controller/worker/genericactuator", "cmd/gardener-apiserver/app", "test/e2e/gardener/shoot", "pkg/apis/core/v1beta1"} {
		for _, f := range []string{"reconciler.go", "add.go", "reconciler_test.go", "zz_generated.deepcopy.go", "helper.go"} {
			files = append(files, strings.Split(d+"/"+f, "/"))
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, parts := range files {
			for _, g := range gs {
				if g.MatchSegments(parts) {
					break
				}
			}
		}
	}
}

// joinAll is every element of elems, every pair of them joined by a
// slash, and every pair followed by one of lasts.
func joinAll(elems, lasts []string) []string {
	var out []string
	for _, a := range elems {
		out = append(out, a)
		for _, b := range elems {
			out = append(out, a+"/"+b)
			for _, c := range lasts {
				out = append(out, a+"/"+b+"/"+c)
			}
		}
	}
	return out
}
