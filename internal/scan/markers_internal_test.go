package scan

import (
	"fmt"
	"reflect"
	"testing"
)

// The marker memo answers like the parser and stops growing at its bound.
func TestMarkerMemo(t *testing.T) {
	for _, text := range []string{"+optional", "+listType=map", "+k8s:maximum=10 # max", "+kubebuilder:validation:Enum=a;b"} {
		first, again := parseMarker(text), parseMarker(text)
		if want := parseMarkerText(text); !reflect.DeepEqual(first, want) || !reflect.DeepEqual(again, want) {
			t.Errorf("%s: parseMarker = %v then %v, want %v", text, first, again, want)
		}
	}
	for i := range markerMemoMax + 100 {
		parseMarker(fmt.Sprintf("+memo:test%d=x", i))
	}
	if n := markerMemoSize.Load(); n > markerMemoMax {
		t.Errorf("the memo holds %d marker texts, more than its bound %d", n, markerMemoMax)
	}
}

// TestVersionBound: the cheap test before the regexp keeps every match,
// also one whose s is U+017F (a case fold of s under (?i)).
func TestVersionBound(t *testing.T) {
	for doc, want := range map[string]string{
		"Available for versions < v1.31.":                               "v1.31",
		"This value is supported with Kubernetes\nversions below 1.27.": "1.27",
		"VALID FOR VERSIONS BEFORE 1.2":                                 "1.2",
		"Valid for ver\u017fions before 1.2":                            "1.2",
		"Supported in all versions.":                                    "",
		"no bound here":                                                 "",
	} {
		if got := versionBound(doc); got != want {
			t.Errorf("versionBound(%q) = %q, want %q", doc, got, want)
		}
	}
}

// Deprecation is written in several styles; a line that merely starts
// with the word (the doc of a field named Deprecated) is none of them.
func TestDeprecationLine(t *testing.T) {
	for line, want := range map[string]bool{
		"Deprecated: use Gardenlet instead.": true,
		"deprecated: lower case":             true,
		"Deprecated":                         true,
		"DEPRECATED":                         true,
		"DEPRECATED.":                        true,
		"Deprecated, will be removed with next major version":                true,
		"DEPRECATED - This group version of Deployment is deprecated by ...": true,
		"DEPRECATED 1.9 - This group version of NetworkPolicy is deprecated": true,
		"Deprecated in v1.17 in favor of rbac.authorization.k8s.io/v1 Role.": true,
		"Deprecated since v0.5: use Spec.Image.":                             true,
		"Deprecated. Use architectureConfiguration instead.":                 true,
		"Deprecated field. Support dropped in v1beta1 version.":              true,
		"Deprecated and will be removed in v2.":                              true,
		"  Deprecated (use Foo)":                                             true,
		"Deprecated declares this operation to be deprecated":                false,
		"deprecated indicates this version of the custom resource API is":    false,
		"Deprecated features are scheduled to be shut down and removed.":     false,
		"DeprecatedAPIs lists the removed APIs.":                             false,
		"This field is deprecated.":                                          false,
		"":                                                                   false,
	} {
		if got := DeprecationLine(line); got != want {
			t.Errorf("DeprecationLine(%q) = %v, want %v", line, got, want)
		}
	}
}
