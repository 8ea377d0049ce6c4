package scan

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apicheck/apicheck/internal/model"
)

var contractType = reflect.TypeFor[*model.Contract]()

// fillValue sets v, and what it reaches, to random values: strings empty,
// short or longer than the table holds; slices and maps nil, empty or
// with elements; pointers nil or set. Contracts stay nil (the memo holds
// models before contracts).
func fillValue(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		switch r.IntN(4) {
		case 0:
			v.SetString("")
		case 1:
			v.SetString(strings.Repeat("long doc line ", 1+r.IntN(10)))
		default:
			v.SetString([]string{"a", "b", "core/v1/types.go", "+optional", "ß"}[r.IntN(5)])
		}
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int:
		v.SetInt(r.Int64N(1<<40) - 1<<39)
	case reflect.Pointer:
		if v.Type() == contractType || depth > 8 || r.IntN(4) == 0 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(r, v.Elem(), depth+1)
	case reflect.Slice:
		switch r.IntN(3) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + r.IntN(3)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fillValue(r, v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		switch r.IntN(3) {
		case 0:
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			v.Set(reflect.MakeMap(v.Type()))
			for range 1 + r.IntN(3) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fillValue(r, k, depth+1)
				fillValue(r, e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillValue(r, v.Field(i), depth)
			}
		}
	default:
		panic("fillValue: no case for " + v.Kind().String() + " (" + v.Type().String() + "): add one, and the field to the memo's encoding")
	}
}

var ignoreIndexes = cmpopts.IgnoreUnexported(model.Package{}, model.Type{})

// Every field of the model's types comes back from the memo's encoding,
// nil and empty apart: a model filled at random, many times.
func TestMemoCodecRoundTrip(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		var want memoEntry
		fillValue(r, reflect.ValueOf(&want).Elem(), 0)
		want.GroupHashes = nil                             // the encoder's
		want.ModDirs = append(want.ModDirs, ModDirPrint{}) // count() never writes nil for them
		data, err := encodeMemo(want)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, err := decodeMemo(data)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if d := cmp.Diff(want, got, ignoreIndexes, cmpopts.IgnoreFields(memoEntry{}, "GroupHashes")); d != "" {
			t.Fatalf("seed %d: round trip (-want +got):\n%s", seed, d)
		}
		if want.Model != nil && len(got.GroupHashes) != len(want.Model.Groups) {
			t.Fatalf("seed %d: %d group hashes for %d groups", seed, len(got.GroupHashes), len(want.Model.Groups))
		}
	}
}

// A group's hash is its content's: the same group in entries whose
// string tables differ (other groups before it) hashes the same; any
// change of it does not.
func TestMemoGroupHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	var g, other model.Group
	fillValue(r, reflect.ValueOf(&g).Elem(), 0)
	fillValue(r, reflect.ValueOf(&other).Elem(), 0)
	g.Dir, other.Dir = "pkg/apis/a", "pkg/apis/b"
	hashes := func(groups ...*model.Group) []string {
		t.Helper()
		data, err := encodeMemo(memoEntry{Model: &model.Model{Groups: groups}})
		if err != nil {
			t.Fatal(err)
		}
		e, err := decodeMemo(data)
		if err != nil {
			t.Fatal(err)
		}
		return e.GroupHashes
	}
	alone, after := hashes(&g), hashes(&other, &g)
	if alone[0] == "" || alone[0] != after[1] {
		t.Errorf("the same group hashes %x alone and %x after another", alone[0], after[1])
	}
	changed := g
	changed.Name += "x"
	if hashes(&changed)[0] == alone[0] {
		t.Error("a changed group hashes the same")
	}
}

// A model with a contract is not memoised: its contracts come after the
// scan, from both revisions.
func TestMemoCodecRefusesContracts(t *testing.T) {
	m := &model.Model{Groups: []*model.Group{{Dir: "a", Versions: []*model.Package{{Types: []*model.Type{{Fields: []*model.Field{{Name: "F", Contract: &model.Contract{}}}}}}}}}}
	if _, err := encodeMemo(memoEntry{Model: m}); err != errContract {
		t.Fatalf("encoding a field with a contract: %v, want errContract", err)
	}
}

