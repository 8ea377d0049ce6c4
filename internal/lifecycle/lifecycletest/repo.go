// Package lifecycletest generates repositories with a release history for
// the lifecycle benchmarks: an API group with many protobuf-tagged
// structs that change in every release, thousands of controller files
// that use the API, release tags, and a head that removes a used field
// and revives a protobuf number freed without a tombstone.
package lifecycletest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// Module is the generated module path.
const Module = "example.cloud/bench"

// APIDir is the generated API version package.
const APIDir = "pkg/apis/core/v1beta1"

// Spec sizes a generated repository.
type Spec struct {
	// Files is the number of files of the first commit (API files,
	// go.mod and controllers; at least the API files are written).
	Files int
	// Tags is the number of releases (v1.1.0 ... v1.<Tags>.0); each
	// changes two of the six types files of the API package.
	Tags int
	// ReleaseBranches puts every release on its own branch, on a
	// "prepare release" commit after the main commit it branches from
	// (the layout of Gardener and k8s.io/api); otherwise main is tagged.
	ReleaseBranches bool
	// OtherTags adds that many tags that are not releases
	// ("nightly-<n>") spread over main.
	OtherTags int
	// Deps, when set, lays the controllers out as real code is: go.mod
	// requires third-party modules (see Requires) that the controllers
	// import, and every controller package imports a chain of in-repository
	// helper packages (pkg/utils/u*), each importing the API and the next.
	Deps bool
}

// Requires are the third-party modules a repository generated with Deps
// requires (ModCache writes them).
var Requires = []string{
	"k8s.io/apimachinery v0.34.0",
	"k8s.io/api v0.34.0",
	"k8s.io/client-go v0.34.0",
	"sigs.k8s.io/controller-runtime v0.22.0",
	"github.com/go-logr/logr v1.4.3",
}

// ModCache writes a module cache under dir holding every module of
// Requires with filesPerModule Go files each (source only, as `go mod
// download` leaves it), and returns dir.
func ModCache(tb testing.TB, dir string, filesPerModule int) string {
	tb.Helper()
	for _, r := range Requires {
		mod, version, _ := strings.Cut(r, " ")
		root := filepath.Join(dir, filepath.FromSlash(mod)+"@"+version)
		if err := os.MkdirAll(root, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+mod+"\n\ngo 1.22\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		for i := 0; i < filesPerModule; i++ {
			pkg := fmt.Sprintf("pkg%d", i%20)
			d := filepath.Join(root, pkg)
			if err := os.MkdirAll(d, 0o755); err != nil {
				tb.Fatal(err)
			}
			src := fmt.Sprintf("package %s\n\n// T%d is a type.\ntype T%d struct {\n\tName string\n\tSpec struct{ SeedTemplate *string }\n}\n\nfunc F%d() *T%d { return &T%d{} }\n", pkg, i, i, i, i, i)
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file%d.go", i)), []byte(src), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return dir
}

// Repo is a generated repository. Base and Head are branch names.
type Repo struct {
	Dir        string
	Base, Head string
	// UsagesAtBase is how many usages of the removed field base has.
	UsagesAtBase int
	// RemovedField and RevivedField are "Type.Field" of the field head
	// removes and of the new field that takes a number freed two
	// releases after v1.2.0 (when Tags >= 5).
	RemovedField, RevivedField string
}

const typesFiles = 6

// utils is the number of helper packages of a repository with Deps.
const utils = 20

// depsController is controller file i of a repository with Deps: it
// imports third-party packages, a helper package and the API; one in ten
// uses the removed field through the helper's result, one in ten has the
// field's name on a third-party type with another path.
func depsController(i int, filler string) string {
	imports := fmt.Sprintf("import (\n\t\"context\"\n\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"sigs.k8s.io/controller-runtime/pkg/client\"\n\n\tcore \"%s/%s\"\n\tutil \"%s/pkg/utils/u%d\"\n)\n\n", Module, APIDir, Module, i%utils)
	body := ""
	switch i % 10 {
	case 0: // uses the removed field, through a helper's result
		body = "\tif util.Spec(s).SeedTemplate != nil {\n\t\tx = append(x, 1)\n\t}\n"
	case 1: // the name on a third-party object: another path
		body = "\tif o := c.Get(ctx); o.Config.SeedTemplate != nil {\n\t\tx = append(x, 2)\n\t}\n"
	case 2: // another field
		body = "\t_ = util.Region(s)\n"
	}
	return fmt.Sprintf("package c%d\n\n%s// F%d reconciles.\nfunc F%d(ctx context.Context, c client.Client, s *core.Shoot, _ metav1.Time) []int {\n\tvar x []int\n%s%s\treturn x\n}\n",
		i%100, imports, i, i, body, filler)
}

// step names commit i of a generated history.
func step(i int) string { return fmt.Sprintf("step%d", i) }

// typesFile renders types_<file>.go: 40 structs of 15 protobuf fields,
// struct 0 with extra more fields; with dropped, Type<file>_1 also has
// field Dropped with number 99.
func typesFile(file, extra int, dropped bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package v1beta1\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "// Type%d_%d is a generated type with a doc comment that is long enough\n// to look like the real thing in Gardener's API packages.\ntype Type%d_%d struct {\n", file, i, file, i)
		n := 15
		if i == 0 {
			n += extra
		}
		for j := 1; j <= n; j++ {
			fmt.Fprintf(&b, "\t// Field%d is field number %d of the type; it has a doc comment too.\n\t// +optional\n", j, j)
			fmt.Fprintf(&b, "\tField%d *string `json:\"field%d,omitempty\" protobuf:\"bytes,%d,opt,name=field%d\"`\n", j, j, j, j)
		}
		if i == 1 && dropped {
			b.WriteString("\t// Dropped is removed two releases later, without a tombstone.\n\t// +optional\n")
			b.WriteString("\tDropped *string `json:\"dropped,omitempty\" protobuf:\"bytes,99,opt,name=dropped\"`\n")
		}
		b.WriteString("}\n\n")
	}
	return b.String()
}

