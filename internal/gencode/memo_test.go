package gencode

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"testing"
)

// blobSource is a source that names its files by content, as a commit's
// snapshot does.
type blobSource struct{ *source }

func (b blobSource) BlobID(p string) (string, bool) {
	v, ok := b.files[p]
	if !ok {
		return "", false
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:]), true
}

type mapMemo map[string][]byte

func (m mapMemo) Get(kind, key string) []byte { return m[kind+" "+key] }
func (m mapMemo) Put(kind, key string, v []byte) {
	m[kind+" "+key] = v
}

// With a memo the answers about a file are kept by its blob: a later
// Files (a later run) answers the same questions as the first without
// reading the files, and Prefetch leaves them alone; a file whose content
// changed is read again. Without blob ids nothing is memoised.
func TestFilesMemo(t *testing.T) {
	dir := "pkg/apis/core/v1beta1/"
	files := shootSpecFiles(dir)
	paths := []string{dir + DeepCopy, dir + Proto, dir + Conversion, "pkg/openapi/openapi_generated.go"}
	const pkg = "example.com/api/pkg/apis/core/v1beta1"
	ask := func(f *Files) string {
		var out string
		for _, typ := range []string{"ShootSpec", "Missing"} {
			rerr := f.Readable(dir + DeepCopy)
			dc, dok, derr := f.DeepCopyInto(dir+DeepCopy, typ)
			pm, pok, perr := f.ProtoMessage(dir+Proto, typ)
			cv, cerr := f.AutoConverts(dir+Conversion, "v1beta1", typ)
			defines, oerr := f.OpenAPIDefines("pkg/openapi/openapi_generated.go", pkg)
			schema, sok, serr := f.OpenAPISchema("pkg/openapi/openapi_generated.go", pkg, typ)
			out += fmt.Sprint(rerr, dc, dok, derr, pm, pok, perr, cv, cerr, defines, oerr, schema, sok, serr, "\n")
		}
		return out
	}
	want := ask(New(&source{files: files}))

	memo := mapMemo{}
	first := blobSource{&source{files: files}}
	f := New(first)
	f.UseMemo(memo)
	f.Prefetch(paths) // what it reads counts as read before
	if got := ask(f); got != want || first.reads == 0 {
		t.Fatalf("first run (%d reads):\n%s\nwant\n%s", first.reads, got, want)
	}
	again := blobSource{&source{files: files}}
	f = New(again)
	f.UseMemo(memo)
	f.Prefetch(paths)
	if got := ask(f); got != want || again.reads != 0 {
		t.Errorf("from the memo (%d reads, want none):\n%s\nwant\n%s", again.reads, got, want)
	}

	changed := maps.Clone(files)
	changed[dir+DeepCopy] = "package v1beta1\n"
	src := blobSource{&source{files: changed}}
	f = New(src)
	f.UseMemo(memo)
	if _, found, _ := f.DeepCopyInto(dir+DeepCopy, "ShootSpec"); found || src.reads != 1 {
		t.Errorf("a changed file: found %v after %d reads, want the new text read once", found, src.reads)
	}

	plain := &source{files: files}
	f = New(plain)
	f.UseMemo(memo)
	if ask(f); plain.reads == 0 {
		t.Error("a source without blob ids answered from the memo")
	}
}

func TestBlocksEncoding(t *testing.T) {
	for _, c := range []struct {
		blocks []Block
		found  bool
	}{
		{nil, false}, {nil, true}, {[]Block{{Text: "", Line: 0}}, false},
		{[]Block{{Text: "func a() {\n\tx\n", Line: 3}, {Text: "b\n\n", Line: 10}}, true},
	} {
		blocks, found, ok := decodeBlocks(encodeBlocks(c.blocks, c.found))
		if !ok || found != c.found || fmt.Sprint(blocks) != fmt.Sprint(c.blocks) {
			t.Errorf("round trip of %v %v: %v %v %v", c.blocks, c.found, blocks, found, ok)
		}
	}
	for _, bad := range []string{"", "maybe", "found\n", "found\n1 9\nabc", "found\nx 1\na", "found\n1 1\nab"} {
		if _, _, ok := decodeBlocks([]byte(bad)); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}
