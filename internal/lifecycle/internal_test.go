package lifecycle

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/testutil/gocorpus"
)

const testOID = "0123456789abcdef0123456789abcdef01234567"

const testType = "ShootSpec"

var testStructs = decl{Found: true, Fields: []relField{
	{Name: "Region", JSON: "region", Number: 1, Wire: "bytes,opt", Line: 5, Col: 2},
	{Name: "Legacy", JSON: "legacy", Number: 3, Wire: "bytes,opt", Deprecated: true, Line: 9, Col: 2},
}}

// testEntry is what a blob says about two structs: one it declares, one
// it does not.
var testEntry = map[string]decl{testType: testStructs, "Absent": {}}

func TestBlobCacheLocation(t *testing.T) {
	repo := t.TempDir()
	// Never inside the repository, whatever is configured.
	if c := openBlobCache(filepath.Join(repo, ".cache"), repo); c.dir != "" {
		t.Errorf("cache inside the repository: %s", c.dir)
	}
	if c := openBlobCache("-", repo); c.dir != "" {
		t.Errorf("disabled cache has a directory: %s", c.dir)
	}

	// $APICHECK_CACHE_DIR, else the user cache directory, created private.
	env := t.TempDir()
	t.Setenv(CacheEnv, env)
	if c := openBlobCache("", repo); c.dir != filepath.Join(env, cacheSubdir) {
		t.Errorf("cache dir = %q, want it under $%s", c.dir, CacheEnv)
	}
	t.Setenv(CacheEnv, "")
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	c := openBlobCache("", repo)
	if want := filepath.Join(home, "xdg", "apicheck", cacheSubdir); c.dir != want {
		t.Fatalf("default cache dir = %q, want %q", c.dir, want)
	}
	for _, d := range []string{filepath.Dir(c.dir), c.dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", d, fi.Mode().Perm(), err)
		}
	}

	// Without a user cache directory there is no cache: never /tmp.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if c := openBlobCache("", repo); c.dir != "" {
		t.Errorf("cache without a user cache directory: %s", c.dir)
	}
}

// TestBlobCacheUnsafeDirs: a directory others can write, a symlink, or
// one owned by another user turns the cache off.
func TestBlobCacheUnsafeDirs(t *testing.T) {
	repo := t.TempDir()

	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if c := openBlobCache(open, repo); c.dir != "" {
		t.Errorf("world-writable cache dir used: %s", c.dir)
	}
	group := t.TempDir()
	if err := os.MkdirAll(filepath.Join(group, cacheSubdir), 0o770); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(group, cacheSubdir), 0o770); err != nil {
		t.Fatal(err)
	}
	if c := openBlobCache(group, repo); c.dir != "" {
		t.Errorf("group-writable cache subdir used: %s", c.dir)
	}

	target := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if c := openBlobCache(link, repo); c.dir != "" {
		t.Errorf("symlinked cache dir used: %s", c.dir)
	}

	if os.Getuid() == 0 { // only root can give a directory away
		foreign := t.TempDir()
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if c := openBlobCache(foreign, repo); c.dir != "" {
			t.Errorf("cache dir of another user used: %s", c.dir)
		}
	}
}

