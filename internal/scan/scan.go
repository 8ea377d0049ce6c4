// Package scan turns the Go files of one revision into a model.Model:
// discovery of API groups, syntax-only parsing, tags, markers, tombstones,
// typed constants and nillability of field types. No go/ast value leaves
// this package.
package scan

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apicheck/apicheck/internal/contract"
	"github.com/apicheck/apicheck/internal/glob"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/quote"
)

// Source is a read-only view of the files of one revision (a git snapshot
// or the working tree). Its files never change: scans of a source that is
// a pointer (a snapshot) keep what they learn from its file list for as
// long as the source lives (see indexOf).
type Source interface {
	Files() []string
	ReadFiles(paths []string) (map[string][]byte, error)
}

// GroupSpec lists one API group explicitly (from configuration), which
// replaces discovery.
type GroupSpec struct {
	Dir string
	// Profile overrides the group's profile ("" detects it).
	Profile model.Profile
	// Versions are directories of external versions elsewhere (split
	// layout); empty means the version sub-directories of Dir.
	Versions []string
	// Stable are versions judged as GA whatever their names say.
	Stable []string
}

// Options tune a scan.
type Options struct {
	// Groups, when non-empty, replaces automatic discovery.
	Groups []GroupSpec
	// Profile is the repository's profile; "" detects it (DetectProfile).
	Profile model.Profile
	// Exclude are globs (glob.Match) of directories that are
	// never API groups, in addition to the built-in exclusions.
	Exclude []string
	// Only, when non-empty, builds only the groups with these
	// directories: discovery runs as for a whole scan, so the groups are
	// the ones it finds, but the others are never read. Set Profile with
	// it: detection from a few groups may differ from the repository's.
	Only []string
	// Record, when set, receives the groups this scan builds, for a scan
	// of another revision running beside it (see Reuse).
	Record *Reuse
	// Reuse, when set, offers the groups another scan builds (see Reuse).
	Reuse *Reuse
	// ModCache is the module cache directory (an absolute path) that
	// types of modules outside the repository are read from, never
	// written to; "" is the go command's (goenv.ModCache).
	ModCache string
	// NoExternal leaves Model.External empty: for a model no wire shape
	// is compared on (a release's, for what it declared).
	NoExternal bool
	// Memo, when set, keeps the models of commits scanned (see Memo).
	Memo *Memo
}

// parseCache holds the files parsed by the two scans that share it (base
// and head, through their Reuse), keyed by path and content; safe for
// concurrent scans. The syntax
// trees are read-only, so sharing them changes nothing in the models. An
// entry is dropped when the second scan takes it, so the cache holds the
// files one scan has read and the other has not (yet): the files the
// change touched, and the lead of the faster scan.
type parseCache struct {
	mu sync.Mutex
	m  map[parseKey]*parseEntry
	// parsed counts the files parsed (tests).
	parsed atomic.Int64
}

func newParseCache() *parseCache { return &parseCache{m: map[parseKey]*parseEntry{}} }

type parseKey struct {
	path string
	sum  [sha256.Size]byte
}

// parseEntry is one file, parsed once by whichever scan asked first.
type parseEntry struct {
	once sync.Once
	pf   *parsedFile
	err  error
}

// parse returns parseOne(p, src), shared with the other scans.
func (c *parseCache) parse(p string, src []byte) (*parsedFile, error) {
	if c == nil {
		return parseOne(p, src)
	}
	k := parseKey{p, sha256.Sum256(src)}
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		e = &parseEntry{}
		c.m[k] = e
	} else {
		// The second scan has it: nobody else will ask (scans drop their
		// files group by group), so the cache need not keep the tree.
		delete(c.m, k)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.parsed.Add(1)
		e.pf, e.err = parseOne(p, src)
	})
	return e.pf, e.err
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
		return quote.Name(e.Pos.File) + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", quote.Name(e.Pos.File), e.Pos.Line, e.Pos.Col, e.Msg)
}

