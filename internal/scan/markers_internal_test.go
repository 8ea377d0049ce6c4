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
