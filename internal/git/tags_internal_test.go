package git

import (
	"strings"
	"testing"
)

func TestTagVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, want string
	}{
		{"v1.10.0", "v1.10.0"},
		{"1.2.3", "v1.2.3"},
		{"v1.2", "v1.2.0"},
		{"v1.2.0-rc.1", "v1.2.0-rc.1"},
		{"v1.2.0+build.5", "v1.2.0"},
		{"api/v1.3.0", "v1.3.0"},
		{"kubernetes-1.35.0", "v1.35.0"},
		{"release-1.30", "v1.30.0"},
		{"k8s-v1.2.0", "v1.2.0"},
		{"latest", ""},
		{"docs-2024", ""},
		{"v2", ""},
		{"v1.x", ""},
		{"v1.2.3.4", ""},
		{"v01.2.3", ""},
		{"", ""},
	} {
		got, ok := TagVersion(c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("TagVersion(%q) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}

// TestEachLine: lines longer than the read buffer come whole, a last
// line without a newline comes too, a callback that stops ends git
// without an error, and a failing git gives run's error.
func TestEachLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Repo{Root: dir}
	if _, err := r.run("init", "-q", "."); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 200<<10)
	oid, err := r.runInput([]byte("a\n"+long+"\nb"), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.TrimSpace(string(oid))
	var got []string
	if err := r.eachLine([]string{"cat-file", "blob", blob}, func(l []byte) bool {
		got = append(got, string(l))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != "a" || got[1] != long || got[2] != "b" {
		t.Errorf("lines: %d, want a, %d x, b", len(got), len(long))
	}
	n := 0
	if err := r.eachLine([]string{"cat-file", "blob", blob}, func([]byte) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("stopped after the first line: %d calls, %v", n, err)
	}
	err = r.eachLine([]string{"cat-file", "blob", "0000000000000000000000000000000000000000"}, func([]byte) bool { return true })
	if exitCode(err) != 128 {
		t.Errorf("a failing git: %v (exit code %d), want exit code 128", err, exitCode(err))
	}
}