// writeTestPack writes records as the newest pack of c's directory.
func writeTestPack(t *testing.T, c *blobCache, records ...packRecord) string {
	t.Helper()
	name := newPackName()
	if err := os.WriteFile(filepath.Join(c.dir, name), encodePack(records), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// cacheFiles lists the files of c's directory.
func cacheFiles(t *testing.T, c *blobCache) []string {
	t.Helper()
	des, err := os.ReadDir(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// TestBlobCacheBadEntries: a truncated, garbled, foreign or outdated
// entry is a miss, and put rewrites it.
func TestBlobCacheBadEntries(t *testing.T) {
	dir, repo := t.TempDir(), t.TempDir()
	c := openBlobCache(dir, repo)
	if c.dir == "" {
		t.Fatal("cache disabled")
	}
	if m := c.get(testOID); m != nil {
		t.Fatal("hit in an empty cache")
	}
	c.put(testOID, testEntry)
	if got := c.get(testOID); !reflect.DeepEqual(got, testEntry) {
		t.Fatalf("got %v, want %v (before the write)", got, testEntry)
	}
	// A put after a get: the next get has the new entry, not the one
	// decoded before.
	more := maps.Clone(testEntry)
	more["Another"] = decl{}
	c.put(testOID, more)
	if got := c.get(testOID); !reflect.DeepEqual(got, more) {
		t.Fatalf("after a second put: got %v, want %v", got, more)
	}
	c.put(testOID, testEntry)
	c.flush()
	fresh := openBlobCache(dir, repo)
	if got := fresh.get(testOID); !reflect.DeepEqual(got, testEntry) {
		t.Fatalf("got %v, want %v", got, testEntry)
	}
	good := fresh.readEntry(testOID)
	other := "fedcba9876543210fedcba9876543210fedcba98"
	entryOfOther, _ := encodeEntry(other, testEntry)
	for name, data := range map[string][]byte{
		"empty":          {},
		"truncated":      good[:len(good)/2],
		"header only":    good[:bytes.IndexByte(good, '\n')+1],
		"garbage":        []byte("\x00\xff garbage {"),
		"wrong checksum": bytes.Replace(good, []byte(`"Legacy"`), []byte(`"Legac2"`), 1),
		"wrong version":  bytes.Replace(good, []byte(cacheFormat), []byte("apicheck struct cache 7"), 1),
		"other blob":     entryOfOther,
		"trailing data":  append(append([]byte(nil), good...), "x"...),
	} {
		writeTestPack(t, c, packRecord{testOID, data}) // newer than the good one
		if m := openBlobCache(dir, repo).get(testOID); m != nil {
			t.Errorf("%s: entry read as a hit: %v", name, m)
		}
		again := openBlobCache(dir, repo)
		again.put(testOID, testEntry)
		again.flush()
		if got := openBlobCache(dir, repo).get(testOID); !reflect.DeepEqual(got, testEntry) {
			t.Errorf("%s: not rewritten: %v", name, got)
		}
	}
	// An entry over the size limit is neither written nor read.
	huge := append(append([]byte(nil), good...), bytes.Repeat([]byte(" "), cacheEntryMax)...)
	big := openBlobCache(dir, repo)
	big.write(other, huge)
	if got := big.readEntry(other); got != nil {
		t.Errorf("entry over the limit kept: %d bytes", len(got))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%s %d\n", packHeader, other, len(huge))
	b.Write(huge)
	os.WriteFile(filepath.Join(dir, cacheSubdir, newPackName()), b.Bytes(), 0o600)
	if got := openBlobCache(dir, repo).readEntry(other); got != nil {
		t.Errorf("entry over the limit read: %d bytes", len(got))
	}
	// A checksum over other content is not enough: recomputing it is
	// what a valid entry needs.
	if _, err := decodeEntry(testOID, good); err != nil {
		t.Errorf("good entry rejected: %v", err)
	}
	// Well-formed lines in a wrong order or with wrong names are flaws too.
	for name, body := range map[string]string{
		"field outside a struct": "\t\"A\"\t\"a\"\t1\t0\t1\t1\t\"\"\n",
		"field of an absent one": "absent\tX\n\t\"A\"\t\"a\"\t1\t0\t1\t1\t\"\"\n",
		"struct twice":           "struct\tX\nstruct\tX\n",
		"bad type name":          "struct\tX Y\n",
		"short field line":       "struct\tX\n\t\"A\"\t1\n",
	} {
		key := entryKey(testOID)
		data := cacheFormat + "\n" + key + "\n" + entrySum(key, []byte(body)) + "\n" + body
		if m, err := decodeEntry(testOID, []byte(data)); err == nil {
			t.Errorf("%s: decoded as %v", name, m)
		}
	}
}

// TestPackFraming: a pack is read up to the first flaw of its framing;
// a pack with another header, or a file that is not a pack, is not read.
func TestPackFraming(t *testing.T) {
	a := packRecord{"aaaa" + testOID[4:], []byte("first")}
	b := packRecord{"bbbb" + testOID[4:], []byte("second")}
	good := encodePack([]packRecord{a, b})
	if got := parsePack(good); !reflect.DeepEqual(got, []packRecord{a, b}) {
		t.Fatalf("parsePack(encodePack) = %q", got)
	}
	firstEnd := len(packHeader) + len(a.name) + len(" 5\n") + len(a.data)
	for name, tc := range map[string]struct {
		data []byte
		want int // records read
	}{
		"truncated in the second record": {good[:len(good)-2], 1},
		"truncated in a record line":     {good[:firstEnd+10], 1},
		"size too large":                 {bytes.Replace(good, []byte(" 6\n"), []byte(" 99\n"), 1), 1},
		"negative size":                  {bytes.Replace(good, []byte(" 6\n"), []byte(" -6\n"), 1), 1},
		"name not hex":                   {bytes.Replace(good, []byte("bbbb"), []byte("bbbz"), 1), 1},
		"other header":                   {bytes.Replace(good, []byte("pack 1"), []byte("pack 2"), 1), 0},
		"garbage":                        {[]byte("\x00\xff garbage {"), 0},
		"empty":                          {nil, 0},
		"header only":                    {[]byte(packHeader), 0},
	} {
		if got := parsePack(tc.data); len(got) != tc.want {
			t.Errorf("%s: %d records read, want %d", name, len(got), tc.want)
		}
	}
	// Records over the pack's size limit are left out, not cut.
	var many []packRecord
	for i := range 80 {
		many = append(many, packRecord{fmt.Sprintf("%04x", i) + testOID[4:], bytes.Repeat([]byte("x"), cacheEntryMax)})
	}
	p := encodePack(many)
	if len(p) > packMax {
		t.Errorf("pack of %d bytes, over packMax", len(p))
	}
	if got := parsePack(p); len(got) != packMax/(cacheEntryMax+64) {
		t.Errorf("%d records in a full pack", len(got))
	}
	// Files that are not packs, and packs over packMax, are not read.
	c := openBlobCache(t.TempDir(), t.TempDir())
	os.WriteFile(filepath.Join(c.dir, "notes.txt"), encodePack([]packRecord{a}), 0o600)
	os.WriteFile(filepath.Join(c.dir, newPackName()), append(encodePack([]packRecord{b}), make([]byte, packMax)...), 0o600)
	if got := c.readEntry(a.name); got != nil {
		t.Errorf("entry read from a file that is not a pack: %q", got)
	}
	if got := c.readEntry(b.name); got != nil {
		t.Errorf("entry read from a pack over the limit: %q", got)
	}
}

// TestBlobCacheOnePack: a run's entries are written as one pack when the
// run ends; an entry put twice ends with the second content, and a
// fresh cache on the same directory reads what flush wrote. A run that
// made no entry writes nothing.
func TestBlobCacheOnePack(t *testing.T) {
	dir := t.TempDir()
	c := openBlobCache(dir, t.TempDir())
	second := map[string]decl{testType: {}}
	for i := range 20 {
		oid := fmt.Sprintf("%02x%s", i, testOID[2:])
		c.put(oid, testEntry)
		c.put(oid, second)
		if got := c.get(oid); !reflect.DeepEqual(got, second) {
			t.Fatalf("%s: read %v before the write, want %v", oid, got, second)
		}
	}
	if files := cacheFiles(t, c); len(files) != 0 {
		t.Fatalf("files before flush: %v", files)
	}
	c.flush()
	if files := cacheFiles(t, c); len(files) != 1 || !packName(files[0]) {
		t.Fatalf("files after flush: %v, want one pack", files)
	}
	fresh := openBlobCache(dir, t.TempDir())
	for i := range 20 {
		oid := fmt.Sprintf("%02x%s", i, testOID[2:])
		if got := fresh.get(oid); !reflect.DeepEqual(got, second) {
			t.Errorf("%s: written %v, want %v", oid, got, second)
		}
	}
	fresh.flush()
	if files := cacheFiles(t, c); len(files) != 1 {
		t.Errorf("a run that made nothing wrote: %v", files)
	}
	if len(c.pending) != 0 || len(c.queue) != 0 {
		t.Errorf("after flush: %d pending, %d queued", len(c.pending), len(c.queue))
	}
}

// TestBlobCacheConcurrent: runs writing and reading one entry at once
// only ever see whole entries, and leave packs only.
func TestBlobCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for range 10 {
				c := openBlobCache(dir, t.TempDir())
				c.maxPacks = 3 // merges race with writes and reads
				if w%2 == 0 {
					c.put(testOID, testEntry)
				} else if got := c.get(testOID); got != nil && !reflect.DeepEqual(got, testEntry) {
					t.Errorf("partial entry read: %v", got)
				}
				c.flush()
			}
		})
	}
	wg.Wait()
	c := openBlobCache(dir, t.TempDir())
	for _, f := range cacheFiles(t, c) {
		if !packName(f) {
			t.Errorf("%s left in the cache directory", f)
		}
	}
	if got := c.get(testOID); !reflect.DeepEqual(got, testEntry) {
		t.Errorf("after the runs: %v", got)
	}
}

// oid is the test object id numbered i.
func oid(i int) string { return fmt.Sprintf("%04x", i) + testOID[4:] }

// packCache returns an opener of caches on dir with the given limits.
func packCache(dir, repo string, maxPacks int, budget int64) func() *blobCache {
	return func() *blobCache {
		c := openBlobCache(dir, repo)
		c.maxPacks, c.budget = maxPacks, budget
		return c
	}
}

// writePacks writes n packs, one a run, each of two 300-byte entries
// (pack i holds oid(2i) and oid(2i+1)), the first oldest.
func writePacks(dir, repo string, n int) {
	for i := range n {
		c := openBlobCache(dir, repo)
		c.write(oid(2*i), bytes.Repeat([]byte{'a' + byte(i)}, 300))
		c.write(oid(2*i+1), bytes.Repeat([]byte{'a' + byte(i)}, 300))
		c.flush()
	}
}

// TestPackMerge: past maxPacks packs a run merges them into one, with
// the entries it made and used first, then the newest, within three
// quarters of the budget; stale temporary files go.
func TestPackMerge(t *testing.T) {
	dir, repo := t.TempDir(), t.TempDir()
	open := packCache(dir, repo, 4, 4000)
	writePacks(dir, repo, 4) // four packs of two 300-byte entries, 0 oldest
	stale := filepath.Join(open().dir, ".p-stale.tmp-1")
	os.WriteFile(stale, []byte("x"), 0o600)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	fresh := filepath.Join(open().dir, ".p-fresh.tmp-1")
	os.WriteFile(fresh, []byte("x"), 0o600)

	c := open()
	if c.readEntry(oid(0)) == nil { // the oldest pack's entry, used
		t.Fatal("entry 0 missing")
	}
	c.write(oid(100), bytes.Repeat([]byte("n"), 300))
	c.flush() // a fifth pack: merge
	files := cacheFiles(t, c)
	if want := []string{".p-fresh.tmp-1"}; len(files) != 2 || files[0] != want[0] || !packName(files[1]) {
		t.Fatalf("after the merge: %v, want the fresh temporary file and one pack", files)
	}
	data, _ := os.ReadFile(filepath.Join(c.dir, files[1]))
	var got []string
	for _, r := range parsePack(data) {
		got = append(got, r.name[:4])
	}
	// Each record counts 356 bytes (name, content, framing): eight fit in
	// 3000 of 4000. The new entry, the used one, then the newest packs'
	// entries (7 and 6, 5 and 4, 3 and 2); entry 1, oldest and unused,
	// is left out.
	want := []string{"0064", "0000", "0006", "0007", "0004", "0005", "0002", "0003"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged pack holds %v, want %v", got, want)
	}
	after := open()
	if after.readEntry(oid(100)) == nil || after.readEntry(oid(0)) == nil || after.readEntry(oid(7)) == nil {
		t.Error("merged entries not read")
	}
	if after.readEntry(oid(1)) != nil {
		t.Error("an old unused entry survived a merge over the budget")
	}
}

func TestFindStruct(t *testing.T) {
	src := "package v1\n\n// +genclient\ntype S struct {\n" +
		"\tmeta.TypeMeta `json:\",inline\"`\n" +
		"\tmeta.ObjectMeta `json:\"metadata\" protobuf:\"bytes,1,opt,name=metadata\"`\n" +
		"\t// A is a.\n\t//\n\t// Deprecated: use B.\n" +
		"\tA *string `json:\"a\" protobuf:\"bytes,2,opt,name=a\"`\n" +
		"\tB, C string\n" +
		"\t// Gone is tombstoned to show why 3 is reserved protobuf tag.\n" +
		"\t// Gone *string `protobuf:\"bytes,3,opt,name=gone\"`\n" +
		"\tNested struct { X int }\n}\n\n" +
		"type T string\n\ntype U = S\n\n" +
		"type (\n\tV int\n\t// W is grouped.\n\tW[P any] struct {\n\t\tD /* old */ string `json:\"d\"`\n\t}\n)\n\n" +
		"var s = `type X struct { Fake int }`\n\n" +
		"// type Y struct { Commented int }\n\n" +
		"func f() {\n\ttype Z struct{ Local int }\n}\n\n" +
		"type Arr [4]struct{ E int }\n"
	want := map[string]decl{
		"S": {Found: true, Fields: []relField{
			{Name: "TypeMeta", Line: 5, Col: 2},
			{Name: "ObjectMeta", JSON: "metadata", Number: 1, Wire: "bytes,opt", Line: 6, Col: 2},
			{Name: "A", JSON: "a", Number: 2, Wire: "bytes,opt", Deprecated: true, Line: 10, Col: 2},
			{Name: "B", JSON: "B", Line: 11, Col: 2},
			{Name: "C", JSON: "C", Line: 11, Col: 5},
			{Name: "Nested", JSON: "Nested", Line: 14, Col: 2},
		}},
		"W":      {Found: true, Fields: []relField{{Name: "D", JSON: "d", Line: 25, Col: 3}}},
		"T":      {},
		"U":      {},
		"V":      {},
		"X":      {},
		"Y":      {},
		"Z":      {},
		"Arr":    {},
		"Nested": {},
		"Absent": {},
	}
	for typ, w := range want {
		got := findStruct([]byte(src), typ)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("findStruct(%s) = %+v\nwant %+v", typ, got, w)
		}
	}
	// Several types of one file at once (one tokenization): the same
	// judgements.
	var names []string
	for typ := range want {
		names = append(names, typ)
	}
	sort.Strings(names)
	for _, names := range [][]string{names, {"W", "S"}, {"S", "Absent", "S"}, {"T"}} {
		for i, got := range findStructs([]byte(src), names, nil) {
			if !reflect.DeepEqual(got, want[names[i]]) {
				t.Errorf("findStructs(%v) for %s = %+v\nwant %+v", names, names[i], got, want[names[i]])
			}
		}
	}
	// The declaration of a field, what a tombstone comments out.
	for _, c := range []struct{ typ, field, wantType, wantTag string }{
		{"S", "A", "*string", `json:"a" protobuf:"bytes,2,opt,name=a"`},
		{"W", "D", "string", `json:"d"`},
		{"S", "B", "", ""},    // no tag
		{"S", "Gone", "", ""}, // a tombstone is no field
		{"T", "A", "", ""},    // not a struct
	} {
		typ, tag, ok := fieldDecl([]byte(src), c.typ, c.field)
		if typ != c.wantType || tag != c.wantTag || ok != (c.wantType != "") {
			t.Errorf("fieldDecl(%s.%s) = %q, %q, %v; want %q, %q", c.typ, c.field, typ, tag, ok, c.wantType, c.wantTag)
		}
	}
	// A declaration on the first lines, and a file that does not parse
	// elsewhere: the declaration alone counts.
	if got := findStruct([]byte("package p; type Q struct { A int `json:\"a\"` }\nfunc {"), "Q"); !got.Found ||
		len(got.Fields) != 1 || got.Fields[0].Line != 1 {
		t.Errorf("findStruct(Q) = %+v", got)
	}
	if got := findStruct([]byte("package x\ntype R struct {"), "R"); got.Found {
		t.Errorf("unterminated struct found: %+v", got)
	}
}

