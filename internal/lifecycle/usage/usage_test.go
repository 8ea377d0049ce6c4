package usage_test

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/usage"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// search builds the repository of a txtar history (steps base and head),
// and returns the usages at base of every removed field, one line per
// reference: "Type.Field typed|path file:line:col".
func search(t *testing.T, archive string, opts lifecycle.Options) ([]string, *usage.Usages) {
	t.Helper()
	repo, base, head := openSteps(t, archive)
	bm, hm, removed := scanRemoved(t, base, head)
	if len(removed) == 0 {
		t.Fatal("nothing removed")
	}
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	u, err := usage.New(lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Head: head, BaseModel: bm, HeadModel: hm, Options: opts}), removed).At(lifecycle.RevBase)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range usage.Groups(removed) {
		fd := g[0]
		refs := u.Of(fd)
		for _, p := range refs.Typed {
			out = append(out, fmt.Sprintf("%s.%s typed %s", fd.Type.Name(), fd.Base.Name, p))
		}
		for _, p := range refs.ByPath {
			out = append(out, fmt.Sprintf("%s.%s path %s", fd.Type.Name(), fd.Base.Name, p))
		}
	}
	sort.Strings(out)
	return out, u
}

// scanRemoved scans two revisions and returns their models and the
// fields removed between them.
func scanRemoved(t testing.TB, base, head git.Snapshot) (bm, hm *model.Model, removed []*model.FieldDiff) {
	t.Helper()
	bm, err := scan.Scan(base, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hm, err = scan.Scan(head, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return bm, hm, slices.Collect(model.Compare(bm, hm).RemovedFields())
}

// openSteps builds the repository of a txtar history and opens its steps
// base and head (closed at the test's end).
func openSteps(t *testing.T, archive string) (*git.Repo, git.Snapshot, git.Snapshot) {
	t.Helper()
	fx := gitfixture.FromTxtar(t, []byte(archive))
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, openStep(t, repo, fx, "base"), openStep(t, repo, fx, "head")
}

// openStep opens the snapshot of a step of a fixture, closed at the
// test's end.
func openStep(t *testing.T, repo *git.Repo, fx *gitfixture.Fixture, step string) git.Snapshot {
	t.Helper()
	s, err := repo.Snapshot(fx.Commits[step])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// api is an API group with a Shoot kind whose ShootSpec.Region is removed
// at head; the group's module is example.com/api.
const api = `
-- base/go.mod --
module example.com/api

go 1.22
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.com
package v1beta1
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

// Shoot is a cluster.
type Shoot struct {
	TypeMeta ` + "`json:\",inline\"`" + `
	Spec ShootSpec ` + "`json:\"spec\"`" + `
}

// TypeMeta marks root kinds.
type TypeMeta struct {
	Kind string ` + "`json:\"kind\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Region is removed.
	Region string ` + "`json:\"region\"`" + `
	// Seed stays.
	Seed string ` + "`json:\"seed\"`" + `
}

// DeepCopy copies.
func (s *Shoot) DeepCopy() *Shoot { c := *s; return &c }
-- head/pkg/apis/core/v1beta1/types.go --
package v1beta1

// Shoot is a cluster.
type Shoot struct {
	TypeMeta ` + "`json:\",inline\"`" + `
	Spec ShootSpec ` + "`json:\"spec\"`" + `
}

// TypeMeta marks root kinds.
type TypeMeta struct {
	Kind string ` + "`json:\"kind\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Seed stays.
	Seed string ` + "`json:\"seed\"`" + `
}
`

func TestResolution(t *testing.T) {
	for _, c := range []struct {
		name        string
		files, keep int
	}{
		{"one batch", 1 << 20, 1 << 30},
		// A file at a time, no file that is not a candidate kept: the
		// type checks read those again, and find the same.
		{"a file at a time", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer usage.SetBatches(c.files, c.keep)()
			testResolution(t)
		})
	}
}

func testResolution(t *testing.T) {
	got, u := search(t, api+`
-- base/pkg/a/a.go --
package a

import (
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/b"
)

// Region reads the field: through a value, a pointer, a helper's result,
// a DeepCopy and a type assertion on a third-party interface.
func Region(s core.Shoot, p *core.Shoot, obj client.Object) []string {
	out := []string{s.Spec.Region, p.Spec.Region, b.Spec(p).Region, p.DeepCopy().Spec.Region}
	if shoot, ok := obj.(*core.Shoot); ok {
		out = append(out, shoot.Spec.Region)
	}
	// Unresolved receivers: matched by path (.Spec.Region), or not.
	o := cache.Get()
	out = append(out, o.Spec.Region, o.Status.Region, o.Region)
	// A method of an unresolved receiver is not a field.
	out = append(out, o.Spec.Region())
	return out
}
-- base/pkg/b/b.go --
package b

import core "example.com/api/pkg/apis/core/v1beta1"

// Spec returns the spec.
func Spec(s *core.Shoot) *core.ShootSpec { return &s.Spec }

// Other has a field of the same name.
type Other struct{ Spec struct{ Region string } }
-- base/pkg/c/c.go --
package c

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/b"
)

// Use reads the same name on another type, and a method.
func Use(o b.Other, r region, _ core.Shoot) string { return o.Spec.Region + r.Region() }

type region struct{}

func (region) Region() string { return "" }
`, lifecycle.Options{})
	want := []string{
		"ShootSpec.Region path pkg/a/a.go:20:27",
		"ShootSpec.Region typed pkg/a/a.go:14:25",
		"ShootSpec.Region typed pkg/a/a.go:14:40",
		"ShootSpec.Region typed pkg/a/a.go:14:58",
		"ShootSpec.Region typed pkg/a/a.go:14:84",
		"ShootSpec.Region typed pkg/a/a.go:16:32",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usages (-want +got):\n%s", diff)
	}
	if !u.TypeChecked || u.Packages < 3 {
		t.Errorf("type-checked %v, %d packages", u.TypeChecked, u.Packages)
	}
}

// TestPathOnly: with type information off, every selector is matched by
// path and composite-literal keys by the literal's type name.
func TestPathOnly(t *testing.T) {
	got, u := search(t, api+`
-- base/pkg/a/a.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func f(p *core.Shoot, o other) core.ShootSpec {
	_ = p.Spec.Region
	_ = o.Status.Region
	return core.ShootSpec{Region: "x"}
}

type other struct{ Status struct{ Region string } }
`, lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff})
	want := []string{
		"ShootSpec.Region path pkg/a/a.go:6:13",
		"ShootSpec.Region path pkg/a/a.go:8:24",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usages (-want +got):\n%s", diff)
	}
	if u.TypeChecked || !strings.Contains(u.Mode(), "type information is off") {
		t.Errorf("mode %q", u.Mode())
	}
}

// TestLayouts: repositories without go.mod, with nested modules, with an
// import cycle, build-constrained files and cgo files: type-checked where
// the go command would compile, nothing hangs or crashes.
func TestLayouts(t *testing.T) {
	t.Run("no go.mod", func(t *testing.T) {
		archive := strings.Replace(api, "-- base/go.mod --\nmodule example.com/api\n\ngo 1.22\n", "", 1)
		got, _ := search(t, archive+`
-- base/pkg/a/a.go --
package a

import core "pkg/apis/core/v1beta1"

func f(p *core.Shoot) string { return p.Spec.Region }
`, lifecycle.Options{})
		if diff := cmp.Diff([]string{"ShootSpec.Region typed pkg/a/a.go:5:46"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("nested module", func(t *testing.T) {
		got, _ := search(t, api+`
-- base/tools/go.mod --
module example.com/tools

go 1.22

require example.com/api v0.0.0
-- base/tools/cmd/x/main.go --
package main

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/tools/lib"
)

func main() { _ = lib.Shoot().Spec.Region; _ = core.Shoot{} }
-- base/tools/lib/lib.go --
package lib

import core "example.com/api/pkg/apis/core/v1beta1"

// Shoot returns a Shoot.
func Shoot() *core.Shoot { return nil }
`, lifecycle.Options{})
		if diff := cmp.Diff([]string{"ShootSpec.Region typed tools/cmd/x/main.go:8:36"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("import cycle", func(t *testing.T) {
		got, _ := search(t, api+`
-- base/pkg/x/x.go --
package x

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/y"
)

// X is part of a cycle.
func X(s *core.Shoot) string { return y.Y(s) + s.Spec.Region }
-- base/pkg/y/y.go --
package y

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/x"
)

// Y is part of a cycle.
func Y(s *core.Shoot) string { return x.X(s) + s.Spec.Region }
`, lifecycle.Options{})
		if diff := cmp.Diff([]string{"ShootSpec.Region typed pkg/x/x.go:9:55", "ShootSpec.Region typed pkg/y/y.go:9:55"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("build constraints", func(t *testing.T) {
		got, _ := search(t, api+`
-- base/pkg/a/a_linux.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func f(p *core.Shoot) string { return p.Spec.Region }
-- base/pkg/a/a_windows.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func f(p *core.Shoot) string { return p.Spec.Region }
-- base/pkg/a/tool.go --
//go:build ignore

package main

import core "example.com/api/pkg/apis/core/v1beta1"

func main() { var p *core.Shoot; _ = p.Spec.Region }
-- base/pkg/a/cgo.go --
package a

// #include <stdio.h>
import "C"

import core "example.com/api/pkg/apis/core/v1beta1"

func g(p *core.Shoot) string { return p.Spec.Region }
`, lifecycle.Options{})
		// The linux file is type-checked; the others are not compiled on
		// linux/amd64 without cgo and fall back to path matching.
		want := []string{
			"ShootSpec.Region path pkg/a/a_windows.go:5:46",
			"ShootSpec.Region path pkg/a/cgo.go:8:46",
			"ShootSpec.Region path pkg/a/tool.go:7:45",
			"ShootSpec.Region typed pkg/a/a_linux.go:5:46",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestEmbeddedThirdParty: a receiver whose struct embeds a type that is
// not loaded may have the name promoted from there: matched by path.
func TestEmbeddedThirdParty(t *testing.T) {
	got, _ := search(t, api+`
-- base/pkg/a/a.go --
package a

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	core "example.com/api/pkg/apis/core/v1beta1"
)

type wrapper struct {
	metav1.ObjectMeta
	Spec struct{ Other string }
}

type plain struct {
	Spec struct{ Other string }
}

func f(w wrapper, p plain, _ core.Shoot) {
	_ = w.Spec.Region
	_ = w.Region
	_ = p.Spec.Region
}
`, lifecycle.Options{})
	// w.Spec is resolved to a struct without Region: not a usage; w.Region
	// may come from ObjectMeta, but its chain is not the field's path.
	if len(got) != 0 {
		t.Errorf("usages: %v", got)
	}
}

// TestPrefetch checks that searches started ahead (Prefetch), and
// searches sharing the files of an earlier one, give what searches run
// alone give, at base and at the release; that a file whose blob an
// earlier search read is not read again; and that searching ahead does
// not count as a rule using the release.
func TestPrefetch(t *testing.T) {
	head := strings.Index(api, "-- head/")
	use := func(step, file, body string) string {
		return "-- " + step + "/pkg/" + file + " --\npackage " + path.Dir(file) + "\n\nimport core \"example.com/api/pkg/apis/core/v1beta1\"\n\n" + body
	}
	archive := strings.ReplaceAll(api[:head], "-- base/", "-- rel@v1.0.0/") +
		use("rel@v1.0.0", "a/a.go", "func F(p *core.Shoot) string { return p.Spec.Region + p.Spec.Region }\n") +
		use("rel@v1.0.0", "b/b.go", "func G(p *core.ShootSpec) string { return p.Region }\n") +
		use("rel@v1.0.0", "c/c.go", "func H(p *core.ShootSpec) string { return p.Seed }\n") +
		use("base", "a/a.go", "func F(p *core.Shoot) string { return p.Spec.Region }\n") +
		api[head:]
	repo, base, hd := openSteps(t, archive)
	bm, hm, removed := scanRemoved(t, base, hd)
	revs := []lifecycle.Rev{lifecycle.RevRelease, lifecycle.RevBase}
	// search runs the searches at revs with one Finder (none when alone:
	// a Finder per revision), ahead or when asked; it returns each
	// revision's usages, whether the release counted as used after the
	// prefetch, and the files read.
	search := func(ahead, alone bool) (map[lifecycle.Rev][]string, bool, int) {
		h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Head: hd, BaseModel: bm, HeadModel: hm,
			Options: lifecycle.Options{CacheDir: t.TempDir()}})
		defer h.Close()
		f := usage.New(h, removed)
		used := false
		if ahead {
			f.Prefetch(revs...)
			f.Close()
			_, used = h.Used()
		}
		out := map[lifecycle.Rev][]string{}
		read := 0
		for _, rev := range revs {
			if alone {
				read += usage.FilesRead(f)
				f = usage.New(h, removed)
			}
			u, err := f.At(rev)
			if err != nil {
				t.Fatalf("%s: %v", rev, err)
			}
			out[rev] = append(out[rev], u.Rev)
			for _, g := range usage.Groups(removed) {
				for _, p := range u.Of(g[0]).Typed {
					out[rev] = append(out[rev], p.String())
				}
			}
		}
		f.Close()
		return out, used, read + usage.FilesRead(f)
	}
	want, _, readAlone := search(false, true)
	if len(want[lifecycle.RevRelease]) != 4 || len(want[lifecycle.RevBase]) != 3 {
		t.Errorf("usages = %v, want three at release v1.0.0 and two at base", want)
	}
	for _, ahead := range []bool{false, true} {
		got, used, read := search(ahead, false)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ahead=%v: usages differ from searches alone (-alone +shared):\n%s", ahead, diff)
		}
		if used {
			t.Error("a prefetch made the release count as used by a rule")
		}
		// Alone, each search reads a.go, b.go and c.go, and the API
		// package's doc.go and types.go to type-check them; shared, the
		// second reads only a.go, which changed.
		if readAlone != 10 || read != 6 {
			t.Errorf("ahead=%v: %d files read, want 6 (searches alone read %d, want 10)", ahead, read, readAlone)
		}
	}
}

// TestMemo checks that a commit's search is memoised in the lifecycle
// cache: a later run with the same cache and the same removed fields
// reads no file and finds the same usages; other removed fields, another
// commit, no cache, or the working tree search again.
func TestMemo(t *testing.T) {
	archive := api + `-- base/pkg/a/a.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func F(p *core.Shoot) string { return p.Spec.Region + p.Spec.Seed }
-- worktree/pkg/a/a.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func F(p *core.Shoot) string { return p.Spec.Region }
`
	repo, base, hd := openSteps(t, archive)
	wt, err := repo.Snapshot(git.WorktreeRef)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wt.Close() })
	bm, hm, removed := scanRemoved(t, base, hd)
	if len(removed) != 1 {
		t.Fatalf("removed %d fields, want 1", len(removed))
	}
	// run searches at the base snap for the removed fields, with a cache
	// directory: the usages ("file:line:col" lines) and the files read.
	run := func(snap git.Snapshot, fields []*model.FieldDiff, cache string) ([]string, int) {
		t.Helper()
		h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: snap, Head: hd, BaseModel: bm, HeadModel: hm,
			Options: lifecycle.Options{CacheDir: cache}})
		defer h.Close()
		f := usage.New(h, fields)
		defer f.Close()
		u, err := f.At(lifecycle.RevBase)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, fd := range fields {
			for _, p := range u.Of(fd).Typed {
				out = append(out, p.String())
			}
		}
		return out, usage.FilesRead(f)
	}
	cache := t.TempDir()
	want, read := run(base, removed, cache)
	if len(want) != 1 || read == 0 {
		t.Fatalf("first search: usages %v, %d files read; want one usage, files read", want, read)
	}
	got, read := run(base, removed, cache)
	if diff := cmp.Diff(want, got); diff != "" || read != 0 {
		t.Errorf("memoised search: %d files read (want 0), usages differ (-first +memo):\n%s", read, diff)
	}
	if _, read := run(base, removed, "-"); read == 0 {
		t.Error("without a cache, the search read no file")
	}
	if _, read := run(hd, removed, cache); read == 0 {
		t.Error("at another commit, the search read no file")
	}
	other := *removed[0]
	ob := *other.Base
	ob.Name = "Seed"
	other.Base = &ob
	if got, read := run(base, []*model.FieldDiff{&other}, cache); read == 0 || len(got) != 1 {
		t.Errorf("for another field: %d files read, usages %v; want files read and one usage", read, got)
	}
	for range 2 {
		if _, read := run(wt, removed, cache); read == 0 {
			t.Error("in the working tree, the search read no file")
		}
	}
}

// TestIndex: Finders that share an index (the parts of a tree judged part
// by part, each with its own removed fields) find what Finders of their
// own find, and a later one reads only the files whose imports can hold
// its usages.
func TestIndex(t *testing.T) {
	archive := api + `-- base/pkg/a/a.go --
package a

import core "example.com/api/pkg/apis/core/v1beta1"

func F(p *core.Shoot) string { return p.Spec.Region + p.Spec.Seed }
-- base/pkg/b/b.go --
package b

// Region and Seed are mentioned here, but no API package is imported.
func G() string { return "Region" + "Seed" }
-- base/pkg/c/c.go --
package c

import "strings"

func H(s string) string { return strings.ToUpper(s) }
`
	repo, base, hd := openSteps(t, archive)
	bm, hm, removed := scanRemoved(t, base, hd)
	if len(removed) != 1 {
		t.Fatalf("removed %d fields, want 1", len(removed))
	}
	other := *removed[0]
	ob := *other.Base
	ob.Name = "Seed"
	other.Base = &ob
	h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Head: hd, BaseModel: bm, HeadModel: hm,
		Options: lifecycle.Options{CacheDir: "-"}})
	defer h.Close()
	search := func(idx *usage.Index, fd *model.FieldDiff) ([]string, int) {
		t.Helper()
		f := usage.NewIn(idx, h, []*model.FieldDiff{fd})
		defer f.Close()
		u, err := f.At(lifecycle.RevBase)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range u.Of(fd).Typed {
			out = append(out, p.String())
		}
		return out, usage.FilesRead(f)
	}
	idx := usage.NewIndex()
	for _, fd := range []*model.FieldDiff{removed[0], &other} {
		alone, readAlone := search(nil, fd)
		if len(alone) != 1 {
			t.Fatalf("%s: usages %v, want one", fd.Base.Name, alone)
		}
		got, read := search(idx, fd)
		if diff := cmp.Diff(alone, got); diff != "" {
			t.Errorf("%s: with the index, usages differ (-alone +index):\n%s", fd.Base.Name, diff)
		}
		if fd == removed[0] && read != readAlone {
			t.Errorf("first search with the index read %d files, want %d as alone", read, readAlone)
		}
		if fd == &other && read != readAlone-2 {
			t.Errorf("second search with the index read %d files (alone %d), want 2 fewer: not pkg/b/b.go and pkg/c/c.go, which import no API package", read, readAlone)
		}
	}
}

// TestReachedDeclarations: packages are type-checked with only the
// declarations the candidate files reach, and that keeps every usage
// typed: through a method declared on an alias in another file, a field
// promoted from an embedded alias, a dot import, a generic type's method
// and a type argument inferred from a method no code selects (an
// interface declares it). A package only an unreached function or an
// unselected method names is not loaded.
func TestReachedDeclarations(t *testing.T) {
	got, u := search(t, api+`
-- base/pkg/a/a.go --
package a

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/box"
	. "example.com/api/pkg/dot"
	"example.com/api/pkg/getter"
	"example.com/api/pkg/wrap"
)

func Use(s *core.Shoot) []string {
	w := wrap.New(s)
	b := box.Box[core.ShootSpec]{}
	return []string{w.Spec.Region, w.Own().Region, Get(s).Region, b.Get().Region, getter.Value(w).Region}
}
-- base/pkg/wrap/wrap.go --
package wrap

import (
	core "example.com/api/pkg/apis/core/v1beta1"
	"example.com/api/pkg/heavy"
)

type Shoot = core.Shoot

type W struct{ Shoot }

func New(s *core.Shoot) *W { return &W{*s} }

// Unused is not reached, nor is the method Heavy: heavy is not loaded.
func Unused() heavy.T { return heavy.T{} }

func (w *W) Heavy() heavy.T { return heavy.T{} }

func (w *W) Value() *core.ShootSpec { return &w.Spec }
-- base/pkg/wrap/methods.go --
package wrap

import core "example.com/api/pkg/apis/core/v1beta1"

type Alias = W

func (w *Alias) Own() *core.ShootSpec { return &w.Spec }
-- base/pkg/dot/dot.go --
package dot

import core "example.com/api/pkg/apis/core/v1beta1"

func Get(s *core.Shoot) *core.ShootSpec { return &s.Spec }
-- base/pkg/box/box.go --
package box

type Box[T any] struct{ v T }

func (b Box[T]) Get() T { return b.v }
-- base/pkg/getter/getter.go --
package getter

type Valuer[T any] interface{ Value() T }

func Value[T any](v Valuer[T]) T { return v.Value() }
-- base/pkg/heavy/heavy.go --
package heavy

type T struct{}
`, lifecycle.Options{})
	want := []string{
		"ShootSpec.Region typed pkg/a/a.go:14:25",
		"ShootSpec.Region typed pkg/a/a.go:14:41",
		"ShootSpec.Region typed pkg/a/a.go:14:56",
		"ShootSpec.Region typed pkg/a/a.go:14:72",
		"ShootSpec.Region typed pkg/a/a.go:14:96",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usages (-want +got):\n%s", diff)
	}
	// a, wrap, dot, box, getter and the API package; not heavy.
	if u.Packages != 6 {
		t.Errorf("type-checked %d packages, want 6", u.Packages)
	}
}
