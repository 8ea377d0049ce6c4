package git

import (
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// TestObjectReaderGitDies: once git is gone, Get fails (it neither hangs
// nor invents answers), keeps failing, and Close does not repeat the error.
func TestObjectReaderGitDies(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a": "a\n"}})
	r, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := r.NewObjectReader()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if objs, err := o.Get([]string{"HEAD:a"}); err != nil || string(objs[0].Data) != "a\n" {
		t.Fatalf("Get = %+v, %v", objs, err)
	}
	o.procMu.Lock()
	if err := o.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	o.procMu.Unlock()

	done := make(chan error, 1)
	go func() {
		_, err := o.Get([]string{"HEAD:a", "HEAD:a"})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped answering") {
			t.Errorf("Get after git died: error = %v, want 'stopped answering'", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get hung after git died")
	}
	if _, err := o.Get([]string{"HEAD:a"}); err == nil {
		t.Error("second Get after git died: no error")
	}
	if err := o.Close(); err != nil {
		t.Errorf("Close after a failed Get: %v", err)
	}
}

// TestSnapshotUsesObjectReader: a commit snapshot starts git only when it
// first reads, through the shared reader.
func TestSnapshotUsesObjectReader(t *testing.T) {
	t.Parallel()
	f := gitfixture.New(t)
	f.Import(gitfixture.Commit{Step: "one", Files: map[string]string{"a": "a\n"}})
	r, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Snapshot("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cs := s.(*commitSnapshot)
	if cs.objects.cmd != nil {
		t.Error("git cat-file started before the first ReadFiles")
	}
	if got, err := s.ReadFiles([]string{"a"}); err != nil || string(got["a"]) != "a\n" {
		t.Fatalf("ReadFiles = %q, %v", got, err)
	}
	if cs.objects.cmd == nil {
		t.Error("git cat-file not running after ReadFiles")
	}
}