var versionDir = lazyre.New(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// IsVersionDir reports whether a directory base name looks like an API
// version (v1, v1beta1, v2alpha3).
func IsVersionDir(name string) bool { return versionDir.MatchString(name) }

// Scan discovers the API groups of src, parses them and computes the
// wire contract of every field: Build, then the contract step
// (contract.Normalize). Of two scans side by side (Options.Record and
// Options.Reuse), the second then holds the first's types wherever they
// are equal (Reuse.ShareTypes).
func Scan(src Source, opts Options) (*model.Model, error) {
	return build(src, opts, true)
}

// Build is Scan without the contract step: the fields of the model have
// no Contract until contract.Normalize fills them in, and of two builds
// side by side (Options.Record and Options.Reuse) the second takes the
// first's unchanged groups but shares no types until Reuse.ShareTypes. A
// pipeline that runs the contract step itself (check) builds.
func Build(src Source, opts Options) (*model.Model, error) {
	return build(src, opts, false)
}

func build(src Source, opts Options, contracts bool) (m *model.Model, err error) {
	s := &state{src: src, idx: indexOf(src), record: opts.Record, reuse: opts.Reuse}
	switch {
	case s.record != nil:
		s.modFiles, s.exprs = s.record.modFiles, s.record.exprs
	case s.reuse != nil:
		s.modFiles, s.exprs = s.reuse.modFiles, s.reuse.exprs
	default:
		s.modFiles, s.exprs = newModFiles(), newExprCache()
	}
	if s.record != nil {
		defer func() {
			s.record.recordDiscovered(s, nil) // if it failed before
			s.record.recordDone(m)
		}()
	}
	if s.reuse != nil {
		defer s.reuse.publishShare(nil) // if it failed before
	}
	s.modCache = moduleCache(opts.ModCache)
	key := memoKey(src, opts, s.modCache)
	hit := false
	if key != "" {
		var e memoEntry
		if e, hit = opts.Memo.load(key, s.modCache); hit {
			m = e.Model
			s.shareMemoGroups(m, e.GroupHashes)
		} else {
			s.memo, s.modPrints = opts.Memo, map[string]ModDirPrint{}
		}
	}
	if s.record != nil {
		s.record.publishMemo(nil, nil) // a miss (shareMemoGroups published a hit)
	}
	if !hit {
		if m, err = s.run(opts); err != nil {
			return nil, err
		}
		if key != "" && !s.readFailed.Load() {
			opts.Memo.store(key, m, s.modDirPrints())
		}
	}
	if !contracts {
		return m, nil
	}
	// The contract step, before the first of two scans hands its groups
	// to the second: a group the second takes has its contracts, and
	// the second computes those of the groups it built.
	if s.reuse == nil {
		if err := contract.Normalize(m); err != nil {
			return nil, err
		}
		return m, nil
	}
	var built []*model.Package
	for _, g := range m.Groups {
		if !s.reused[g] {
			built = append(built, g.Packages()...)
		}
	}
	contract.NormalizePackages(slices.Concat(built, m.Shared, m.External))
	s.reuse.ShareTypes(m)
	return m, nil
}

type state struct {
	src Source
	// idx is the index of src's file list (kept with src, see indexOf).
	idx *sourceIndex
	// goFiles maps a directory to its non-test Go files that are scanned.
	goFiles map[string][]string
	mods    stateModules
	parsed  map[string]*parsedFile
	// preread holds file contents read before the parse that needs them
	// (importingChanged reads the files of the groups it builds early):
	// parseFiles takes them from here, not from the source again.
	preread map[string][]byte
	// resolver resolves types of packages outside the scanned groups.
	res *resolver
	// modFiles are the files read from the module cache (shared with
	// the other scan of a Reuse).
	modFiles *modFiles
	// exprs caches parsed field type expressions (shared with the other
	// scan of a Reuse).
	exprs *exprCache
	// notes become the model's notes.
	notes []string
	// parses is shared with other scans (nil: none); when share is set,
	// for those paths only.
	parses *parseCache
	share  map[string]bool
	// modCache is the module cache directory the resolver reads ("":
	// none).
	modCache string
	// modPrints are the module cache directories the scan looked into
	// and what they held then, by path relative to modCache, when the
	// scan is memoised (nil otherwise); modMu guards them.
	modPrints map[string]ModDirPrint
	modMu     sync.Mutex
	memo      *Memo
	// readFailed is set when reading some file failed and the scan went
	// on without it (it is not memoised).
	readFailed atomic.Bool
	// crd is what the version packages' files say about CRDs
	// (DetectProfile).
	crd crdSigns
	// constScopes are the constants of the packages of the repository
	// that group names were evaluated through, by import path (nil: no
	// such package).
	constScopes map[string]*constScope
	// fileFormats are the version directories that declare their group
	// for kinds read from files only (declaresFileFormat).
	fileFormats map[string]bool

	// record receives what this scan builds, reuse offers what another
	// builds (see Reuse).
	record, reuse *Reuse
	// building is the record of the group being built (record only).
	building *builtGroup
	// reused are the groups taken from the other scan.
	reused map[*model.Group]bool
}

type parsedFile struct {
	path string
	fset *token.FileSet
	file *ast.File
	src  []byte

	// The file's line table, for position (read once, on first use: the
	// file may be shared by both scans of a pair).
	linesOnce sync.Once
	lines     []int // offsets of the line starts
	base      int   // token.Pos of offset 0
	size      int
	direct    bool // no line directive: positions are the table's
}

// position is the line and column of p, as pf.fset.Position(p) has them
// (without FileSet's look-up and the file's lock for every position: a
// scan asks for one per type, field and tombstone line).
func (pf *parsedFile) position(p token.Pos) (line, col int) {
	pf.linesOnce.Do(pf.indexLines)
	off := int(p) - pf.base
	if !pf.direct || p == token.NoPos || off < 0 || off > pf.size {
		ps := pf.fset.Position(p)
		return ps.Line, ps.Column
	}
	i := sort.Search(len(pf.lines), func(i int) bool { return pf.lines[i] > off }) - 1
	return i + 1, off - pf.lines[i] + 1
}

// indexLines reads the file's line table. A //line or /*line directive
// adjusts the positions after it (go/scanner records it as line info):
// a file with one keeps asking the FileSet.
func (pf *parsedFile) indexLines() {
	tf := pf.fset.File(pf.file.FileStart)
	if tf == nil || bytes.Contains(pf.src, []byte("//line ")) || bytes.Contains(pf.src, []byte("/*line ")) {
		return
	}
	pf.lines, pf.base, pf.size, pf.direct = tf.Lines(), tf.Base(), tf.Size(), true
}

// Scannable reports whether the file at repo-relative, slash-separated
// path p is Go code the scanner reads: a .go file that is neither a test
// nor the output of a generator that declares no API types (deepcopy,
// conversion, defaults, openapi and the like: see generatedWithoutTypes;
// *.pb.go, generated.*, Kubernetes' types_swagger_doc_generated.go, which
// holds the SwaggerDoc methods only), outside vendor/, testdata/ and
// directories starting with "." or "_". Any other zz_generated file is read: a
// generated copy of types files declares API types (crossplane generates
// its v1beta1 types from v1's: zz_generated.function_types.go,
// zz_generated.composition_common.go, zz_generated.meta.go). The
// lifecycle usage search applies the same filter.
func Scannable(p string) bool { return scannable(p) }

// generatedWithoutTypes are the zz_generated outputs (the part after
// "zz_generated." up to ".go", or its first word) of the generators that
// write methods, functions and variables only: deepcopy-gen,
// conversion-gen, defaulter-gen, openapi-gen, register-gen,
// prerelease-lifecycle-gen, validation-gen, the model-name and swagger-doc
// generators, controller-gen's markerhelp, and crossplane's angryjet
// (managed, managedlist, resolvers).
var generatedWithoutTypes = map[string]bool{
	"deepcopy": true, "conversion": true, "defaults": true, "openapi": true, "register": true,
	"prerelease-lifecycle": true, "validations": true, "model_name": true, "swagger_doc_generated": true,
	"markerhelp": true, "managed": true, "managedlist": true, "resolvers": true,
}

// scannable reports whether a Go file is part of the API surface we read.
func scannable(p string) bool {
	base := path.Base(p)
	if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
		return false
	}
	if strings.HasSuffix(base, ".pb.go") || strings.HasPrefix(base, "generated.") || strings.HasSuffix(base, "_swagger_doc_generated.go") {
		return false
	}
	if rest, ok := strings.CutPrefix(base, "zz_generated"); ok {
		name := strings.TrimLeft(strings.TrimSuffix(rest, ".go"), "._")
		first, _, _ := strings.Cut(name, "_") // conversion_legacy
		if name == "" || generatedWithoutTypes[name] || generatedWithoutTypes[first] {
			return false
		}
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "vendor" || seg == "testdata" || (strings.HasPrefix(seg, ".") && seg != ".") || strings.HasPrefix(seg, "_") {
			return false
		}
	}
	return true
}