// Every prefix of an entry and every flipped byte fails to decode, or
// decodes, without a panic; a prefix never decodes.
func TestMemoCodecFlaws(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var e memoEntry
	fillValue(r, reflect.ValueOf(&e).Elem(), 0)
	data, err := encodeMemo(e)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		if _, err := decodeMemo(data[:n]); err == nil {
			t.Fatalf("a prefix of %d of %d bytes decoded", n, len(data))
		}
	}
	for i := range data {
		flipped := append([]byte(nil), data...)
		flipped[i] ^= 0xff
		decodeMemo(flipped) // must not panic
	}
}

func FuzzMemoDecode(f *testing.F) {
	for seed := range uint64(4) {
		var e memoEntry
		fillValue(rand.New(rand.NewPCG(seed, 3)), reflect.ValueOf(&e).Elem(), 0)
		data, err := encodeMemo(e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeMemo(data)
	})
}

// The memo keeps below its budget by removing the entries used least
// recently: load marks an entry used.
func TestMemoPrune(t *testing.T) {
	dir := t.TempDir()
	m := NewMemo(dir)
	model := &model.Model{Notes: []string{strings.Repeat("x", 1000)}}
	keys := []string{strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)}
	for i, k := range keys[:2] {
		m.store(k, model, nil)
		m.Wait()
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, k), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := m.load(keys[0], ""); !ok { // a, the older, used now
		t.Fatal("entry a not loaded")
	}
	fi, err := os.Stat(filepath.Join(dir, keys[0]))
	if err != nil {
		t.Fatal(err)
	}
	m.budget = 2*fi.Size() + fi.Size()/2 // two entries
	stale, fresh := filepath.Join(dir, ".x.tmp-1"), filepath.Join(dir, ".x.tmp-2")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	m.store(keys[2], model, nil)
	m.Wait()
	if _, err := os.Stat(fresh); err != nil {
		t.Error("the temporary file of a write in progress was removed")
	}
	os.Remove(fresh)
	if _, err := os.Stat(stale); err == nil {
		t.Error("a temporary file left two hours ago was kept")
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name()[:1])
	}
	if d := cmp.Diff([]string{"a", "c"}, left); d != "" {
		t.Errorf("entries left (-want +got):\n%s", d)
	}
}

// Every scan option either is in the memo key or cannot change a scan's
// model: an option added to Options must be judged here.
func TestMemoKeyCoversOptions(t *testing.T) {
	inKey := map[string]bool{"Groups": true, "Profile": true, "Exclude": true, "Only": true, "ModCache": true, "NoExternal": true}
	notModel := map[string]bool{"Record": true, "Reuse": true, "Memo": true} // how the scan runs, not what it finds
	ty := reflect.TypeFor[Options]()
	for i := range ty.NumField() {
		if name := ty.Field(i).Name; !inKey[name] && !notModel[name] {
			t.Errorf("Options.%s is neither in memoKey nor known not to change the model", name)
		}
	}
	base := Options{Memo: NewMemo(t.TempDir())}
	src := commitLike{}
	k0 := memoKey(src, base, "/mod")
	if k0 == "" {
		t.Fatal("BinaryID names no executable: nothing would be memoised")
	}
	for _, o := range []Options{
		{Groups: []GroupSpec{{Dir: "a"}}}, {Profile: model.ProfileCRD}, {Exclude: []string{"x"}}, {Only: []string{"a"}}, {NoExternal: true},
	} {
		o.Memo = base.Memo
		if memoKey(src, o, "/mod") == k0 {
			t.Errorf("options %+v have the key of none", o)
		}
	}
	if memoKey(src, base, "/other") == k0 {
		t.Error("another module cache has the same key")
	}
}

// commitLike is a commit's source, as memoKey sees it.
type commitLike struct{}

func (commitLike) Files() []string                               { return nil }
func (commitLike) ReadFiles([]string) (map[string][]byte, error) { return nil, nil }
func (commitLike) BlobID(string) (string, bool)                  { return "", false }
func (commitLike) Ref() string                                   { return "main" }
func (commitLike) Commit() string                                { return "c1" }
