package usage

import (
	"slices"
	"testing"

	"github.com/apicheck/apicheck/internal/lifecycle"
)

func typeInfo(o lifecycle.Options) string {
	return lifecycle.NewHistory(lifecycle.Input{Options: o}).Options().TypeInfo
}

// go/packages runs the go command on the repository: off unless the
// environment (never the repository) turns it on, and then hardened.
func TestTypeInfoOffByDefault(t *testing.T) {
	t.Setenv("APICHECK_TYPE_INFO", "")
	if got := typeInfo(lifecycle.Options{}); got != lifecycle.TypeInfoOff {
		t.Errorf("default TypeInfo = %q, want off", got)
	}
	t.Setenv("APICHECK_TYPE_INFO", "auto")
	if got := typeInfo(lifecycle.Options{}); got != lifecycle.TypeInfoAuto {
		t.Errorf("TypeInfo with APICHECK_TYPE_INFO=auto = %q, want auto", got)
	}
	if got := typeInfo(lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff}); got != lifecycle.TypeInfoOff {
		t.Errorf("explicit off = %q", got)
	}

	t.Setenv("GOFLAGS", "-toolexec=/evil")
	t.Setenv("CGO_ENABLED", "1")
	t.Setenv("GOTOOLCHAIN", "go1.99.0+auto")
	env := goEnv()
	for _, want := range []string{"GOFLAGS=-mod=mod -buildvcs=false", "GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0", "GOTELEMETRY=off", "GOWORK=off"} {
		if !slices.Contains(env, want) {
			t.Errorf("go environment lacks %s", want)
		}
	}
	for _, bad := range []string{"GOFLAGS=-toolexec=/evil", "CGO_ENABLED=1", "GOTOOLCHAIN=go1.99.0+auto"} {
		if slices.Contains(env, bad) {
			t.Errorf("go environment keeps %s", bad)
		}
	}
}
