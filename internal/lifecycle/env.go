// Package lifecycle judges API changes across releases: the two-step
// removal of fields (usages first, the field one release later), protobuf
// numbers freed without a tombstone in an earlier release, and the stages
// of a Shoot field deprecation (warning, version-gated validation,
// maintenance, Canonicalize, final removal).
//
// This package is the release history (History: release tags, the
// release before base and before head (git.ReleaseTags.Before), the
// release's model, and the struct history over earlier releases with its
// on-disk cache: protobuf numbers, deprecations, identity breaks). Its sub-packages hold the other analyses:
// usage (usages of removed fields) and shoot (the code of the Shoot
// deprecation stages). The rules that judge with them live in
// internal/rules and declare what they require; check builds the analyses
// once per comparison. Every analysis runs once, when a rule needs it or
// when it was started ahead for a rule that will (a rule's UsagesAt and
// Ahead): a change without removed or new protobuf fields reads a release
// tag only when a finding asks what the release had. Problems with the
// input (no release tag, tags that are not versions, no release before
// base, a shallow clone, a missing stage file) become notes on the
// report, never crashes.
package lifecycle

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/mod/semver"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Input is what a comparison hands to the lifecycle analysis.
type Input struct {
	Repo                 *git.Repo
	Base, Head           git.Snapshot
	BaseModel, HeadModel *model.Model
	// Scan are the options the models were scanned with (used again for
	// the release tag's model).
	Scan    scan.Options
	Options Options
}

// Rev names a revision the lifecycle analyses read.
type Rev string

// Revisions the analyses read.
const (
	RevBase    Rev = "base"
	RevHead    Rev = "head"
	RevRelease Rev = "release"
)

// History is the release history of one comparison: the release before
// base (and before head), its snapshot and model, and the struct history
// over earlier releases. Every part is computed lazily, once. The rules
// engine runs rules one after another; what may run beside them is safe
// for concurrent use: the release, the snapshots (a usage search started
// ahead), and the struct history (ProtoHistoryAhead; its entry points
// take turns).
type History struct {
	in   Input
	opts Options

	release func() (Release, string)
	// firstAfterBase is the repository's first release when release
	// tags exist and none was cut before base (set by findRelease).
	firstAfterBase string
	// pattern is the tag pattern in effect when findRelease chose
	// another than the options' (see TagPattern).
	pattern string
	tag     func() (*releaseRev, error)
	opened  atomic.Pointer[releaseRev] // tag's answer, once it has one
	tagSnap git.Snapshot               // for Close

	// hists are ProtoHistory's answers, per set of structs (the rules
	// and the fixes may ask for different ones; the struct history below
	// is read once for all of them).
	hists map[string]protoResult

	asked atomic.Bool // a rule asked for the release

	// structMu makes the entry points of the struct history (StructAt,
	// ProtoHistory, LastReleases, FieldDecl) take turns: a prefetch
	// (ProtoHistoryAhead) runs beside the rules.
	structMu sync.Mutex
	structs  *structHistory // the struct history, once read
	cache    func() *blobCache
	// cacheOpen is set once cache was called (Close then waits for its
	// writes).
	cacheOpen atomic.Bool

	ahead sync.WaitGroup // the work started ahead of the rules
}

// NewHistory prepares the release history; nothing runs yet.
func NewHistory(in Input) *History {
	e := &History{in: in, opts: in.Options.withDefaults()}
	e.release = sync.OnceValues(e.findRelease)
	e.tag = sync.OnceValues(func() (*releaseRev, error) {
		r, err := e.openRelease()
		if r != nil {
			e.opened.Store(r)
		}
		return r, err
	})
	e.cache = sync.OnceValue(func() *blobCache {
		e.cacheOpen.Store(true)
		return openBlobCache(e.opts.CacheDir, e.in.Repo.Root)
	})
	return e
}

// ReleaseAhead starts finding the release history (Release) in the
// background: it reads the tags and the commit graph only, not the
// models, so a comparison starts it before it scans and the rules find it
// ready. It is not a use of the release (Used). Close waits for it.
func (e *History) ReleaseAhead() {
	e.ahead.Go(func() {
		// A panic is kept by the sync.OnceValues: the rule that asks
		// next raises it where the engine recovers it.
		defer func() { _ = recover() }()
		e.release()
	})
}