// TestCacheEntryRoundTrip: every decl survives encoding, odd names too.
func TestCacheEntryRoundTrip(t *testing.T) {
	for _, m := range []map[string]decl{
		{},
		{"Empty": {Found: true, Fields: []relField{}}},
		testEntry,
		{"Odd": {Found: true, Fields: []relField{
			{Name: "A", JSON: "a\tb\n\"c\"", Number: 536870911, Wire: "bytes,rep", Deprecated: true, Line: 1 << 30, Col: 7},
			{Name: "Ünï", JSON: "", Line: 2, Col: 1},
		}}, "Gone": {}},
	} {
		data, err := encodeEntry(testOID, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeEntry(testOID, data)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("round trip of %+v: %+v, %v", m, got, err)
		}
	}
	if _, err := encodeEntry(testOID, map[string]decl{"not a name": {}}); err == nil {
		t.Error("a type name with a space was encoded")
	}
}

// TestStructRangesRealSources checks structRanges against go/parser on
// this repository's Go files and part of the standard library's: every
// top-level struct type declaration, from its name to its closing brace,
// and nothing else.
// topStructs returns the top-level struct type declarations of f (not
// aliases), the first of each name, in source order.
func topStructs(f *ast.File) []*ast.TypeSpec {
	var out []*ast.TypeSpec
	seen := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			if _, ok := ts.Type.(*ast.StructType); ok && !ts.Assign.IsValid() && !seen[ts.Name.Name] {
				seen[ts.Name.Name] = true
				out = append(out, ts)
			}
		}
	}
	return out
}

