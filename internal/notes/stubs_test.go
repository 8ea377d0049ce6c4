package notes

import (
	"strings"
	"testing"
)

func TestFirstSentence(t *testing.T) {
	for doc, want := range map[string]string{
		"Replicas is the number of replicas.":                       "Replicas is the number of replicas.",
		"Purpose of the cluster":                                    "Purpose of the cluster.",
		"Foo is the foo\nof the cluster. It is optional.":           "Foo is the foo of the cluster.",
		"Foo is a CIDR (e.g. 10.0.0.0/8). More.":                    "Foo is a CIDR (e.g. 10.0.0.0/8).",
		"Foo names .spec.bar. More.":                                "Foo names .spec.bar.",
		"Foo is set.\n\nSecond paragraph.":                          "Foo is set.",
		"+optional\n+kubebuilder:validation:MinLength=1\nFoo is x.": "Foo is x.",
		"<gateway:experimental>\nFoo is x.":                         "Foo is x.",
		"Foo is x\n---\nInternal notes.":                            "Foo is x.",
		"Foo is x.\nDeprecated: use bar instead.":                   "Foo is x.",
		"Deprecated: use bar instead.":                              "",
		"+optional":                                                 "",
		"":                                                          "",
	} {
		if got := firstSentence(doc); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestReplacement(t *testing.T) {
	for doc, want := range map[string]string{
		"Foo.\n\nDeprecated: use spec.foo instead":                                  "use `spec.foo` instead",
		"Foo.\n\nDeprecated: Use .spec.network instead. Gone with v2.":              "use `.spec.network` instead",
		"Deprecated: This field is deprecated.\nPlease use spec.access.kubeconfig.": "use `spec.access.kubeconfig` instead",
		"Foo.\nDeprecated in favour of `spec.z`; it will be removed.":               "use `spec.z` instead",
		"Foo.\n\nDeprecated: will be removed.":                                      "",
		"Foo. Use spec.bar instead.":                                                "", // no deprecation notice
		"":                                                                          "",
	} {
		if got := replacement(doc); got != want {
			t.Errorf("replacement(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestRemovedLine(t *testing.T) {
	doc := "Purpose is the purpose.\n\nDeprecated: use spec.purposeClass instead.\n+optional"
	want := "`Shoot`: field `.spec.purpose` was removed; use `spec.purposeClass` instead. Purpose is the purpose."
	if got := removedLine("`Shoot`: field `.spec.purpose` was removed", doc); got != want {
		t.Errorf("removedLine = %q, want %q", got, want)
	}
	if got := removedLine("`Shoot`: field `.spec.x` was removed", ""); got != "`Shoot`: field `.spec.x` was removed." {
		t.Errorf("removedLine without a doc comment = %q", got)
	}
}

func TestGoOnlyMessage(t *testing.T) {
	for msg, want := range map[string]bool{
		"type of ShootSpec.Replicas changed from int32 to *int32; the wire shape is unchanged (Go clients break, the wire does not)":                                                                                           true,
		"type *common.Network of ShootSpec.Network now denotes *b.Network: its package moved from a to b; the wire shape is unchanged (Go clients that import a break, the wire does not)":                                     true,
		"type of C.N changed from *int to *int64: int64 holds every int value, and the component decodes its configuration files with Go's decoder, so files written for base still load (Go code that sets the field breaks)": true,
		"type Zones changed from []string to []Zone; the wire shape is unchanged (Go clients break, the wire does not)":                                                                                                        true,
		"type S changed from struct to map; its own MarshalJSON and UnmarshalJSON decide its JSON form at base and at head, not its declaration (Go clients break; apicheck does not read the methods' code)":                  false,
		"type of ShootSpec.Replicas changed from int32 to string; on the wire a number became a string":                                                                                                                        false,
		"type of ShootSpec.Network changed from *Network to *Networking; head keeps the old name as an alias of the new one, so Go clients and the wire are unchanged":                                                         false,
	} {
		if got := goOnlyMessage(msg); got != want {
			t.Errorf("goOnlyMessage(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestRenderNone(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, nil); err != nil {
		t.Fatal(err)
	}
	// Gardener's pull request template: "If no release note is required,
	// just write "NONE" within the block", under its "```other operator".
	if want := "```other operator\nNONE\n```\n"; b.String() != want {
		t.Errorf("Render(no blocks) = %q, want %q", b.String(), want)
	}
}