// candidate is a group that discovery (or the configuration) found.
type candidate struct {
	dir      string
	profile  model.Profile
	explicit bool
	versions []string
	stable   []string
}

// Discover returns the API groups of src that a scan with opts would
// check: group directory to its version directories (the directories
// discovery found or the configuration lists, before Kubernetes' split
// layout is followed). It reads and parses the version packages only.
func Discover(src Source, opts Options) (map[string][]string, error) {
	s := &state{src: src, idx: indexOf(src)}
	cands, err := s.discover(opts, nil)
	if err == nil {
		err = s.readModules()
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, c := range cands {
		files = append(files, s.candidateFiles(c)...)
	}
	if err := s.parseFiles(files); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, c := range cands {
		s.keepDeclared(c)
		if len(c.versions) > 0 {
			out[c.dir] = c.versions
		}
	}
	return out, nil
}

// Candidate is a directory that discovery would consider an API group
// (before its files are read), with the number of Go files a scan of it
// reads.
type Candidate struct {
	Dir   string
	Files int
	// ImportPaths are the import paths of the group directory and its
	// version directories.
	ImportPaths []string
}

// Candidates lists the candidate groups of src that a scan with opts
// would read, without reading any Go file: a caller splits a large tree
// into parts and scans each with Options.Only. With importPaths it reads
// the go.mod files for the candidates' import paths (without, it reads
// nothing but the file list).
func Candidates(src Source, opts Options, importPaths bool) ([]Candidate, error) {
	s := &state{src: src, idx: indexOf(src)}
	cands, err := s.discover(opts, nil)
	if err == nil && importPaths {
		err = s.readModules()
	}
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		cd := Candidate{Dir: c.dir, Files: len(s.candidateFiles(c))}
		for _, d := range append([]string{c.dir}, c.versions...) {
			if !importPaths {
				break
			}
			if ip := s.mods.importPath(d); ip != "" {
				cd.ImportPaths = append(cd.ImportPaths, ip)
			}
		}
		out = append(out, cd)
	}
	return out, nil
}

// CandidateFilesAtMost bounds from above the Go files that Candidates
// counts for a file list when the groups are discovered (not configured):
// every .go file in a version directory or in the parent of one. A caller
// learns that a tree is small for a fraction of what discovery costs.
func CandidateFilesAtMost(files []string) int {
	perDir := map[string]int{} // directories with .go files -> how many
	dir, count := "", 0        // the run of files of one directory (the list is sorted)
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		d := "."
		if i := strings.LastIndexByte(f, '/'); i >= 0 {
			d = f[:i]
		}
		if d != dir {
			if count > 0 {
				perDir[dir] += count
			}
			dir, count = d, 0
		}
		count++
	}
	if count > 0 {
		perDir[dir] += count
	}
	n := 0
	counted := map[string]bool{}
	for d := range perDir {
		if d == "." || !IsVersionDir(path.Base(d)) {
			continue
		}
		for _, x := range []string{d, path.Dir(d)} {
			if !counted[x] {
				counted[x] = true
				n += perDir[x]
			}
		}
	}
	return n
}

// readModules reads the go.mod files of the source (once per source).
func (s *state) readModules() error {
	mods, err := s.idx.modules(s.src, s.baseModules())
	if err != nil {
		return err
	}
	s.mods = stateModules{mods, s}
	return nil
}

// stateModules are the modules of a scan's source, for the scan: dirFor
// also makes sure that goFiles holds the directory it finds, which a
// lazy index (sourceIndex.goFilesOf) lists only when it is asked for. The
// scan reads goFiles of a directory outside the groups only for an
// import path it mapped with dirFor.
type stateModules struct {
	*modules
	s *state
}

func (m stateModules) dirFor(importPath string) (string, bool) {
	dir, ok := m.modules.dirFor(importPath)
	if ok {
		m.s.listDir(dir)
	}
	return dir, ok
}

// listDir adds dir's Go files to goFiles when the index lists
// directories on demand.
func (s *state) listDir(dir string) {
	if !s.idx.lazy {
		return
	}
	if _, ok := s.goFiles[dir]; !ok {
		s.goFiles[dir] = s.idx.goFilesOf(s.src, dir)
	}
}

