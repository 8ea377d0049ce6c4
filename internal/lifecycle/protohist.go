package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/scan"
)

// The struct history answers "which fields did struct T of package
// directory D have at each release" without scanning whole revisions:
//
//  1. one `git cat-file --batch` process resolves "<tag commit>:<dir>" for
//     every release tag (Release.All) and package directory asked for,
//     straight to the directory's tree object (a struct is followed by
//     package directory and type name, so moving a type between files
//     does not matter); the trees found, and the Go files of each, are
//     kept in a memo entry of the on-disk cache keyed by the directory
//     and the tags' commits (cache.go), so a later run with the same
//     releases reads no tree;
//  2. each distinct tree is judged once per struct: most directories are
//     the same from one release to the next;
//  3. to judge a tree, its Go files (blobs) are read, each once, and
//     searched in parallel for the struct's declaration, which alone is
//     parsed (see structdecl.go): each field's Go name, json name,
//     protobuf number, position and whether its doc comment has a
//     "Deprecated:" paragraph. A package declares a type once, so the
//     file that declared it in one release is read first in the others;
//     the other files only where it is not there. What a file says
//     about the structs asked of it is kept in the on-disk cache, keyed
//     by blob id (content-addressed, so an entry never goes stale; see
//     cache.go): a later run reads neither the file nor its declaration.
//
// A struct's history runs from the newest release back and stops at the
// first release that does not have the struct in that directory, and at
// an identity break: a release whose struct shares no field (json name
// and protobuf number) with the struct of the next newer release (or, for
// the newest, with the struct at base) is a different struct that had
// the same name, e.g. a nested type renamed while a new kind took its
// name. Nothing from there on counts.

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

// sameFields reports whether a and b are one slice (not merely equal
// fields): nil is none.
func sameFields(a, b []relField) bool {
	return a != nil && b != nil && len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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
	tags   []git.Tag           // Release.All
	trees  map[string][]string // dir -> per tag: tree oid ("" absent)
	loaded map[string]int      // dir -> how many newest tags' trees are read
	// judgedTo: (dir, type) -> over how many newest tags it is judged
	judgedTo map[[2]string]int
	files    map[string][]treeFile // tree oid -> Go files
	decls    map[declKey]decl      // what a tree says about a type
	cache    *blobCache            // on-disk cache of decls
	reads    int                   // trees and blobs read from git (for tests)
	hists    map[histKey]StructHistory

	// readers are the cat-file processes of the release reads, each
	// started on its first read and stopped by History.Close.
	readers [releaseReaders]*git.ObjectReader
	closed  bool
	// blobs are release files read by FieldDecl, by "<commit>:<path>".
	blobs map[string][]byte
	// memo: the struct declarations read from the blobs, by their text.
	memo declMemo
}

// releaseReaders is how many cat-file processes the release reads use:
// a large batch is split between them, so that git inflates blobs on
// both cores (a cold protobuf history reads every distinct blob of a
// struct's file over every release).
const releaseReaders = 2

// splitAt is the smallest batch split between the readers (a variable
// for the tests).
var splitAt = 16

// objects returns the release reads' first cat-file process.
func (sh *structHistory) objects(repo *git.Repo) (*git.ObjectReader, error) {
	return sh.objectsAt(repo, 0)
}

// objectsAt returns release reader k, starting it on first use.
func (sh *structHistory) objectsAt(repo *git.Repo, k int) (*git.ObjectReader, error) {
	if sh.closed {
		return nil, errors.New("the release history is closed")
	}
	if sh.readers[k] == nil {
		o, err := repo.NewObjectReader()
		if err != nil {
			return nil, err
		}
		sh.readers[k] = o
	}
	return sh.readers[k], nil
}

// close stops the cat-file processes that were started.
func (sh *structHistory) close() {
	if sh == nil {
		return
	}
	sh.closed = true
	for k, o := range sh.readers {
		if o != nil {
			o.Close()
			sh.readers[k] = nil
		}
	}
}

