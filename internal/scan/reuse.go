package scan

import (
	"slices"
	"sync"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
)

// Reuse carries the groups one scan builds to a scan of another revision
// of the same repository that runs beside it (base's to head's): the
// second scan takes a group the first built instead of building it again
// when nothing the group was built from differs between the revisions:
// the configuration of the group, the Go files of its directories (by git
// blob), and every package and module requirement its field types were
// resolved through. A group the change did not touch is then read, built
// and held once, the same *model.Group in both models; the models are
// read-only once scanned. The second scan builds the groups that did
// change while the first is still running, and waits for it only to take
// the others.
//
// Both sources must name their files by blob (BlobIDs, as snapshots of
// commits do); otherwise the second scan builds everything itself, as it
// also does when the first fails.
type Reuse struct {
	discovered   chan struct{} // closed when the fields below are set (or the first scan failed)
	discoverOnce sync.Once
	done         chan struct{} // closed when the first scan ended

	// partitioned is closed when the second scan knows the groups it
	// builds; share are the files of those groups that are the same at
	// both revisions, which the two scans parse once (parses).
	partitioned chan struct{}
	once        sync.Once
	share       map[string]bool
	parses      *parseCache
	// modFiles are the files both scans read from the module cache.
	modFiles *modFiles
	// exprs are the field type expressions both scans parse.
	exprs *exprCache

	// Set before discovered is closed; nil when discovery failed.
	src    BlobIDs
	source Source // src, as the first scan read it
	idx    *sourceIndex
	mods   *modules
	cands  map[string]candidate // as discovered, before keepDeclared

	// Set before done is closed; ok is false when the scan failed.
	ok      bool
	profile model.Profile
	groups  map[string]*builtGroup // by group directory

	// early are the group directories the second scan built while the
	// first still ran (importingChanged), set by the second scan.
	early []string

	// memoed is closed when the first scan knows whether the scan memo
	// gave its model: memoModel and memoHashes are then that model and
	// its groups' content hashes (nil: the memo did not give it), for a
	// second scan the memo gave its model too (shareMemoGroups).
	memoed     chan struct{}
	memoOnce   sync.Once
	memoModel  *model.Model
	memoHashes []string
}

// BlobIDs names a source's files by content (git.BlobIDs): the same id
// at two revisions is the same file.
type BlobIDs = git.BlobIDs

// builtGroup is what the first scan recorded of one group it built.
type builtGroup struct {
	group *model.Group // nil: the candidate had no version
	// dirs are the directories whose Go files the build read: the group
	// directory, its version directories (those discovery found, kept or
	// not) and the directories of Kubernetes' split layout.
	dirs []string
	// deps are the packages the group's field types were resolved
	// through, by import path.
	deps map[string]dep
	crd  crdSigns
}

// dep is a package type resolution read: in the repository (dir), or
// outside it with the directory whose module requirement chose its
// version (from); pkg is base's, for what resolution read of it.
type dep struct {
	dir, from string
	pkg       *declPkg
}

// NewReuse returns a Reuse for one pair of scans: give it to the first
// as Options.Record and to the second as Options.Reuse.
func NewReuse() *Reuse {
	return &Reuse{
		discovered: make(chan struct{}), done: make(chan struct{}), partitioned: make(chan struct{}),
		groups: map[string]*builtGroup{}, parses: newParseCache(), modFiles: newModFiles(), exprs: newExprCache(),
		memoed: make(chan struct{}),
	}
}

// publishMemo publishes the model the memo gave the first scan (nil: it
// gave none); the first call wins.
func (r *Reuse) publishMemo(m *model.Model, hashes []string) {
	r.memoOnce.Do(func() {
		r.memoModel, r.memoHashes = m, hashes
		close(r.memoed)
	})
}