func TestStructRangesRealSources(t *testing.T) {
	corpus := gocorpus.Parsed(t, "..", "go", "net/http")
	structs := 0
	for _, c := range corpus {
		p, src, f := c.Path, c.Src, c.File
		want := map[string][2]int{}
		for _, ts := range topStructs(f) {
			want[ts.Name.Name] = [2]int{int(ts.Name.Pos() - f.FileStart), int(ts.Type.End() - f.FileStart)}
		}
		structs += len(want)
		if got := structRanges(src); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: structRanges = %v, want %v", p, got, want)
		}
	}
	if len(corpus) < 200 || structs < 500 {
		t.Fatalf("only %d Go files with %d structs compared; the corpus is missing", len(corpus), structs)
	}
}

// TestDeclMemo: a declaration the memo holds is read again at its own
// line and column: the same text one line down, and the same one-line
// struct at another column, are not the first one's fields.
func TestDeclMemo(t *testing.T) {
	memo := &declMemo{}
	srcs := []string{
		"package p\n\ntype A struct{ X int `json:\"x\"` }\n",
		"package p\n\n\ntype A struct{ X int `json:\"x\"` }\n",
		"package p\n\ntype (\n\tA struct{ X int `json:\"x\"` }\n)\n",
		"package p\n\ntype A struct{ X int `json:\"x\"` }\n",
	}
	want := [][2]int{{3, 16}, {4, 16}, {4, 12}, {3, 16}}
	for i, src := range srcs {
		got := findStructs([]byte(src), []string{"A"}, memo)[0]
		if !got.Found || len(got.Fields) != 1 || got.Fields[0].Line != want[i][0] || got.Fields[0].Col != want[i][1] || got.Fields[0].JSON != "x" {
			t.Errorf("source %d: %+v, want field x at %d:%d", i, got, want[i][0], want[i][1])
		}
	}
	if n := len(memo.m); n != 2 {
		t.Errorf("memo holds %d declarations, want 2 (one per column)", n)
	}
}

