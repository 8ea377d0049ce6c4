package git

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// Selection chooses the files of a revision that a caller reads up front,
// so that the rest of a large tree costs next to nothing: Select lists
// them without listing the whole tree. A file named name in a directory
// is kept when File(name), or when GroupFile(name) and the directory is a
// group directory: its own name passes Group, or one of its
// subdirectories' names does (an API version directory and the group
// directory above it); or when MarkFile(name) and the file's name or the
// name of a directory it is in passes Mark. Gitlinks are always kept
// (Submodules).
//
// A selection's answers depend on names only, never on where a
// directory is but through Mark, so that the part of it a tree holds is
// a function of the tree object, of whether its name passes Group and of
// whether it is in a marked directory: that part is
// memoised by object id, in the process and in the tree memo
// (Repo.UseTreeMemo), and a tree that did not change since the last run
// is not read again. Name identifies the selection in the memo; the
// functions must be pure.
type Selection struct {
	Name      string
	Group     func(name string) bool
	GroupFile func(name string) bool
	File      func(name string) bool
	Mark      func(name string) bool
	MarkFile  func(name string) bool
}

// sumKey names the part of a tree a selection keeps: the selection, the
// tree's object id, whether the tree's own name passes Group and whether
// the tree is in a marked directory (or is one).
type sumKey struct {
	sel    string
	oid    string
	group  bool
	marked bool
}

// treeSummary is what a selection keeps of one tree: its kept files
// (and gitlinks), and its subdirectories that keep something, in tree
// order.
type treeSummary struct {
	files []keptFile
	dirs  []keptDir
}

type keptFile struct{ name, mode, oid string }

type keptDir struct {
	name string
	key  sumKey
}

// emptySummary is the summary of every tree that keeps nothing.
var emptySummary = &treeSummary{}

func (s *treeSummary) empty() bool { return len(s.files) == 0 && len(s.dirs) == 0 }

// selected is the outcome of a selection at one revision.
type selected struct {
	sel *Selection
	// files are the kept files with their blobs and modes, sorted by
	// path: a slice, not a map, for a selection of a large tree keeps
	// tens of thousands of them.
	files    []keptPath
	gitlinks []string // sorted
	err      error
}

// keptPath is a file a selection kept.
type keptPath struct {
	path string
	fileEntry
}

// paths returns the paths of the files.
func (res *selected) paths() []string {
	out := make([]string, len(res.files))
	for i, f := range res.files {
		out[i] = f.path
	}
	return out
}

// find returns the file at path, if the selection kept it (the last
// entry of a path a malformed tree names twice).
func (res *selected) find(path string) (fileEntry, bool) {
	i, ok := slices.BinarySearchFunc(res.files, path, func(f keptPath, p string) int { return strings.Compare(f.path, p) })
	if !ok {
		return fileEntry{}, false
	}
	for i+1 < len(res.files) && res.files[i+1].path == path {
		i++
	}
	return res.files[i].fileEntry, true
}

// walkNode is a tree read during a walk, before its summary is known.
type walkNode struct {
	key   sumKey
	files []keptFile
	dirs  []keptDir // every subdirectory, kept or not
}