// Scanned hands the history the models of base and head, once scanned:
// a comparison that started work ahead (ReleaseAhead) before it scanned
// calls it before the rules run. A comparison that judges a large tree
// part by part calls it for every part, between the parts' rule runs.
func (e *History) Scanned(base, head *model.Model) {
	e.in.BaseModel, e.in.HeadModel = base, head
}

// Settle waits for the work started ahead: a comparison judged part by
// part calls it before it hands the history the next part's models (work
// a part's rule started and did not wait for reads the models).
func (e *History) Settle() {
	e.ahead.Wait()
}

// NextPart readies the history for the next part of a comparison judged
// part by part: it waits for the work started ahead (see Settle) and lets
// go of the release's groups scanned for the parts before (a part asks
// for its own directories only).
func (e *History) NextPart() {
	e.Settle()
	if r := e.opened.Load(); r != nil {
		r.mu.Lock()
		clear(r.groups)
		r.mu.Unlock()
	}
}

// Aside runs f, whose asking for the release does not count as a use
// (Used): a comparison judged part by part plans a part's fixes and judges
// its suppressions after its rules, where a whole comparison has already
// said which releases its rules used.
func (e *History) Aside(f func()) {
	was := e.asked.Load()
	defer e.asked.Store(was)
	f()
}

// Forget forgets that a rule asked for the release (Used): a comparison
// that gave up judging part by part starts over on the whole tree, whose
// rules may not ask.
func (e *History) Forget() {
	e.asked.Store(false)
}

// releaseRev is the newest release's snapshot and the groups of it that
// were asked for: a rule looks up a few fields of a few groups, so only
// those groups are scanned (see ReleaseGroup).
type releaseRev struct {
	snap git.Snapshot
	// atBase is set when the release is base's commit: base's model
	// (the one of the part of the tree being judged, see Scanned) is the
	// release's.
	atBase bool
	mu     sync.Mutex
	groups map[string]*model.Group // by directory; nil: not in the release
	whole  *model.Model            // the whole release, once asked for
}

// Close waits for the work started ahead, and releases the release tag's
// snapshot, if one was opened.
func (e *History) Close() {
	if e == nil {
		return
	}
	e.ahead.Wait()
	e.structs.close()
	if e.cacheOpen.Load() {
		e.cache().flush()
	}
	if e.tagSnap != nil {
		e.tagSnap.Close()
		e.tagSnap = nil
	}
}

// Options are the lifecycle options in effect (defaults filled in).
func (e *History) Options() Options { return e.opts }

// TagPattern is the release tag pattern in effect: the options', or, when
// that is the default and no tag matches it, config.UnprefixedTagPattern
// if tags match that.
func (e *History) TagPattern() string {
	e.release()
	if e.pattern != "" {
		return e.pattern
	}
	return e.opts.TagPattern
}

// Input is what the comparison handed in.
func (e *History) Input() Input { return e.in }

// Snapshot opens a revision: base and head are the compared snapshots,
// the release is the newest release before base. label names it for
// messages ("base", "release v1.2.0").
func (e *History) Snapshot(rev Rev) (snap git.Snapshot, label string, err error) {
	return e.snapshot(rev, true)
}

// SnapshotAhead is Snapshot for work done ahead of a rule's asking (a
// prefetch): opening the release does not count as a rule using it
// (Used).
func (e *History) SnapshotAhead(rev Rev) (snap git.Snapshot, label string, err error) {
	return e.snapshot(rev, false)
}

func (e *History) snapshot(rev Rev, asked bool) (snap git.Snapshot, label string, err error) {
	switch rev {
	case RevBase:
		return e.in.Base, string(rev), nil
	case RevHead:
		return e.in.Head, string(rev), nil
	case RevRelease:
		if asked {
			e.asked.Store(true)
		}
		r, err := e.tag()
		if err != nil {
			return nil, "", err
		}
		rel, _ := e.release()
		return r.snap, "release " + rel.Newest.Name, nil
	}
	return nil, "", fmt.Errorf("unknown revision %q", rev)
}

// IsBase reports whether rev is base's commit: base itself, or the
// release before base when base is that release's commit. It never opens
// anything.
func (e *History) IsBase(rev Rev) bool {
	switch rev {
	case RevBase:
		return true
	case RevRelease:
		rel, prob := e.release()
		return prob == "" && e.in.Base != nil && rel.Newest.Commit != "" && rel.Newest.Commit == e.in.Base.Commit()
	}
	return false
}