// TestFindStructsRealSources: what findStructs reads of every struct of
// real sources (fields, json names, protobuf numbers, positions, the
// "Deprecated:" flag) is what the whole file's syntax tree, comments
// included, says; so is what lexStruct reads of the structs it reads
// (most of them).
func TestFindStructsRealSources(t *testing.T) {
	corpus := gocorpus.Files(t, "..", "go", "net/http", "encoding/json")
	structs, deprecated, lexed := 0, 0, 0
	memo := &declMemo{}
	for _, p := range corpus {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var names []string
		want := map[string]decl{}
		for _, ts := range topStructs(f) {
			want[ts.Name.Name] = structDecl(fset, ts.Type.(*ast.StructType), 0)
			names = append(names, ts.Name.Name)
		}
		got := findStructs(src, names, nil)
		// With a memo (declMemo): the file, then the file two lines
		// down, whose structs the memo holds.
		for k, text := range [][]byte{src, append([]byte("// moved\n\n"), src...)} {
			for i, d := range findStructs(text, names, memo) {
				if w := shiftLines(want[names[i]], 2*k); !reflect.DeepEqual(d, w) {
					t.Errorf("%s (%d lines down): struct %s: findStructs with a memo = %+v, want %+v", p, 2*k, names[i], d, w)
				}
			}
		}
		ranges := structRanges(src)
		for i, n := range names {
			if !reflect.DeepEqual(got[i], want[n]) {
				t.Errorf("%s: struct %s: findStructs = %+v, want %+v", p, n, got[i], want[n])
			}
			if d, ok := lexStruct(src, ranges[n][0], ranges[n][1]); ok {
				lexed++
				if !reflect.DeepEqual(d, want[n]) {
					t.Errorf("%s: struct %s: lexStruct = %+v, want %+v", p, n, d, want[n])
				}
			}
			for _, rf := range want[n].Fields {
				if rf.Deprecated {
					deprecated++
				}
			}
		}
		structs += len(names)
	}
	if structs < 500 || deprecated < 5 || lexed < structs/2 {
		t.Fatalf("only %d structs with %d deprecated fields compared, %d read from their tokens; the corpus is missing", structs, deprecated, lexed)
	}
	t.Logf("%d structs, %d read from their tokens", structs, lexed)
}

