// Package usage finds the usages of removed fields (rules.md "usage") in
// a revision of the repository: the first step of the two-step removal is
// done when none are left.
//
// A usage of a field is a reference to it — a selector x.Field whose
// receiver x is (through pointers and embedding) the field's struct type
// in any version package of the field's API group, internal version
// included, or a composite-literal key T{Field: ...} of that struct — in
// Go code of the repository that a component of the previous release
// runs. Not usages (see Exclusions): method calls, code of the API group
// itself (conversion, defaulting, helpers, validation), code excluded by
// the usages.exclude globs (by default tests, test helpers, mocks and
// fakes, generated code, and code that runs in or with the API server),
// the configured Shoot stage files, and generated files.
//
// Receivers are resolved with in-process type information (load.go):
// the packages that can contain usages are type-checked from the
// revision's sources, with the in-repository packages they import.
// Nothing is downloaded or executed. A receiver whose type stays
// unresolved (it comes from a package that is not loaded) is matched by
// path instead (paths.go) and reported as a possible usage.
package usage

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/glob"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
)

// Key names a removed field independently of the version package: a
// usage of v1alpha1.ShootSpec.Foo and of v1beta1.ShootSpec.Foo (and of the
// internal version's) is a usage of the same API field.
type Key struct {
	// Group is the API group's directory.
	Group string
	// Type and Field are the Go names of the struct and the field at base.
	Type, Field string
}

// KeyOf returns the key of a removed field.
func KeyOf(fd *model.FieldDiff) Key {
	f := fd.Base
	if f == nil {
		f = fd.Head
	}
	typ := fd.Type.Name()
	if fd.Type.Base != nil {
		typ = fd.Type.Base.Name
	}
	return Key{Group: fd.Type.Pkg.Group.Dir, Type: typ, Field: f.Name}
}

// Refs are the usages of one field at one revision, sorted by position.
type Refs struct {
	// Typed are references whose receiver was type-checked to the field's
	// struct.
	Typed []model.Pos
	// ByPath are references whose receiver type could not be resolved
	// and whose selector chain matches the field's path from its kind:
	// possible usages.
	ByPath []model.Pos
}

// Len is the number of references of both kinds.
func (r Refs) Len() int { return len(r.Typed) + len(r.ByPath) }

// Usages are the usages of the removed fields in one revision.
type Usages struct {
	// Rev names the revision (e.g. "base" or "release v1.2.0").
	Rev string
	// TypeChecked is true when the candidate packages were type-checked
	// in-process (false when type information is off by configuration).
	// Then Typed references are exact, and ByPath ones had receivers from
	// packages that are not loaded.
	TypeChecked bool
	// Packages is how many packages were type-checked.
	Packages int
	// Problems are things that went wrong while type-checking (a package
	// whose check failed); its references fall back to path matching.
	Problems []string

	byKey map[Key]*Refs
	paths map[Key][][]seg
}

// Of returns the usages of a removed field.
func (u *Usages) Of(fd *model.FieldDiff) Refs {
	if r := u.byKey[KeyOf(fd)]; r != nil {
		return *r
	}
	return Refs{}
}

// Path renders the Go field path by which possible usages of a removed
// field are matched (".Spec.DNS.Providers.Zones").
func (u *Usages) Path(fd *model.FieldDiff) string { return pathString(u.paths[KeyOf(fd)]) }

// Finder finds the usages of the removed fields of one comparison at the
// revisions of its release history, each revision once. Its methods are
// safe for concurrent use: Prefetch starts searches in the background and
// At waits for one under way.
type Finder struct {
	hist   *lifecycle.History
	fields []*model.FieldDiff

	mu       sync.Mutex
	memo     map[lifecycle.Rev]*usageMemo
	inFlight sync.WaitGroup

	files *shared
	// idx is what other Finders of the same revisions learnt (nil: none).
	idx *Index
	// q is the query, made once: the searches share it (and the
	// candidate files that refer to its groups).
	q func() (*query, error)
}

