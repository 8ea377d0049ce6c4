package scan

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/quote"
)

// sourceIndex is what a scan learns from a source's file list alone
// (and its go.mod files): the Go files of each directory, the version
// directories of each parent, the candidate groups for a configuration.
// A source's files never change, so the index is built once per source
// and kept while the source lives (indexOf): the scans of the parts of a
// large tree (Options.Only), one pair per part, then each cost what
// their part holds, not what the tree holds. Everything but the fields
// under mu is read-only once built.
type sourceIndex struct {
	// goFiles maps a directory to its scanned non-test Go files, sorted
	// (symbolic links left out, see links).
	goFiles map[string][]string
	goMods  []string // the go.mod files, in the file list's order
	// links maps a directory to its Go files that are symbolic links,
	// sorted.
	links map[string][]string
	// versionsOf maps a directory to its version sub-directories with Go
	// files, sorted.
	versionsOf map[string][]string
	// parents are the keys of versionsOf, sorted.
	parents []string
	// protoDirs are the directories with a .proto file (of those the
	// index read: of every version directory).
	protoDirs map[string]bool
	// dirs are the keys of goFiles when the index was built, sorted.
	dirs []string

	// lazy is set for an index built from Selection: the Go files of
	// other directories are listed when asked for (goFilesOf, under mu),
	// and go into goFiles and links then. err is why the selection
	// failed. (The index holds no reference to its source, which would
	// keep it alive: see indexOf.)
	lazy bool
	err  error

	mu sync.Mutex
	// listed are the directories a lazy index listed; listErr the first
	// failure to list one.
	listed  map[string]bool
	listErr error
	// mods are the modules, once read (readModules).
	mods *modules
	// discovered are the last discoveries, newest first (maxDiscoveries).
	discovered []*discovery
	// changed are the import paths whose directories differ from those
	// of the index base (importingChanged).
	changed struct {
		base *sourceIndex
		ips  map[string]bool
	}
}

// discovery is what discovery finds for one configuration (key): the
// candidates, which callers clone before they change them, and the
// notes it gives.
type discovery struct {
	key   string
	cands []*candidate
	byDir map[string][]int // candidate directory -> indices in cands
	notes []string
}

// maxDiscoveries bounds the configurations an index keeps discoveries
// for: a check asks for one or two (the configurations of base and head).
const maxDiscoveries = 4

// maxIndexes bounds the sources whose indexes are kept: a check reads
// two revisions at a time, and the release history a few more. A source
// beyond it gets an index of its own for each scan.
const maxIndexes = 64

// indexes are the kept indexes, by source (see sourceKey): an entry
// goes when its source is collected.
var indexes = struct {
	sync.Mutex
	m map[weak.Pointer[byte]]*indexEntry
}{m: map[weak.Pointer[byte]]*indexEntry{}}

type indexEntry struct {
	once sync.Once
	idx  *sourceIndex
}

// sourceKey names a source by identity: a pointer to a value of non-zero
// size (a git snapshot). Other sources (maps, structs) have no identity
// to keep an index by.
func sourceKey(src Source) (weak.Pointer[byte], *byte, bool) {
	v := reflect.ValueOf(src)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem().Size() == 0 {
		return weak.Pointer[byte]{}, nil, false
	}
	p := (*byte)(v.UnsafePointer())
	return weak.Make(p), p, true
}

// indexOf returns the index of src: the kept one, or a new one.
func indexOf(src Source) *sourceIndex {
	key, p, ok := sourceKey(src)
	if !ok {
		return newSourceIndex(src)
	}
	indexes.Lock()
	e := indexes.m[key]
	if e == nil {
		if len(indexes.m) >= maxIndexes {
			indexes.Unlock()
			return newSourceIndex(src)
		}
		e = &indexEntry{}
		indexes.m[key] = e
		runtime.AddCleanup(p, func(k weak.Pointer[byte]) {
			indexes.Lock()
			delete(indexes.m, k)
			indexes.Unlock()
		}, key)
	}
	indexes.Unlock()
	e.once.Do(func() { e.idx = newSourceIndex(src) })
	runtime.KeepAlive(src)
	return e.idx
}

// indexBuilds counts the indexes built (tests).
var indexBuilds atomic.Int64

// Selection is the part of a revision's file list a scan reads up front
// from a source that can list parts of it (a git.Selector: the snapshot
// of a commit): the Go and .proto files of the version directories and
// of the group directories above them, and the go.mod files. The Go
// files of any other directory, which a scan needs for the few packages
// outside the groups that the groups' types use, are listed when asked
// for (sourceIndex.goFilesOf). It must keep everything newSourceIndex
// reads of the version directories: a version directory no selection
// keeps a Go file of is not one of the index's.
var Selection = &git.Selection{
	Name:      "api 1",
	Group:     IsVersionDir,
	GroupFile: func(name string) bool { return strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".proto") },
	File:      func(name string) bool { return name == "go.mod" },
}