// TestPackMergeRemovesUnread: a merge removes the packs past the budget
// that no run reads any more, so the directory shrinks back under it
// instead of merging on every run.
func TestPackMergeRemovesUnread(t *testing.T) {
	dir, repo := t.TempDir(), t.TempDir()
	open := packCache(dir, repo, 8, 1000)
	writePacks(dir, repo, 3) // three packs of about 700 bytes: only the newest fits the budget
	c := open()
	c.write(oid(100), bytes.Repeat([]byte("n"), 300))
	c.flush() // over the budget: merge
	files := cacheFiles(t, c)
	if len(files) != 1 || !packName(files[0]) {
		t.Fatalf("after the merge: %v, want one pack", files)
	}
	after := open()
	// 356 bytes a record, 750 of 1000 kept: the new entry and the newest
	// pack's first.
	if after.readEntry(oid(100)) == nil || after.readEntry(oid(4)) == nil {
		t.Error("the new entry or the newest pack's entry was not kept")
	}
	if after.readEntry(oid(0)) != nil {
		t.Error("an entry of a pack past the budget survived")
	}
	again := open()
	again.write(oid(101), []byte("x"))
	again.flush() // under the budget again: a pack of its own, no merge
	if files := cacheFiles(t, again); len(files) != 2 {
		t.Errorf("after a run under the budget: %v, want two packs", files)
	}
}

