package deprecations

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// run is one planning run: the revision's model, its release history
// and what was read of the releases.
type run struct {
	in   Input
	m    *model.Model
	scan scan.Options
	hist *lifecycle.History

	// rel is the release history (relOK unset when there is none: a note
	// says why); newest and next name the newest release and the next.
	rel          lifecycle.Release
	relOK        bool
	newest, next string

	notes []string
	noted map[string]bool

	structs map[[2]string]lifecycle.StructHistory
	snaps   map[int]git.Snapshot
	groups  map[releaseDir]*model.Group
	probes  map[int]*probe

	// stages reads the Shoot stage code at the revision; supported are
	// the supported Kubernetes versions (read when a Shoot field needs
	// them).
	stages    *shoot.Stages
	supported []shoot.Version
	versProb  string
	versRead  bool
}

type releaseDir struct {
	i   int
	dir string
}

func newRun(in Input, m *model.Model) *run {
	opts := in.Scan
	if opts.Profile == "" {
		opts.Profile = m.Profile // the releases are scanned with the revision's profile
	}
	opts.Record, opts.Reuse, opts.Only = nil, nil, nil
	r := &run{in: in, m: m, scan: opts, noted: map[string]bool{},
		structs: map[[2]string]lifecycle.StructHistory{}, snaps: map[int]git.Snapshot{},
		groups: map[releaseDir]*model.Group{}, probes: map[int]*probe{}}
	r.hist = lifecycle.NewHistory(lifecycle.Input{
		Repo: in.Repo, Base: in.Snap, Head: in.Snap, BaseModel: m, HeadModel: m,
		Scan: opts, Options: in.Lifecycle,
	})
	r.stages = shoot.NewStages(r.hist)
	return r
}

func (r *run) close() {
	for _, p := range r.probes {
		p.hist.Close()
	}
	for _, s := range r.snaps {
		s.Close()
	}
	r.hist.Close()
}

// stop is the error of an interrupted run.
func (r *run) stop() error {
	if err := r.in.ctx().Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	// Stage code read when a question needed it, and not readable then.
	if r.stages != nil {
		if err := r.stages.Err(); err != nil {
			return err
		}
	}
	for _, i := range slices.Sorted(maps.Keys(r.probes)) {
		if err := r.probes[i].stages.Err(); err != nil {
			return err
		}
	}
	return nil
}

// note adds a note once.
func (r *run) note(format string, a ...any) {
	n := fmt.Sprintf(format, a...)
	if !r.noted[n] {
		r.noted[n] = true
		r.notes = append(r.notes, n)
	}
}

// releases reads the release history: the release tags up to the newest
// release at or before the revision. Without one, a note says why when
// there are deprecations to date.
func (r *run) releases(needed bool) {
	rel, prob := r.hist.Release()
	if prob != "" {
		if needed {
			r.note("no release history, so no deprecation is dated and none is removable: %s", prob)
		}
		return
	}
	r.rel, r.relOK = rel, true
	r.newest = rel.Newest.Name
	r.next = bump(r.newest, 1)
}

// versionText is the first semantic version in a tag name.
var versionText = lazyre.New(`(\d+)\.(\d+)\.(\d+)`)

// bump names the release k minor versions after tag ("v1.149.0", 1:
// "v1.150.0"); "" when the tag carries no version.
func bump(tag string, k int) string {
	loc := versionText.FindStringSubmatchIndex(tag)
	if loc == nil {
		return ""
	}
	minor, err := strconv.Atoi(tag[loc[4]:loc[5]])
	if err != nil {
		return ""
	}
	return tag[:loc[4]] + strconv.Itoa(minor+k) + ".0" + tag[loc[1]:]
}

// after names the release k releases after the newest: its tag when it
// can be named, else a phrase.
func (r *run) after(k int) string {
	if t := bump(r.newest, k); t != "" {
		return t
	}
	if r.newest == "" {
		if k == 1 {
			return "the next release"
		}
		return "the release after the next"
	}
	if k == 1 {
		return "the release after " + r.newest
	}
	return fmt.Sprintf("the %d. release after %s", k, r.newest)
}