// selectTrees computes the summaries of roots (root trees, whose own
// name is not a group's) and every tree below them that is neither in
// the memo nor an earlier walk's: level by level, each level's trees in
// one batch of the shared cat-file process, the trees that several roots
// share once. It returns the keys of the roots.
func (r *Repo) selectTrees(objects *ObjectReader, sel *Selection, roots []string) ([]sumKey, error) {
	keys := make([]sumKey, len(roots))
	for i, oid := range roots {
		keys[i] = sumKey{sel: sel.Name, oid: oid}
	}
	var levels [][]*walkNode // each level's trees, read from git or kept
	seen := map[sumKey]bool{}
	level := []sumKey{}
	for _, k := range keys {
		if !seen[k] && r.sums.get(k) == nil {
			seen[k] = true
			level = append(level, k)
		}
	}
	for len(level) > 0 {
		nodes := make([]*walkNode, 0, len(level))
		var read []sumKey // trees whose content an earlier walk did not keep
		for _, k := range level {
			data, ok := r.rawTree(k.oid)
			if !ok {
				read = append(read, k)
				continue
			}
			n, err := readNode(sel, k, data, len(k.oid)/2)
			if err != nil {
				return nil, fmt.Errorf("tree %s: %w", k.oid, err)
			}
			nodes = append(nodes, n)
		}
		names := make([]string, len(read))
		for i, k := range read {
			names[i] = k.oid
		}
		r.treeReads.Add(int64(len(names)))
		var bad error
		err := objects.Each(names, func(i int, o Object) {
			if bad != nil {
				return
			}
			switch {
			case o.Missing:
				bad = &MissingObjectError{OID: names[i]}
				return
			case o.Type != "tree":
				bad = fmt.Errorf("object %s is a %s, not a tree", names[i], o.Type)
				return
			case o.tooLarge:
				bad = fmt.Errorf("tree object %s is %d bytes, more than apicheck's limit of %d", names[i], o.Size, objects.maxSize)
				return
			}
			r.keepRawTree(names[i], o.Data)
			n, err := readNode(sel, read[i], o.Data, len(o.OID)/2)
			if err != nil {
				bad = fmt.Errorf("tree %s: %w", names[i], err)
				return
			}
			nodes = append(nodes, n)
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return nil, err
		}
		levels = append(levels, nodes)
		var next []sumKey
		for _, n := range nodes {
			for _, d := range n.dirs {
				if !seen[d.key] && r.sums.get(d.key) == nil {
					seen[d.key] = true
					next = append(next, d.key)
				}
			}
		}
		level = next
	}
	// Bottom-up: a tree's subdirectories first. (A tree that two roots
	// share at different depths is read once, at the shallower level: a
	// level's trees may depend on each other.)
	nodes := map[sumKey]*walkNode{}
	for _, l := range levels {
		for _, n := range l {
			nodes[n.key] = n
		}
	}
	var summarize func(k sumKey) *treeSummary
	summarize = func(k sumKey) *treeSummary {
		if s := r.sums.get(k); s != nil {
			return s
		}
		n := nodes[k]
		sum := &treeSummary{files: n.files}
		for _, d := range n.dirs {
			if !summarize(d.key).empty() {
				sum.dirs = append(sum.dirs, d)
			}
		}
		if sum.empty() {
			sum = emptySummary
		}
		r.sums.put(k, sum)
		return sum
	}
	for _, k := range keys {
		summarize(k)
	}
	return keys, nil
}

// maxRawTrees bounds the bytes of tree objects a repository keeps for
// the walks of later selections.
const maxRawTrees = 64 << 20

// rawTree returns the content of a tree object a walk read, if kept.
func (r *Repo) rawTree(oid string) ([]byte, bool) {
	v, ok := r.raw.Load(oid)
	if !ok {
		return nil, false
	}
	return v.([]byte), true
}

// keepRawTree keeps the content of a tree object for the walks of other
// selections, within maxRawTrees.
func (r *Repo) keepRawTree(oid string, data []byte) {
	if r.rawBytes.Add(int64(len(data))) > maxRawTrees {
		r.rawBytes.Add(-int64(len(data)))
		return
	}
	r.raw.Store(oid, data)
}

// readNode reads the entries of one tree object: the files sel keeps and
// every subdirectory. Only kept names are copied out of data.
func readNode(sel *Selection, key sumKey, data []byte, oidLen int) (*walkNode, error) {
	n := &walkNode{key: key}
	group := key.group
	// First the subdirectories: a group directory's files are kept too.
	err := eachEntry(data, oidLen, func(mode, name, oid []byte) {
		if string(mode) != modeTree {
			return
		}
		nm := transient(name)
		g := sel.Group != nil && sel.Group(nm)
		group = group || g
		marked := key.marked || sel.Mark != nil && sel.Mark(nm)
		n.dirs = append(n.dirs, keptDir{name: string(name), key: sumKey{sel: key.sel, oid: hex.EncodeToString(oid), group: g, marked: marked}})
	})
	if err != nil {
		return nil, err
	}
	_ = eachEntry(data, oidLen, func(mode, name, oid []byte) {
		m := string(mode) // no allocation: compared, or one of a few constants
		switch {
		case m == modeGitlink:
		case isFileMode(m):
			nm := transient(name)
			if !(sel.File != nil && sel.File(nm)) && !(group && sel.GroupFile != nil && sel.GroupFile(nm)) &&
				!(sel.MarkFile != nil && (key.marked || sel.Mark != nil && sel.Mark(nm)) && sel.MarkFile(nm)) {
				return
			}
		default:
			return
		}
		n.files = append(n.files, keptFile{name: string(name), mode: modeName(m), oid: hex.EncodeToString(oid)})
	})
	return n, nil
}

// modeName returns the constant of a kept entry's mode.
func modeName(m string) string {
	for _, c := range [...]string{modeFile, modeExec, modeSymlink, modeGitlink} {
		if m == c {
			return c
		}
	}
	return m
}

// transient views a name inside a tree object as a string for a
// selection's functions, which must not keep it.
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// eachEntry calls fn for every entry of a tree object's content
// ("<mode> SP <name> NUL <binary oid>" repeated); the slices are views
// into data.
func eachEntry(data []byte, oidLen int, fn func(mode, name, oid []byte)) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return errors.New("malformed tree object")
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 {
			return errors.New("malformed tree object")
		}
		nul += sp + 1
		if nul == sp+1 || nul+1+oidLen > len(data) {
			return errors.New("malformed tree object")
		}
		fn(data[:sp], data[sp+1:nul], data[nul+1:nul+1+oidLen])
		data = data[nul+1+oidLen:]
	}
	return nil
}

