package shoot

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"

	"github.com/apicheck/apicheck/internal/git"
)

// What a stage's detector finds for a field is a function of the stage's
// files and the field: it is memoised (the history's cache) under a key
// that hashes the files' paths and git blobs, the stage, the field and
// the apicheck executable (git.BinaryID). A later run that asks the same
// about the same code does not run the detector again (Gardener's
// validation code is large, and indexing it most of a Shoot stage's
// cost). The working tree is not memoised.

// hitsMemoKind names the memo entries.
const hitsMemoKind = "shoot hits 1"

// filesKey hashes the paths and blobs of a stage's files at a revision;
// "" when the revision does not name its files by blob.
func filesKey(snap git.Snapshot, files []string) string {
	ids, ok := snap.(interface{ BlobID(string) (string, bool) })
	id := git.BinaryID()
	if !ok || id == "" || snap.Ref() == git.WorktreeRef {
		return ""
	}
	h := sha256.New()
	word(h, hitsMemoKind)
	word(h, id)
	for _, f := range files {
		oid, ok := ids.BlobID(f)
		if !ok {
			return ""
		}
		word(h, f)
		word(h, oid)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func word(h hash.Hash, s string) {
	h.Write(binary.AppendUvarint(nil, uint64(len(s))))
	h.Write([]byte(s))
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
// memo.
func (sc *StageCode) Hits(f Field) []Hit {
	detect := detectors[sc.stage]
	if sc.key == "" || sc.memo == nil {
		return detectOrNone(detect, sc.Files, f)
	}
	h := sha256.New()
	word(h, sc.key)
	word(h, string(sc.stage))
	word(h, f.GoName)
	word(h, f.JSONName)
	word(h, f.Path)
	for _, p := range f.Parents {
		word(h, p)
	}
	key := hex.EncodeToString(h.Sum(nil))
	if data := sc.memo.Get(hitsMemoKind, key); data != nil {
		var hits []Hit
		if json.Unmarshal(data, &hits) == nil {
			return hits
		}
	}
	hits := detectOrNone(detect, sc.Files, f)
	if data, err := json.Marshal(hits); err == nil {
		sc.memo.Put(hitsMemoKind, key, data)
	}
	return hits
}

// detectOrNone runs detect; code of no stage (a StageCode that was not
// read) has no hits.
func detectOrNone(detect func([]*File, Field) []Hit, files []*File, f Field) []Hit {
	if detect == nil {
		return nil
	}
	return detect(files, f)
}