// discover returns the candidate groups and their versions (only, when
// not empty, those with these directories), which the caller may change:
// found once per source and configuration (sourceIndex), so that a scan
// of a few groups of a large tree costs what they hold.
func (s *state) discover(opts Options, only []string) ([]*candidate, error) {
	d := s.idx.discover(s.src, opts)
	s.goFiles = s.idx.goFilesForScan()
	s.notes = append(s.notes, d.notes...)
	return d.candidates(only), nil
}

// symlinks is a Source that tells symbolic links from files (a git
// snapshot). The content of a link is its target, not Go: the scan
// leaves Go files that are links out, as if they were not there (the
// go command would follow them, but a link names a file of the
// repository that is judged where it lives; a link leaving the
// repository cannot be read from git objects at all).
type symlinks interface {
	IsSymlink(path string) bool
}

// candidateFiles are the Go files of a candidate's packages (the group
// directory and its versions).
func (s *state) candidateFiles(c *candidate) []string {
	files := slices.Clone(s.goFiles[c.dir])
	for _, v := range c.versions {
		files = append(files, s.goFiles[v]...)
	}
	return files
}

// keepDeclared drops the version directories of a discovered candidate
// that do not declare the group (its files must be parsed).
func (s *state) keepDeclared(c *candidate) {
	if c.explicit {
		return
	}
	var declared []string
	for _, v := range c.versions {
		switch {
		case declaresGroup(s.parsed, s.goFiles[v]):
			declared = append(declared, v)
		case s.declaresFileFormat(v):
			declared = append(declared, v)
			if s.fileFormats == nil {
				s.fileFormats = map[string]bool{}
			}
			s.fileFormats[v] = true
		}
	}
	c.versions = declared
}

// declaresFileFormat reports a version package that declares no group
// to an API server (no +groupName, no SchemeGroupVersion or
// GroupVersion) but names its group in Go for kinds it reads from files:
// a struct that embeds TypeMeta, and `const GroupName = "cli.example.io"`
// or an apiVersion constant of its group and version
// (`APIVersion = "cli.example.io/v1alpha1"`): a CLI's or a component's
// versioned configuration file.
func (s *state) declaresFileFormat(dir string) bool {
	scope := newConstScope(dir)
	name := s.packageName(dir)
	kind := false
	for _, f := range s.goFiles[dir] {
		pf := s.parsed[f]
		if pf == nil || pf.file.Name.Name != name {
			continue
		}
		imports := fileImports(pf.file)
		for _, d := range pf.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			scope.add(gd, imports)
			kind = kind || gd.Tok == token.TYPE && embedsTypeMeta(gd)
		}
	}
	if !kind {
		return false
	}
	d := scope.groupDecl()
	if d.groupName != nil {
		_, ok := s.evalString(scope, d.groupName.expr, d.groupName.imports, 0)
		return ok
	}
	_, ok := s.apiVersionGroup(scope, d, path.Base(dir))
	return ok
}

// embedsTypeMeta reports an exported struct type of the declaration that
// embeds a TypeMeta (apimachinery's, or one of its own): a kind.
func embedsTypeMeta(gd *ast.GenDecl) bool {
	for _, sp := range gd.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok || !ts.Name.IsExported() {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			if len(f.Names) > 0 {
				continue
			}
			t := f.Type
			if x, ok := t.(*ast.StarExpr); ok {
				t = x.X
			}
			if typeName(t) == "TypeMeta" {
				return true
			}
		}
	}
	return false
}

// batchFiles is about how many files a scan parses at a time: enough for
// all cores, few enough that the syntax trees of a large repository are
// never all alive at once.
const batchFiles = 256

func (s *state) run(opts Options) (*model.Model, error) {
	cands, err := s.discover(opts, opts.Only)
	if err == nil {
		err = s.idx.failed() // the file list could not be read
	}
	if err == nil {
		err = s.readModules()
	}
	if err != nil {
		return nil, err
	}
	if s.record != nil {
		s.record.recordDiscovered(s, cands)
		s.awaitShare()
	}
	s.res = newResolver(s, s.modCache)
	cands, maybe := s.reusable(cands)

	m := &model.Model{}
	if err := s.buildAll(m, cands); err != nil {
		return nil, err
	}
	if err := s.takeAll(m, maybe); err != nil {
		return nil, err
	}
	m.Profile = opts.Profile
	if m.Profile == "" {
		m.Profile, m.ProfileReason = s.DetectProfile(m)
	}
	m.Modules, m.Requires = s.mods.paths()
	if len(s.reused) > 0 && m.Profile != s.reuse.profile {
		// The groups were built for base's profile: build them anew.
		var again []*candidate
		for _, c := range maybe {
			if b := s.reuse.groups[c.dir]; b != nil && b.group != nil && s.reused[b.group] {
				again = append(again, c)
			}
		}
		m.Groups = slices.DeleteFunc(m.Groups, func(g *model.Group) bool { return s.reused[g] })
		s.reused = nil
		if err := s.buildAll(m, again); err != nil {
			return nil, err
		}
	}
	for _, g := range m.Groups {
		if g.Profile == "" {
			g.Profile = m.Profile
		}
	}
	for _, g := range m.Groups {
		if s.reused[g] {
			continue
		}
		if s.record != nil {
			s.res.track = map[string]dep{}
			s.record.groups[g.Dir].deps = s.res.track
		}
		for _, p := range g.Packages() {
			s.resolveNillability(p)
		}
		s.res.track = nil
	}
	for _, g := range m.Groups {
		for _, p := range g.Versions {
			if p.GroupNameUnknown != "" {
				s.notes = append(s.notes, groupNameNote(p.Dir, p.GroupNameUnknown))
			}
		}
	}
	m.Shared = s.sharedPackages(m, opts)
	if !opts.NoExternal {
		m.External = s.externalPackages(m)
	}
	clear(s.parsed)
	m.Sort()
	sort.Strings(s.notes)
	m.Notes = slices.Compact(s.notes)
	if err := s.idx.failed(); err != nil { // a directory listed on demand
		return nil, err
	}
	return m, nil
}

