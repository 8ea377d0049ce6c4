package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportHandoff: the report files a check process hands over arrive
// whole, or are refused (a stream cut anywhere short), and the supervisor
// writes them to the destinations of the command line, all or, when one
// is missing, none.
func TestReportHandoff(t *testing.T) {
	dir := t.TempDir()
	main, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	h := newHandoff()
	h.plan("json", main, []string{"markdown=" + md})
	h.keep(main, []byte(`{"findings":[]}`))
	h.keep(md, []byte("# apicheck\n"))
	enc := h.encode()
	for n := range len(enc) {
		if _, err := decodeHandoff(enc[:n]); err == nil {
			t.Fatalf("a handoff cut after %d of %d bytes was accepted", n, len(enc))
		}
	}
	if _, err := decodeHandoff(append(enc, 'x')); err == nil {
		t.Error("a handoff with bytes after its end was accepted")
	}
	got, err := decodeHandoff(enc)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{main: `{"findings":[]}`, md: "# apicheck\n"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", path, b, err, want)
		}
	}

	// A destination without its file: nothing is written.
	other := t.TempDir()
	h = newHandoff()
	h.plan("text", filepath.Join(other, "r.txt"), []string{"sarif=" + filepath.Join(other, "r.sarif")})
	h.keep(filepath.Join(other, "r.txt"), []byte("report\n"))
	got, err = decodeHandoff(h.encode())
	if err != nil {
		t.Fatal(err)
	}
	if err := got.commit(); err == nil || !strings.Contains(err.Error(), "r.sarif") {
		t.Errorf("commit = %v, want an error naming r.sarif", err)
	}
	if names := dirFiles(t, other); len(names) != 0 {
		t.Errorf("written: %v", names)
	}
}
