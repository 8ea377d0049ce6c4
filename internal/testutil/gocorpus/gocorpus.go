// Package gocorpus lists real Go sources for tests that compare a
// hand-written reader of Go with go/scanner or go/parser: the files of
// this repository and of a few standard library packages.
package gocorpus

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files returns the .go files under repoRoot (a path relative to the
// test's package directory) and under the standard library packages std
// ("go", "net/http"; subpackages included), sorted within each root. The
// standard library part is left out when GOROOT is unknown; callers check
// that enough files were compared.
func Files(t testing.TB, repoRoot string, std ...string) []string {
	t.Helper()
	roots := []string{repoRoot}
	if goroot := build.Default.GOROOT; goroot != "" {
		for _, d := range std {
			roots = append(roots, filepath.Join(goroot, "src", filepath.FromSlash(d)))
		}
	}
	var out []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// Source is a file of the corpus that go/parser accepts.
type Source struct {
	Path string
	Src  []byte
	File *ast.File // parsed with its own FileSet, without object resolution
}

// Parsed returns the files of Files(t, repoRoot, std...) that go/parser
// parses without error, with their content and syntax.
func Parsed(t testing.TB, repoRoot string, std ...string) []Source {
	t.Helper()
	var out []Source
	for _, p := range Files(t, repoRoot, std...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution); err == nil {
			out = append(out, Source{Path: p, Src: src, File: f})
		}
	}
	return out
}