// shared is what the searches of one Finder share: a file whose blob is
// the same at two revisions (most files, between base and the release
// before it) is read, judged a candidate or not, and parsed once. The
// syntax trees are never changed after they are made, so two searches
// may type-check them at once.
type shared struct {
	fset *token.FileSet
	// reading is held by a search while it reads and parses files, so
	// that a search started alongside another reads what the other did
	// not (their type checks still run side by side).
	reading sync.Mutex
	mu      sync.Mutex
	cands   map[fileKey]*candFile // a nil value: not a candidate
	decls   map[fileKey]*declFile
	read    atomic.Int64 // files read (tests)
}

// fileKey is a file by path and content (blob id).
type fileKey struct{ path, oid string }

// declFile is a file a search loaded for its declarations.
type declFile struct {
	builds bool      // it builds on linux/amd64
	file   *ast.File // its declarations; nil when it does not parse
}

// keyOf returns the key of a file of snap; ok is false when the snapshot
// cannot tell the file's content without reading it (the working tree).
func keyOf(snap git.Snapshot, file string) (fileKey, bool) {
	if b, ok := snap.(git.BlobIDs); ok {
		if oid, ok := b.BlobID(file); ok {
			return fileKey{file, oid}, true
		}
	}
	return fileKey{}, false
}

type usageMemo struct {
	done chan struct{} // closed once res and err are set
	res  *Usages
	err  error
}

// Index holds what searches learn about a repository's files whatever
// fields they look for, so that the Finders of the parts of a large tree
// (judged one after the other, each with its own removed fields) read
// each file once: whether a path is excluded, and a file's imports.
type Index struct {
	mu       sync.Mutex
	excluded map[string]bool
	facts    map[fileKey]*fileFacts
}

// fileFacts are the facts of one file content that decide, with a query,
// whether the file may be a candidate.
type fileFacts struct {
	skip    bool     // generated, or its imports do not parse: never a candidate
	imports []string // its import paths
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{excluded: map[string]bool{}, facts: map[fileKey]*fileFacts{}}
}

// factsOf reads the facts of a file's content.
func factsOf(p string, src []byte) *fileFacts {
	if gencode.Header(src) {
		return &fileFacts{skip: true}
	}
	hdr, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return &fileFacts{skip: true}
	}
	ff := &fileFacts{}
	for _, imp := range hdr.Imports {
		if ip, err := strconv.Unquote(imp.Path.Value); err == nil {
			ff.imports = append(ff.imports, ip)
		}
	}
	return ff
}

// mayBe reports whether a file with these facts can be a candidate of q
// (candidate's tests that need no more than the facts).
func (ff *fileFacts) mayBe(p string, q *query) bool {
	if ff.skip {
		return false
	}
	for _, ip := range ff.imports {
		for _, g := range q.groups {
			if g.imports[ip] && !inGroup(p, g.dir) {
				return true
			}
		}
	}
	return false
}

// New prepares the usage search for the removed fields; nothing runs yet.
func New(h *lifecycle.History, removed []*model.FieldDiff) *Finder {
	return NewIn(nil, h, removed)
}

// NewIn is New with an index shared with other Finders of the same
// history (nil: none).
func NewIn(idx *Index, h *lifecycle.History, removed []*model.FieldDiff) *Finder {
	f := &Finder{hist: h, fields: removed, memo: map[lifecycle.Rev]*usageMemo{}, idx: idx,
		files: &shared{fset: token.NewFileSet(), cands: map[fileKey]*candFile{}, decls: map[fileKey]*declFile{}}}
	f.q = sync.OnceValues(func() (*query, error) { return f.makeQuery(removed) })
	return f
}