// shareMemoGroups makes a model the memo gave hold the first scan's
// groups where they are the same (the same content hash): when the memo
// gave both scans their models, a group the change did not touch is
// held once, as a group the second scan takes from the first is (and
// its contracts are computed once). For the first scan, it publishes
// the model and hashes for the second.
func (s *state) shareMemoGroups(m *model.Model, hashes []string) {
	if r := s.record; r != nil {
		r.publishMemo(m, hashes)
		return
	}
	r := s.reuse
	if r == nil || len(hashes) != len(m.Groups) {
		return
	}
	<-r.memoed
	if r.memoModel == nil || len(r.memoHashes) != len(r.memoModel.Groups) {
		return
	}
	base := map[string]int{}
	for i, g := range r.memoModel.Groups {
		if g != nil {
			base[g.Dir] = i
		}
	}
	for i, g := range m.Groups {
		if j, ok := base[groupDir(g)]; ok && hashes[i] != "" && hashes[i] == r.memoHashes[j] {
			m.Groups[i] = r.memoModel.Groups[j]
			// Taken as from base's scan: base computes its contracts.
			if s.reused == nil {
				s.reused = map[*model.Group]bool{}
			}
			s.reused[m.Groups[i]] = true
		}
	}
}

// publishShare publishes the files both scans parse once (the first
// call wins; nil shares none).
func (r *Reuse) publishShare(share map[string]bool) {
	r.once.Do(func() {
		r.share = share
		close(r.partitioned)
	})
}

// awaitShare makes the first scan parse the shared files through the
// cache the second uses.
func (s *state) awaitShare() {
	r := s.record
	<-r.partitioned
	s.share, s.parses = r.share, r.parses
}

// recordDiscovered publishes the first scan's discovery (cands nil: it
// failed); the first call wins.
func (r *Reuse) recordDiscovered(s *state, cands []*candidate) {
	r.discoverOnce.Do(func() { r.publishDiscovered(s, cands) })
}

func (r *Reuse) publishDiscovered(s *state, cands []*candidate) {
	if cands != nil {
		if ids, ok := s.src.(BlobIDs); ok {
			r.src, r.source, r.idx, r.mods = ids, s.src, s.idx, s.mods.modules
			r.cands = map[string]candidate{}
			for _, c := range cands {
				r.cands[c.dir] = cloneCandidate(c)
			}
		}
	}
	close(r.discovered)
}

// recordDone publishes the first scan's groups; m is nil when it failed.
func (r *Reuse) recordDone(m *model.Model) {
	if m != nil {
		r.ok, r.profile = true, m.Profile
	}
	close(r.done)
}

func cloneCandidate(c *candidate) candidate {
	d := *c
	d.versions = slices.Clone(c.versions)
	d.stable = slices.Clone(c.stable)
	return d
}

func sameCandidate(a, b candidate) bool {
	return a.dir == b.dir && a.profile == b.profile && a.explicit == b.explicit &&
		slices.Equal(a.versions, b.versions) && slices.Equal(a.stable, b.stable)
}

// reusable splits head's candidates into those it must build and those
// whose configuration and files are the same as at base (to take from
// base if their resolution did not change either). Nothing is reusable
// unless both scans name files by blob.
func (s *state) reusable(cands []*candidate) (build, maybe []*candidate) {
	r := s.reuse
	if r == nil {
		return cands, nil
	}
	defer func() { r.publishShare(s.share) }()
	// Without blob ids nothing is taken, and both scans parse every file
	// they have in common once (share nil: all of them).
	s.parses = r.parses
	if _, ok := s.src.(BlobIDs); !ok {
		return cands, nil
	}
	<-r.discovered
	if r.src == nil {
		return cands, nil
	}
	for _, c := range cands {
		bc, ok := r.cands[c.dir]
		if ok && sameCandidate(bc, *c) && s.sameDir(c.dir) && !slices.ContainsFunc(c.versions, func(v string) bool { return !s.sameDir(v) }) {
			maybe = append(maybe, c)
		} else {
			build = append(build, c)
		}
	}
	// The files of the groups to build that base has too: both parse
	// them, once.
	s.share = map[string]bool{}
	for _, c := range build {
		for _, d := range append([]string{c.dir}, c.versions...) {
			for _, f := range s.goFiles[d] {
				if s.sameFile(f) {
					s.share[f] = true
				}
			}
		}
	}
	return build, maybe
}

// baseModules returns the first scan's modules when this scan, the
// second, has the same go.mod files with the same content (nil
// otherwise): they are parsed once for the pair, and read only. It waits
// for the first scan's discovery, as reusable does next.
func (s *state) baseModules() *modules {
	r := s.reuse
	ids, ok := s.src.(BlobIDs)
	if r == nil || !ok {
		return nil
	}
	<-r.discovered
	if r.src == nil || r.mods == nil || !slices.Equal(r.idx.goMods, s.idx.goMods) {
		return nil
	}
	for _, p := range s.idx.goMods {
		x, ok1 := r.src.BlobID(p)
		y, ok2 := ids.BlobID(p)
		if !ok1 || !ok2 || x != y {
			return nil
		}
	}
	return r.mods
}

