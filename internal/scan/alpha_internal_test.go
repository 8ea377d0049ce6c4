package scan

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// mentionsAlpha is a prefilter of alphaText: it must hold wherever the
// regexp matches, whatever the case.
func TestMentionsAlpha(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"This field is alpha-level.", true},
		{"Is An ALPHA Field and may change", true},
		{"feature is in Alpha", true},
		{"alpha", true},
		{"xALPHx", false},
		{"", false},
		{"beta field", false},
		{"alph", false},
	} {
		if got := mentionsAlpha(c.s); got != c.want {
			t.Errorf("mentionsAlpha(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	parts := []string{"an alpha field", "alpha-level", "field is alpha", "feature is in alpha", "is an alpha feature",
		"alpha", "beta", "ﬀ", "\u212a", "é", "-", ".", "x"}
	r := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for range 5000 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			for _, c := range parts[r.IntN(len(parts))] { // each letter in a random case
				if r.IntN(2) == 0 {
					c = unicode.ToUpper(c)
				}
				b.WriteRune(c)
			}
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		if alphaText.MatchString(s) {
			matched++
			if !mentionsAlpha(s) {
				t.Fatalf("alphaText matches %q but mentionsAlpha says no", s)
			}
		}
	}
	if matched < 100 {
		t.Fatalf("only %d random comments matched alphaText: the test proves little", matched)
	}
}
