// Package lifecycle judges API changes across releases: the two-step
// removal of fields (usages first, the field one release later), protobuf
// numbers freed without a tombstone in an earlier release, and the stages
// of a Shoot field deprecation (warning, version-gated validation,
// maintenance, Canonicalize, final removal).
//
// check builds one Env per comparison and hands it to the rules engine as
// rules.Options.Env; the lifecycle rules (Rules, PreviouslyUsed) read it.
// Every analysis behind the Env runs lazily, once, and only when a rule
// needs it: a change without removed or new protobuf fields never reads a
// release tag. Problems with the input (no release tag, a shallow clone, a
// missing stage file) become notes on the report, never crashes.
package lifecycle

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Input is what a comparison hands to the lifecycle analysis.
type Input struct {
	Repo                 *git.Repo
	Base, Head           git.Snapshot
	BaseModel, HeadModel *model.Model
	Diff                 *model.Diff
	// Scan are the options the models were scanned with (used again for
	// the release tag's model).
	Scan    scan.Options
	Options Options
}

// Env is the lifecycle data of one comparison. It is not safe for
// concurrent use (the rules engine runs rules one after another).
type Env struct {
	in   Input
	opts Options

	relDone bool
	rel     Release
	relProb string // why there is no release, "" when there is one

	tagDone  bool
	tagSnap  git.Snapshot
	tagModel *model.Model
	tagErr   error

	usage map[string]*usageMemo // by revision: "base", "release"

	histDone bool
	hist     *History
	histErr  error

	stages        map[string]*StageCode
	shootPathMemo map[*model.Package]map[string]string

	versDone bool
	vers     []shoot.Version
	versProb string
}

type usageMemo struct {
	res *Usages
	err error
}

// NewEnv prepares the lifecycle analysis; nothing runs yet.
func NewEnv(in Input) *Env {
	return &Env{in: in, opts: in.Options.withDefaults(), usage: map[string]*usageMemo{},
		stages: map[string]*StageCode{}, shootPathMemo: map[*model.Package]map[string]string{}}
}

// Close releases the release tag's snapshot, if one was opened.
func (e *Env) Close() {
	if e == nil {
		return
	}
	if e.tagSnap != nil {
		e.tagSnap.Close()
		e.tagSnap = nil
	}
}

// Release is the release history as seen from base.
type Release struct {
	// Newest is the release tag nearest to base along the commit graph.
	Newest git.Tag
	// All are the release tags reachable from base, newest version first.
	All []git.Tag
}

// ReleaseRules are the rules that need a release tag; the note about a
// missing one names them.
var ReleaseRules = []string{
	"PROTO_NUMBER_PREVIOUSLY_USED", "FIELD_REMOVAL_NOT_RELEASED", "FIELD_REMOVED_NOT_DEPRECATED",
	"SHOOT_CANONICALIZE_TOO_EARLY", "SHOOT_CANONICALIZE_MISSING",
}

// Release returns the release history, or a problem saying why there is
// none (no tag matches, a shallow clone, a bad pattern).
func (e *Env) Release() (Release, string) {
	if e.relDone {
		return e.rel, e.relProb
	}
	e.relDone = true
	e.rel, e.relProb = e.findRelease()
	if e.relProb != "" {
		e.relProb += "; skipped " + strings.Join(ReleaseRules, ", ")
	}
	return e.rel, e.relProb
}

func (e *Env) findRelease() (Release, string) {
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

// releaseSnapshot opens the newest release tag's snapshot and scans its
// model, once.
func (e *Env) releaseSnapshot() (git.Snapshot, *model.Model, error) {
	if e.tagDone {
		return e.tagSnap, e.tagModel, e.tagErr
	}
	e.tagDone = true
	rel, prob := e.Release()
	if prob != "" {
		e.tagErr = fmt.Errorf("%s", prob)
		return nil, nil, e.tagErr
	}
	snap, err := e.in.Repo.Snapshot(rel.Newest.Commit)
	if err != nil {
		e.tagErr = fmt.Errorf("cannot read release %s: %w", rel.Newest.Name, err)
		return nil, nil, e.tagErr
	}
	m, err := scan.Scan(snap, e.in.Scan)
	if err != nil {
		snap.Close()
		e.tagErr = fmt.Errorf("cannot scan release %s: %w", rel.Newest.Name, err)
		return nil, nil, e.tagErr
	}
	e.tagSnap, e.tagModel = snap, m
	return snap, m, nil
}

// ReleaseField looks a field up in the newest release's model by group
// directory, version, type name and Go field name. ok is false when the
// release does not have it.
func (e *Env) ReleaseField(fd *model.FieldDiff) (f *model.Field, ok bool, err error) {
	_, m, err := e.releaseSnapshot()
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

// RemovedFields are the fields removed from existing structs of external
// versions, in diff order.
func (e *Env) RemovedFields() []*model.FieldDiff {
	var out []*model.FieldDiff
	for _, g := range e.in.Diff.Groups {
		for _, pd := range g.Packages {
			if !pd.External() {
				continue
			}
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil || td.Head.Kind != model.KindStruct {
					continue
				}
				for _, fd := range td.Fields {
					if fd.Head == nil && !fd.Base.Embedded {
						out = append(out, fd)
					}
				}
			}
		}
	}
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
