package finding

import (
	"slices"
	"testing"
)

// TestParseSeverity: the one severity parser accepts the names of
// SeverityNames in any case, and nothing else ("none" is --fail-on's own
// word).
func TestParseSeverity(t *testing.T) {
	if got := SeverityNames(); !slices.Equal(got, []string{"error", "warning", "info"}) {
		t.Errorf("SeverityNames = %v", got)
	}
	for in, want := range map[string]Severity{
		"error": Error, "ERROR": Error, "Warning": Warning, "warning": Warning, "info": Info, " Info ": Info,
	} {
		if got, err := ParseSeverity(in); err != nil || got != want {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "warn", "none", "fatal", "err"} {
		if got, err := ParseSeverity(in); err == nil {
			t.Errorf("ParseSeverity(%q) = %v, want an error", in, got)
		}
	}
	for _, name := range SeverityNames() {
		if s, err := ParseSeverity(name); err != nil || s.String() != name {
			t.Errorf("%q does not round-trip: %v, %v", name, s, err)
		}
	}
}