// shareTypesFrom is how many types the second scan must have built before
// it holds base's types where they are equal (Reuse.ShareTypes): sharing
// saves memory in proportion to the types, and comparing them costs time
// in proportion too. Below it the memory is small and the time is not: a
// Gardener release pair's head builds about 800 types in 10 groups, 4-5
// ms of a 0.1 s run, to save a megabyte or two. A large tree judged whole
// keeps its live heap down (640 generated groups, whose head builds about
// 16,000 types: 335 -> 252 MB).
var shareTypesFrom = 5000

// builtTypes counts the types of the packages a scan built.
func builtTypes(pkgs []*model.Package) int {
	n := 0
	for _, p := range pkgs {
		n += len(p.Types)
	}
	return n
}

// buildAll builds the groups of cands into m, group by group in batches:
// parse, build the packages, index their declarations for type
// resolution, drop the syntax trees.
func (s *state) buildAll(m *model.Model, cands []*candidate) error {
	for len(cands) > 0 {
		n, files := 0, []string(nil)
		for n < len(cands) && (n == 0 || len(files) < batchFiles) {
			files = append(files, s.candidateFiles(cands[n])...)
			n++
		}
		batch := cands[:n]
		cands = cands[n:]
		if err := s.parseFiles(files); err != nil {
			return err
		}
		for _, c := range batch {
			if s.record != nil {
				s.building = &builtGroup{dirs: append([]string{c.dir}, c.versions...)}
				s.record.groups[c.dir] = s.building
			}
			s.keepDeclared(c)
			g, err := s.buildGroup(c)
			if err != nil {
				return err
			}
			if s.building != nil {
				s.building.group = g
				s.building = nil
			}
			if g != nil {
				m.Groups = append(m.Groups, g)
			}
		}
		clear(s.parsed)
	}
	return nil
}

// takeAll adds to m the groups of cands that the other scan built from
// the same inputs, and builds the others. It waits for the other scan; if
// that one failed, it builds them all.
func (s *state) takeAll(m *model.Model, cands []*candidate) error {
	if len(cands) == 0 {
		return nil
	}
	// While the other scan still builds, the groups that import a package
	// the change touched are built here: base's build of them would
	// not be taken (take: a package resolved through changed), and this
	// core would wait idle. The others wait for base.
	early, rest := s.importingChanged(cands)
	for _, c := range early {
		s.reuse.early = append(s.reuse.early, c.dir)
	}
	if err := s.buildAll(m, early); err != nil {
		return err
	}
	s.preread = nil // what the build did not ask for
	<-s.reuse.done
	var build []*candidate
	for _, c := range rest {
		b, ok := (*builtGroup)(nil), false
		if s.reuse.ok {
			b, ok = s.take(c)
		}
		if !ok {
			build = append(build, c)
			continue
		}
		s.crd |= b.crd
		if b.group != nil {
			if s.reused == nil {
				s.reused = map[*model.Group]bool{}
			}
			s.reused[b.group] = true
			m.Groups = append(m.Groups, b.group)
		}
	}
	return s.buildAll(m, build)
}

// importingChanged splits candidates whose own files are unchanged (see
// reusable) into those with a file that imports a package of the
// repository whose files the change touched, and the others. The split
// only orders work: a group of rest that base's build cannot give is
// built after all (takeAll).
func (s *state) importingChanged(cands []*candidate) (early, rest []*candidate) {
	// The import paths of the directories the change touched, found once
	// per pair of sources.
	changed := s.idx.changedImports(s.reuse.idx, func(dir string) bool { return !s.sameDir(dir) })
	if len(changed) == 0 {
		return nil, cands
	}
	var files []string
	for _, c := range cands {
		files = append(files, s.candidateFiles(c)...)
	}
	contents, err := s.src.ReadFiles(files)
	if err != nil {
		return nil, cands // the build reads them again and says what failed
	}
	for _, c := range cands {
		files := s.candidateFiles(c)
		if !slices.ContainsFunc(files, func(f string) bool { return importsAny(f, contents[f], changed) }) {
			rest = append(rest, c)
			continue
		}
		early = append(early, c)
		if s.preread == nil {
			s.preread = map[string][]byte{}
		}
		for _, f := range files {
			s.preread[f] = contents[f] // the build parses them next
		}
	}
	return early, rest
}

// importsAny reports whether a Go file imports one of the import paths
// (a file whose imports do not parse imports none).
func importsAny(name string, src []byte, paths map[string]bool) bool {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return false
	}
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && paths[p] {
			return true
		}
	}
	return false
}

