// Package lifecycletest generates repositories with a release history for
// the lifecycle benchmarks: an API group with many protobuf-tagged
// structs that change in every release, thousands of controller files
// that use the API, release tags, and a head that removes a used field
// and revives a protobuf number freed without a tombstone.
package lifecycletest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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

// Commit is one commit of a history: files to write (a nil value deletes
// the path), lightweight and annotated tags, and branches to point at it.
type Commit struct {
	Files         map[string][]byte
	Tags          []string
	AnnotatedTags []string
	Branches      []string
	// Parents are the indexes of the parent commits in the list (the
	// first parent's tree is the starting point); nil means the previous
	// commit, and an empty non-nil list a root commit.
	Parents []int
}

// FastImport builds a repository under tb.TempDir() from commits with one
// `git fast-import`, with a fixed identity and dates, and returns its
// directory. The working tree holds checkout (a branch), or nothing when
// checkout is "".
func FastImport(tb testing.TB, commits []Commit, checkout string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	var s bytes.Buffer
	for i, c := range commits {
		if c.Parents != nil && len(c.Parents) == 0 && i > 0 {
			s.WriteString("reset refs/heads/main\n\n") // a root commit
		}
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter bench <bench@apicheck.invalid> %d +0000\n", i+1, 1700000000+i*60)
		msg := fmt.Sprintf("step %d", i)
		fmt.Fprintf(&s, "data %d\n%s\n", len(msg), msg)
		parents := c.Parents
		if parents == nil && i > 0 {
			parents = []int{i - 1}
		}
		for k, p := range parents {
			if p < 0 || p >= i {
				tb.Fatalf("commit %d: parent %d is not an earlier commit", i, p)
			}
			if k == 0 {
				fmt.Fprintf(&s, "from :%d\n", p+1)
			} else {
				fmt.Fprintf(&s, "merge :%d\n", p+1)
			}
		}

		paths := make([]string, 0, len(c.Files))
		for p := range c.Files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if c.Files[p] == nil {
				fmt.Fprintf(&s, "D %s\n", p)
				continue
			}
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n", p, len(c.Files[p]))
			s.Write(c.Files[p])
			s.WriteByte('\n')
		}
		for _, t := range c.Tags {
			fmt.Fprintf(&s, "reset refs/tags/%s\nfrom :%d\n", t, i+1)
		}
		for _, t := range c.AnnotatedTags {
			msg := "release " + t
			fmt.Fprintf(&s, "tag %s\nfrom :%d\ntagger bench <bench@apicheck.invalid> %d +0000\ndata %d\n%s\n", t, i+1, 1700000000+i*60+30, len(msg), msg)
		}
		for _, br := range c.Branches {
			fmt.Fprintf(&s, "reset refs/heads/%s\nfrom :%d\n", br, i+1)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(nil, "init", "-q", "-b", "main")
	run(s.Bytes(), "fast-import", "--quiet")
	run(nil, "pack-refs", "--all") // as in a clone
	if checkout != "" {
		run(nil, "checkout", "-q", "-f", checkout)
	}
	return dir
}

// typesFile renders types_<file>.go: 40 structs of 15 protobuf fields,
// struct 0 with extra more fields; with dropped, Type<file>_1 also has
// field Dropped with number 99.
func typesFile(file, extra int, dropped bool) []byte {
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
	return []byte(b.String())
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
// which is checked out (type information needs the working tree).
func Generate(tb testing.TB, spec Spec) *Repo {
	tb.Helper()
	r := &Repo{Base: "base", Head: "head", RemovedField: "ShootSpec.SeedTemplate"}
	files := map[string][]byte{
		"go.mod":                             []byte("module " + Module + "\n\ngo 1.22\n"),
		APIDir + "/doc.go":                   []byte("// +groupName=core.example.cloud\npackage v1beta1\n"),
		APIDir + "/types.go":                 []byte(shootTypes),
		APIDir + "/zz_generated.deepcopy.go": append([]byte("package v1beta1\n"), bytes.Repeat([]byte("// generated\n"), 20000)...),
		APIDir + "/defaults.go":              []byte("package v1beta1\n\nfunc SetDefaults_ShootSpec(s *ShootSpec) { _ = s.SeedTemplate }\n"),
		"pkg/apis/core/validation/shoot.go":  []byte("package validation\n\nimport \"" + Module + "/" + APIDir + "\"\n\nfunc V(s *v1beta1.ShootSpec) bool { return s.SeedTemplate != nil }\n"),
	}
	for f := 0; f < typesFiles; f++ {
		files[fmt.Sprintf("%s/types_%d.go", APIDir, f)] = typesFile(f, 0, false)
	}
	filler := strings.Repeat("\t// Some code that does things with other things, a line of a typical controller.\n\tx = append(x, len(x))\n", 30)
	for i := 0; len(files) < spec.Files; i++ {
		pkg := fmt.Sprintf("pkg/controller/c%d", i%100)
		var src string
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
		files[fmt.Sprintf("%s/file%d.go", pkg, i)] = []byte(src)
	}
	commits := []Commit{{Files: files}}
	mainTip := 0
	var mainCommits []int
	extra := make([]int, typesFiles)
	dropped := make([]bool, typesFiles)
	for rel := 1; rel <= spec.Tags; rel++ {
		tag := fmt.Sprintf("v1.%d.0", rel)
		c := Commit{Files: map[string][]byte{}, Parents: []int{mainTip}}
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
			commits = append(commits, Commit{
				Files:         map[string][]byte{"VERSION": []byte(tag + "\n")},
				AnnotatedTags: []string{tag},
				Branches:      []string{"release-" + strings.TrimSuffix(tag, ".0")},
				Parents:       []int{mainTip},
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
	commits = append(commits, Commit{Files: map[string][]byte{"README.md": []byte("base\n")}, Branches: []string{r.Base}, Parents: []int{mainTip}})
	head := Commit{Files: map[string][]byte{
		APIDir + "/types.go": []byte(strings.Replace(shootTypes,
			"\t// SeedTemplate is old.\n\t// +optional\n\tSeedTemplate *string `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`\n",
			"\t// SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.\n\t// SeedTemplate *string `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`\n", 1)),
	}, Branches: []string{r.Head}}
	if spec.Tags >= 5 {
		t5 := strings.Replace(string(typesFile(5, extra[5], false)), "type Type5_1 struct {\n",
			"type Type5_1 struct {\n\t// Newcomer takes number 99.\n\t// +optional\n\tNewcomer *string `json:\"newcomer,omitempty\" protobuf:\"bytes,99,opt,name=newcomer\"`\n", 1)
		head.Files[fmt.Sprintf("%s/types_5.go", APIDir)] = []byte(t5)
		r.RevivedField = "Type5_1.Newcomer"
	}
	commits = append(commits, head)
	r.Dir = FastImport(tb, commits, r.Head)
	return r
}
