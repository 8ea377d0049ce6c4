package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"v0.1.0", "v1.2.3", "v10.0.0", "v0.0.0-test", "v1.2.0-rc.1", "v1.0.0-alpha.beta-2"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("CheckVersion(%q) = %v, want nil", v, err)
		}
	}
	for _, v := range []string{"", "0.1.0", "v1", "v1.2", "v01.2.3", "v1.2.3+build", "v1.2.3-01", "d1acfe1-dirty", "v1.2.3 ", "latest", "v1.2.3-"} {
		err := CheckVersion(v)
		if err == nil {
			t.Errorf("CheckVersion(%q) = nil, want an error", v)
			continue
		}
		if v != "" && !strings.Contains(err.Error(), "is not a semantic version vX.Y.Z") {
			t.Errorf("CheckVersion(%q) = %v: the message does not say what a version looks like", v, err)
		}
	}
}

func TestArchiveNames(t *testing.T) {
	if got := ArchiveName("v0.1.0", "linux", "arm64"); got != "apicheck_v0.1.0_linux_arm64.tar.gz" {
		t.Errorf("linux: %s", got)
	}
	if got := ArchiveName("v0.1.0", "windows", "amd64"); got != "apicheck_v0.1.0_windows_amd64.zip" {
		t.Errorf("windows: %s", got)
	}
	if got := ChecksumsName("v0.1.0"); got != "apicheck_v0.1.0_checksums.txt" {
		t.Errorf("checksums: %s", got)
	}
}

var testFiles = []File{
	{Name: "apicheck", Mode: 0o755, Data: []byte("\x7fELF binary")},
	{Name: "README.md", Mode: 0o644, Data: []byte("# apicheck\n")},
	{Name: "LICENSE", Mode: 0o644, Data: []byte("license text\n")},
}

// The same files and time give the same bytes, in whatever order the
// files come; another time gives other bytes.
func TestArchivesAreReproducible(t *testing.T) {
	for name, write := range map[string]func(io.Writer, []File, time.Time) error{"tar.gz": WriteTarGz, "zip": WriteZip} {
		var a, b, c bytes.Buffer
		if err := write(&a, testFiles, defaultTime); err != nil {
			t.Fatal(err)
		}
		reversed := []File{testFiles[2], testFiles[1], testFiles[0]}
		if err := write(&b, reversed, defaultTime); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two writes of the same files differ", name)
		}
		if err := write(&c, testFiles, defaultTime.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Errorf("%s: the modification time is not in the archive", name)
		}
	}
}

func TestTarGzEntries(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTarGz(&buf, testFiles, defaultTime); err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, time %v; want neither", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		data, _ := io.ReadAll(tr)
		want := map[string]int64{"apicheck": 0o755, "README.md": 0o644, "LICENSE": 0o644}[h.Name]
		if h.Mode != want || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(defaultTime) || h.Typeflag != tar.TypeReg {
			t.Errorf("%s: mode %o uid %d gid %d %q/%q time %v type %c", h.Name, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, h.Typeflag)
		}
		if h.Name == "apicheck" && string(data) != "\x7fELF binary" {
			t.Errorf("apicheck: %q", data)
		}
	}
	if got := strings.Join(names, " "); got != "LICENSE README.md apicheck" {
		t.Errorf("entries %s, want them sorted", got)
	}
}

func TestZipEntries(t *testing.T) {
	var buf bytes.Buffer
	files := append([]File{{Name: "apicheck.exe", Mode: 0o755, Data: []byte("MZ")}}, testFiles[1:]...)
	if err := WriteZip(&buf, files, defaultTime); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(defaultTime) {
			t.Errorf("%s: modified %v", f.Name, f.Modified)
		}
		if f.Name == "apicheck.exe" && f.Mode().Perm() != 0o755 {
			t.Errorf("apicheck.exe: mode %v", f.Mode())
		}
	}
	if got := strings.Join(names, " "); got != "LICENSE README.md apicheck.exe" {
		t.Errorf("entries %s, want them sorted", got)
	}
}

// The checksum file is what sha256sum writes and `sha256sum -c` verifies.
func TestChecksumsVerify(t *testing.T) {
	dir := t.TempDir()
	sums := map[string][]byte{}
	for _, name := range []string{"b.zip", "a.tar.gz"} {
		data := []byte("content of " + name)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(data)
		sums[name] = s[:]
	}
	got := string(Checksums(sums))
	a, b := sha256.Sum256([]byte("content of a.tar.gz")), sha256.Sum256([]byte("content of b.zip"))
	want := hex.EncodeToString(a[:]) + "  a.tar.gz\n" + hex.EncodeToString(b[:]) + "  b.zip\n"
	if got != want {
		t.Fatalf("checksums:\n%s\nwant:\n%s", got, want)
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	if err := os.WriteFile(filepath.Join(dir, "sums.txt"), []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sha256sum", "-c", "sums.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
}

func TestModTime(t *testing.T) {
	if m, err := modTime(""); err != nil || !m.Equal(defaultTime) {
		t.Errorf("no SOURCE_DATE_EPOCH: %v %v", m, err)
	}
	if m, err := modTime("1767225600"); err != nil || !m.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("SOURCE_DATE_EPOCH: %v %v", m, err)
	}
	for _, bad := range []string{"yesterday", "0", "-1"} {
		if _, err := modTime(bad); err == nil {
			t.Errorf("SOURCE_DATE_EPOCH=%s accepted", bad)
		}
	}
}