// complete reports whether the summaries of key and of the trees it
// keeps something of are all known.
func (r *Repo) complete(key sumKey) bool {
	sum := r.sums.get(key)
	if sum == nil {
		return false
	}
	for _, d := range sum.dirs {
		if !r.complete(d.key) {
			return false
		}
	}
	return true
}

// flatten lists what the summary of key keeps below prefix: files, and
// gitlinks apart. It is false when a summary is missing (a memo file
// that lacks a tree its parent's entry names).
func (r *Repo) flatten(key sumKey, prefix string, files *[]keptPath, gitlinks *[]string) bool {
	sum := r.sums.get(key)
	if sum == nil {
		return false
	}
	for _, f := range sum.files {
		p := prefix + f.name
		if f.mode == modeGitlink {
			*gitlinks = append(*gitlinks, p)
			continue
		}
		*files = append(*files, keptPath{path: p, fileEntry: fileEntry{oid: f.oid, mode: f.mode}})
	}
	for _, d := range sum.dirs {
		if !r.flatten(d.key, prefix+d.name+"/", files, gitlinks) {
			return false
		}
	}
	return true
}

// keeps reports whether the selection keeps a file named name in
// directory dir ("." the root) whatever else the tree holds: when the
// name passes File, when it passes GroupFile and the directory's own
// name passes Group, or when it passes MarkFile and it or a directory it
// is in passes Mark. (A directory is a group directory also when one of
// its subdirectories' names passes Group, which this does not look at.)
func (sel *Selection) keeps(dir, name string) bool {
	if sel.File != nil && sel.File(name) {
		return true
	}
	if dir != "." && sel.Group != nil && sel.GroupFile != nil && sel.GroupFile(name) && sel.Group(dir[strings.LastIndexByte(dir, '/')+1:]) {
		return true
	}
	if sel.MarkFile == nil || sel.Mark == nil || !sel.MarkFile(name) {
		return false
	}
	if sel.Mark(name) {
		return true
	}
	for d := range strings.SplitSeq(dir, "/") {
		if dir != "." && sel.Mark(d) {
			return true
		}
	}
	return false
}