type histKey struct {
	dir, typ string
	from, n  int // over the releases from..n-1, newest first
}

// declKey names a tree (or a blob) and a type.
type declKey struct{ oid, typ string }

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
	rel, prob := e.Release()
	if prob != "" {
		return StructHistory{}, fmt.Errorf("%s", prob)
	}
	e.structMu.Lock()
	defer e.structMu.Unlock()
	return e.structHistory(map[string][]string{dir: {typ}}, dir, typ, 0, len(rel.All))
}

// structHistory loads structs over the n newest releases and returns the
// history of one of them, from release from on (0 is the newest).
func (e *History) structHistory(structs map[string][]string, dir, typ string, from, n int) (StructHistory, error) {
	sh, err := e.loadStructs(structs, n)
	if err != nil {
		return StructHistory{}, err
	}
	key := histKey{dir, typ, from, n}
	if h, ok := sh.hists[key]; ok {
		return h, nil
	}
	ref := e.refShape(dir, typ)
	var h StructHistory
	prev := ref
	var prevFields []relField // the fields prev is the shape of (nil: ref's)
	for i := from; i < n; i++ {
		t := sh.tags[i]
		fs, file, ok := sh.structAt(i, dir, typ)
		if !ok {
			break
		}
		// Releases that kept the file keep its declaration: the same
		// fields, the same shape.
		shape := prev
		if !sameFields(fs, prevFields) {
			shape = shapeOf(fs)
		}
		if prev != nil && !overlaps(shape, prev) {
			h.Break = t.Name
			break
		}
		h.Releases = append(h.Releases, ReleaseStruct{Tag: t.Name, File: file, fields: fs})
		prev, prevFields = shape, fs
	}
	sh.hists[key] = h
	return h, nil
}

