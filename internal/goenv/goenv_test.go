package goenv

import (
	"path/filepath"
	"testing"
)

func TestModCache(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name string
		env  map[string]string
		file string
		want string
	}{
		{"GOMODCACHE wins", map[string]string{"GOMODCACHE": "/mc", "GOPATH": "/gp"}, "GOMODCACHE=/file\n", "/mc"},
		{"go env -w GOMODCACHE", map[string]string{"GOPATH": "/gp"}, "GOMODCACHE=/file\n", "/file"},
		{"GOPATH first entry", map[string]string{"GOPATH": "/a" + string(filepath.ListSeparator) + "/b"}, "", "/a/pkg/mod"},
		{"go env -w GOPATH", map[string]string{"HOME": "/h"}, "GOPATH=/w\n", "/w/pkg/mod"},
		{"HOME default", map[string]string{"HOME": "/h"}, "", "/h/go/pkg/mod"},
		{"relative GOPATH is ignored", map[string]string{"GOPATH": "rel"}, "", ""},
		{"relative GOMODCACHE falls back", map[string]string{"GOMODCACHE": "rel", "HOME": "/h"}, "", "/h/go/pkg/mod"},
	}
	for _, c := range cases {
		if got := modCache(env(c.env), parseEnvFile([]byte(c.file))); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
