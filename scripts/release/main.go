// Command release builds apicheck's release archives, for `make release`:
// for every platform it cross-builds ./cmd/apicheck with
//
//	CGO_ENABLED=0 go build -trimpath -buildvcs=false \
//	  -ldflags "-s -w -X github.com/apicheck/apicheck/internal/cli.Version=VERSION"
//
// packs the binary with README.md and LICENSE into
// apicheck_VERSION_OS_ARCH.tar.gz (.zip for Windows) and writes
// apicheck_VERSION_checksums.txt in the format `sha256sum -c` reads.
//
// The archives are reproducible: the same sources, Go toolchain and
// version give the same bytes. Entries are sorted by name, owned by 0:0
// with no user or group names, have fixed modes (0755 for the binary,
// 0644 for the documents) and one fixed modification time (SOURCE_DATE_EPOCH
// when set, else 2000-01-01T00:00:00Z); the gzip header has no name and
// no time. The build does not read the environment's GOFLAGS, go.work or
// microarchitecture levels.
//
// Usage:
//
//	release -version vX.Y.Z[-PRE] -dist DIR [-platforms os/arch,...] [-go go]
//	release -version vX.Y.Z[-PRE] -dist DIR -binary FILE [-platforms os/arch]
//
// With -binary it packs that already built binary as the one platform's
// archive (default: this machine's) instead of building; the Action's
// tests use it for a local stand-in of a release.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Platforms are the release's GOOS/GOARCH pairs.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

const versionVar = "github.com/apicheck/apicheck/internal/cli.Version"

// defaultTime is the archive entries' modification time without
// SOURCE_DATE_EPOCH (a zip file cannot hold times before 1980).
var defaultTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	version := flag.String("version", "", "the release's semantic version, vX.Y.Z or vX.Y.Z-PRE")
	dist := flag.String("dist", "", "directory for the archives and the checksum file (created)")
	platforms := flag.String("platforms", strings.Join(Platforms, ","), "comma-separated GOOS/GOARCH pairs")
	goCmd := flag.String("go", "go", "the go command")
	binary := flag.String("binary", "", "pack this binary for the one platform of -platforms (default: this machine's) instead of building")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected arguments %q", flag.Args()))
	}
	if err := CheckVersion(*version); err != nil {
		fail(fmt.Errorf("VERSION: %w", err))
	}
	if *dist == "" {
		fail(errors.New("-dist is required (make release VERSION=vX.Y.Z DIST=dir)"))
	}
	plats := strings.Split(*platforms, ",")
	if *binary != "" && !isFlagSet("platforms") {
		plats = []string{runtime.GOOS + "/" + runtime.GOARCH}
	}
	for _, p := range plats {
		if _, _, ok := splitPlatform(p); !ok {
			fail(fmt.Errorf("-platforms: %q is not GOOS/GOARCH", p))
		}
	}
	if *binary != "" && len(plats) != 1 {
		fail(errors.New("-binary packs one platform: give one -platforms value"))
	}
	mtime, err := modTime(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		fail(err)
	}
	docs, err := documents()
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*dist, 0o755); err != nil {
		fail(err)
	}
	build, err := os.MkdirTemp("", "apicheck-release")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(build)

	sums := map[string][]byte{}
	for _, p := range plats {
		goos, goarch, _ := splitPlatform(p)
		bin := *binary
		if bin == "" {
			bin = filepath.Join(build, goos+"_"+goarch, exeName(goos))
			fmt.Fprintf(os.Stderr, "release: building %s/%s\n", goos, goarch)
			if err := Build(*goCmd, *version, goos, goarch, bin); err != nil {
				fail(err)
			}
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			fail(err)
		}
		files := append([]File{{Name: exeName(goos), Mode: 0o755, Data: data}}, docs...)
		name := ArchiveName(*version, goos, goarch)
		var buf bytes.Buffer
		if goos == "windows" {
			err = WriteZip(&buf, files, mtime)
		} else {
			err = WriteTarGz(&buf, files, mtime)
		}
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(*dist, name), buf.Bytes(), 0o644); err != nil {
			fail(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		sums[name] = sum[:]
		fmt.Println(filepath.Join(*dist, name))
	}
	sumFile := filepath.Join(*dist, ChecksumsName(*version))
	if err := os.WriteFile(sumFile, Checksums(sums), 0o644); err != nil {
		fail(err)
	}
	fmt.Println(sumFile)
}