// sameFile reports whether a file has the same content at base as here.
func (s *state) sameFile(f string) bool {
	x, ok1 := s.reuse.src.BlobID(f)
	y, ok2 := s.src.(BlobIDs).BlobID(f)
	return ok1 && ok2 && x == y
}

// sameDir reports whether a directory has the same Go files, with the
// same content, at base as here.
func (s *state) sameDir(dir string) bool {
	// The indexes, not the scans' maps: base's scan may be listing a
	// directory on demand meanwhile.
	a, b := s.reuse.idx.goFilesOf(s.reuse.source, dir), s.idx.goFilesOf(s.src, dir)
	if !slices.Equal(a, b) {
		return false
	}
	return !slices.ContainsFunc(a, func(f string) bool { return !s.sameFile(f) })
}

// take returns base's group for a candidate that reusable let through,
// if everything the group was built from is the same here; ok is false
// when it must be built.
func (s *state) take(c *candidate) (b *builtGroup, ok bool) {
	r := s.reuse
	b = r.groups[c.dir]
	if b == nil {
		return nil, false
	}
	for _, d := range b.dirs {
		if !s.sameDir(d) {
			return nil, false
		}
	}
	if b.group != nil {
		for _, p := range b.group.Packages() {
			if s.mods.importPath(p.Dir) != p.ImportPath {
				return nil, false
			}
		}
	}
	for ip, d := range b.deps {
		if !s.sameDep(ip, d) {
			return nil, false
		}
	}
	return b, true
}

// sameDep reports whether an import path resolves here as it did at base:
// to the same repository directory with the same files, or outside the
// repository to the same answers: base read nothing of it (the table of
// well-known types answered), or it is required at the same version, or
// the module cache had it at neither version.
func (s *state) sameDep(importPath string, d dep) bool {
	r := s.reuse
	dir, ok := s.mods.dirFor(importPath)
	inRepo := ok && len(s.goFiles[dir]) > 0
	if d.dir != "" {
		return inRepo && dir == d.dir && s.sameDir(dir)
	}
	if inRepo {
		return false
	}
	if !d.pkg.loaded {
		return true
	}
	m1, v1, sub1, ok1 := r.mods.requiredVersion(d.from, importPath)
	m2, v2, sub2, ok2 := s.mods.requiredVersion(d.from, importPath)
	if ok1 == ok2 && m1 == m2 && v1 == v2 && sub1 == sub2 {
		return true
	}
	if d.pkg.found {
		return false
	}
	// A package of its own, not the resolver's: which directory asks
	// first must stay the resolution's business.
	p := &declPkg{path: importPath, fromDir: d.from, where: "module cache", decls: map[string]*typeDecl{}}
	s.res.loadModCache(p)
	return !p.found
}

// ShareTypes makes the groups the second scan built (the change touched
// them) hold the first scan's types wherever a type is the same at both
// revisions, its fields' contracts included (Package.ShareTypes): a
// change touches few types of a group. Both models must have their
// contracts (contract.Normalize). It waits for the first scan; a second
// scan that built fewer than shareTypesFrom types keeps its own.
func (r *Reuse) ShareTypes(m *model.Model) {
	<-r.done
	if !r.ok {
		return
	}
	var built []*model.Package
	for _, g := range m.Groups {
		if !r.taken(g) {
			built = append(built, g.Packages()...)
		}
	}
	if builtTypes(built) < shareTypesFrom {
		return
	}
	for _, g := range m.Groups {
		b := r.groups[g.Dir]
		if b == nil || b.group == nil || b.group == g {
			continue
		}
		base := map[string]*model.Package{}
		for _, p := range b.group.Packages() {
			base[p.Dir] = p
		}
		for _, p := range g.Packages() {
			if bp := base[p.Dir]; bp != nil {
				p.ShareTypes(bp)
			}
		}
	}
}

// taken reports whether g is a group the second scan took from the first
// (read once the first scan is done).
func (r *Reuse) taken(g *model.Group) bool {
	b := r.groups[g.Dir]
	return b != nil && b.group == g
}

// groupDir is a group's directory ("" for none).
func groupDir(g *model.Group) string {
	if g == nil {
		return ""
	}
	return g.Dir
}
