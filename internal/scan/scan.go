// Package scan turns the Go files of one revision into a model.Model:
// discovery of API groups, syntax-only parsing, tags, markers, tombstones,
// typed constants and nillability of field types. No go/ast value leaves
// this package.
package scan

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// Source is a read-only view of the files of one revision (a git snapshot
// or the working tree).
type Source interface {
	Files() []string
	ReadFiles(paths []string) (map[string][]byte, error)
}

// GroupSpec lists one API group explicitly (from configuration), which
// replaces discovery.
type GroupSpec struct {
	Dir     string
	Profile model.Profile
}

// Options tune a scan.
type Options struct {
	// Groups, when non-empty, replaces automatic discovery.
	Groups []GroupSpec
}

// Error is a scan failure that names a file position.
type Error struct {
	Pos model.Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	if e.Pos.Line == 0 {
		return e.Pos.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Pos.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

var versionDir = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// IsVersionDir reports whether a directory base name looks like an API
// version (v1, v1beta1, v2alpha3).
func IsVersionDir(name string) bool { return versionDir.MatchString(name) }

// Scan discovers the API groups of src and parses them.
func Scan(src Source, opts Options) (*model.Model, error) {
	s := &state{src: src, files: src.Files()}
	return s.run(opts)
}

type state struct {
	src   Source
	files []string
	// goFiles maps a directory to its non-test Go files that are scanned.
	goFiles map[string][]string
	mods    *modules
	parsed  map[string]*parsedFile
	// resolver resolves types of packages outside the scanned groups.
	res *resolver
	// exprs caches parsed field type expressions (read-only once parsed).
	exprs map[string]ast.Expr
}

type parsedFile struct {
	path string
	fset *token.FileSet
	file *ast.File
	src  []byte
}

// Scannable reports whether the file at repo-relative, slash-separated
// path p is Go code the scanner reads: a .go file that is neither a test
// nor generated (zz_generated*, *.pb.go, generated.*), outside vendor/,
// testdata/ and directories starting with "." or "_". The lifecycle usage
// search applies the same filter.
func Scannable(p string) bool { return scannable(p) }

// scannable reports whether a Go file is part of the API surface we read.
func scannable(p string) bool {
	base := path.Base(p)
	if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
		return false
	}
	if strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, ".pb.go") ||
		strings.HasPrefix(base, "generated.") {
		return false
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "vendor" || seg == "testdata" || (strings.HasPrefix(seg, ".") && seg != ".") || strings.HasPrefix(seg, "_") {
			return false
		}
	}
	return true
}

func (s *state) run(opts Options) (*model.Model, error) {
	s.goFiles = map[string][]string{}
	var goMods []string
	for _, f := range s.files {
		if path.Base(f) == "go.mod" {
			goMods = append(goMods, f)
		}
		if scannable(f) {
			d := path.Dir(f)
			s.goFiles[d] = append(s.goFiles[d], f)
		}
	}
	mods, err := readModules(s.src, goMods)
	if err != nil {
		return nil, err
	}
	s.mods = mods

	// Candidate groups: explicit ones, or parents of version directories.
	type cand struct {
		dir      string
		profile  model.Profile
		explicit bool
		versions []string
	}
	var cands []*cand
	if len(opts.Groups) > 0 {
		for _, g := range opts.Groups {
			c := &cand{dir: strings.Trim(path.Clean(g.Dir), "/"), profile: g.Profile, explicit: true}
			cands = append(cands, c)
		}
	} else {
		byDir := map[string]*cand{}
		for d := range s.goFiles {
			if !IsVersionDir(path.Base(d)) || d == "." {
				continue
			}
			parent := path.Dir(d)
			c := byDir[parent]
			if c == nil {
				c = &cand{dir: parent}
				byDir[parent] = c
				cands = append(cands, c)
			}
		}
		sort.Slice(cands, func(i, j int) bool { return cands[i].dir < cands[j].dir })
	}
	for _, c := range cands {
		prefix := c.dir + "/"
		if c.dir == "." {
			prefix = ""
		}
		for d := range s.goFiles {
			if strings.HasPrefix(d, prefix) && !strings.Contains(d[len(prefix):], "/") && IsVersionDir(path.Base(d)) {
				c.versions = append(c.versions, d)
			}
		}
		sort.Strings(c.versions)
	}

	// Read and parse every candidate package (group dir and versions).
	var toRead []string
	for _, c := range cands {
		toRead = append(toRead, s.goFiles[c.dir]...)
		for _, v := range c.versions {
			toRead = append(toRead, s.goFiles[v]...)
		}
	}
	if err := s.parseFiles(toRead); err != nil {
		return nil, err
	}
	s.res = newResolver(s)

	m := &model.Model{}
	for _, c := range cands {
		g := &model.Group{Dir: c.dir, Profile: c.profile}
		for _, v := range c.versions {
			files := s.goFiles[v]
			if !c.explicit && !declaresGroup(s.parsed, files) {
				continue
			}
			pkg, err := s.buildPackage(v, path.Base(v))
			if err != nil {
				return nil, err
			}
			g.Versions = append(g.Versions, pkg)
			if g.Name == "" {
				g.Name = pkg.GroupName
			}
		}
		if len(g.Versions) == 0 {
			// A configured group may not exist yet at base (added in this
			// change); the configuration is validated against head.
			continue
		}
		if len(s.goFiles[c.dir]) > 0 {
			pkg, err := s.buildPackage(c.dir, "")
			if err != nil {
				return nil, err
			}
			if len(pkg.Types) > 0 {
				g.Internal = pkg
			}
		}
		if g.Profile == "" {
			g.Profile = DefaultProfile(g.Dir, g.Name)
		}
		m.Groups = append(m.Groups, g)
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			s.resolveNillability(p)
		}
	}
	m.Sort()
	return m, nil
}

