package usage

import (
	"errors"
	"strings"
	"testing"
)

// The notes say in the user's words why usages were found by name only:
// never the go command's environment (GOPROXY=off) or its raw errors.
func TestTypeInfoProblem(t *testing.T) {
	for _, c := range []struct {
		root string
		err  string
		want string
	}{
		{".", "k8s.io/api@v0.31.0: module lookup disabled by GOPROXY=off",
			"dependencies of the module at the repository root are not in the local module cache"},
		{"pkg/apis", "go: example.com/x@v1.0.0: missing go.sum entry for go.mod file\nmore",
			"dependencies of module pkg/apis are not in the local module cache"},
		{"api", "types.go:3:2: undefined: Foo\nsecond line", "type-checking module api failed (types.go:3:2: undefined: Foo)"},
	} {
		got := typeInfoProblem(c.root, errors.New(c.err))
		if !strings.Contains(got, c.want) || strings.Contains(got, "GOPROXY") || strings.Contains(got, "\n") {
			t.Errorf("typeInfoProblem(%q, %q) = %q, want it to say %q", c.root, c.err, got, c.want)
		}
	}
}