// Prefetch starts the searches at the revisions not searched yet, each in
// its own goroutine, when there are removed fields: the rules that ask
// for them later (At) find them done or wait for them. A search of a
// revision that cannot be opened (no release) ends with that error,
// which At returns. Close waits for them.
func (e *Finder) Prefetch(revs ...lifecycle.Rev) {
	if e == nil || len(e.fields) == 0 {
		return
	}
	for _, rev := range revs {
		m, fresh := e.entry(rev)
		if !fresh {
			continue
		}
		e.inFlight.Go(func() {
			defer close(m.done)
			defer func() {
				if p := recover(); p != nil {
					m.res, m.err = nil, &par.PanicError{In: "usage search at " + string(rev), Value: p, Stack: debug.Stack()}
				}
			}()
			m.res, m.err = e.search(rev, false)
		})
	}
}

// Close waits for the searches Prefetch started.
func (e *Finder) Close() {
	if e != nil {
		e.inFlight.Wait()
	}
}

// entry returns the memo entry of a revision; fresh is true when the
// caller created it and must compute it.
func (e *Finder) entry(rev lifecycle.Rev) (m *usageMemo, fresh bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m := e.memo[rev]; m != nil {
		return m, false
	}
	m = &usageMemo{done: make(chan struct{})}
	e.memo[rev] = m
	return m, true
}

// Groups returns the removed fields grouped by Key, in the order of their
// first field: the same field removed from several version packages is one
// group.
func Groups(fields []*model.FieldDiff) [][]*model.FieldDiff {
	var out [][]*model.FieldDiff
	at := map[Key]int{}
	for _, fd := range fields {
		k := KeyOf(fd)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], fd)
	}
	return out
}

// At returns the usages of the removed fields at a revision (base or the
// newest release before base).
func (e *Finder) At(rev lifecycle.Rev) (*Usages, error) {
	m, fresh := e.entry(rev)
	if !fresh {
		<-m.done
		if pe, ok := m.err.(*par.PanicError); ok {
			panic(pe) // a bug in the search is the asking rule's internal error, not a skipped rule
		}
		return m.res, m.err
	}
	defer close(m.done)
	m.res, m.err = e.search(rev, false)
	return m.res, m.err
}

func (e *Finder) snapshot(rev lifecycle.Rev, asked bool) (git.Snapshot, string, error) {
	if asked {
		return e.hist.Snapshot(rev)
	}
	return e.hist.SnapshotAhead(rev)
}

// search finds the usages at a revision. asked is true when a rule asks
// (the release history counts as used); a prefetch is not asking.
func (e *Finder) search(rev lifecycle.Rev, asked bool) (*Usages, error) {
	if rev != lifecycle.RevBase && e.hist.IsBase(rev) {
		// The same commit as base (a comparison from a release tag): the
		// same usages, under the revision's own name.
		if b, err := e.At(lifecycle.RevBase); err == nil {
			if _, label, err := e.snapshot(rev, asked); err == nil {
				u := *b
				u.Rev = label
				return &u, nil
			}
		}
	}
	return e.usagesIn(rev, asked)
}

// query is what one search looks for: every removed field of the change.
type query struct {
	groups  []*group
	names   *nameSet // the removed fields' names (all groups)
	paths   map[Key][][]seg
	exclude *exclusions
}

type group struct {
	dir     string
	imports map[string]bool // import paths of the group's packages
	byName  map[string][]Key
	names   [][]byte        // the distinct keys of byName
	types   map[string]bool // struct type names with removed fields
}

