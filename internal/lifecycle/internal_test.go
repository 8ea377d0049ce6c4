package lifecycle

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestBlobCache(t *testing.T) {
	repo := t.TempDir()
	// Never inside the repository, whatever is configured.
	if c := newBlobCache(filepath.Join(repo, ".cache"), repo); c.dir != "" {
		t.Errorf("cache inside the repository: %s", c.dir)
	}
	if c := newBlobCache("-", repo); c.dir != "" {
		t.Errorf("disabled cache has a directory: %s", c.dir)
	}
	if c := newBlobCache("", repo); c.dir == "" {
		t.Errorf("default cache disabled")
	}
	dir := t.TempDir()
	c := newBlobCache(dir, repo)
	oid := "0123456789abcdef0123456789abcdef01234567"
	if _, ok := c.get(oid); ok {
		t.Fatal("hit in an empty cache")
	}
	want := dirNumbers{"ShootSpec": {1: "Region", 3: "Legacy"}}
	c.put(oid, want)
	got, ok := c.get(oid)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v %v, want %v", got, ok, want)
	}
	// A corrupt entry is a miss, not an error.
	if err := os.WriteFile(c.path(oid), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(oid); ok {
		t.Error("corrupt entry read as a hit")
	}
}

func TestStructNumbers(t *testing.T) {
	src := []byte("package v1\n\ntype S struct {\n\tmeta.ObjectMeta `json:\"metadata\" protobuf:\"bytes,1,opt,name=metadata\"`\n\tA *string `json:\"a\" protobuf:\"bytes,2,opt,name=a\"`\n\tB string `json:\"b\"`\n\t// Gone is tombstoned to show why 3 is reserved protobuf tag.\n\t// Gone *string `protobuf:\"bytes,3,opt,name=gone\"`\n}\n\ntype T string\n")
	got := structNumbers(src)
	want := dirNumbers{"S": {1: "ObjectMeta", 2: "A"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if structNumbers([]byte("package x\nfunc {")) != nil {
		t.Error("broken file gave numbers")
	}
}
