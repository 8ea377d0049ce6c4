package notes

import (
	"strings"
	"testing"
)

func TestNewerVersion(t *testing.T) {
	order := []string{"v1alpha1", "v1alpha2", "v1beta1", "v1beta2", "v1", "v2alpha1", "v2"}
	for i := range order {
		for j := range order {
			if got, want := NewerVersion(order[i], order[j]), i > j; got != want {
				t.Errorf("NewerVersion(%s, %s) = %v, want %v", order[i], order[j], got, want)
			}
		}
	}
	if !NewerVersion("v1", "other") || NewerVersion("other", "v1alpha1") {
		t.Errorf("versions must rank above names that are no versions")
	}
}

func TestDeprecationText(t *testing.T) {
	for doc, want := range map[string]string{
		"Foo is a thing.":                            "",
		"Foo is a thing.\n\nDeprecated: use bar":     "use bar.",
		"Foo.\n\nDeprecated: Use bar.\nSoon gone.":   "Use bar. Soon gone.",
		"Foo.\n\nDeprecated: x.\n\nMore text after.": "x.",
		"Deprecated:": "",
	} {
		if got := deprecationText(doc); got != want {
			t.Errorf("deprecationText(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, nil); err != nil || b.String() != NoChanges+"\n" {
		t.Errorf("empty: %q, %v", b.String(), err)
	}
	b.Reset()
	blocks := []Block{{"breaking", "user", []string{"a", "b"}}, {"feature", "operator", []string{"c"}}}
	if err := Render(&b, blocks); err != nil {
		t.Fatal(err)
	}
	want := "```breaking user\na\nb\n```\n\n```feature operator\nc\n```\n"
	if b.String() != want {
		t.Errorf("Render = %q, want %q", b.String(), want)
	}
}