// Release is the release history as seen from the compared revisions.
type Release struct {
	// Newest is the release before base (see git.ReleaseTags.Before):
	// the release whose components run next to the API server that base
	// becomes.
	Newest git.Tag
	// Head is the release before head: Newest for a change within one
	// release cycle; a later release when the comparison spans releases
	// (e.g. base and head are two release tags).
	Head git.Tag
	// All are the release tags at or below Head, highest version first:
	// every patch release of lower lines, and Head's line up to Head. The
	// protobuf and field histories read them.
	All []git.Tag
	// Spanned are the tags of All above Newest's release line, highest
	// first: the releases cut between base and head (none for a pull
	// request).
	Spanned []git.Tag
	// Note says which release tags were not read (more match than
	// git.MaxReleaseTags), "" when none was left out.
	Note string
}

// Release returns the release history, or a problem saying why there is
// none (no tag matches, no release before base, a shallow clone, a bad
// pattern).
func (e *History) Release() (Release, string) {
	e.asked.Store(true)
	return e.release()
}

// BeforeFirstRelease reports whether base predates every release: the
// repository has release tags, and none was cut before base. Nothing of
// base was released then. first names the repository's first release.
func (e *History) BeforeFirstRelease() (first string, ok bool) {
	if e == nil {
		return "", false
	}
	e.release()
	return e.firstAfterBase, e.firstAfterBase != ""
}

// Used returns the release history when a rule asked for it and it was
// found: the report names the releases a run used.
func (e *History) Used() (Release, bool) {
	if e == nil || !e.asked.Load() {
		return Release{}, false
	}
	rel, prob := e.release()
	return rel, prob == ""
}

func (e *History) findRelease() (Release, string) {
	re, err := config.CompileTagPattern(e.opts.TagPattern)
	if err != nil {
		return Release{}, err.Error()
	}
	base := e.in.Base.Commit()
	if base == "" || e.in.Repo == nil {
		return Release{}, "base is not a commit, so no release can come before it"
	}
	if shallow, err := e.in.Repo.IsShallow(); err != nil {
		return Release{}, fmt.Sprintf("cannot read release tags: %v", err)
	} else if shallow {
		return Release{}, "this is a shallow clone, whose history and release tags are incomplete: run `git fetch --unshallow --tags` and retry"
	}
	rs, err := e.in.Repo.ReleaseTagsMemo(re.MatchString, e.cache())
	if err != nil {
		return Release{}, fmt.Sprintf("cannot read release tags: %v", err)
	}
	if len(rs.Tags) == 0 && e.opts.TagPattern == config.DefaultTagPattern {
		// No tag is named v<major>.<minor>.0: a repository that names
		// its releases without the v has them as <major>.<minor>.0.
		plain := regexp.MustCompile(config.UnprefixedTagPattern)
		if alt, err := e.in.Repo.ReleaseTagsMemo(plain.MatchString, e.cache()); err == nil && len(alt.Tags) > 0 {
			rs, e.pattern = alt, config.UnprefixedTagPattern
		}
	}
	if len(rs.Tags) == 0 {
		return Release{}, e.noTags(rs)
	}
	commits := []string{base}
	if e.in.Head != nil {
		if head := e.in.Head.Commit(); head != "" && head != base {
			commits = append(commits, head)
		}
	}
	before, err := rs.Before(commits...)
	if err != nil {
		return Release{}, fmt.Sprintf("cannot order release tags: %v", err)
	}
	if before[0].Name == "" {
		// Base came before every release when the first one descends
		// from it (not when the tags are on a history apart from it) and
		// no tag of another naming (hvpa-controller's 0.1.0 before its
		// v0.2.0) names a version base contains.
		if first := rs.Oldest(); first.Commit != "" {
			after, err := e.in.Repo.IsAncestor(base, first.Commit)
			if err == nil && after {
				if other, err := e.in.Repo.VersionTagMerged(base); err == nil && other == "" {
					e.firstAfterBase = first.Name
				}
			}
		}
		pattern := e.opts.TagPattern
		if e.pattern != "" {
			pattern = e.pattern
		}
		return Release{}, fmt.Sprintf("no release tag matching %s was cut before base %s (the oldest release, %s, came after it)",
			pattern, short(base), rs.Oldest().Name)
	}
	atHead := before[len(before)-1]
	if atHead.Name == "" || semver.Compare(atHead.Version, before[0].Version) < 0 {
		atHead = before[0] // head on an older line than base: judge by base's release
	}
	pattern := e.opts.TagPattern
	if e.pattern != "" {
		pattern = e.pattern
	}
	rel := Release{Newest: before[0].Tag, Head: atHead.Tag, Note: rs.SkippedNote(pattern)}
	for _, t := range rs.UpTo(atHead) {
		rel.All = append(rel.All, t.Tag)
	}
	for _, t := range rs.Between(before[0], atHead) {
		rel.Spanned = append(rel.Spanned, t.Tag)
	}
	return rel, ""
}

