package lifecycle

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/protobuf"
	"github.com/apicheck/apicheck/internal/scan"
)

// The struct history answers "which fields did struct T of package
// directory D have at each release" without scanning whole revisions:
//
//  1. one `git cat-file --batch` process resolves "<tag commit>:<dir>" for
//     every release tag (Release.All) and package directory asked for,
//     straight to the directory's tree object (a struct is followed by
//     package directory and type name, so moving a type between files
//     does not matter);
//  2. each distinct Go file (blob) of those trees is judged once: most
//     files are the same from one release to the next. A blob judged by an
//     earlier run is read from the on-disk cache, keyed by its object id
//     (content-addressed, so an entry never goes stale);
//  3. the remaining blobs are read in one more batch and parsed in
//     parallel (syntax only); only struct declarations are kept: each
//     field's Go name, json name, protobuf number, line and whether its
//     doc comment has a "Deprecated:" paragraph.
//
// A struct's history runs from the newest release back and stops at the
// first release that does not have the struct in that directory, and at
// an identity break: a release whose struct shares no field (json name
// and protobuf number) with the struct of the next newer release (or, for
// the newest, with the struct at base) is a different struct that had
// the same name, e.g. a nested type renamed while a new kind took its
// name. Nothing from there on counts.

// relField is a field of a struct at a release.
type relField struct {
	Name       string `json:"n"`
	JSON       string `json:"j,omitempty"` // wire name; "" inline or skipped
	Number     int    `json:"p,omitempty"` // protobuf number; 0 none
	Deprecated bool   `json:"d,omitempty"`
	Line       int    `json:"l"`
	Col        int    `json:"c"`
}

// fileStructs maps type name -> fields for the structs of one Go file.
type fileStructs map[string][]relField

// ReleaseStruct is a struct at one release.
type ReleaseStruct struct {
	Tag    string
	File   string // repository-relative path of the declaring file
	fields []relField
}

// Field returns the named field of the struct at that release.
func (s ReleaseStruct) Field(name string) (ReleaseField, bool) {
	for _, f := range s.fields {
		if f.Name == name {
			return ReleaseField{Tag: s.Tag, Name: f.Name, Deprecated: f.Deprecated, Pos: model.Pos{File: s.File, Line: f.Line, Col: f.Col}}, true
		}
	}
	return ReleaseField{}, false
}

// ReleaseField is a field of a struct at a release.
type ReleaseField struct {
	Tag        string
	Name       string
	Deprecated bool
	Pos        model.Pos
}

// identity keys of a struct: the (json name, protobuf number) pairs of
// its fields that have a json name.
type shapeKey struct {
	json   string
	number int
}

func shapeOf(fs []relField) map[shapeKey]bool {
	out := map[shapeKey]bool{}
	for _, f := range fs {
		if f.JSON != "" && f.JSON != "-" {
			out[shapeKey{f.JSON, f.Number}] = true
		}
	}
	return out
}