// newSourceIndex indexes the file list of src, in one pass: all of it,
// or what Selection keeps of it (the index is then lazy, see goFilesOf).
func newSourceIndex(src Source) *sourceIndex {
	indexBuilds.Add(1)
	x := &sourceIndex{goFiles: map[string][]string{}, links: map[string][]string{}, versionsOf: map[string][]string{}, protoDirs: map[string]bool{}}
	var files []string
	if sel, ok := src.(git.Selector); ok {
		x.lazy = true
		files, x.err = sel.Select(Selection)
	} else {
		files = src.Files()
	}
	sl, _ := src.(symlinks)
	for _, f := range files {
		if path.Base(f) == "go.mod" {
			x.goMods = append(x.goMods, f)
		}
		if strings.HasSuffix(f, ".proto") {
			x.protoDirs[path.Dir(f)] = true
		}
		x.add(sl, f)
	}
	for d, fs := range x.goFiles {
		slices.Sort(fs) // in the order of a snapshot's Files, whatever the source's
		if d != "." && IsVersionDir(path.Base(d)) {
			x.versionsOf[path.Dir(d)] = append(x.versionsOf[path.Dir(d)], d)
		}
	}
	for _, fs := range x.links {
		slices.Sort(fs)
	}
	for p, vs := range x.versionsOf {
		slices.Sort(vs)
		x.parents = append(x.parents, p)
	}
	slices.Sort(x.parents)
	x.dirs = slices.Sorted(maps.Keys(x.goFiles))
	return x
}

// add indexes one file of the source (sl, when it tells links from
// files).
func (x *sourceIndex) add(sl symlinks, f string) {
	if !scannable(f) {
		return
	}
	d := path.Dir(f)
	if sl != nil && sl.IsSymlink(f) {
		x.links[d] = append(x.links[d], f)
		return
	}
	x.goFiles[d] = append(x.goFiles[d], f)
}

// goFilesOf returns the scanned Go files of dir. A lazy index lists a
// directory that Selection does not keep the files of the first time it
// is asked for; a failure to list it is the index's failure (failed).
func (x *sourceIndex) goFilesOf(src Source, dir string) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.goFilesLocked(src, dir)
}

// goFilesLocked is goFilesOf with x.mu held.
func (x *sourceIndex) goFilesLocked(src Source, dir string) []string {
	sel, ok := src.(git.Selector)
	if fs, known := x.goFiles[dir]; known || !x.lazy || !ok || x.kept(dir) || x.listed[dir] {
		return fs
	}
	if x.listed == nil {
		x.listed = map[string]bool{}
	}
	x.listed[dir] = true
	files, err := sel.DirFiles(dir)
	if err != nil {
		if x.listErr == nil {
			x.listErr = err
		}
		return nil
	}
	sl, _ := src.(symlinks)
	for _, f := range files {
		x.add(sl, f)
	}
	slices.Sort(x.links[dir])
	return x.goFiles[dir]
}

// kept reports a directory whose Go files Selection keeps: a version
// directory, or the directory above one with Go files.
func (x *sourceIndex) kept(dir string) bool {
	if dir != "." && IsVersionDir(path.Base(dir)) {
		return true
	}
	_, ok := x.versionsOf[dir]
	return ok
}

// failed returns why the index could not list the source, nil when it
// could.
func (x *sourceIndex) failed() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return x.err
	}
	return x.listErr
}