func (e *Finder) makeQuery(fields []*model.FieldDiff) (*query, error) {
	in := e.hist.Input()
	opts := e.hist.Options()
	ex, err := newExclusions(opts)
	if err != nil {
		return nil, err
	}
	q := &query{paths: map[Key][][]seg{}, exclude: ex}
	byDir := map[string]*group{}
	for _, fd := range fields {
		k := KeyOf(fd)
		g := byDir[k.Group]
		if g == nil {
			g = &group{dir: k.Group, imports: map[string]bool{}, byName: map[string][]Key{}, types: map[string]bool{}}
			for _, m := range []*model.Model{in.BaseModel, in.HeadModel} {
				if m == nil {
					continue
				}
				if mg := m.Group(k.Group); mg != nil {
					for _, p := range mg.Packages() {
						g.imports[p.ImportPath] = true
					}
				}
			}
			byDir[k.Group] = g
			q.groups = append(q.groups, g)
		}
		if len(g.byName[k.Field]) == 0 {
			g.names = append(g.names, []byte(k.Field))
		}
		if !containsKey(g.byName[k.Field], k) {
			g.byName[k.Field] = append(g.byName[k.Field], k)
		}
		g.types[k.Type] = true
		q.paths[k] = append(q.paths[k], kindPaths(fd.Type.Pkg.Base, k.Type, k.Field)...)
	}
	var names [][]byte
	for _, g := range q.groups {
		names = append(names, g.names...)
	}
	q.names = newNameSet(names) // a set: a name of two groups counts once
	return q, nil
}