// buildGroup builds the packages of a candidate whose files are parsed,
// and indexes their type declarations for resolution; nil when no version
// exists (a configured group may not exist yet at base, added in this
// change: the configuration is validated against head).
func (s *state) buildGroup(c *candidate) (*model.Group, error) {
	g := &model.Group{Dir: c.dir, Profile: c.profile}
	var signs crdSigns // what the group's version files say about CRDs
	for _, v := range c.versions {
		// Kubernetes' split layout: pkg/apis/<group>/<version> holds
		// only conversions and names the external types' package.
		if ext := s.externalTypes(v); ext != "" {
			v = ext
			if s.building != nil {
				s.building.dirs = append(s.building.dirs, ext)
			}
		}
		pkg, err := s.buildPackage(v, path.Base(v))
		if err != nil {
			return nil, err
		}
		pkg.Maturity = maturityOf(pkg.Version, c.stable)
		pkg.Deprecated = versionDeprecated(pkg)
		g.Versions = append(g.Versions, pkg)
		if g.Name == "" {
			g.Name = pkg.GroupName
		}
		for _, fp := range pkg.Files {
			if pf := s.parsed[fp]; pf != nil {
				signs |= crdSignsOf(pf.src)
			}
		}
	}
	s.crd |= signs
	if s.building != nil {
		s.building.crd = signs
	}
	if len(g.Versions) == 0 {
		return nil, nil
	}
	if len(s.goFiles[c.dir]) > 0 {
		pkg, err := s.buildPackage(c.dir, "")
		if err != nil {
			return nil, err
		}
		// A package whose types the versions declare their fields with
		// is shared types, not the group's internal version (Kubernetes'
		// versions name internal types in conversions only): Redis
		// operator's api package, embedded by api/v1beta1 and
		// api/v1beta2. Its changes are not versions skewing apart.
		if len(pkg.Types) > 0 && !declaredWith(g.Versions, pkg.ImportPath) {
			g.Internal = pkg
		}
	}
	if g.Profile == "" && (IsComponentConfig(g) || s.fileFormat(g)) {
		g.Profile = model.ProfileComponentConfig
	}
	for _, p := range g.Packages() {
		s.res.repoPkg(p.ImportPath, p.Dir)
	}
	return g, nil
}

// fileFormat reports a group whose every version declares its group for
// kinds read from files only (declaresFileFormat) and that serves no API
// object (servesObjects): nothing registers it with an API server, so it
// is a component configuration, whatever its kinds are named.
func (s *state) fileFormat(g *model.Group) bool {
	for _, p := range g.Versions {
		if !s.fileFormats[p.Dir] {
			return false
		}
	}
	return len(g.Versions) > 0 && !servesObjects(g)
}

// declaredWith reports whether a field of a type of one of the packages
// that is on the wire (not json:"-") has a type of the package at
// importPath (as a pointer, slice, map or array element too, or
// embedded). kOps' v1alpha2 keeps internal values in json:"-" fields
// for its conversions: its parent stays the internal version.
func declaredWith(pkgs []*model.Package, importPath string) bool {
	for _, p := range pkgs {
		for _, t := range p.Types {
			imports := p.Imports[t.Pos.File]
			for _, f := range t.Fields {
				if f.JSON.Name == "-" {
					continue
				}
				for _, q := range qualifiers(f.Type) {
					if imports[q] == importPath {
						return true
					}
				}
			}
		}
	}
	return false
}

// qualifiers returns the package names a Go type expression qualifies
// its type names with ("map[string]*common.X" -> common).
func qualifiers(expr string) []string {
	var out []string
	for i := 0; i < len(expr); i++ {
		if expr[i] != '.' {
			continue
		}
		j := i
		for j > 0 && isIdentChar(expr[j-1]) {
			j--
		}
		if j < i {
			out = append(out, expr[j:i])
		}
	}
	return out
}

func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// IsComponentConfig reports a component-configuration group: one that
// serves no API object (see servesObjects), and whose directory or group
// name says so (pkg/<component>/apis/config,
// pkg/apis/config/<component>, *.config.*), or whose kinds are all
// configuration kinds (named Configuration or *Configuration, Kubernetes'
// component-config convention: KubeletConfiguration, an admission plugin's
// Configuration) without ObjectMeta, spec or status. Other kinds without
// ObjectMeta are API that users write into stored objects or send over the
// wire, not files a component reads: a Gardener extension's provider
// configuration (InfrastructureConfig, WorkerStatus, embedded in Shoots and
// extension resources) or Cluster API's runtime-hook requests and
// responses; they keep the repository's profile.
func IsComponentConfig(g *model.Group) bool {
	if servesObjects(g) {
		return false
	}
	if strings.Contains(g.Name, ".config.") || strings.HasPrefix(g.Name, "config.") {
		return true
	}
	segs := strings.Split(g.Dir, "/")
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == "apis" && segs[i+1] == "config" {
			return true
		}
	}
	kinds, withMeta := 0, 0
	for _, p := range g.Versions {
		for _, t := range p.Types {
			if !t.RootKind || strings.HasSuffix(t.Name, "List") {
				continue
			}
			kinds++
			if !strings.HasSuffix(t.Name, "Configuration") {
				return false
			}
			for _, f := range t.Fields {
				// An API object has ObjectMeta, or at least a spec or status.
				if f.Embedded && strings.HasSuffix(f.Name, "ObjectMeta") || f.Name == "Spec" || f.Name == "Status" {
					withMeta++
					break
				}
			}
		}
	}
	return kinds > 0 && withMeta == 0
}

// servesObjects reports a group with a kind that is an API object and no
// configuration: ObjectMeta and a spec or status, and a name other than
// Configuration or *Configuration. Such a group is an API whatever its
// name says (OpenShift's config.openshift.io serves ClusterVersion,
// Network and Node as custom resources).
func servesObjects(g *model.Group) bool {
	for _, p := range g.Versions {
		for _, t := range p.Types {
			if !t.RootKind || strings.HasSuffix(t.Name, "List") || strings.HasSuffix(t.Name, "Configuration") {
				continue
			}
			meta, body := false, false
			for _, f := range t.Fields {
				meta = meta || f.Embedded && strings.HasSuffix(f.Name, "ObjectMeta")
				body = body || f.Name == "Spec" || f.Name == "Status"
			}
			if meta && body {
				return true
			}
		}
	}
	return false
}

