// Package lifecycle judges API changes across releases: the two-step
// removal of fields (usages first, the field one release later), protobuf
// numbers freed without a tombstone in an earlier release, and the stages
// of a Shoot field deprecation (warning, version-gated validation,
// maintenance, Canonicalize, final removal).
//
// This package is the release history (History: release tags, the
// newest release before base, its model, protobuf numbers at earlier
// releases and their cache). Its sub-packages hold the other analyses:
// usage (usages of removed fields) and shoot (the code of the Shoot
// deprecation stages). The rules that judge with them live in
// internal/rules and declare what they require; check builds the analyses
// once per comparison. Every analysis runs lazily, once, and only when a
// rule needs it: a change without removed or new protobuf fields never
// reads a release tag. Problems with the input (no release tag, a shallow
// clone, a missing stage file) become notes on the report, never crashes.
package lifecycle

import (
	"errors"
	"fmt"
	"sync"

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

// History is the release history of one comparison: the newest release
// before base, its snapshot and model, and the protobuf numbers structs
// held at earlier releases. Every part is computed lazily, once. It is
// not safe for concurrent use (the rules engine runs rules one after
// another).
type History struct {
	in   Input
	opts Options

	release func() (Release, string)
	tag     func() (*releaseRev, error)
	tagSnap git.Snapshot // for Close

	histDone bool
	hist     *ProtoNumbers
	histErr  error
}

// NewHistory prepares the release history; nothing runs yet.
func NewHistory(in Input) *History {
	e := &History{in: in, opts: in.Options.withDefaults()}
	e.release = sync.OnceValues(e.findRelease)
	e.tag = sync.OnceValues(e.openRelease)
	return e
}

// releaseRev is the newest release's snapshot and model.
type releaseRev struct {
	snap  git.Snapshot
	model *model.Model
}

// Close releases the release tag's snapshot, if one was opened.
func (e *History) Close() {
	if e == nil {
		return
	}
	if e.tagSnap != nil {
		e.tagSnap.Close()
		e.tagSnap = nil
	}
}

// Options are the lifecycle options in effect (defaults filled in).
func (e *History) Options() Options { return e.opts }

// Input is what the comparison handed in.
func (e *History) Input() Input { return e.in }

// Snapshot opens a revision: base and head are the compared snapshots,
// the release is the newest release before base. label names it for
// messages ("base", "release v1.2.0").
func (e *History) Snapshot(rev Rev) (snap git.Snapshot, label string, err error) {
	switch rev {
	case RevBase:
		return e.in.Base, string(rev), nil
	case RevHead:
		return e.in.Head, string(rev), nil
	case RevRelease:
		s, _, err := e.ReleaseSnapshot()
		if err != nil {
			return nil, "", err
		}
		rel, _ := e.Release()
		return s, "release " + rel.Newest.Name, nil
	}
	return nil, "", fmt.Errorf("unknown revision %q", rev)
}

// Release is the release history as seen from base.
type Release struct {
	// Newest is the release tag nearest to base along the commit graph.
	Newest git.Tag
	// All are the release tags reachable from base, newest version first.
	All []git.Tag
}

// Release returns the release history, or a problem saying why there is
// none (no tag matches, a shallow clone, a bad pattern).
func (e *History) Release() (Release, string) { return e.release() }

func (e *History) findRelease() (Release, string) {
	re, err := config.CompileTagPattern(e.opts.TagPattern)
	if err != nil {
		return Release{}, err.Error()
	}
	base := e.in.Base.Commit()
	if base == "" || e.in.Repo == nil {
		return Release{}, "base is not a commit, so no release tag can be reachable from it"
	}
	shallowHint := ""
	if shallow, err := e.in.Repo.IsShallow(); err == nil && shallow {
		shallowHint = "; this is a shallow clone, which lacks the history and tags: run `git fetch --unshallow --tags` and retry"
	}
	newest, err := e.in.Repo.NewestTagReachable(base, re)
	if err != nil {
		return Release{}, fmt.Sprintf("cannot read release tags: %v%s", err, shallowHint)
	}
	if newest.Name == "" {
		msg := fmt.Sprintf("no release tag matching %s is reachable from base %s", e.opts.TagPattern, short(base))
		if shallowHint == "" {
			if all, err := e.in.Repo.Tags(""); err == nil && len(all) == 0 {
				msg += " (the repository has no tags: run `git fetch --tags`)"
			}
		}
		return Release{}, msg + shallowHint
	}
	all, err := e.in.Repo.TagsReachable(base, re)
	if err != nil {
		return Release{}, fmt.Sprintf("cannot list release tags reachable from base: %v%s", err, shallowHint)
	}
	return Release{Newest: newest, All: all}, ""
}

// ReleaseSnapshot opens the newest release tag's snapshot and scans its
// model, once.
func (e *History) ReleaseSnapshot() (git.Snapshot, *model.Model, error) {
	r, err := e.tag()
	if err != nil {
		return nil, nil, err
	}
	return r.snap, r.model, nil
}

func (e *History) openRelease() (*releaseRev, error) {
	rel, prob := e.Release()
	if prob != "" {
		return nil, errors.New(prob)
	}
	snap, err := e.in.Repo.Snapshot(rel.Newest.Commit)
	if err != nil {
		return nil, fmt.Errorf("cannot read release %s: %w", rel.Newest.Name, err)
	}
	m, err := scan.Scan(snap, e.in.Scan)
	if err != nil {
		snap.Close()
		return nil, fmt.Errorf("cannot scan release %s: %w", rel.Newest.Name, err)
	}
	e.tagSnap = snap
	return &releaseRev{snap: snap, model: m}, nil
}

// ReleaseField looks a field up in the newest release's model by group
// directory, version, type name and Go field name. ok is false when the
// release does not have it.
func (e *History) ReleaseField(fd *model.FieldDiff) (f *model.Field, ok bool, err error) {
	_, m, err := e.ReleaseSnapshot()
	if err != nil {
		return nil, false, err
	}
	typ := fd.Type.Name()
	if fd.Type.Base != nil {
		typ = fd.Type.Base.Name
	}
	t := lookupType(m, fd.Type.Pkg.Group.Dir, fd.Type.Pkg.Version, typ)
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

func lookupType(m *model.Model, groupDir, version, typ string) *model.Type {
	g := m.Group(groupDir)
	if g == nil {
		return nil
	}
	p := g.Version(version)
	if p == nil {
		return nil
	}
	return p.Type(typ)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
