package usage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestReachedTypesAgree: type-checking only the declarations the
// candidate files reach gives every expression, definition, use and
// selection of those files the type it has when every declaration of the
// loaded packages is checked. The repository is this one (its non-test
// sources, committed to a temporary repository); the candidates are one
// file of each of several packages that import much of the rest.
func TestReachedTypesAgree(t *testing.T) {
	files := map[string]string{}
	root := filepath.Join("..", "..", "..")
	gomodSrc, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = string(gomodSrc)
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fx := gitfixture.New(t)
	fx.Commit("base", files)
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := repo.Snapshot(fx.Commits["base"])
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()

	candFiles := []string{
		"internal/cli/cli.go",
		"internal/check/check.go",
		"internal/lifecycle/usage/usage.go",
		"internal/report/markdown.go",
		"internal/rules/version_skew.go",
	}
	type result struct {
		facts    []string
		units    int
		decls    int // declarations type-checked in the candidate packages
		imported int // facts naming a type of another in-repository package
	}
	run := func(keepAll bool) result {
		mods, err := readModules(snap, snap.Files())
		if err != nil {
			t.Fatal(err)
		}
		sh := &shared{fset: token.NewFileSet(), cands: map[fileKey]*candFile{}, decls: map[fileKey]*declFile{}}
		parsed := map[string]*ast.File{}
		srcs := map[string][]byte{}
		cands := map[string][]string{}
		for _, f := range candFiles {
			src := []byte(files[f])
			af, err := parser.ParseFile(sh.fset, f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			parsed[f], srcs[f] = af, src
			cands[filepath.ToSlash(filepath.Dir(f))] = []string{f}
		}
		l := newLoader(snap, snap.Files(), mods, sh, parsed, func(string, []byte) bool { return true })
		l.keepAll = keepAll
		units, err := l.load(cands, srcs)
		if err != nil {
			t.Fatal(err)
		}
		var res result
		res.units = l.checked
		for _, f := range candFiles {
			u := units[filepath.ToSlash(filepath.Dir(f))]
			if u == nil || u.info == nil {
				t.Fatalf("%s: not type-checked", f)
			}
			for _, uf := range u.files {
				res.decls += len(uf.Decls)
			}
			af := parsed[f]
			in := func(n ast.Node) bool { return n.Pos() >= af.Pos() && n.End() <= af.End() }
			pos := func(n ast.Node) string { return sh.fset.Position(n.Pos()).String() }
			add := func(s string) {
				res.facts = append(res.facts, s)
				if strings.Contains(s, "github.com/apicheck/apicheck/internal/") && !strings.Contains(s, u.path+".") {
					res.imported++
				}
			}
			for e, tv := range u.info.Types {
				if in(e) {
					add(fmt.Sprintf("%s %T type %s value %v", pos(e), e, types.TypeString(tv.Type, nil), tv.Value))
				}
			}
			for id, obj := range u.info.Defs {
				if in(id) && obj != nil {
					add(fmt.Sprintf("%s def %s", pos(id), obj))
				}
			}
			for id, obj := range u.info.Uses {
				if in(id) {
					add(fmt.Sprintf("%s use %s", pos(id), obj))
				}
			}
			for sel, s := range u.info.Selections {
				if in(sel) {
					add(fmt.Sprintf("%s selection %s", pos(sel), s))
				}
			}
		}
		sort.Strings(res.facts)
		return res
	}
	all, reached := run(true), run(false)
	if diff := cmp.Diff(all.facts, reached.facts); diff != "" {
		t.Errorf("types of the candidate files, every declaration checked (-) and only the reached ones (+):\n%s", diff)
	}
	// The comparison means something: many facts, many of them about
	// types of other packages of the repository; and less was checked.
	if len(all.facts) < 5000 || all.imported < 500 {
		t.Errorf("%d facts, %d naming an imported in-repository type: too few to compare", len(all.facts), all.imported)
	}
	if reached.units > all.units || reached.decls >= all.decls {
		t.Errorf("reached: %d packages, %d declarations in the candidate packages; all: %d, %d (want fewer)",
			reached.units, reached.decls, all.units, all.decls)
	}
	t.Logf("%d facts (%d about imported types); packages %d -> %d, candidate package declarations %d -> %d",
		len(all.facts), all.imported, all.units, reached.units, all.decls, reached.decls)
}