// CheckVersion accepts a semantic version with a v: vX.Y.Z or
// vX.Y.Z-PRE, no build metadata, no leading zeros.
func CheckVersion(v string) error {
	if v == "" {
		return errors.New("no version: make release VERSION=vX.Y.Z (e.g. VERSION=v0.1.0)")
	}
	if !semver.IsValid(v) || semver.Canonical(v) != v || semver.Build(v) != "" {
		return fmt.Errorf("%q is not a semantic version vX.Y.Z or vX.Y.Z-PRE (e.g. v0.1.0, v1.2.0-rc.1)", v)
	}
	return nil
}

// ArchiveName is the archive of one platform.
func ArchiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("apicheck_%s_%s_%s%s", version, goos, goarch, ext)
}

// ChecksumsName is the release's checksum file.
func ChecksumsName(version string) string { return "apicheck_" + version + "_checksums.txt" }

// Build cross-builds apicheck for one platform into out.
func Build(goCmd, version, goos, goarch, out string) error {
	cmd := exec.Command(goCmd, "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X "+versionVar+"="+version, "-o", out, "./cmd/apicheck")
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		// Only what the command line says: no GOFLAGS, no go.work, the
		// baseline instruction sets.
		"GOFLAGS=", "GOWORK=off", "GOAMD64=v1", "GOARM64=v8.0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w", goos, goarch, err)
	}
	return nil
}

// File is an entry of an archive.
type File struct {
	Name string
	Mode int64
	Data []byte
}

// documents reads README.md and LICENSE from the current directory (the
// repository's root). A missing LICENSE is a warning: the archives then
// hold README.md only.
func documents() ([]File, error) {
	var out []File
	for _, name := range []string{"README.md", "LICENSE"} {
		data, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) && name == "LICENSE" {
			fmt.Fprintln(os.Stderr, "release: warning: the repository has no LICENSE file; the archives hold the binary and README.md only")
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, File{Name: name, Mode: 0o644, Data: data})
	}
	return out, nil
}

// sorted returns the files sorted by name.
func sorted(files []File) []File {
	out := append([]File(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteTarGz writes a gzip-compressed tar archive whose bytes depend only
// on the files and mtime.
func WriteTarGz(w io.Writer, files []File, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	// No name, no time, no comment in the gzip header (gzip -n).
	gz.Header = gzip.Header{OS: 255}
	tw := tar.NewWriter(gz)
	for _, f := range sorted(files) {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Mode:     f.Mode,
			Size:     int64(len(f.Data)),
			ModTime:  mtime.UTC().Truncate(time.Second),
			Uid:      0,
			Gid:      0,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// WriteZip writes a zip archive whose bytes depend only on the files and
// mtime.
func WriteZip(w io.Writer, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range sorted(files) {
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime.UTC().Truncate(time.Second)}
		hdr.SetMode(os.FileMode(f.Mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Checksums is the content of a checksum file: one "HEX  NAME" line per
// file, sorted by name, as sha256sum writes it.
func Checksums(sums map[string][]byte) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sums[n]), n)
	}
	return b.Bytes()
}

// modTime is SOURCE_DATE_EPOCH's time, else defaultTime.
func modTime(epoch string) (time.Time, error) {
	if epoch == "" {
		return defaultTime, nil
	}
	s, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil || s < 315532800 { // 1980-01-01, the earliest time a zip file holds
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970, from 1980 on", epoch)
	}
	return time.Unix(s, 0).UTC(), nil
}

func splitPlatform(p string) (goos, goarch string, ok bool) {
	goos, goarch, ok = strings.Cut(p, "/")
	return goos, goarch, ok && goos != "" && goarch != "" && !strings.ContainsAny(goos+goarch, "/\\ ")
}

func exeName(goos string) string {
	if goos == "windows" {
		return "apicheck.exe"
	}
	return "apicheck"
}

func isFlagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(2)
}
