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
