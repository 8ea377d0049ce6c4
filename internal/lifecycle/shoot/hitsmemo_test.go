package shoot

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type mapMemo map[string][]byte

func (m mapMemo) Get(kind, key string) []byte    { return m[kind+" "+key] }
func (m mapMemo) Put(kind, key string, v []byte) { m[kind+" "+key] = v }

// Hits runs the stage's detector and memoises what it finds by the
// code's files and the field: a later StageCode of the same files
// answers from the memo; another field is another question; code that is
// not memoised runs the detector.
func TestHitsMemo(t *testing.T) {
	files := parse(t, validationSrc)
	memo := mapMemo{}
	sc := &StageCode{Files: files, stage: StageValidation, key: "files", memo: memo}
	want := Validation(files, oidcConfig)
	if got := sc.Hits(oidcConfig); !cmp.Equal(got, want) || len(want) == 0 || len(memo) != 1 {
		t.Fatalf("first: %v with %d memo entries, want %v and one entry", got, len(memo), want)
	}
	planted := []Hit{{From: Version{Major: 9, Minor: 9}}}
	data, _ := json.Marshal(planted)
	for k := range memo {
		memo[k] = data
	}
	later := &StageCode{Files: files, stage: StageValidation, key: "files", memo: memo}
	if got := later.Hits(oidcConfig); !cmp.Equal(got, planted) {
		t.Errorf("a later run: %v, want the memo's %v", got, planted)
	}
	if got := later.Hits(maxEmpty); !cmp.Equal(got, Validation(files, maxEmpty)) || len(memo) != 2 {
		t.Errorf("another field: %v (%d entries), want the detector's answer in a second entry", got, len(memo))
	}
	plain := &StageCode{Files: files, stage: StageValidation}
	if got := plain.Hits(oidcConfig); !cmp.Equal(got, want) {
		t.Errorf("without a memo: %v, want %v", got, want)
	}
	if got := (&StageCode{}).Hits(oidcConfig); got != nil {
		t.Errorf("code of no stage: %v", got)
	}
}

// Code the memo says parses is read when a question the memo does not
// answer needs it, once; a failure to read it then is the Stages' error,
// for the run to fail with.
func TestStageCodeReadWhenNeeded(t *testing.T) {
	memo := mapMemo{}
	files := parse(t, validationSrc)
	warm := &StageCode{Files: files, stage: StageValidation, key: "files", memo: memo}
	want := warm.Hits(oidcConfig) // memoised

	e := &Stages{}
	loads := 0
	lazy := &StageCode{stage: StageValidation, key: "files", memo: memo, stages: e,
		load: func() ([]*File, error) { loads++; return files, nil }}
	if got := lazy.Hits(oidcConfig); !cmp.Equal(got, want) || loads != 0 {
		t.Errorf("a memoised question: %v after %d loads, want %v without reading the code", got, loads, want)
	}
	if got := lazy.Hits(maxEmpty); !cmp.Equal(got, Validation(files, maxEmpty)) || loads != 1 {
		t.Errorf("a new question: %v after %d loads, want the detector's answer after one", got, loads)
	}
	lazy.Hits(podEviction)
	if loads != 1 || e.Err() != nil {
		t.Errorf("%d loads, error %v; want one, none", loads, e.Err())
	}

	failing := &StageCode{stage: StageValidation, key: "other", memo: memo, stages: e,
		load: func() ([]*File, error) { return nil, errors.New("object missing") }}
	if got := failing.Hits(oidcConfig); got != nil || e.Err() == nil || e.Err().Error() != "object missing" {
		t.Errorf("unreadable code: hits %v, error %v; want none and the error", got, e.Err())
	}
}
