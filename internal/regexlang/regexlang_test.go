package regexlang

import (
	"regexp"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	cases := []struct {
		old, new string
		want     Verdict
	}{
		{`^[a-z]+$`, `^[a-z]+$`, Same},
		{`^[a-z]+$`, `^[a-z0-9]+$`, Wider},
		{`^[a-z0-9]+$`, `^[a-z]+$`, Narrower},
		{`^[a-z]{1,63}$`, `^[a-z]{1,32}$`, Narrower},
		{`^[a-z]{1,32}$`, `^[a-z]{1,63}$`, Wider},
		// Spelled differently, the same language.
		{`^[0-9]+$`, `^\d+$`, Same},
		{`^(a|b)*$`, `^[ab]*$`, Same},
		{`^a+$`, `^aa*$`, Same},
		// Unanchored patterns search: "abc" accepts any string containing abc.
		{`abc`, `^abc$`, Narrower},
		{`^abc$`, `abc`, Wider},
		{`abc`, `b`, Wider},
		{`b`, `abc`, Narrower},
		{`^abc`, `abc`, Wider},
		// Case folding.
		{`^(?i)abc$`, `^[aA][bB][cC]$`, Same},
		{`^[aA]bc$`, `^(?i)abc$`, Wider},
		// A Gardener-style maintenance window: +HHMM offsets widened to ±.
		{`^([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]\+[0-1][0-4]00$`, `^([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]([+-][0-1][0-4]00)$`, Wider},
		{`^([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]([+-][0-1][0-4]00)$`, `^([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]\+[0-1][0-4]00$`, Narrower},
		// Gardener 1.149's real change (unanchored, +00..+14 and -00..-12).
		{`([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]\+[0-1][0-4]00`, `([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]([+](0[0-9]|1[0-4])|[-](0[0-9]|1[0-2]))00`, Wider},
		// What the construction does not model.
		{`\bfoo\b`, `foo`, Unknown},
		{`(?m)^foo$`, `foo`, Unknown},
		{`[`, `a`, Unknown},
		{`^.*$`, `^.*$`, Same},
		// . does not match a newline; (?s) does.
		{`^.*$`, `^(?s).*$`, Wider},
	}
	for _, c := range cases {
		got, witness := Compare(c.old, c.new)
		if got != c.want {
			t.Errorf("Compare(%q, %q) = %v, want %v", c.old, c.new, got, c.want)
			continue
		}
		if got == Narrower {
			// The witness must really be accepted before and rejected now.
			ro, rn := regexp.MustCompile(c.old), regexp.MustCompile(c.new)
			if !ro.MatchString(witness) || rn.MatchString(witness) {
				t.Errorf("Compare(%q, %q): witness %q is not accepted by old and rejected by new", c.old, c.new, witness)
			}
		}
	}
}

// TestCompareAgainstSampling cross-checks verdicts with the regexp
// package on every short string over a small alphabet.
func TestCompareAgainstSampling(t *testing.T) {
	pats := []string{`^a*$`, `^a+b?$`, `ab`, `^(ab|ba)+$`, `b$`, `^[ab]{2}$`, `^a|b$`, `^$`, `a{2,3}`, `^(a|ab)(c|bcd)$`}
	var strs []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		strs = append(strs, prefix)
		if n == 0 {
			return
		}
		for _, r := range "abcd" {
			gen(prefix+string(r), n-1)
		}
	}
	gen("", 6)
	for _, o := range pats {
		for _, n := range pats {
			v, _ := Compare(o, n)
			ro, rn := regexp.MustCompile(o), regexp.MustCompile(n)
			lost, gained := false, false
			for _, s := range strs {
				a, b := ro.MatchString(s), rn.MatchString(s)
				lost = lost || a && !b
				gained = gained || b && !a
			}
			switch {
			case v == Unknown:
				t.Errorf("Compare(%q, %q) unknown", o, n)
			case lost && v != Narrower:
				t.Errorf("Compare(%q, %q) = %v, but sampling finds a lost string", o, n, v)
			case !lost && v == Narrower:
				t.Errorf("Compare(%q, %q) = narrower, sampling finds no lost string up to length 6", o, n)
			case !lost && gained && v != Wider:
				t.Errorf("Compare(%q, %q) = %v, want wider", o, n, v)
			}
		}
	}
}

func TestCompareLimits(t *testing.T) {
	// A huge counting pattern blows the state limit: Unknown, not a guess.
	old := `^[a-z]{1,900}` + strings.Repeat(`[0-9]`, 20) + `$`
	if v, _ := Compare(old, `^[a-z]{1,899}[0-9]{20}$`); v != Unknown && v != Narrower {
		t.Errorf("got %v", v)
	}
}

// A comparison is memoised: the second call answers from the memo, with
// the same verdict and witness.
func TestCompareMemo(t *testing.T) {
	old, new := `^[a-z]{2,5}$`, `^[a-z]{3,5}$`
	v1, w1 := Compare(old, new)
	r, ok := memo.Load([2]string{old, new})
	if !ok {
		t.Fatal("answer not memoised")
	}
	if a := r.(answer); a.v != v1 || a.witness != w1 {
		t.Errorf("memo holds %v %q, Compare said %v %q", a.v, a.witness, v1, w1)
	}
	if v2, w2 := Compare(old, new); v2 != v1 || w2 != w1 || v1 != Narrower || w1 != "aa" {
		t.Errorf("Compare = %v %q then %v %q, want Narrower \"aa\" twice", v1, w1, v2, w2)
	}
}