// TestLexStructDeprecated: lexStruct groups comments as go/parser does to
// find each field's doc comment, and reads the same "Deprecated:" flags
// without parsing.
func TestLexStructDeprecated(t *testing.T) {
	src := "package p\ntype S struct {\n" +
		"\t// Deprecated: a.\n\tA int // Deprecated: trailing, not B's.\n\tB int\n" +
		"\t// Deprecated: parted by a blank line.\n\n\tC int\n" +
		"\t/* Deprecated: block */ D int\n" +
		"\t/*\n\t * Deprecated: starred.\n\t */\n\tE int\n" +
		"\t// x\n\t// deprecated: lower case\n\tF, G int\n" +
		"\tH int /* Deprecated: a line comment\n\t*/\n\tI int\n" +
		"\t// Deprecated: the doc of J, not of K.\n\tJ int; K int\n}\n"
	// D: a comment on the field's own line is no doc comment (go/parser).
	want := map[string]bool{"A": true, "B": false, "C": false, "D": false, "E": true, "F": true, "G": true, "H": false, "I": false, "J": true, "K": false}
	r, ok := structRanges([]byte(src))["S"]
	if !ok {
		t.Fatal("struct S not found")
	}
	got, ok := lexStruct([]byte(src), r[0], r[1])
	if !ok {
		t.Fatal("lexStruct left the struct to the parser")
	}
	flags := map[string]bool{}
	for _, f := range got.Fields {
		flags[f.Name] = f.Deprecated
	}
	if !reflect.DeepEqual(flags, want) {
		t.Errorf("deprecated flags = %v, want %v", flags, want)
	}
	if parsed := findStructParsed(t, src, "S"); !reflect.DeepEqual(got, parsed) {
		t.Errorf("lexStruct = %+v\nparser    = %+v", got, parsed)
	}
}

func findStructParsed(t *testing.T, src, typ string) decl {
	t.Helper()
	start, end, ok := structRange([]byte(src), typ)
	if !ok {
		t.Fatalf("struct %s not found", typ)
	}
	fset, st, shift, ok := parseStructAt([]byte(src), typ, start, end)
	if !ok {
		t.Fatalf("struct %s does not parse", typ)
	}
	return structDecl(fset, st, shift)
}

// structRanges returns the byte range of every top-level struct
// declaration of src by type name (the first, for a name declared twice):
// the tests' view of every struct; findStructs looks for named ones only.
func structRanges(src []byte) map[string][2]int {
	out := map[string][2]int{}
	scanStructs(src, func(string) bool { return true }, func(name string, s, e int) bool {
		if _, dup := out[name]; !dup {
			out[name] = [2]int{s, e}
		}
		return true
	})
	return out
}
