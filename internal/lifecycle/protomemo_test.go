package lifecycle

import (
	"reflect"
	"testing"

	"github.com/apicheck/apicheck/internal/git"
)

// A struct history comes back from its memo encoding as ProtoNumbers
// reads it (a release with the fields of the one before written as "="),
// and anything else is a miss.
func TestStructHistoryEncoding(t *testing.T) {
	tags := []git.Tag{{Name: "v1.3.0"}, {Name: "v1.2.0"}, {Name: "v1.1.0"}}
	fs := []relField{{Name: "A", JSON: "a", Number: 1, Wire: "bytes,opt"}, {Name: "B b", JSON: "", Number: 0, Wire: ""}}
	changed := []relField{{Name: "A", JSON: "a\"x", Number: 7, Wire: "varint,opt"}}
	for _, sh := range []StructHistory{
		{},
		{Break: "v1.1.0"},
		{Releases: []ReleaseStruct{{Tag: "v1.3.0", File: "p/a b.go", fields: fs}, {Tag: "v1.2.0", File: "p/a b.go", fields: fs}, {Tag: "v1.1.0", File: "p/c.go", fields: changed}}},
		{Break: "v1.2.0", Releases: []ReleaseStruct{{Tag: "v1.3.0", File: "p/a.go", fields: []relField{}}}},
	} {
		data, ok := encodeStructHistory(sh, tags)
		if !ok {
			t.Fatalf("%+v did not encode", sh)
		}
		got, ok := decodeStructHistory(data, tags)
		if !ok || !reflect.DeepEqual(got, sh) {
			t.Errorf("round trip of %+v:\n%s\ngave %+v (%v)", sh, data, got, ok)
		}
	}
	if _, ok := encodeStructHistory(StructHistory{Releases: []ReleaseStruct{{Tag: "v1.2.0"}}}, tags); ok {
		t.Error("a history that does not start at the newest tag encoded")
	}
	good, _ := encodeStructHistory(StructHistory{Releases: []ReleaseStruct{{Tag: "v1.3.0", File: "f", fields: fs}}}, tags)
	for n := range len(good) {
		if _, ok := decodeStructHistory(good[:n], tags); ok {
			t.Errorf("a prefix of %d of %d bytes decoded", n, len(good))
		}
	}
	for _, bad := range [][]byte{{}, {0, 4}, {0, 1, 1, 'f', 0}, {0, 1, 1, 'f', 2}, append(append([]byte{}, good...), 0)} {
		if _, ok := decodeStructHistory(bad, tags); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}