const shootTypes = `package v1beta1

// Shoot is a cluster.
// +genclient
type Shoot struct {
	// +optional
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Region is the region.
	Region string ` + "`json:\"region\" protobuf:\"bytes,1,opt,name=region\"`" + `
	// SeedTemplate is old.
	// +optional
	SeedTemplate *string ` + "`json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`" + `
}
`

// Generate writes the repository: the first commit has the API group and
// the controllers, then Tags releases, a base commit and a head commit,
// which is checked out.
func Generate(tb testing.TB, spec Spec) *Repo {
	tb.Helper()
	r := &Repo{Base: "base", Head: "head", RemovedField: "ShootSpec.SeedTemplate"}
	goMod := "module " + Module + "\n\ngo 1.22\n"
	if spec.Deps {
		goMod += "\nrequire (\n\t" + strings.Join(Requires, "\n\t") + "\n)\n"
	}
	files := map[string]string{
		"go.mod": goMod,
		// A Gardener-style API (protobuf tags, Shoot) under a module
		// path of its own: the profile is configured, not detected.
		".apicheck.yaml":                     "profile: gardener\n",
		APIDir + "/doc.go":                   "// +groupName=core.example.cloud\npackage v1beta1\n",
		APIDir + "/types.go":                 shootTypes,
		APIDir + "/zz_generated.deepcopy.go": "package v1beta1\n" + strings.Repeat("// generated\n", 20000),
		APIDir + "/defaults.go":              "package v1beta1\n\nfunc SetDefaults_ShootSpec(s *ShootSpec) { _ = s.SeedTemplate }\n",
		"pkg/apis/core/validation/shoot.go":  "package validation\n\nimport \"" + Module + "/" + APIDir + "\"\n\nfunc V(s *v1beta1.ShootSpec) bool { return s.SeedTemplate != nil }\n",
	}
	for f := 0; f < typesFiles; f++ {
		files[fmt.Sprintf("%s/types_%d.go", APIDir, f)] = typesFile(f, 0, false)
	}
	if spec.Deps {
		// pkg/utils/u0 ... u19: u<i> imports the API and u<i+1>.
		for u := 0; u < utils; u++ {
			next, call := "", ""
			if u+1 < utils {
				next = fmt.Sprintf("\tnext \"%s/pkg/utils/u%d\"\n", Module, u+1)
				call = "\t_ = next.Region(s)\n"
			}
			files[fmt.Sprintf("pkg/utils/u%d/u.go", u)] = fmt.Sprintf("package u%d\n\nimport (\n\tcore \"%s/%s\"\n%s)\n\n"+
				"// Region returns the Shoot's region.\nfunc Region(s *core.Shoot) string {\n%s\treturn s.Spec.Region\n}\n\n"+
				"// Spec returns the Shoot's spec.\nfunc Spec(s *core.Shoot) *core.ShootSpec { return &s.Spec }\n", u, Module, APIDir, next, call)
		}
	}
	filler := strings.Repeat("\t// Some code that does things with other things, a line of a typical controller.\n\tx = append(x, len(x))\n", 30)
	for i := 0; len(files) < spec.Files; i++ {
		pkg := fmt.Sprintf("pkg/controller/c%d", i%100)
		var src string
		if spec.Deps {
			src = depsController(i, filler)
			if i%10 == 0 {
				r.UsagesAtBase++
			}
			files[fmt.Sprintf("%s/file%d.go", pkg, i)] = src
			continue
		}
		switch i % 10 {
		case 0: // uses the removed field
			src = fmt.Sprintf("package c%d\n\nimport core \"%s/%s\"\n\nfunc F%d(s *core.Shoot) []int {\n\tvar x []int\n\tif s.Spec.SeedTemplate != nil {\n\t\tx = append(x, 1)\n\t}\n%s\treturn x\n}\n", i%100, Module, APIDir, i, filler)
			r.UsagesAtBase++
		case 1: // imports the API, uses another field
			src = fmt.Sprintf("package c%d\n\nimport core \"%s/%s\"\n\nfunc F%d(s *core.Shoot) []int {\n\tvar x []int\n\t_ = s.Spec.Region\n%s\treturn x\n}\n", i%100, Module, APIDir, i, filler)
		case 2: // the name, but no API import
			src = fmt.Sprintf("package c%d\n\ntype T%d struct{ SeedTemplate string }\n\nfunc F%d(t T%d) []int {\n\tvar x []int\n\t_ = t.SeedTemplate\n%s\treturn x\n}\n", i%100, i, i, i, filler)
		default:
			src = fmt.Sprintf("package c%d\n\nfunc F%d() []int {\n\tvar x []int\n%s\treturn x\n}\n", i%100, i, filler)
		}
		files[fmt.Sprintf("%s/file%d.go", pkg, i)] = src
	}
	// Every commit goes on main (the releases' commits on their branches
	// too, as Parents says where they start); without Parents a commit
	// follows the one before it.
	commits := []gitfixture.Commit{{Step: step(0), Files: files}}
	mainTip := 0
	var mainCommits []int
	extra := make([]int, typesFiles)
	dropped := make([]bool, typesFiles)
	for rel := 1; rel <= spec.Tags; rel++ {
		tag := fmt.Sprintf("v1.%d.0", rel)
		c := gitfixture.Commit{Step: step(len(commits)), Files: map[string]string{}, Parents: []string{step(mainTip)}}
		for _, f := range []int{rel % typesFiles, (rel + 3) % typesFiles} {
			extra[f] = rel
			// Release 2 adds Type5_1.Dropped (number 99); the next
			// release touching types_5 (release 5) drops it.
			dropped[f] = rel == 2 && f == 5
			c.Files[fmt.Sprintf("%s/types_%d.go", APIDir, f)] = typesFile(f, extra[f], dropped[f])
		}
		if !spec.ReleaseBranches {
			c.Tags = []string{tag}
		}
		commits = append(commits, c)
		mainTip = len(commits) - 1
		mainCommits = append(mainCommits, mainTip)
		if spec.ReleaseBranches {
			commits = append(commits, gitfixture.Commit{
				Step:          step(len(commits)),
				Files:         map[string]string{"VERSION": tag + "\n"},
				AnnotatedTags: []string{tag},
				Branches:      []string{"release-" + strings.TrimSuffix(tag, ".0")},
				Parents:       []string{step(mainTip)},
			})
		}
	}
	for i := 0; i < spec.OtherTags; i++ {
		at := 0
		if len(mainCommits) > 0 {
			at = mainCommits[i%len(mainCommits)]
		}
		commits[at].Tags = append(commits[at].Tags, fmt.Sprintf("nightly-%d", i))
	}
	commits = append(commits, gitfixture.Commit{Step: step(len(commits)), Files: map[string]string{"README.md": "base\n"}, Branches: []string{r.Base}, Parents: []string{step(mainTip)}})
	head := gitfixture.Commit{Step: step(len(commits)), Files: map[string]string{
		APIDir + "/types.go": strings.Replace(shootTypes,
			"\t// SeedTemplate is old.\n\t// +optional\n\tSeedTemplate *string `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`\n",
			"\t// SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.\n\t// SeedTemplate *string `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`\n", 1),
	}, Branches: []string{r.Head}}
	if spec.Tags >= 5 {
		t5 := strings.Replace(typesFile(5, extra[5], false), "type Type5_1 struct {\n",
			"type Type5_1 struct {\n\t// Newcomer takes number 99.\n\t// +optional\n\tNewcomer *string `json:\"newcomer,omitempty\" protobuf:\"bytes,99,opt,name=newcomer\"`\n", 1)
		head.Files[fmt.Sprintf("%s/types_5.go", APIDir)] = t5
		r.RevivedField = "Type5_1.Newcomer"
	}
	commits = append(commits, head)
	f := gitfixture.New(tb)
	f.Import(commits...)
	f.Git("pack-refs", "--all") // as in a clone
	f.Git("checkout", "-q", "-f", r.Head)
	r.Dir = f.Dir
	return r
}

// Open opens the generated repository and the snapshots of the given
// revisions (r.Base, r.Head, a tag), closed when the test ends.
func (r *Repo) Open(tb testing.TB, revs ...string) (*git.Repo, []git.Snapshot) {
	tb.Helper()
	repo, err := git.Open(r.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	snaps := make([]git.Snapshot, len(revs))
	for i, rev := range revs {
		s, err := repo.Snapshot(rev)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { s.Close() })
		snaps[i] = s
	}
	return repo, snaps
}
