package main

import (
	"fmt"
	"testing"
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