// fieldHistory dates the deprecation of every field from its struct's
// history over the releases (lifecycle.History.StructAt: the struct's
// declaration in each release's tree, read once per distinct file).
func (r *run) fieldHistory(items []*item) {
	if !r.relOK {
		return
	}
	for _, it := range items {
		if it.d.Kind != KindField {
			continue
		}
		key := [2]string{it.pkg.Dir, it.typ.Name}
		h, ok := r.structs[key]
		if !ok {
			var err error
			h, err = r.hist.StructAt(it.pkg.Dir, it.typ.Name)
			if err != nil {
				r.note("cannot read the history of %s.%s: %v", it.pkg.Dir, it.typ.Name, err)
			}
			r.structs[key] = h
		}
		deprecated := true
		for i, rs := range h.Releases {
			f, ok := rs.Field(it.field.Name)
			if !ok {
				break
			}
			it.span = i + 1
			if deprecated = deprecated && f.Deprecated; deprecated {
				it.sinceIdx = i
				it.d.DeprecatedSince = rs.Tag
			}
		}
	}
}

// typeHistory dates the deprecation of types and versions: a binary
// search over the releases, newest first, each step scanning the group
// of the element at one release tag (scans are shared by the elements of
// a group). A deprecation is taken to last once made, so the search finds
// where the run of deprecated releases ends.
func (r *run) typeHistory(items []*item) {
	if !r.relOK {
		return
	}
	for _, it := range items {
		if it.d.Kind == KindField {
			continue
		}
		it := it
		idx, err := r.lastTrue(len(r.rel.All), func(i int) (bool, error) {
			g, err := r.groupAt(i, it.group.Dir)
			if err != nil || g == nil {
				return false, err
			}
			p := g.Version(it.pkg.Version)
			if p == nil {
				return false, nil
			}
			if it.typ == nil {
				return p.Deprecated, nil
			}
			t := p.Type(it.typ.Name)
			return t != nil && t.Deprecated, nil
		})
		if err != nil {
			r.note("cannot date the deprecation of %s: %v", describe(it), err)
			continue
		}
		if idx >= 0 {
			it.sinceIdx = idx
			it.d.DeprecatedSince = r.rel.All[idx].Name
		}
	}
}

// lastTrue returns the last index i < n of the run of indexes from 0 for
// which pred holds, by binary search (pred is taken to hold on a prefix);
// -1 when it does not hold at 0.
func (r *run) lastTrue(n int, pred func(i int) (bool, error)) (int, error) {
	if n == 0 {
		return -1, nil
	}
	ok, err := pred(0)
	if err != nil || !ok {
		return -1, err
	}
	lo, hi := 0, n // pred(lo) holds; hi is the first index known not to (n: none)
	for hi-lo > 1 {
		if err := r.stop(); err != nil {
			return -1, err
		}
		mid := lo + (hi-lo)/2
		ok, err := pred(mid)
		if err != nil {
			return -1, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// snapAt opens the snapshot of release i, once.
func (r *run) snapAt(i int) (git.Snapshot, error) {
	if s, ok := r.snaps[i]; ok {
		return s, nil
	}
	t := r.rel.All[i]
	if t.Commit == r.in.Snap.Commit() && r.in.Snap.Ref() != git.WorktreeRef {
		return r.in.Snap, nil // the revision is the release
	}
	s, err := r.in.Repo.Snapshot(t.Commit)
	if err != nil {
		return nil, fmt.Errorf("cannot read release %s: %w", t.Name, err)
	}
	r.snaps[i] = s
	return s, nil
}

// groupAt is the group of directory dir at release i (nil when the
// release has none there), scanned once.
func (r *run) groupAt(i int, dir string) (*model.Group, error) {
	k := releaseDir{i, dir}
	if g, ok := r.groups[k]; ok {
		return g, nil
	}
	snap, err := r.snapAt(i)
	if err != nil {
		return nil, err
	}
	opts := r.scan
	opts.Only = []string{dir}
	m, err := scan.Scan(snap, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot scan release %s: %w", r.rel.All[i].Name, err)
	}
	g := m.Group(dir)
	r.groups[k] = g
	return g, nil
}

// describe names an element for notes.
func describe(it *item) string {
	s := it.d.Group + "/" + it.d.Version
	if it.d.Type != "" {
		s += " " + it.d.Type
	}
	if it.d.Field != "" {
		s += "." + it.d.Field
	}
	return s
}
