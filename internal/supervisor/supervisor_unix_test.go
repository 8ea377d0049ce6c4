//go:build unix

package supervisor

import (
	"slices"
	"strings"
	"testing"
)

// TestCopyStderr: the child's standard error passes through whole, and
// the first line that starts a Go crash report is its headline.
func TestCopyStderr(t *testing.T) {
	long := strings.Repeat("x", 3*maxLine) + "\n"
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"apicheck: unknown flag: --bogus\n", ""},
		{"runtime: out of memory\nfatal error: out of memory\n\ngoroutine 1 [running]:\n", "fatal error: out of memory"},
		{"panic: boom\n\tpanic: again\nfatal error: later\n", "panic: boom"},
		{"a line that mentions panic: inside\n", ""},
		{long + "fatal error: stack overflow", "fatal error: stack overflow"},
		{strings.TrimSuffix(long, "\n") + "fatal error: not at a line's start\n", ""},
	} {
		var out strings.Builder
		if got := copyStderr(&out, strings.NewReader(c.in)); got != c.want || out.String() != c.in {
			t.Errorf("copyStderr(%.40q) = %q, copied %d of %d bytes; want %q", c.in, got, out.Len(), len(c.in), c.want)
		}
	}
}

func TestWithoutEnv(t *testing.T) {
	env := []string{"A=1", WorkerEnv + "=1", "B=2", WorkerEnv + "X=3", WorkerEnv}
	if got, want := withoutEnv(env, WorkerEnv), []string{"A=1", "B=2", WorkerEnv + "X=3", WorkerEnv}; !slices.Equal(got, want) {
		t.Errorf("withoutEnv = %q, want %q", got, want)
	}
	if len(env) != 5 || env[1] != WorkerEnv+"=1" {
		t.Errorf("withoutEnv changed its argument: %q", env)
	}
}

// TestTestBinary: Begin leaves test binaries alone, never apicheck's own
// command lines.
func TestTestBinary(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"/tmp/go-build1/b001/apicheck.test", "-test.paniconexit0", "-test.timeout=10m0s"}, true},
		{[]string{"./x", "-test.v"}, true},
		{[]string{"apicheck.test"}, true},
		{[]string{"apicheck", "check", "--base", "main"}, false},
		{[]string{"apicheck"}, false},
		{nil, false},
	} {
		if got := testBinary(c.args); got != c.want {
			t.Errorf("testBinary(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