// noTags explains why no tag is a release.
func (e *History) noTags(rs *git.ReleaseTags) string {
	msg := "no release tag matching " + e.opts.TagPattern
	switch {
	case rs.Matched > 0:
		ex := rs.NotVersions
		if len(ex) > 3 {
			ex = ex[:3]
		}
		return fmt.Sprintf("%s carries a version: %d tags match but none reads as a semantic version (e.g. %s)",
			msg, rs.Matched, strings.Join(ex, ", "))
	}
	if rs.Total == 0 {
		return msg + " exists: the repository has no tags (run `git fetch --tags`)"
	}
	return msg + " exists (set releases.tagPattern in .apicheck.yaml)"
}

// ReleaseSnapshot opens the newest release tag's snapshot, once. When
// base is the release's commit (a comparison from a release tag), it is
// base's snapshot: nothing is read again.
func (e *History) ReleaseSnapshot() (git.Snapshot, error) {
	e.asked.Store(true)
	r, err := e.tag()
	if err != nil {
		return nil, err
	}
	return r.snap, nil
}

func (e *History) openRelease() (*releaseRev, error) {
	rel, prob := e.release()
	if prob != "" {
		return nil, errors.New(prob)
	}
	if e.IsBase(RevRelease) {
		return &releaseRev{snap: e.in.Base, atBase: true, groups: map[string]*model.Group{}}, nil
	}
	snap, err := e.in.Repo.Snapshot(rel.Newest.Commit)
	if err != nil {
		return nil, fmt.Errorf("cannot read release %s: %w", rel.Newest.Name, err)
	}
	e.tagSnap = snap
	return &releaseRev{snap: snap, groups: map[string]*model.Group{}}, nil
}