// goFilesForScan returns the map a scan reads goFiles from: the index's
// own (read-only once built), or, for a lazy index, a copy that the scan
// adds the directories it lists to (stateModules.dirFor).
func (x *sourceIndex) goFilesForScan() map[string][]string {
	if !x.lazy {
		return x.goFiles
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return maps.Clone(x.goFiles)
}

// modules returns the modules of the index's source, read once; same,
// when not nil, are those of another source with the same go.mod files
// (baseModules), taken instead of reading them.
func (x *sourceIndex) modules(src Source, same *modules) (*modules, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.mods != nil {
		return x.mods, nil
	}
	if same != nil {
		x.mods = same
		return same, nil
	}
	mods, err := readModules(src, x.goMods)
	if err != nil {
		return nil, err // not kept: the next scan tries again
	}
	x.mods = mods
	return mods, nil
}

// changedImports returns the import paths of the directories whose Go
// files differ from base's (changed reports one directory), computed once
// for a base: of the directories the index was built with (a lazy
// index: those Selection keeps). The modules must have been read. It
// only orders work (importingChanged), so the directories a lazy index
// lists later need not be in it.
func (x *sourceIndex) changedImports(base *sourceIndex, changed func(dir string) bool) map[string]bool {
	x.mu.Lock()
	if x.changed.base == base && x.changed.ips != nil {
		defer x.mu.Unlock()
		return x.changed.ips
	}
	x.mu.Unlock()
	// changed reads the indexes: x.mu is not held.
	ips := map[string]bool{}
	for _, d := range x.dirs {
		if changed(d) {
			ips[x.mods.importPath(d)] = true
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.changed.base, x.changed.ips = base, ips
	return ips
}

// discoveryKey is what discovery depends on in opts: the configured
// groups and exclusions.
func discoveryKey(opts Options) string {
	var b strings.Builder
	for _, g := range opts.Groups {
		fmt.Fprintf(&b, "g%q %q %q %q\n", g.Dir, g.Profile, g.Versions, g.Stable)
	}
	for _, e := range opts.Exclude {
		b.WriteString("x" + strconv.Quote(e) + "\n")
	}
	return b.String()
}

// discover returns the discovery for opts, found once per configuration.
func (x *sourceIndex) discover(src Source, opts Options) *discovery {
	key := discoveryKey(opts)
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, d := range x.discovered {
		if d.key == key {
			copy(x.discovered[1:i+1], x.discovered[:i])
			x.discovered[0] = d
			return d
		}
	}
	d := x.find(src, opts)
	d.key = key
	if len(x.discovered) == maxDiscoveries {
		x.discovered = x.discovered[:maxDiscoveries-1]
	}
	x.discovered = append([]*discovery{d}, x.discovered...)
	return d
}

// find discovers the candidate groups and their versions: the
// configured groups, or the parents of version directories.
func (x *sourceIndex) find(src Source, opts Options) *discovery {
	var cands []*candidate
	if len(opts.Groups) > 0 {
		for _, g := range opts.Groups {
			c := &candidate{dir: strings.Trim(path.Clean(g.Dir), "/"), profile: g.Profile, explicit: true, stable: g.Stable}
			for _, v := range g.Versions {
				c.versions = append(c.versions, strings.Trim(path.Clean(v), "/"))
			}
			cands = append(cands, c)
		}
	} else {
		for _, p := range x.parents { // sorted, so the candidates are too
			for _, v := range x.versionsOf[p] {
				if !Excluded(v, opts.Exclude) {
					cands = append(cands, &candidate{dir: p})
					break
				}
			}
		}
	}
	for _, c := range cands {
		if c.explicit { // configured: any directories, not only those Selection keeps
			x.goFilesLocked(src, c.dir)
			for _, v := range c.versions {
				x.goFilesLocked(src, v)
			}
		}
	}
	for _, c := range cands {
		if len(c.versions) > 0 {
			continue // listed in the configuration (split layout)
		}
		for _, v := range x.versionsOf[c.dir] {
			if c.explicit || !Excluded(v, opts.Exclude) {
				c.versions = append(c.versions, v)
			}
		}
		sort.Strings(c.versions)
	}
	d := &discovery{cands: cands, byDir: map[string][]int{}}
	for i, c := range cands {
		d.byDir[c.dir] = append(d.byDir[c.dir], i)
		for _, dir := range append([]string{c.dir}, c.versions...) {
			if fs := x.links[dir]; len(fs) > 0 {
				names := make([]string, len(fs))
				for i, f := range fs {
					names[i] = quote.Name(f)
				}
				d.notes = append(d.notes, fmt.Sprintf("%s: %s not read: a symbolic link to a Go file is not followed (the API is judged where its files live)",
					quote.Name(dir), strings.Join(names, ", ")))
			}
		}
	}
	return d
}

// candidates returns copies of the discovery's candidates, all of them
// or (only non-empty) those with these directories, in discovery order.
func (d *discovery) candidates(only []string) []*candidate {
	if len(only) == 0 {
		out := make([]*candidate, len(d.cands))
		for i, c := range d.cands {
			out[i] = cloneCandidatePtr(c)
		}
		return out
	}
	var at []int
	seen := map[string]bool{}
	for _, dir := range only {
		if !seen[dir] {
			seen[dir] = true
			at = append(at, d.byDir[dir]...)
		}
	}
	slices.Sort(at)
	out := make([]*candidate, len(at))
	for i, j := range at {
		out[i] = cloneCandidatePtr(d.cands[j])
	}
	return out
}

func cloneCandidatePtr(c *candidate) *candidate {
	d := cloneCandidate(c)
	return &d
}