func containsKey(ks []Key, k Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// inGroup reports whether file lies in the group directory or below it.
func inGroup(file, dir string) bool {
	return dir == "." || strings.HasPrefix(file, dir+"/")
}

// candFile is a file that may hold usages: it names a removed field and
// imports a package of the field's group (from outside that group).
type candFile struct {
	path    string
	src     []byte
	file    *ast.File // bodies that mention no name of interest dropped
	groups  []*group
	names   *nameSet        // the removed fields' names of those groups
	imports map[string]bool // local names of the file's imports
}

func (e *Finder) usagesIn(rev lifecycle.Rev, asked bool) (*Usages, error) {
	fields := e.fields
	typeInfo := e.hist.Options().TypeInfo != lifecycle.TypeInfoOff
	if len(fields) == 0 {
		return &Usages{Rev: string(rev), TypeChecked: typeInfo}, nil
	}
	snap, label, err := e.snapshot(rev, asked)
	if err != nil {
		return nil, err
	}
	q, err := e.q()
	if err != nil {
		return nil, err
	}
	res := &Usages{Rev: label, TypeChecked: typeInfo, byKey: map[Key]*Refs{}, paths: q.paths}

	// A commit's answer may be memoised (memo.go); the working tree's not.
	var key string
	if snap.Ref() != git.WorktreeRef {
		key = e.memoKey(snap.Commit(), q, typeInfo)
	}
	memo := e.hist.Memo()
	if key != "" {
		if data := memo.Get(memoKind, key); data != nil {
			got := &Usages{Rev: label, TypeChecked: typeInfo, byKey: map[Key]*Refs{}, paths: q.paths}
			if decodeAnswer(data, got) {
				return got, nil
			}
		}
	}
	if err := e.searchFiles(snap, q, typeInfo, res); err != nil {
		return nil, err
	}
	if key != "" {
		if data := encodeAnswer(res); data != nil {
			memo.Put(memoKind, key, data)
		}
	}
	return res, nil
}

// searchFiles searches the files of snap for q into res.
func (e *Finder) searchFiles(snap git.Snapshot, q *query, typeInfo bool, res *Usages) error {
	files := snap.Files()
	var paths []string
	for _, p := range files {
		if !strings.HasSuffix(p, ".go") || skippedDir(path.Dir(p)) || e.excluded(q, p) {
			continue
		}
		for _, g := range q.groups {
			if !inGroup(p, g.dir) {
				paths = append(paths, p)
				break
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	cands, srcs, err := e.candidates(snap, paths, q)
	if err != nil {
		return err
	}
	if len(cands) == 0 {
		return nil
	}
	fset := e.files.fset

	// Type information for the candidate packages.
	var units map[string]*unit
	if typeInfo {
		mods, err := readModules(snap, files)
		if err != nil {
			return err
		}
		parsed := map[string]*ast.File{}
		hot := map[string]*nameSet{}
		byDir := map[string][]string{}
		for _, c := range cands {
			parsed[c.path] = c.file
			hot[c.path] = c.names
			if !strings.HasSuffix(c.file.Name.Name, "_test") {
				byDir[path.Dir(c.path)] = append(byDir[path.Dir(c.path)], c.path)
			}
		}
		l := newLoader(snap, files, mods, e.files, parsed, func(file string, body []byte) bool {
			return hot[file].mentioned(body)
		})
		if units, err = l.load(byDir, srcs); err != nil {
			return err
		}
		res.Packages = l.checked
		res.Problems = l.problems
	}

	keys := fieldVars(q, units)
	refs, err := par.Map(len(cands), func(i int) ([]ref, error) {
		c := cands[i]
		var tc *typed
		if u := units[path.Dir(c.path)]; u != nil && u.checked && u.info != nil && containsFile(u.files, c.file) {
			tc = &typed{info: u.info, pkg: u.pkg}
		}
		return references(fset, c, tc, q, keys), nil
	})
	if err != nil {
		return err
	}
	for _, rs := range refs {
		for _, r := range rs {
			x := res.byKey[r.key]
			if x == nil {
				x = &Refs{}
				res.byKey[r.key] = x
			}
			if r.typed {
				x.Typed = append(x.Typed, r.pos)
			} else {
				x.ByPath = append(x.ByPath, r.pos)
			}
		}
	}
	for _, x := range res.byKey {
		x.Typed = sortDedup(x.Typed)
		x.ByPath = sortDedup(x.ByPath)
	}
	return nil
}

func containsFile(fs []*ast.File, f *ast.File) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// excluded reports whether the exclusions of q match p (remembered in
// the index, whose Finders share their options).
func (e *Finder) excluded(q *query, p string) bool {
	if e.idx == nil {
		return q.exclude.match(p)
	}
	e.idx.mu.Lock()
	x, ok := e.idx.excluded[p]
	e.idx.mu.Unlock()
	if !ok {
		x = q.exclude.match(p)
		e.idx.mu.Lock()
		e.idx.excluded[p] = x
		e.idx.mu.Unlock()
	}
	return x
}

// readBatch is how many files candidates reads at a time, and keepBytes
// how much of the files it read that are not candidates it keeps for the
// type checks (variables for the tests).
var (
	readBatch = 512
	keepBytes = 16 << 20
)

// candidates returns the candidate files among paths, and the contents
// of the candidates and of the other files read, as many of those as
// keepBytes holds: the files whose blob an earlier search of the Finder
// judged are not read again (a candidate's content comes from that
// search).
func (e *Finder) candidates(snap git.Snapshot, paths []string, q *query) ([]*candFile, map[string][]byte, error) {
	sh := e.files
	sh.reading.Lock()
	defer sh.reading.Unlock()
	var read []string
	var keys []*fileKey // of read; nil: the snapshot cannot tell
	var cands []*candFile
	sh.mu.Lock()
	for _, p := range paths {
		k, ok := keyOf(snap, p)
		if !ok {
			read, keys = append(read, p), append(keys, nil)
			continue
		}
		if c, seen := sh.cands[k]; !seen {
			if e.idx != nil && !e.idx.mayBe(k, q) {
				sh.cands[k] = nil
				continue
			}
			read, keys = append(read, p), append(keys, &k)
		} else if c != nil {
			cands = append(cands, c)
		}
	}
	sh.mu.Unlock()
	sh.read.Add(int64(len(read)))
	// In batches, so that a large repository's files are not all in
	// memory at once: of the files that are not candidates, the first
	// keepBytes are kept for the type checks (the other files of a
	// candidate's package come from them, or are read again).
	srcs := map[string][]byte{}
	kept := 0
	for start := 0; start < len(read); start += readBatch {
		end := min(start+readBatch, len(read))
		batch, bkeys := read[start:end], keys[start:end]
		got, err := snap.ReadFiles(batch)
		if err != nil {
			return nil, nil, err
		}
		found, err := par.Map(len(batch), func(i int) (*candFile, error) {
			return candidate(sh.fset, batch[i], got[batch[i]], q), nil
		})
		if err != nil {
			return nil, nil, err
		}
		if e.idx != nil {
			facts, _ := par.Map(len(batch), func(i int) (*fileFacts, error) {
				if bkeys[i] == nil {
					return nil, nil
				}
				return factsOf(batch[i], got[batch[i]]), nil
			})
			e.idx.mu.Lock()
			for i, ff := range facts {
				if ff != nil {
					e.idx.facts[*bkeys[i]] = ff
				}
			}
			e.idx.mu.Unlock()
		}
		sh.mu.Lock()
		for i, c := range found {
			if bkeys[i] != nil {
				sh.cands[*bkeys[i]] = c
			}
			if c != nil {
				cands = append(cands, c)
			} else if src := got[batch[i]]; kept+len(src) <= keepBytes {
				srcs[batch[i]] = src
				kept += len(src)
			}
		}
		sh.mu.Unlock()
	}
	for _, c := range cands {
		srcs[c.path] = c.src
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].path < cands[j].path })
	return cands, srcs, nil
}

// mayBe reports whether the file may be a candidate of q: true when the
// index does not know it yet.
func (x *Index) mayBe(k fileKey, q *query) bool {
	x.mu.Lock()
	ff := x.facts[k]
	x.mu.Unlock()
	return ff == nil || ff.mayBe(k.path, q)
}

// candidate parses a file when it may hold usages: it contains one of
// the names (a byte pre-filter before any parsing), is not generated, and
// imports a package of a group it is not part of.
func candidate(fset *token.FileSet, p string, src []byte, q *query) *candFile {
	if !q.names.mentioned(src) || gencode.Header(src) {
		return nil
	}
	// The imports first (cheap): only the names of the groups the file
	// imports count.
	hdr, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return nil // not our business: the compiler reports broken files
	}
	c := &candFile{path: p, imports: map[string]bool{}}
	var names [][]byte
	for _, imp := range hdr.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := guessName(ip)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		c.imports[name] = true
		for _, g := range q.groups {
			if g.imports[ip] && !inGroup(p, g.dir) && !containsGroup(c.groups, g) {
				c.groups = append(c.groups, g)
				names = append(names, g.names...)
			}
		}
	}
	c.names = newNameSet(names)
	if len(c.groups) == 0 || !c.names.mentioned(src) {
		return nil
	}
	if c.file, err = parser.ParseFile(fset, p, src, parser.SkipObjectResolution); err != nil {
		return nil
	}
	// Bodies that mention none of the names cannot hold a usage; the
	// tree is final from here on (searches share it).
	stripBodies(fset, c.file, src, c.names.mentioned)
	c.src = src
	return c
}