// ReleaseModel returns the model of the whole release before base,
// scanned once (base's model when base is the release's commit).
func (e *History) ReleaseModel() (*model.Model, error) {
	e.asked.Store(true)
	r, err := e.tag()
	if err != nil {
		return nil, err
	}
	if r.atBase && e.in.BaseModel != nil {
		return e.in.BaseModel, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.whole == nil {
		m, err := e.scanRelease(r.snap, nil)
		if err != nil {
			return nil, err
		}
		r.whole = m
	}
	return r.whole, nil
}

// scanRelease scans the groups in dirs of the release (all when dirs is
// empty) with the profile base was judged by.
func (e *History) scanRelease(snap git.Snapshot, dirs []string) (*model.Model, error) {
	opts := e.in.Scan
	opts.Only, opts.Record, opts.Reuse = dirs, nil, nil // a scan of its own
	opts.NoExternal = true                              // no wire shape is compared on a release
	if opts.Profile == "" && e.in.BaseModel != nil {
		opts.Profile = e.in.BaseModel.Profile
	}
	m, err := scan.Scan(snap, opts)
	if err != nil {
		rel, _ := e.Release()
		return nil, fmt.Errorf("cannot scan release %s: %w", rel.Newest.Name, err)
	}
	return m, nil
}

// ReleaseGroup returns the group in directory dir as the newest release
// before base had it (nil when it had none there), scanning that group
// only, once. The release is scanned with the profile base was judged
// by.
func (e *History) ReleaseGroup(dir string) (*model.Group, error) {
	e.asked.Store(true)
	r, err := e.tag()
	if err != nil {
		return nil, err
	}
	if r.atBase && e.in.BaseModel != nil {
		return e.in.BaseModel.Group(dir), nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g, ok := r.groups[dir]; ok {
		return g, nil
	}
	if r.whole != nil {
		return r.whole.Group(dir), nil
	}
	m, err := e.scanRelease(r.snap, []string{dir})
	if err != nil {
		return nil, err
	}
	g := m.Group(dir)
	r.groups[dir] = g
	return g, nil
}

// ReleaseField looks a field up in the model of the release before base
// by group directory, version, type name and Go field name. ok is false
// when that release does not have it: for a field base has, it was added
// after that release (never released yet).
func (e *History) ReleaseField(fd *model.FieldDiff) (f *model.Field, ok bool, err error) {
	p, err := e.releaseTypes(fd.Type.Pkg)
	if err != nil || p == nil {
		return nil, false, err
	}
	t := p.Type(fd.Type.BaseName())
	if t == nil {
		return nil, false, nil
	}
	name := fd.Name()
	if fd.Base != nil {
		name = fd.Base.Name
	}
	f = t.Field(name)
	return f, f != nil, nil
}

// Released reports whether the release before base contained the base
// side of fd. A struct the release does not have counts as released when
// some struct of the release's version package has a field of the same
// json name and protobuf number (the struct was renamed since); a version
// package the release does not have was never released.
func (e *History) Released(fd *model.FieldDiff) (bool, error) {
	if f, ok, err := e.ReleaseField(fd); err != nil || ok {
		return ok && f != nil, err
	}
	p, err := e.releaseTypes(fd.Type.Pkg)
	if err != nil || p == nil || fd.Base == nil {
		return false, err
	}
	if p.Type(fd.Type.BaseName()) != nil {
		return false, nil // the struct was released, without this field
	}
	for _, t := range p.Types {
		for _, f := range t.Fields {
			if f.WireName() == fd.Base.WireName() && protoNumber(f) == protoNumber(fd.Base) {
				return true, nil
			}
		}
	}
	return false, nil
}

// TypeReleased reports whether the release before base had type typ in
// the version package of pd (see releasePackage).
func (e *History) TypeReleased(pd *model.PackageDiff, typ string) (bool, error) {
	p, err := e.releaseTypes(pd)
	if err != nil || p == nil {
		return false, err
	}
	return p.Type(typ) != nil, nil
}

// releaseTypes returns the package that held pd's types at the release
// before base: for a shared types package (model.Diff.Shared), the
// package of the same import path the release's versions reached; for a
// version, releasePackage. nil when the release had none.
func (e *History) releaseTypes(pd *model.PackageDiff) (*model.Package, error) {
	if !pd.IsShared() {
		return e.releasePackage(pd)
	}
	m, err := e.ReleaseModel()
	if err != nil {
		return nil, err
	}
	ip := pd.Pkg().ImportPath
	for _, p := range m.Shared {
		if p.ImportPath == ip {
			return p, nil
		}
	}
	return nil, nil
}

// releasePackage returns the version package of pd (the internal package
// for version "") as the release before base had it: in the group's
// directory or the one it moved from in this change, else, for a group
// that moved since the release (Cluster API moved its bootstrap and
// control-plane groups under internal/api), in a group of the same API
// group name. nil when the release had none.
func (e *History) releasePackage(pd *model.PackageDiff) (*model.Package, error) {
	dirs := []string{pd.Group.Dir}
	if pd.Group.MovedFrom != "" {
		dirs = append(dirs, pd.Group.MovedFrom)
	}
	for _, dir := range dirs {
		g, err := e.ReleaseGroup(dir)
		if err != nil {
			return nil, err
		}
		if g != nil {
			if p := g.Version(pd.Version); p != nil {
				return p, nil
			}
		}
	}
	name := ""
	if pd.Group.Base != nil {
		name = pd.Group.Base.Name
	} else if pd.Group.Head != nil {
		name = pd.Group.Head.Name
	}
	if name == "" {
		return nil, nil
	}
	m, err := e.ReleaseModel()
	if err != nil {
		return nil, err
	}
	for _, g := range m.Groups {
		if g.Name == name && !slices.Contains(dirs, g.Dir) {
			if p := g.Version(pd.Version); p != nil {
				return p, nil
			}
		}
	}
	return nil, nil
}

// VersionReleased reports whether the release before base had the version
// package of pd: in the same group directory, or, for a group that moved
// since, in a group of the same API group name. A version package the
// release does not have, or had without types, is under development:
// nothing outside the repository depends on it yet.
func (e *History) VersionReleased(pd *model.PackageDiff) (bool, error) {
	p, err := e.releasePackage(pd)
	if err != nil || p == nil {
		return false, err
	}
	return len(p.Types) > 0, nil // a package without types shipped nothing
}

func protoNumber(f *model.Field) int {
	if f.Proto == nil {
		return 0
	}
	return f.Proto.Number
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Memo is the lifecycle cache's memo of answers that are pure functions
// of their key (see cache.go); it does nothing when the cache is off.
func (e *History) Memo() git.Memo { return e.cache() }
