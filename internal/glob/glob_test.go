package glob

import "testing"

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
