package git_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

func TestOutput(t *testing.T) {
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a.go": "package a\n"}})
	head := f.Commits["one"]
	r := open(t, f)
	out, err := r.Output("rev-parse", "HEAD")
	if err != nil || strings.TrimSpace(string(out)) != head {
		t.Errorf("Output(rev-parse HEAD) = %q, %v; want %s", out, err, head)
	}
	// The environment is hermetic: GIT_DIR cannot redirect git.
	t.Setenv("GIT_DIR", t.TempDir())
	if out, err := r.Output("rev-parse", "HEAD"); err != nil || strings.TrimSpace(string(out)) != head {
		t.Errorf("Output with GIT_DIR set = %q, %v; want %s", out, err, head)
	}
	_, err = r.Output("rev-parse", "--verify", "no-such-ref")
	if err == nil || !strings.Contains(err.Error(), "git rev-parse --verify no-such-ref") ||
		!strings.Contains(err.Error(), "fatal") {
		t.Errorf("Output(bad ref) error = %v, want one naming the command with git's stderr", err)
	}
}

func TestObjectReader(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	big := bigContent()
	files := map[string]string{
		"big.bin":          big,
		"empty":            "",
		"dir/a.go":         "package dir\n",
		"dir/sub/b.go":     "package sub\n",
		"dir/zz_gen.go":    "package dir // generated\n",
		"no-newline.go":    "package x",
		"dir/ünï cödé.txt": "unicode\n",
	}
	for i := 0; i < 1200; i++ {
		files[fmt.Sprintf("many/f%04d.go", i)] = fmt.Sprintf("package many // %d\n", i)
	}
	f.Import(gitfixture.Commit{Step: "one", Files: files})
	head := f.Commits["one"]
	r := open(t, f)
	or, err := r.NewObjectReader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { or.Close() })

	// Names by path, by oid, missing ones and a tree, in one batch.
	blob := strings.TrimSpace(f.Git("rev-parse", "HEAD:dir/a.go"))
	objs, err := or.Get([]string{"HEAD:big.bin", blob, "HEAD:nope.go", "0000000000000000000000000000000000000001",
		"HEAD:dir", "HEAD:empty", head + ":dir/ünï cödé.txt", "HEAD:no-newline.go", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 9 {
		t.Fatalf("Get returned %d objects, want 9", len(objs))
	}
	if o := objs[0]; o.Type != "blob" || string(o.Data) != big || len(o.OID) != 40 || o.Missing {
		t.Errorf("big.bin: type %q, %d bytes, oid %q, missing %v", o.Type, len(o.Data), o.OID, o.Missing)
	}
	if o := objs[1]; o.OID != blob || string(o.Data) != "package dir\n" {
		t.Errorf("by oid: %+v", o)
	}
	for _, i := range []int{2, 3, 8} {
		if o := objs[i]; !o.Missing || o.Data != nil || o.OID != "" {
			t.Errorf("answer %d: %+v, want missing", i, o)
		}
	}
	if o := objs[4]; o.Type != "tree" {
		t.Errorf("HEAD:dir type %q, want tree", o.Type)
	} else {
		entries, err := git.ParseTree(o.Data, len(o.OID)/2)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Mode+" "+e.Name)
		}
		want := []string{"100644 a.go", "40000 sub", "100644 zz_gen.go", "100644 ünï cödé.txt"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseTree(HEAD:dir) = %q, want %q", got, want)
		}
		if entries[0].OID != blob {
			t.Errorf("a.go oid %s, want %s", entries[0].OID, blob)
		}
	}
	if o := objs[5]; o.Missing || o.Data == nil || len(o.Data) != 0 {
		t.Errorf("empty: %+v", o)
	}
	if string(objs[6].Data) != "unicode\n" || string(objs[7].Data) != "package x" {
		t.Errorf("unicode / no-newline: %q %q", objs[6].Data, objs[7].Data)
	}

	// A batch larger than the pipes' buffers, with duplicates: no deadlock.
	var names []string
	for i := 0; i < 2000; i++ {
		names = append(names, fmt.Sprintf("HEAD:many/f%04d.go", i%1200))
	}
	done := make(chan error, 1)
	go func() {
		objs, err := or.Get(names)
		for i, o := range objs {
			if want := fmt.Sprintf("package many // %d\n", i%1200); err == nil && string(o.Data) != want {
				err = fmt.Errorf("answer %d = %q, want %q", i, o.Data, want)
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Get did not return within 30s: deadlock in the cat-file pipe")
	}

	// Each hands over the answers in order, as they arrive, and the
	// reader stays in step after it.
	var seen []string
	if err := or.Each([]string{"HEAD:dir/a.go", "HEAD:nope.go", "HEAD:no-newline.go"}, func(i int, o git.Object) {
		seen = append(seen, fmt.Sprintf("%d:%q:%v", i, o.Data, o.Missing))
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{`0:"package dir\n":false`, `1:"":true`, `2:"package x":false`}; !reflect.DeepEqual(seen, want) {
		t.Errorf("Each saw %q, want %q", seen, want)
	}
	if err := or.Each([]string{"HEAD\n:x"}, func(int, git.Object) { t.Error("Each called fn for a refused batch") }); err == nil {
		t.Error("Each accepted a name with a newline")
	}

	if _, err := or.Get([]string{"HEAD\n:x"}); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("name with a newline: error = %v", err)
	}
	// ... and the reader still works.
	if objs, err := or.Get([]string{"HEAD:empty"}); err != nil || len(objs) != 1 || objs[0].Missing {
		t.Errorf("Get after a refused name = %+v, %v", objs, err)
	}
	if objs, err := or.Get(nil); err != nil || len(objs) != 0 {
		t.Errorf("Get(nil) = %v, %v", objs, err)
	}

	if err := or.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := or.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := or.Get([]string{"HEAD:empty"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Get after Close error = %v, want 'closed'", err)
	}
}

func TestObjectReaderCloseDuringGet(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	big := bigContent()
	files := map[string]string{}
	var names []string
	for i := 0; i < 24; i++ {
		p := fmt.Sprintf("big%02d.bin", i)
		files[p] = fmt.Sprintf("%d\n%s", i, big)
		names = append(names, "HEAD:"+p)
	}
	f.Import(gitfixture.Commit{Step: "base", Files: files})
	r := open(t, f)
	for _, delay := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		or, err := r.NewObjectReader()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			objs, err := or.Get(names)
			if err == nil && string(objs[7].Data) != files["big07.bin"] {
				err = fmt.Errorf("wrong content")
			}
			done <- err
		}()
		time.Sleep(delay)
		if err := or.Close(); err != nil {
			t.Errorf("Close during Get: %v", err)
		}
		select {
		case err := <-done:
			if err != nil && !strings.Contains(err.Error(), "closed") {
				t.Errorf("Get racing Close: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Get did not return after Close")
		}
		if err := or.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}

func TestParseTree(t *testing.T) {
	t.Parallel()
	oid := func(b byte) string { return strings.Repeat(string([]byte{b}), 20) }
	data := []byte("100644 a.go\x00" + oid(1) + "40000 sub dir\x00" + oid(0xab))
	got, err := git.ParseTree(data, 20)
	want := []git.TreeEntry{
		{Mode: "100644", Name: "a.go", OID: strings.Repeat("01", 20)},
		{Mode: "40000", Name: "sub dir", OID: strings.Repeat("ab", 20)},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseTree = %+v, %v; want %+v", got, err, want)
	}
	if got, err := git.ParseTree(nil, 20); err != nil || len(got) != 0 {
		t.Errorf("ParseTree(empty) = %v, %v", got, err)
	}
	// SHA-256 object ids are 32 bytes.
	if got, err := git.ParseTree([]byte("100755 run.sh\x00"+strings.Repeat("\x10", 32)), 32); err != nil ||
		len(got) != 1 || got[0].OID != strings.Repeat("10", 32) || got[0].Mode != "100755" {
		t.Errorf("ParseTree(sha256) = %+v, %v", got, err)
	}
	for _, bad := range []string{
		"100644 a.go\x00" + oid(1)[:19],  // oid cut short
		"100644a.go\x00" + oid(1),        // no space before the NUL
		"100644 a.go" + oid(1),           // no NUL
		" a.go\x00" + oid(1),             // no mode
		"100644 a.go\x00" + oid(1) + "1", // trailing garbage
	} {
		if _, err := git.ParseTree([]byte(bad), 20); err == nil {
			t.Errorf("ParseTree(%q): no error", bad)
		}
	}
	if _, err := git.ParseTree(data, 0); err == nil {
		t.Error("ParseTree with oidLen 0: no error")
	}
}