// excludedSegments are directory names that never hold API groups:
// generated clients, test code and fixtures, vendored copies. (A
// directory named external or externalapi holds copies of other
// projects' APIs below it, see externalCopy.)
var excludedSegments = map[string]bool{
	"clientset": true, "clientsets": true, "listers": true, "informers": true, "applyconfiguration": true,
	"applyconfigurations": true, "fake": true, "fakes": true, "testdata": true, "test": true, "tests": true,
	"e2e": true, "fixtures": true, "third_party": true, "vendor": true, "testing": true, "mocks": true,
	// Sample code: controller-runtime's and code-generator's examples are
	// packages nobody serves (a group named "example" is no sample dir).
	"examples": true, "samples": true,
}

// externalSegments are the names of directories that hold copies of
// other projects' APIs (see externalCopy).
var externalSegments = map[string]bool{
	"external": true, "externalapi": true, "externalapis": true,
	"external-api": true, "external-apis": true, "external_api": true, "external_apis": true,
}

// externalCopy reports whether the path below a directory named for
// external APIs (rest) holds another project's API: a directory of its
// own there (Kuadrant's api/external/maistra/v1, vm-operator's
// external/net-operator/api/v1alpha1, Scylla's
// pkg/externalapi/monitoring/v1 are copies of APIs that other projects
// serve, kept to build clients of them). A group so named
// (pkg/apis/external, its version pkg/apis/external/v1) is the
// repository's own.
func externalCopy(rest []string) bool {
	return len(rest) > 1 || len(rest) == 1 && !IsVersionDir(rest[0])
}

// Excluded reports whether a directory is never an API group: a built-in
// exclusion (generated clients, test code, fixtures, vendored copies) or
// one of the configured globs.
func Excluded(dir string, globs []string) bool {
	segs := strings.Split(dir, "/")
	for i, seg := range segs {
		if excludedSegments[seg] || externalSegments[seg] && externalCopy(segs[i+1:]) {
			return true
		}
	}
	for _, g := range globs {
		if glob.Match(g, dir) {
			return true
		}
	}
	return false
}

// ExcludedGroupDirs lists the directories with version sub-packages that
// discovery leaves out (Excluded), sorted: what apicheck init shows.
func ExcludedGroupDirs(files []string, globs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if !scannable(f) {
			continue
		}
		d := path.Dir(f)
		if !IsVersionDir(path.Base(d)) || !Excluded(d, globs) {
			continue
		}
		if g := path.Dir(d); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// maturityOf is a version's stability from its name, unless configured
// stable.
func maturityOf(version string, stable []string) model.Maturity {
	for _, s := range stable {
		if strings.EqualFold(s, version) {
			return model.GA
		}
	}
	switch {
	case strings.Contains(version, "alpha"):
		return model.Alpha
	case strings.Contains(version, "beta"):
		return model.Beta
	}
	return model.GA
}

// versionDeprecated reports a version whose every kind is marked
// deprecated (+k8s:prerelease-lifecycle-gen:deprecated/removed, or a
// "Deprecated:" paragraph).
func versionDeprecated(p *model.Package) bool {
	kinds, deprecated := 0, 0
	for _, t := range p.Types {
		if !t.RootKind || strings.HasSuffix(t.Name, "List") {
			continue
		}
		kinds++
		if t.Deprecated {
			deprecated++
		}
	}
	return kinds > 0 && deprecated == kinds
}

var groupNameMarker = lazyre.New(`(?m)^\s*//\s*\+groupName\s*=`)

// declaresGroup reports whether a version package declares its API group:
// a +groupName marker, or a package-level SchemeGroupVersion (Kubernetes
// style) or GroupVersion (kubebuilder style) of its own. A package that
// only uses another package's SchemeGroupVersion (a generated clientset,
// lister or informer) does not.
func declaresGroup(parsed map[string]*parsedFile, files []string) bool {
	for _, f := range files {
		pf := parsed[f]
		if pf == nil {
			continue
		}
		if bytes.Contains(pf.src, []byte("+groupName")) && groupNameMarker.Match(pf.src) { // the regexp only where it can match
			return true
		}
		for _, d := range pf.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR && gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					if n.Name == "SchemeGroupVersion" || n.Name == "GroupVersion" {
						return true
					}
				}
			}
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
	contents, err := s.readFiles(need)
	if err != nil {
		return err
	}
	results, err := par.Map(len(need), func(i int) (*parsedFile, error) {
		if s.share != nil && !s.share[need[i]] {
			return parseOne(need[i], contents[need[i]])
		}
		return s.parses.parse(need[i], contents[need[i]])
	})
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

// readFiles reads paths from the source, but those read ahead
// (preread), which it hands over once.
func (s *state) readFiles(paths []string) (map[string][]byte, error) {
	var rest []string
	got := map[string][]byte{}
	for _, p := range paths {
		if data, ok := s.preread[p]; ok {
			got[p] = data
			delete(s.preread, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(rest) == 0 {
		return got, nil
	}
	read, err := s.src.ReadFiles(rest)
	if err != nil {
		s.readFailed.Store(true)
		return nil, err
	}
	maps.Copy(got, read)
	return got, nil
}

// The platform apicheck reads API packages for: API servers and
// controllers run on linux/amd64, built by gc without cgo. A file that
// would not be part of the package there (a //go:build ignore generator,
// a tools.go, x_windows.go) is not read, so a type declared once per
// platform is not "declared twice".
const (
	buildOS   = "linux"
	buildArch = "amd64"
)

// knownOS and knownArch are the values go/build treats as file-name
// suffixes (GOOS and GOARCH lists of the go command).
var (
	knownOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
		"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true,
		"openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}
	knownArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true,
		"arm64": true, "arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true,
		"mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true,
		"riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true, "wasm": true}
)

// matchesFileName applies go/build's name rules: *_GOOS, *_GOARCH and
// *_GOOS_GOARCH files only build on that platform.
func matchesFileName(p string) bool {
	name := strings.TrimSuffix(path.Base(p), ".go")
	parts := strings.Split(name, "_")
	if len(parts) < 2 {
		return true
	}
	last := parts[len(parts)-1]
	if len(parts) >= 3 && knownOS[parts[len(parts)-2]] && knownArch[last] {
		return parts[len(parts)-2] == buildOS && last == buildArch
	}
	if knownOS[last] {
		return last == buildOS || (last == "unix" && buildOS != "windows")
	}
	if knownArch[last] {
		return last == buildArch
	}
	return true
}

// buildTag says whether a build tag is satisfied on the platform.
func buildTag(tag string) bool {
	switch tag {
	case buildOS, buildArch, "unix", "gc":
		return true
	}
	return strings.HasPrefix(tag, "go1.")
}

// excludedByConstraint reports whether the file's //go:build line (or its
// // +build lines) excludes it from the package on the platform.
func excludedByConstraint(f *ast.File) bool {
	var plus []constraint.Expr
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) && !constraint.IsPlusBuild(c.Text) {
				continue
			}
			x, err := constraint.Parse(c.Text)
			if err != nil {
				continue // go vet's business, not ours
			}
			if constraint.IsGoBuild(c.Text) {
				return !x.Eval(buildTag)
			}
			plus = append(plus, x)
		}
	}
	for _, x := range plus {
		if !x.Eval(buildTag) {
			return true
		}
	}
	return false
}

func parseOne(p string, src []byte) (*parsedFile, error) {
	if !matchesFileName(p) {
		return nil, nil
	}
	fset := token.NewFileSet()
	// A build constraint is a "//go:build" or "// +build" line: most
	// files have none, and need no look at their header.
	constrained := bytes.Contains(src, []byte(":build")) || bytes.Contains(src, []byte("+build"))
	// The header first: a file the platform leaves out need not parse.
	if constrained {
		if hdr, err := parser.ParseFile(fset, p, src, parser.PackageClauseOnly|parser.ParseComments); err == nil && excludedByConstraint(hdr) {
			return nil, nil
		}
	}
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		pos := model.Pos{File: p}
		msg := err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pos.Line, pos.Col = list[0].Pos.Line, list[0].Pos.Column
			msg = list[0].Msg
		}
		// The parser quotes the file's text (a literal it did not
		// expect), which may hold any character.
		return nil, &Error{Pos: pos, Msg: "cannot parse Go file: " + quote.Text(msg)}
	}
	if constrained && excludedByConstraint(f) {
		return nil, nil
	}
	return &parsedFile{path: p, fset: fset, file: f, src: src}, nil
}