func containsGroup(gs []*group, g *group) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// nameSet is a set of Go names for the byte pre-filter (mentioned).
type nameSet struct {
	set      map[string]bool
	first    [256]bool // the first bytes of the names
	min, max int       // their lengths
}

func newNameSet(names [][]byte) *nameSet {
	ns := &nameSet{set: make(map[string]bool, len(names))}
	for _, n := range names {
		if len(n) == 0 {
			continue
		}
		if len(ns.set) == 0 || len(n) < ns.min {
			ns.min = len(n)
		}
		ns.max = max(ns.max, len(n))
		ns.set[string(n)] = true
		ns.first[n[0]] = true
	}
	return ns
}

// has reports whether name is in the set.
func (ns *nameSet) has(name string) bool { return ns.set[name] }

// mentioned reports whether src may reference one of the names as a
// field: a selector ".Name" or a composite-literal key "Name:" (not
// "Name :="), with Name a whole identifier. It is the byte pre-filter that
// runs before anything is parsed; comments and strings may match too. One
// pass over src, whatever the number of names.
func (ns *nameSet) mentioned(src []byte) bool {
	switch {
	case len(ns.set) == 0:
		return false
	case len(ns.set) <= fewNames:
		return ns.mentionedByIndex(src)
	}
	return ns.mentionedByScan(src)
}

