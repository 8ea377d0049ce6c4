package shoot

import (
	"encoding/json"

	"github.com/apicheck/apicheck/internal/git"
)

// What a stage's detector finds for a field is a function of the stage's
// files and the field: it is memoised (the history's cache) under a key
// that hashes the files' paths and git blobs, the stage, the field and
// the apicheck executable (git.BinaryID). A later run that asks the same
// about the same code does not run the detector again (Gardener's
// validation code is large, and indexing it most of a Shoot stage's
// cost). The working tree is not memoised.

// hitsMemoKind names the memo entries of Hits, parseMemoKind those that
// say whether a stage's files parse ("ok", or "error " and the parser's
// message), so that a later run reads the files only when a question the
// memo does not answer needs them.
const (
	hitsMemoKind  = "shoot hits 1"
	parseMemoKind = "shoot parse 1"
)

// filesKey hashes the paths and blobs of a stage's files at a revision;
// "" when the revision does not name its files by blob.
func filesKey(snap git.Snapshot, files []string) string {
	ids, ok := snap.(git.BlobIDs)
	if !ok || snap.Ref() == git.WorktreeRef {
		return ""
	}
	k := git.NewMemoKey(hitsMemoKind)
	for _, f := range files {
		oid, ok := ids.BlobID(f)
		if !ok {
			return ""
		}
		k.Words(f, oid)
	}
	return k.String()
}

// detectors are the stages' detectors.
var detectors = map[Stage]func([]*File, Field) []Hit{
	StageWarnings:    Warnings,
	StageValidation:  Validation,
	StageStrategy:    Canonicalize,
	StageMaintenance: Maintenance,
	StageDefaults:    Defaulting,
}

// Hits is what the stage's detector (Warnings, Validation, Canonicalize,
// Maintenance, Defaulting) finds for field f in the code, through the
// memo. Code of no stage (a StageCode that was not read) has no hits.
func (sc *StageCode) Hits(f Field) []Hit {
	detect := func() []Hit {
		if d := detectors[sc.stage]; d != nil {
			return d(sc.files(), f)
		}
		return nil
	}
	if sc.key == "" || sc.memo == nil { // sc.key names the executable already
		return detect()
	}
	k := git.NewMemoKey(hitsMemoKind)
	k.Words(sc.key, string(sc.stage), f.GoName, f.JSONName, f.Path)
	k.Words(f.Parents...)
	key := k.String()
	if data := sc.memo.Get(hitsMemoKind, key); data != nil {
		var hits []Hit
		if json.Unmarshal(data, &hits) == nil {
			return hits
		}
	}
	hits := detect()
	if data, err := json.Marshal(hits); err == nil {
		sc.memo.Put(hitsMemoKind, key, data)
	}
	return hits
}
