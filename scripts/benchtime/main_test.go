package main

import (
	"fmt"
	"testing"
	"time"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "-x"}, "[[a -x]]"},
		{[]string{"a", "-x", ":::", "b", ":::", "c", "d"}, "[[a -x] [b] [c d]]"},
		{nil, "[]"},
		{[]string{":::", "b"}, "[]"},
		{[]string{"a", ":::"}, "[]"},
		{[]string{"a", ":::", ":::", "b"}, "[]"},
	} {
		if got := fmt.Sprint(split(tc.args)); got != tc.want {
			t.Errorf("split(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestMedianDiff: the median of the round-by-round differences, which a
// difference of medians is not.
func TestMedianDiff(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		a, b []time.Duration
		want time.Duration
	}{
		{ms(110, 300, 105), ms(100, 290, 100), 10 * time.Millisecond}, // differences 10, 10, 5
		{ms(100, 50, 200), ms(90, 60, 120), 10 * time.Millisecond},    // -10, 10, 80
		{ms(5), ms(7), -2 * time.Millisecond},
		{nil, nil, 0},
	} {
		if got := medianDiff(tc.a, tc.b); got != tc.want {
			t.Errorf("medianDiff(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