// fewNames is the most names mentioned looks for one by one: a search
// for a name runs at gigabytes a second, the pass over the identifiers
// at about 200 MB/s whatever their number (BenchmarkMentioned).
const fewNames = 16

// mentionedByIndex is mentioned as a search for each name (bytes.Index,
// many times faster than a pass over every identifier of src).
func (ns *nameSet) mentionedByIndex(src []byte) bool {
	for name := range ns.set {
		n := len(name)
		for at := 0; ; {
			k := bytes.Index(src[at:], []byte(name))
			if k < 0 {
				break
			}
			start, end := at+k, at+k+n
			at = start + 1
			if start > 0 && identByte(src[start-1]) || end < len(src) && identByte(src[end]) {
				continue // inside a longer identifier
			}
			if ns.usedAt(src, start, end) {
				return true
			}
		}
	}
	return false
}

// usedAt reports whether the whole identifier src[start:end], one of the
// names, reads as a field: after a ".", or before a ":" that is not ":=".
func (ns *nameSet) usedAt(src []byte, start, end int) bool {
	if start > 0 && src[start-1] == '.' {
		return true
	}
	j := end
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return j < len(src) && src[j] == ':' && (j+1 == len(src) || src[j+1] != '=')
}

// mentionedByScan is mentioned as one pass over the identifiers of src,
// whatever the number of names.
func (ns *nameSet) mentionedByScan(src []byte) bool {
	for i := 0; i < len(src); i++ {
		if !identByte(src[i]) {
			continue
		}
		// A whole identifier (or number) src[i:end].
		end := i + 1
		for end < len(src) && identByte(src[end]) {
			end++
		}
		start := i
		i = end
		if n := end - start; n < ns.min || n > ns.max || !ns.first[src[start]] || !ns.set[string(src[start:end])] {
			continue
		}
		if ns.usedAt(src, start, end) {
			return true
		}
	}
	return false
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func sortDedup(ps []model.Pos) []model.Pos {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Col < ps[j].Col
	})
	out := ps[:0]
	for i, p := range ps {
		if i == 0 || p != ps[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// Mode says how the usages were found, for notes and messages.
func (u *Usages) Mode() string {
	if !u.TypeChecked {
		return "matched by path: type information is off"
	}
	return fmt.Sprintf("type-checked in-process, %d packages", u.Packages)
}

// exclusions decide which files are not usages: the usages.exclude globs
// and the Shoot stage files.
type exclusions struct {
	globs []glob.Glob
	stage []string
}

func newExclusions(o lifecycle.Options) (*exclusions, error) {
	list := o.UsageExclude
	if list == nil {
		list = config.DefaultUsageExclude()
	}
	gs, err := config.CompileGlobs(list)
	if err != nil {
		return nil, fmt.Errorf("usages.exclude: %w", err)
	}
	x := &exclusions{globs: gs}
	s := o.Shoot
	for _, l := range [][]string{s.Warnings, s.Validation, s.Strategy, s.Maintenance, s.Defaults} {
		x.stage = append(x.stage, l...)
	}
	return x, nil
}

func (x *exclusions) match(file string) bool {
	for _, s := range x.stage {
		if file == s || (strings.HasSuffix(s, "/") && strings.HasPrefix(file, s)) {
			return true
		}
		if strings.Contains(s, "*") {
			if ok, _ := path.Match(s, file); ok {
				return true
			}
		}
	}
	parts := strings.Split(file, "/")
	for _, g := range x.globs {
		if g.MatchSegments(parts) {
			return true
		}
	}
	return false
}