// maxShared bounds how many packages outside the API groups a scan reads
// for wire shapes.
const maxShared = 64

// MaxShared is that bound: scans of parts of a tree (Options.Only) give
// the whole tree's shared packages only while their sum stays below it.
const MaxShared = maxShared

// qualifiedID matches the package-qualified names in a type identity
// ("example.com/api/pkg/apis/common.DNSProvider" in "*[]...").
var qualifiedID = lazyre.New(`[\w.~-]+(?:/[\w.~-]+)*\.[A-Za-z_]\w*`)

// sharedPackages reads the packages of the repository outside the API
// groups whose types the groups' fields use (and the ones those use in
// turn), so that a type moved to a shared package compares by its wire
// shape. A package that does not build is left out: it only loses the
// comparison.
func (s *state) sharedPackages(m *model.Model, opts Options) []*model.Package {
	known := map[string]bool{}
	var queue []*model.Package
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			known[p.ImportPath] = true
			queue = append(queue, p)
		}
	}
	var out []*model.Package
	var left []string            // directories of packages past the bound
	visited := map[string]bool{} // type identities, which many fields share
	visit := func(id string) {
		if !strings.Contains(id, "/") || visited[id] {
			return // a local, built-in or standard-library type, or seen
		}
		visited[id] = true
		for _, q := range qualifiedID.FindAllString(id, -1) {
			ip := q[:strings.LastIndex(q, ".")]
			if known[ip] {
				continue
			}
			known[ip] = true
			dir, ok := s.mods.dirFor(ip)
			if !ok || len(s.goFiles[dir]) == 0 || Excluded(dir, opts.Exclude) {
				continue
			}
			if len(out) >= maxShared {
				left = append(left, dir)
				continue
			}
			if err := s.parseFiles(s.goFiles[dir]); err != nil {
				continue
			}
			pkg, err := s.buildPackage(dir, "")
			if err != nil || len(pkg.Types) == 0 {
				continue
			}
			s.resolveNillability(pkg)
			out = append(out, pkg)
			queue = append(queue, pkg)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, t := range p.Types {
			visit(t.UnderlyingID)
			for _, f := range t.Fields {
				visit(f.TypeID)
			}
		}
	}
	if len(left) > 0 {
		slices.Sort(left)
		names, more := left, ""
		if len(names) > 3 {
			names, more = names[:3], ", ..."
		}
		s.notes = append(s.notes, fmt.Sprintf("%d package(s) of the repository outside the API groups whose types the API types use were not read "+
			"(at most %d are): changes in them are not judged (%s%s)", len(left), maxShared, quote.Name(strings.Join(names, ", ")), more))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ImportPath < out[j].ImportPath })
	return out
}