// DefaultProfile classifies component-configuration groups (e.g.
// pkg/gardenlet/apis/config, pkg/apis/config/<component>, groups named
// *.config.*) as componentconfig, everything else as api.
func DefaultProfile(dir, groupName string) model.Profile {
	if strings.Contains(groupName, ".config.") || strings.HasPrefix(groupName, "config.") {
		return model.ProfileComponentConfig
	}
	segs := strings.Split(dir, "/")
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == "apis" && segs[i+1] == "config" {
			return model.ProfileComponentConfig
		}
	}
	return model.ProfileAPI
}

var groupNameMarker = regexp.MustCompile(`(?m)^\s*//\s*\+groupName\s*=`)

// declaresGroup reports whether a version package declares +groupName or
// a SchemeGroupVersion, which is what makes a vN directory an API version.
func declaresGroup(parsed map[string]*parsedFile, files []string) bool {
	for _, f := range files {
		pf := parsed[f]
		if pf == nil {
			continue
		}
		if groupNameMarker.Match(pf.src) || bytes.Contains(pf.src, []byte("SchemeGroupVersion")) ||
			bytes.Contains(pf.src, []byte("+kubebuilder:object:generate=true")) && bytes.Contains(pf.src, []byte("GroupVersion")) {
			return true
		}
	}
	return false
}

// parseFiles reads paths in one batch and parses them on all cores.
func (s *state) parseFiles(paths []string) error {
	if s.parsed == nil {
		s.parsed = map[string]*parsedFile{}
	}
	var need []string
	for _, p := range paths {
		if _, ok := s.parsed[p]; !ok {
			need = append(need, p)
		}
	}
	if len(need) == 0 {
		return nil
	}
	contents, err := s.src.ReadFiles(need)
	if err != nil {
		return err
	}
	results, err := par.Map(len(need), func(i int) (*parsedFile, error) { return parseOne(need[i], contents[need[i]]) })
	if err != nil {
		return err
	}
	for i, p := range need {
		if results[i] != nil {
			s.parsed[p] = results[i]
		}
	}
	return nil
}

var ignoreBuild = regexp.MustCompile(`^//go:build\s+ignore\s*$`)

func parseOne(p string, src []byte) (*parsedFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		pos := model.Pos{File: p}
		msg := err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pos.Line, pos.Col = list[0].Pos.Line, list[0].Pos.Column
			msg = list[0].Msg
		}
		return nil, &Error{Pos: pos, Msg: "cannot parse Go file: " + msg}
	}
	// Files constrained with //go:build ignore are not part of the package.
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && ignoreBuild.MatchString(c.Text) {
				return nil, nil
			}
		}
	}
	return &parsedFile{path: p, fset: fset, file: f, src: src}, nil
}