// loadStructs reads what the trees of the n newest releases of each
// directory say about the given structs (dir -> type names), once per
// run, tree and struct.
func (e *History) loadStructs(structs map[string][]string, n int) (*structHistory, error) {
	rel, prob := e.release()
	if prob != "" {
		return nil, fmt.Errorf("%s", prob)
	}
	if e.structs == nil {
		e.structs = &structHistory{tags: rel.All, trees: map[string][]string{}, loaded: map[string]int{}, judgedTo: map[[2]string]int{},
			files: map[string][]treeFile{}, decls: map[declKey]decl{}, hists: map[histKey]StructHistory{}, cache: e.cache()}
	}
	if err := e.structs.load(e.in.Repo, structs, min(n, len(rel.All))); err != nil {
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
	if d := sh.decls[declKey{tree, typ}]; d.Found {
		return d.Fields, dir + "/" + d.File, true
	}
	return nil, "", false
}

// load reads the directories' trees at the n newest release tags (those
// not read yet), and judges the files of those trees for the types not
// judged yet.
func (sh *structHistory) load(repo *git.Repo, structs map[string][]string, n int) error {
	dirs := make([]string, 0, len(structs))
	for d := range structs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var todo []span
	for _, d := range dirs {
		if sh.trees[d] == nil {
			sh.trees[d] = make([]string, len(sh.tags))
		}
		if sh.loaded[d] < n {
			todo = append(todo, span{d, sh.loaded[d], n})
			sh.loaded[d] = n
		}
	}
	if n == 0 {
		return nil
	}
	reader := func(k int) (*git.ObjectReader, error) { return sh.objectsAt(repo, k) }

	// 1. Each new (tag, dir) to its tree, and the Go files of new trees:
	// from the memo (a commit's directory and a tree never change), else
	// from git.
	if len(todo) > 0 {
		if err := sh.readTrees(reader, todo); err != nil {
			return err
		}
	}

	// 2. The (tree, type) pairs to judge, newest release first, in
	// windows of growing size: a struct's history ends at the first
	// release without it, so the trees of older releases are judged only
	// while the struct is still there. Judgements come from memory, the
	// cache, or the tree's files.
	type pair struct {
		dir, typ string
		pos      int // the newest release not known to have the struct
		done     bool
	}
	var pairs []*pair
	for _, d := range dirs {
		for _, typ := range structs[d] {
			if k := [2]string{d, typ}; sh.judgedTo[k] < n {
				sh.judgedTo[k] = n // set before judging: a failure ends the run
				pairs = append(pairs, &pair{dir: d, typ: typ})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	decided := func(tree, typ string) (decl, bool) {
		k := declKey{tree, typ}
		dc, ok := sh.decls[k]
		return dc, ok
	}
	known := map[[2]string]string{} // (dir, type) -> a file that declared it
	for window := 4; ; window *= 4 {
		var jobs []job
		queued := map[declKey]bool{}
		for _, p := range pairs {
			taken := 0
			for i := p.pos; i < n && !p.done && taken < window; i++ {
				tree := sh.trees[p.dir][i]
				if tree == "" {
					p.done = i == p.pos
					break
				}
				dc, ok := decided(tree, p.typ)
				switch {
				case ok && !dc.Found:
					p.done = i == p.pos
				case ok:
					if known[[2]string{p.dir, p.typ}] == "" {
						known[[2]string{p.dir, p.typ}] = dc.File
					}
					if i == p.pos {
						p.pos++
					}
					continue
				case !queued[declKey{tree, p.typ}]:
					queued[declKey{tree, p.typ}] = true
					jobs = append(jobs, job{p.dir, tree, p.typ, sh.files[tree]})
				}
				if ok && !dc.Found {
					break
				}
				taken++
			}
		}
		if len(jobs) == 0 {
			break
		}
		if err := sh.judge(reader, jobs, known); err != nil {
			return err
		}
	}
	return nil
}

// span is a directory's trees to read at tags from..to-1.
type span struct {
	dir      string
	from, to int
}

// get reads release objects (what names them in errors), counting them.
func (sh *structHistory) get(reader func(k int) (*git.ObjectReader, error), names []string, what string) ([]git.Object, error) {
	out := make([]git.Object, len(names))
	if err := sh.each(reader, names, what, func(i int, obj git.Object) { out[i] = obj }); err != nil {
		return nil, err
	}
	return out, nil
}

// each reads release objects and hands each to fn as it arrives
// (ObjectReader.Each). A batch of splitAt names or more is split between
// the release readers, which read their parts at once: fn must be safe
// for concurrent use (each index comes once).
func (sh *structHistory) each(reader func(k int) (*git.ObjectReader, error), names []string, what string, fn func(i int, obj git.Object)) error {
	parts := 1
	if len(names) >= splitAt {
		parts = releaseReaders
	}
	readers := make([]*git.ObjectReader, parts)
	for k := range readers {
		o, err := reader(k)
		if err != nil {
			return err
		}
		readers[k] = o
	}
	size := (len(names) + parts - 1) / parts
	err := par.Do(parts, func(k int) error {
		lo, hi := k*size, min(len(names), (k+1)*size)
		return readers[k].Each(names[lo:hi], func(i int, obj git.Object) { fn(lo+i, obj) })
	})
	if err != nil {
		return fmt.Errorf("reading release %s: %w", what, err)
	}
	sh.reads += len(names)
	return nil
}

// memoRelTrees is the kind of the memo entries (see cache.go) of a
// directory at some release commits: the tree per commit and the Go
// files of each tree (a commit's directory and a tree never change).
const memoRelTrees = "release-trees"

// readTrees finds the tree of each span's directory at each of its tags
// and the Go files of every tree found: from the memo, else from git.
func (sh *structHistory) readTrees(reader func(k int) (*git.ObjectReader, error), todo []span) error {
	var names []string // <commit>:<dir> to read from git
	type at struct {
		dir string
		tag int
	}
	var ats []at
	var fresh []span // spans read from git, to memoise
	for _, sp := range todo {
		if sh.memoTrees(sp) {
			continue
		}
		fresh = append(fresh, sp)
		for i := sp.from; i < sp.to; i++ {
			names = append(names, sh.tags[i].Commit+":"+sp.dir)
			ats = append(ats, at{sp.dir, i})
		}
	}
	if len(names) == 0 {
		return nil
	}
	trees, err := sh.get(reader, names, "trees")
	if err != nil {
		return err
	}
	for k, o := range trees {
		if o.Missing || o.Type != "tree" {
			continue
		}
		sh.trees[ats[k].dir][ats[k].tag] = o.OID
		if _, ok := sh.files[o.OID]; ok {
			continue
		}
		entries, err := git.ParseTree(o.Data, len(o.OID)/2)
		if err != nil {
			return fmt.Errorf("tree %s: %w", o.OID, err)
		}
		fs := []treeFile{}
		for _, en := range entries {
			if (en.Mode == "100644" || en.Mode == "100755") && scan.Scannable(en.Name) {
				fs = append(fs, treeFile{name: en.Name, oid: en.OID})
			}
		}
		sh.files[o.OID] = fs
	}
	for _, sp := range fresh {
		key, val := sh.encodeTrees(sp)
		sh.cache.Put(memoRelTrees, key, val)
	}
	return nil
}

// treesKey names a span: its directory and its tags' commits.
func (sh *structHistory) treesKey(sp span) string {
	var key strings.Builder
	key.WriteString(sp.dir + "\n")
	for i := sp.from; i < sp.to; i++ {
		key.WriteString(sh.tags[i].Commit + "\n")
	}
	return key.String()
}

// encodeTrees renders what a span's trees are: a line per tag with its
// tree id ("-" for none), then each file of those trees once ("f", id,
// Go-quoted name), then each tree once ("t", id, the numbers of its
// files in that list).
func (sh *structHistory) encodeTrees(sp span) (key string, val []byte) {
	var b strings.Builder
	seenTree := map[string]bool{}
	fileNum := map[treeFile]int{}
	var trees []string
	var files []treeFile
	for _, t := range sh.trees[sp.dir][sp.from:sp.to] {
		if t == "" {
			b.WriteString("-\n")
			continue
		}
		b.WriteString(t + "\n")
		if seenTree[t] {
			continue
		}
		seenTree[t] = true
		trees = append(trees, t)
		for _, f := range sh.files[t] {
			if _, ok := fileNum[f]; !ok {
				fileNum[f] = len(files)
				files = append(files, f)
			}
		}
	}
	for _, f := range files {
		b.WriteString("f " + f.oid + " " + strconv.Quote(f.name) + "\n")
	}
	for _, t := range trees {
		b.WriteString("t " + t)
		for _, f := range sh.files[t] {
			b.WriteString(" " + strconv.Itoa(fileNum[f]))
		}
		b.WriteString("\n")
	}
	return sh.treesKey(sp), []byte(b.String())
}

// memoTrees fills a span's trees and their files from the memo; false
// (nothing filled) on a miss or any flaw.
func (sh *structHistory) memoTrees(sp span) bool {
	val := sh.cache.Get(memoRelTrees, sh.treesKey(sp))
	if val == nil {
		return false
	}
	lines := strings.Split(string(val), "\n")
	n := sp.to - sp.from
	if len(lines) < n+1 || lines[len(lines)-1] != "" {
		return false
	}
	lines = lines[:len(lines)-1]
	ids := make([]string, n)
	need := map[string]bool{}
	for i, l := range lines[:n] {
		if l == "-" {
			continue
		}
		if !validOID(l) {
			return false
		}
		ids[i], need[l] = l, true
	}
	var files []treeFile
	fileList := map[string][]treeFile{}
	for _, l := range lines[n:] {
		kind, rest, _ := strings.Cut(l, " ")
		switch kind {
		case "f":
			oid, q, _ := strings.Cut(rest, " ")
			name, err := strconv.Unquote(q)
			if err != nil || !validOID(oid) || name == "" {
				return false
			}
			files = append(files, treeFile{name: name, oid: oid})
		case "t":
			f := strings.Split(rest, " ")
			if !need[f[0]] || fileList[f[0]] != nil {
				return false
			}
			fs := make([]treeFile, 0, len(f)-1)
			for _, num := range f[1:] {
				k, err := strconv.Atoi(num)
				if err != nil || k < 0 || k >= len(files) {
					return false
				}
				fs = append(fs, files[k])
			}
			fileList[f[0]] = fs
		default:
			return false
		}
	}
	if len(fileList) != len(need) {
		return false
	}
	copy(sh.trees[sp.dir][sp.from:sp.to], ids)
	for t, fs := range fileList {
		if _, ok := sh.files[t]; !ok {
			sh.files[t] = fs
		}
	}
	return true
}

type job struct {
	dir, tree, typ string
	files          []treeFile
}

// judge decides jobs from their files, reading each blob once, in
// rounds: a package declares a type once, so where a struct was found in
// one release's directory is where to look first in the others. Round 1
// reads, for each (dir, type) nothing is known about, all files of its
// first tree; round 2 reads, in the other trees, the file of that name;
// round 3 reads all files of the trees where that file did not declare
// the struct (it moved, or did not exist yet).
func (sh *structHistory) judge(reader func(k int) (*git.ObjectReader, error), jobs []job, known map[[2]string]string) error {
	byBlob := map[declKey]decl{}
	read := func(pick func(j job) []treeFile) error {
		want := map[string][]string{} // blob -> types to judge
		wanted := map[declKey]bool{}
		var toRead []string
		for _, j := range jobs {
			for _, f := range pick(j) {
				k := declKey{f.oid, j.typ}
				if _, ok := byBlob[k]; ok || wanted[k] {
					continue
				}
				wanted[k] = true
				if want[f.oid] == nil {
					toRead = append(toRead, f.oid)
				}
				want[f.oid] = append(want[f.oid], j.typ)
			}
		}
		if len(toRead) == 0 {
			return nil
		}
		// What the cache knows, per blob; the blobs with types it does
		// not know are read.
		cached := map[string]map[string]decl{}
		reading := toRead[:0]
		for _, b := range toRead {
			m := sh.cache.get(b)
			var missing []string
			for _, typ := range want[b] {
				if d, ok := m[typ]; ok {
					byBlob[declKey{b, typ}] = d
				} else {
					missing = append(missing, typ)
				}
			}
			if len(missing) > 0 {
				cached[b], want[b] = m, missing
				reading = append(reading, b)
			}
		}
		toRead = reading
		if len(toRead) == 0 {
			return nil
		}
		// Each blob is judged as it arrives, while git reads the next.
		judged := make([][]decl, len(toRead))
		pool := par.NewPool()
		err := sh.each(reader, toRead, "files", func(i int, obj git.Object) {
			pool.Go(func() error {
				b, ts := toRead[i], want[toRead[i]]
				if obj.Missing {
					judged[i] = make([]decl, len(ts))
					return nil
				}
				ds := findStructs(obj.Data, ts, &sh.memo)
				// The entry: what it held, and what was judged now.
				entry := make(map[string]decl, len(cached[b])+len(ts))
				for typ, d := range cached[b] {
					entry[typ] = d
				}
				for k, typ := range ts {
					if validTypeName(typ) {
						entry[typ] = ds[k]
					}
				}
				sh.cache.put(b, entry)
				judged[i] = ds
				return nil
			})
		})
		if werr := pool.Wait(); err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
		for i, b := range toRead {
			for k, typ := range want[b] {
				byBlob[declKey{b, typ}] = judged[i][k]
			}
		}
		return nil
	}
	// found returns the decl of the file of j's tree that declares j's
	// struct, as far as the blobs judged so far tell.
	found := func(j job) (decl, bool) {
		for _, f := range j.files {
			if bd := byBlob[declKey{f.oid, j.typ}]; bd.Found {
				bd.File = f.name
				return bd, true
			}
		}
		return decl{}, false
	}
	firsts := map[[2]string]bool{}
	if err := read(func(j job) []treeFile { // round 1
		key := [2]string{j.dir, j.typ}
		if known[key] != "" || firsts[key] {
			return nil
		}
		firsts[key] = true
		return j.files
	}); err != nil {
		return err
	}
	for _, j := range jobs {
		if d, ok := found(j); ok && known[[2]string{j.dir, j.typ}] == "" {
			known[[2]string{j.dir, j.typ}] = d.File
		}
	}
	if err := read(func(j job) []treeFile { // round 2
		for _, f := range j.files {
			if f.name == known[[2]string{j.dir, j.typ}] {
				return []treeFile{f}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := read(func(j job) []treeFile { // round 3
		if _, ok := found(j); ok {
			return nil
		}
		return j.files
	}); err != nil {
		return err
	}
	for _, j := range jobs {
		d, _ := found(j)
		sh.decls[declKey{j.tree, j.typ}] = d
	}
	return nil
}

// Holder is a field that carried a number at a release.
type Holder struct {
	Tag   string
	Field string // Go name
	JSON  string // wire name ("" inline or skipped)
	// Wire is the protobuf wire type and label, e.g. "bytes,rep".
	Wire string
	// Release is the position of Tag in ProtoNumbers.Tags (0 newest).
	Release int
}

// Same reports whether the holder is the field named name with wire name
// json: the same Go name, or the same wire name (a field renamed in Go
// only, or on the wire only, keeps its number and its meaning).
func (h Holder) Same(name, json string) bool {
	return h.Field == name || h.JSON != "" && h.JSON == json
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
// runs once per History and set of structs (the release trees and files
// behind it are read once for every set).
func (e *History) ProtoHistory(structs map[string][]string) (*ProtoNumbers, error) {
	e.asked.Store(true)
	r := e.protoHistoryOnce(structs)
	if r.panic != nil {
		panic(r.panic)
	}
	return r.numbers, r.err
}

// ProtoHistoryAhead starts ProtoHistory(structs) in the background: the
// rule that asks for it later finds it done or waits for it (a panic is
// kept with the result, see protoResult). It is not a use of the release
// (Used). Close waits for it.
func (e *History) ProtoHistoryAhead(structs map[string][]string) {
	e.ahead.Go(func() { e.protoHistoryOnce(structs) })
}

// protoResult is ProtoHistory's answer for one set of structs: a panic
// while computing it is kept for ProtoHistory to raise again (the struct
// history may be half read).
type protoResult struct {
	numbers *ProtoNumbers
	err     error
	panic   any
}

func (e *History) protoHistoryOnce(structs map[string][]string) (r protoResult) {
	e.structMu.Lock()
	defer e.structMu.Unlock()
	key := structsKey(structs)
	if r, ok := e.hists[key]; ok {
		return r
	}
	defer func() {
		if p := recover(); p != nil {
			r = protoResult{panic: p}
		}
		if e.hists == nil {
			e.hists = map[string]protoResult{}
		}
		e.hists[key] = r
	}()
	r.numbers, r.err = e.protoHistory(structs)
	return r
}

// structsKey names a set of structs (dir -> type names) whatever the
// order of its lists.
func structsKey(structs map[string][]string) string {
	var keys []string
	for d, typs := range structs {
		for _, t := range typs {
			keys = append(keys, d+"\x00"+t)
		}
	}
	sort.Strings(keys)
	return strings.Join(slices.Compact(keys), "\x00\x00")
}

func (e *History) protoHistory(structs map[string][]string) (*ProtoNumbers, error) {
	rel, prob := e.release()
	if prob != "" {
		return nil, fmt.Errorf("%s", prob)
	}
	h := &ProtoNumbers{byStruct: map[string]map[string]map[int][]Holder{}, breaks: map[string]map[string]string{}}
	index := map[string]int{}
	for i, t := range rel.All {
		h.Tags = append(h.Tags, t.Name)
		index[t.Name] = i
	}
	dirs := make([]string, 0, len(structs))
	for d := range structs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	// What the memo answers (protoMemo), the others read in one batch.
	memo := e.protoMemo(rel.All)
	known := map[[2]string]StructHistory{}
	keys := map[[2]string]string{}
	missing := map[string][]string{}
	for _, d := range dirs {
		for _, typ := range structs[d] {
			if sh, key, ok := memo.get(d, typ); ok {
				known[[2]string{d, typ}] = sh
			} else {
				keys[[2]string{d, typ}] = key
				missing[d] = append(missing[d], typ)
			}
		}
	}
	if len(missing) > 0 {
		if _, err := e.loadStructs(missing, len(rel.All)); err != nil { // one batch for every struct
			return nil, err
		}
	}
	for _, d := range dirs {
		for _, typ := range structs[d] {
			sh, ok := known[[2]string{d, typ}]
			if !ok {
				var err error
				if sh, err = e.structHistory(missing, d, typ, 0, len(rel.All)); err != nil {
					return nil, err
				}
				memo.put(keys[[2]string{d, typ}], sh)
			}
			if sh.Break != "" {
				if h.breaks[d] == nil {
					h.breaks[d] = map[string]string{}
				}
				h.breaks[d][typ] = sh.Break
			}
			if len(sh.Releases) == 0 {
				continue
			}
			if h.byStruct[d] == nil {
				h.byStruct[d] = map[string]map[int][]Holder{}
			}
			numbers := h.byStruct[d][typ]
			if numbers == nil {
				numbers = map[int][]Holder{}
				h.byStruct[d][typ] = numbers
			}
			for _, rs := range sh.Releases {
				for _, f := range rs.fields {
					if f.Number <= 0 {
						continue
					}
					hs := numbers[f.Number]
					if hs == nil {
						// A number is usually held at most releases: one
						// allocation for all of them.
						hs = make([]Holder, 0, len(sh.Releases))
					}
					numbers[f.Number] = append(hs, Holder{Tag: rs.Tag, Field: f.Name, JSON: f.JSON, Wire: f.Wire, Release: index[rs.Tag]})
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
	fs, oks, err := e.LastReleases([]*model.FieldDiff{fd})
	if err != nil {
		return ReleaseField{}, false, err
	}
	return fs[0], oks[0], nil
}

// LastReleases is LastRelease for several fields, reading the release
// trees of all their structs in one batch.
func (e *History) LastReleases(fds []*model.FieldDiff) ([]ReleaseField, []bool, error) {
	rel, prob := e.Release()
	if prob != "" {
		return nil, nil, fmt.Errorf("%s", prob)
	}
	// The releases from head's back to base's are the newest of All.
	n := len(rel.All)
	for i, t := range rel.All {
		if t.Name == rel.Newest.Name {
			n = i + 1
			break
		}
	}
	structs := map[string][]string{}
	for _, fd := range fds {
		if fd.Base == nil || fd.Type.Base == nil || fd.Type.Pkg.Base == nil {
			continue
		}
		d, typ := fd.Type.Pkg.Base.Dir, fd.Type.Base.Name
		if !slices.Contains(structs[d], typ) {
			structs[d] = append(structs[d], typ)
		}
	}
	out := make([]ReleaseField, len(fds))
	oks := make([]bool, len(fds))
	e.structMu.Lock()
	defer e.structMu.Unlock()
	for i, fd := range fds {
		if fd.Base == nil || fd.Type.Base == nil || fd.Type.Pkg.Base == nil {
			continue
		}
		// A struct renamed in this change: the releases after base may
		// hold another struct under its old name (a new kind took it
		// over), so its history starts at the release before base.
		from := 0
		if fd.Type.Renamed {
			from = n - 1
		}
		sh, err := e.structHistory(structs, fd.Type.Pkg.Base.Dir, fd.Type.Base.Name, from, n)
		if err != nil {
			return nil, nil, err
		}
		out[i], oks[i] = lastWith(sh, fd.Base.Name)
		if oks[i] {
			continue
		}
		// A group that moved after the release before base (etcd-druid's
		// api/v1alpha1 became api/core/v1alpha1): that release has the
		// struct in the directory the version package had then.
		p, err := e.releaseTypes(fd.Type.Pkg)
		if err != nil {
			return nil, nil, err
		}
		if p == nil || p.Dir == fd.Type.Pkg.Base.Dir {
			continue
		}
		sh, err = e.structHistory(map[string][]string{p.Dir: {fd.Type.Base.Name}}, p.Dir, fd.Type.Base.Name, n-1, n)
		if err != nil {
			return nil, nil, err
		}
		out[i], oks[i] = lastWith(sh, fd.Base.Name)
	}
	return out, oks, nil
}

// lastWith returns the field of the newest release of a struct's history
// that has a field of that Go name.
func lastWith(sh StructHistory, name string) (ReleaseField, bool) {
	for _, rs := range sh.Releases {
		if f, ok := rs.Field(name); ok {
			return f, true
		}
	}
	return ReleaseField{}, false
}

// FieldDecl returns the declaration of field of struct typ of package
// directory dir at release tag: its type as written and its struct tag's
// value, what a tombstone of the field comments out.
func (e *History) FieldDecl(tag, dir, typ, field string) (typExpr, structTag string, err error) {
	rel, prob := e.Release()
	if prob != "" {
		return "", "", fmt.Errorf("%s", prob)
	}
	i := slices.IndexFunc(rel.All, func(t git.Tag) bool { return t.Name == tag })
	if i < 0 {
		return "", "", fmt.Errorf("release tag %s is not among the releases", tag)
	}
	e.structMu.Lock()
	defer e.structMu.Unlock()
	sh, err := e.loadStructs(map[string][]string{dir: {typ}}, i+1)
	if err != nil {
		return "", "", err
	}
	_, file, ok := sh.structAt(i, dir, typ)
	if !ok {
		return "", "", fmt.Errorf("no struct %s in %s at release %s", typ, dir, tag)
	}
	name := rel.All[i].Commit + ":" + file
	data, ok := sh.blobs[name]
	if !ok {
		o, err := sh.objects(e.in.Repo)
		if err != nil {
			return "", "", err
		}
		objs, err := o.Get([]string{name})
		if err != nil {
			return "", "", err
		}
		if objs[0].Missing || objs[0].Type != "blob" {
			return "", "", fmt.Errorf("%s is missing at release %s", file, tag)
		}
		if sh.blobs == nil {
			sh.blobs = map[string][]byte{}
		}
		data = objs[0].Data
		sh.blobs[name] = data
	}
	t, st, ok := fieldDecl(data, typ, field)
	if !ok {
		return "", "", fmt.Errorf("struct %s has no tagged field %s at release %s", typ, field, tag)
	}
	return t, st, nil
}

// FieldIntroduced returns the release that added the field fd had at
// base to its struct: walking the struct's history down from the release
// before base, the oldest release that still has the field by its Go
// name, when an older release has the struct without the field. ok is
// false when the release before base does not have the field, when no
// release history can be read, and when the struct's history ends (a new
// struct or version package: its fields may be copies of a sibling
// version's older ones) or breaks before a release without the field.
func (e *History) FieldIntroduced(fd *model.FieldDiff) (tag string, ok bool, err error) {
	if fd.Base == nil || fd.Type.Base == nil || fd.Type.Pkg.Base == nil {
		return "", false, nil
	}
	rel, prob := e.Release()
	if prob != "" {
		return "", false, nil
	}
	sh, err := e.StructAt(fd.Type.Pkg.Base.Dir, fd.Type.Base.Name)
	if err != nil {
		return "", false, err
	}
	below := false
	for _, rs := range sh.Releases {
		below = below || rs.Tag == rel.Newest.Name
		if !below {
			continue
		}
		if _, has := rs.Field(fd.Base.Name); !has {
			return tag, tag != "", nil
		}
		tag = rs.Tag
	}
	return "", false, nil
}