func overlaps(a, b map[shapeKey]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// modelShape is the identity shape of a scanned struct.
func modelShape(t *model.Type) map[shapeKey]bool {
	out := map[shapeKey]bool{}
	for _, f := range t.Fields {
		n := 0
		if f.Proto != nil {
			n = f.Proto.Number
		}
		if w := f.WireName(); w != "" && w != "-" {
			out[shapeKey{w, n}] = true
		}
	}
	return out
}

// structHistory is the memoised reading of release trees and files.
type structHistory struct {
	tags  []git.Tag                // Release.All
	trees map[string][]string      // dir -> per tag: tree oid ("" absent)
	files map[string][]treeFile    // tree oid -> Go files
	blobs map[string]fileStructs   // blob oid -> structs
	cache *blobCache               // on-disk cache of blobs
	reads int                      // blobs read from git (for tests)
	hists map[string]StructHistory // dir + "\x00" + type -> history
}

type treeFile struct{ name, oid string }

// StructHistory is a struct's history over the releases, newest first
// (see the comment at the top of this file).
type StructHistory struct {
	Releases []ReleaseStruct
	// Break names the newest release whose same-named struct is a
	// different struct (an identity break); "" when there was none.
	Break string
}

// StructAt returns the struct's history over Release.All: the releases,
// newest first, at which package directory dir had the same struct typ
// (see the top of this file). The identity of the newest release's
// struct is judged against the struct at base (at head when base has
// none). It reads release trees once per directory and run.
func (e *History) StructAt(dir, typ string) (StructHistory, error) {
	sh, err := e.loadStructs([]string{dir})
	if err != nil {
		return StructHistory{}, err
	}
	key := dir + "\x00" + typ
	if h, ok := sh.hists[key]; ok {
		return h, nil
	}
	ref := e.refShape(dir, typ)
	var h StructHistory
	prev := ref
	for i, t := range sh.tags {
		fs, file, ok := sh.structAt(i, dir, typ)
		if !ok {
			break
		}
		shape := shapeOf(fs)
		if prev != nil && !overlaps(shape, prev) {
			h.Break = t.Name
			break
		}
		h.Releases = append(h.Releases, ReleaseStruct{Tag: t.Name, File: file, fields: fs})
		prev = shape
	}
	sh.hists[key] = h
	return h, nil
}

// loadStructs reads the release trees of the directories (once per run
// and directory).
func (e *History) loadStructs(dirs []string) (*structHistory, error) {
	rel, prob := e.Release()
	if prob != "" {
		return nil, fmt.Errorf("%s", prob)
	}
	if e.structs == nil {
		e.structs = &structHistory{tags: rel.All, trees: map[string][]string{}, files: map[string][]treeFile{},
			blobs: map[string]fileStructs{}, hists: map[string]StructHistory{},
			cache: e.cache()}
	}
	if err := e.structs.load(e.in.Repo, dirs); err != nil {
		return nil, err
	}
	return e.structs, nil
}

// refShape is the identity shape of struct typ of package directory dir
// at base, or at head when base has none (nil when neither has it).
func (e *History) refShape(dir, typ string) map[shapeKey]bool {
	for _, m := range []*model.Model{e.in.BaseModel, e.in.HeadModel} {
		if m == nil {
			continue
		}
		for _, g := range m.Groups {
			for _, p := range g.Packages() {
				if p.Dir == dir {
					if t := p.Type(typ); t != nil {
						return modelShape(t)
					}
				}
			}
		}
	}
	return nil
}

// structAt returns the fields of struct typ in dir at tag i.
func (sh *structHistory) structAt(i int, dir, typ string) ([]relField, string, bool) {
	tree := sh.trees[dir][i]
	if tree == "" {
		return nil, "", false
	}
	for _, f := range sh.files[tree] {
		if fs, ok := sh.blobs[f.oid][typ]; ok {
			return fs, dir + "/" + f.name, true
		}
	}
	return nil, "", false
}

// load reads the trees of the directories not read yet at every release
// tag, and the files of those trees not judged yet.
func (sh *structHistory) load(repo *git.Repo, dirs []string) error {
	var todo []string
	for _, d := range dirs {
		if _, ok := sh.trees[d]; !ok {
			todo = append(todo, d)
		}
	}
	sort.Strings(todo)
	if len(todo) == 0 {
		return nil
	}
	for _, d := range todo {
		sh.trees[d] = make([]string, len(sh.tags))
	}
	if len(sh.tags) == 0 {
		return nil
	}
	objects, err := repo.NewObjectReader()
	if err != nil {
		return err
	}
	defer objects.Close()

	// 1. Each (tag, dir) to its tree.
	var names []string
	for _, t := range sh.tags {
		for _, d := range todo {
			names = append(names, t.Commit+":"+d)
		}
	}
	trees, err := objects.Get(names)
	if err != nil {
		return fmt.Errorf("reading release trees: %w", err)
	}

	// 2. The Go files of every new tree; cached blobs are judged.
	var toRead []string
	claimed := map[string]bool{}
	for k, o := range trees {
		if o.Missing || o.Type != "tree" {
			continue
		}
		sh.trees[todo[k%len(todo)]][k/len(todo)] = o.OID
		if _, ok := sh.files[o.OID]; ok {
			continue
		}
		entries, err := git.ParseTree(o.Data, len(o.OID)/2)
		if err != nil {
			return fmt.Errorf("tree %s: %w", o.OID, err)
		}
		var fs []treeFile
		for _, en := range entries {
			if (en.Mode != "100644" && en.Mode != "100755") || !scan.Scannable(en.Name) {
				continue
			}
			fs = append(fs, treeFile{name: en.Name, oid: en.OID})
			if _, ok := sh.blobs[en.OID]; ok || claimed[en.OID] {
				continue
			}
			if st, ok := sh.cache.get(en.OID); ok {
				sh.blobs[en.OID] = st
				continue
			}
			claimed[en.OID] = true
			toRead = append(toRead, en.OID)
		}
		sh.files[o.OID] = fs
	}

	// 3. Read and parse the other blobs, in parallel.
	if len(toRead) == 0 {
		return nil
	}
	objs, err := objects.Get(toRead)
	if err != nil {
		return fmt.Errorf("reading release files: %w", err)
	}
	sh.reads += len(toRead)
	parsed, err := par.Map(len(objs), func(i int) (fileStructs, error) {
		if objs[i].Missing {
			return nil, nil
		}
		return parseStructs(objs[i].Data), nil
	})
	if err != nil {
		return err
	}
	for i, b := range toRead {
		sh.blobs[b] = parsed[i]
		if !objs[i].Missing {
			sh.cache.put(b, parsed[i])
		}
	}
	sh.cache.trim()
	return nil
}

// Holder is a field that carried a number at a release.
type Holder struct {
	Tag   string
	Field string
}

// ProtoNumbers is the protobuf-number history of some structs.
type ProtoNumbers struct {
	// Tags are the release tags consulted, newest first.
	Tags []string
	// byStruct maps dir -> type -> number -> holders (newest tag first).
	byStruct map[string]map[string]map[int][]Holder
	breaks   map[string]map[string]string
}

// Holders returns the fields that carried number n in struct typ of
// package directory dir at a release tag, newest first.
func (h *ProtoNumbers) Holders(dir, typ string, n int) []Holder {
	return h.byStruct[dir][typ][n]
}

// Numbers returns every number struct typ of dir ever used at a release.
func (h *ProtoNumbers) Numbers(dir, typ string) []int {
	var out []int
	for n := range h.byStruct[dir][typ] {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// Break names the newest release at which struct typ of dir was a
// different struct of the same name ("" when none): its numbers are not
// in the history.
func (h *ProtoNumbers) Break(dir, typ string) string { return h.breaks[dir][typ] }

// ProtoHistory returns the protobuf-number history of the given structs
// (package directory -> type names) over Release.All: every release up to
// the release before head, each struct back to its identity break. It
// runs once per History; later calls return the first result.
func (e *History) ProtoHistory(structs map[string][]string) (*ProtoNumbers, error) {
	if e.histDone {
		return e.hist, e.histErr
	}
	e.histDone = true
	e.hist, e.histErr = e.protoHistory(structs)
	return e.hist, e.histErr
}

func (e *History) protoHistory(structs map[string][]string) (*ProtoNumbers, error) {
	rel, prob := e.Release()
	if prob != "" {
		return nil, fmt.Errorf("%s", prob)
	}
	h := &ProtoNumbers{byStruct: map[string]map[string]map[int][]Holder{}, breaks: map[string]map[string]string{}}
	for _, t := range rel.All {
		h.Tags = append(h.Tags, t.Name)
	}
	dirs := make([]string, 0, len(structs))
	for d := range structs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if _, err := e.loadStructs(dirs); err != nil { // one batch for every directory
		return nil, err
	}
	for _, d := range dirs {
		for _, typ := range structs[d] {
			sh, err := e.StructAt(d, typ)
			if err != nil {
				return nil, err
			}
			if sh.Break != "" {
				if h.breaks[d] == nil {
					h.breaks[d] = map[string]string{}
				}
				h.breaks[d][typ] = sh.Break
			}
			for _, rs := range sh.Releases {
				for _, f := range rs.fields {
					if f.Number <= 0 {
						continue
					}
					if h.byStruct[d] == nil {
						h.byStruct[d] = map[string]map[int][]Holder{}
					}
					if h.byStruct[d][typ] == nil {
						h.byStruct[d][typ] = map[int][]Holder{}
					}
					h.byStruct[d][typ][f.Number] = append(h.byStruct[d][typ][f.Number], Holder{Tag: rs.Tag, Field: f.Name})
				}
			}
		}
	}
	return h, nil
}

// LastRelease returns the field a removed field was at the newest
// release that had it, among the releases from the release before head
// down to the release before base: for a pull request that is the release
// before base; for a comparison that spans releases, the last release
// that shipped the field. ok is false when none of them had it: the field
// was never released (added and removed between two releases).
func (e *History) LastRelease(fd *model.FieldDiff) (ReleaseField, bool, error) {
	rel, prob := e.Release()
	if prob != "" {
		return ReleaseField{}, false, fmt.Errorf("%s", prob)
	}
	if fd.Base == nil || fd.Type.Base == nil || fd.Type.Pkg.Base == nil {
		return ReleaseField{}, false, nil
	}
	sh, err := e.StructAt(fd.Type.Pkg.Base.Dir, fd.Type.Base.Name)
	if err != nil {
		return ReleaseField{}, false, err
	}
	consider := map[string]bool{rel.Newest.Name: true}
	for _, t := range rel.Spanned {
		consider[t.Name] = true
	}
	for _, rs := range sh.Releases {
		if !consider[rs.Tag] {
			continue
		}
		if f, ok := rs.Field(fd.Base.Name); ok {
			return f, true, nil
		}
	}
	return ReleaseField{}, false, nil
}

var deprecatedLine = regexp.MustCompile(`(?i)^\s*deprecated:`)

// parseStructs parses one Go file and returns its struct types' fields.
// A file that does not parse contributes nothing.
func parseStructs(src []byte) fileStructs {
	if !bytes.Contains(src, []byte("struct")) {
		return fileStructs{}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return fileStructs{}
	}
	out := fileStructs{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || ts.Assign.IsValid() {
				continue
			}
			fields := []relField{}
			for _, fld := range st.Fields.List {
				fields = append(fields, relFields(fset, fld)...)
			}
			out[ts.Name.Name] = fields
		}
	}
	return out
}

// relFields describes one field declaration (one entry per name).
func relFields(fset *token.FileSet, fld *ast.Field) []relField {
	var tag reflect.StructTag
	if fld.Tag != nil {
		if s, err := strconv.Unquote(fld.Tag.Value); err == nil {
			tag = reflect.StructTag(s)
		}
	}
	number := 0
	if pt, ok, err := protobuf.FromStructTag(string(tag)); ok && err == nil && pt != nil {
		number = pt.Number
	}
	deprecated := false
	if fld.Doc != nil {
		for _, c := range fld.Doc.List {
			for _, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*"), "*/"), "\n") {
				if deprecatedLine.MatchString(strings.TrimPrefix(strings.TrimSpace(l), "* ")) {
					deprecated = true
				}
			}
		}
	}
	jsonName, hasJSON := tag.Lookup("json")
	jsonName, _, _ = strings.Cut(jsonName, ",")
	wire := func(goName string, embedded bool) string {
		switch {
		case hasJSON && jsonName != "":
			return jsonName
		case embedded:
			return ""
		}
		return goName
	}
	if len(fld.Names) == 0 {
		name := embeddedName(fld.Type)
		p := fset.Position(fld.Type.Pos())
		return []relField{{Name: name, JSON: wire(name, true), Number: number, Deprecated: deprecated, Line: p.Line, Col: p.Column}}
	}
	var out []relField
	for _, n := range fld.Names {
		p := fset.Position(n.Pos())
		out = append(out, relField{Name: n.Name, JSON: wire(n.Name, false), Number: number, Deprecated: deprecated,
			Line: p.Line, Col: p.Column})
	}
	return out
}

func embeddedName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return ""
}