// SelectAll computes sel at the commit snapshots among snaps in one walk
// (the trees they share are read once), so that each one's Select
// answers from it; other snapshots are left alone. It returns the first
// failure, also what those snapshots' Select return.
func SelectAll(sel *Selection, snaps ...Snapshot) error {
	var todo []*commitSnapshot
	for _, s := range snaps {
		if c, ok := s.(*commitSnapshot); ok && !slices.Contains(todo, c) {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	repo := todo[0].repo
	for _, c := range todo[1:] {
		if c.repo != repo {
			return errors.New("SelectAll: snapshots of different repositories")
		}
	}
	repo.selMu.Lock()
	defer repo.selMu.Unlock()
	var roots []string
	var at []*commitSnapshot
	for _, c := range todo {
		if c.selection(sel.Name) == nil {
			roots = append(roots, c.root)
			at = append(at, c)
		}
	}
	if len(at) == 0 {
		return firstSelectErr(todo, sel.Name)
	}
	if at[0].closed.Load() {
		return fmt.Errorf("list files of %s: snapshot is closed", at[0].rev())
	}
	keys, err := repo.selectTrees(at[0].objects, sel, roots)
	for retry := true; err == nil && retry; retry = false {
		for _, k := range keys {
			if !repo.complete(k) {
				// The memo lacks a tree: walk again without it.
				repo.sums.forget(sel.Name)
				keys, err = repo.selectTrees(at[0].objects, sel, roots)
				break
			}
		}
	}
	for i, c := range at {
		res := &selected{sel: sel}
		if err != nil {
			c.mu.Lock()
			res.err = c.listError(err)
			c.mu.Unlock()
		} else {
			repo.flatten(keys[i], "", &res.files, &res.gitlinks) // complete: true
			// Stable: of a file a malformed tree names twice, find
			// answers with the last.
			slices.SortStableFunc(res.files, func(a, b keptPath) int { return strings.Compare(a.path, b.path) })
			slices.Sort(res.gitlinks)
		}
		c.setSelection(sel.Name, res)
	}
	return firstSelectErr(todo, sel.Name)
}

func firstSelectErr(snaps []*commitSnapshot, name string) error {
	for _, c := range snaps {
		if res := c.selection(name); res != nil && res.err != nil {
			return res.err
		}
	}
	return nil
}

// Selector is implemented by the snapshots of commits: the parts of a
// revision's file list a caller needs, without listing the whole tree
// (which Files does).
type Selector interface {
	// Select returns the files of the revision that sel keeps, sorted.
	Select(sel *Selection) ([]string, error)
	// DirFiles returns the files directly in directory dir ("." for the
	// root), sorted; none when there is no such directory.
	DirFiles(dir string) ([]string, error)
	// FilesUnder returns the files below directory dir, sorted.
	FilesUnder(dir string) ([]string, error)
	// HasFile reports whether path is a file (or symbolic link) of the
	// revision.
	HasFile(path string) (bool, error)
	// HasDir reports whether dir is a directory of the revision.
	HasDir(dir string) (bool, error)
}

// FileLister is any source of a revision's files (a Snapshot, or a test
// double).
type FileLister interface{ Files() []string }

// Select returns the files of src that sel keeps, and possibly more (a
// source that is no Selector gives all its files), sorted.
func Select(src FileLister, sel *Selection) ([]string, error) {
	if s, ok := src.(Selector); ok {
		return s.Select(sel)
	}
	return src.Files(), nil
}

// DirFiles returns the files of src directly in dir ("." for the root).
func DirFiles(src FileLister, dir string) ([]string, error) {
	if s, ok := src.(Selector); ok {
		return s.DirFiles(dir)
	}
	var out []string
	for _, f := range src.Files() {
		if dirOf(f) == dir {
			out = append(out, f)
		}
	}
	return out, nil
}

// FilesUnder returns the files of src below dir.
func FilesUnder(src FileLister, dir string) ([]string, error) {
	if s, ok := src.(Selector); ok {
		return s.FilesUnder(dir)
	}
	var out []string
	for _, f := range src.Files() {
		if strings.HasPrefix(f, dir+"/") {
			out = append(out, f)
		}
	}
	return out, nil
}

// HasFile reports whether path is a file of src.
func HasFile(src FileLister, path string) (bool, error) {
	if s, ok := src.(Selector); ok {
		return s.HasFile(path)
	}
	return slices.Contains(src.Files(), path), nil
}

// HasDir reports whether dir holds a file of src, at any depth.
func HasDir(src FileLister, dir string) (bool, error) {
	if s, ok := src.(Selector); ok {
		return s.HasDir(dir)
	}
	return slices.ContainsFunc(src.Files(), func(f string) bool { return strings.HasPrefix(f, dir+"/") }), nil
}

// dirOf is path.Dir for a repository path: "." for a file at the root.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}
