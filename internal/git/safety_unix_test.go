//go:build unix

package git_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/fastrepo"
)

// unblockFIFO opens a FIFO for writing without blocking, which releases a
// reader stuck opening it (if any), so that a failing test never leaves a
// blocked process behind.
func unblockFIFO(p string) {
	if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

// TestSafeDirectory: a repository owned by another user opens only when
// the user's global configuration marks it safe, as for git itself; the
// repository's own configuration cannot.
func TestSafeDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	f := fastrepo.New(t)
	f.Import([]map[string]string{{"a.go": "package a\n"}}, nil)
	f.AppendConfig("[safe]\n\tdirectory = *\n")
	err := filepath.Walk(filepath.Dir(f.Dir), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if _, err := git.Open(f.Dir); err == nil || !strings.Contains(err.Error(), "dubious ownership") {
		t.Errorf("Open(repository of another user) error = %v, want git's 'dubious ownership'", err)
	}
	if err := os.WriteFile(global, []byte("[safe]\n\tdirectory = "+f.Dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, f.Dir)
	if got := contents(t, openSnapshot(t, r, "HEAD"), "a.go"); got["a.go"] != "package a\n" {
		t.Errorf("contents = %q", got)
	}
}

// gitProcessesIn returns the pids of live git processes whose working
// directory is dir (from /proc).
func gitProcessesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("needs /proc")
	}
	var pids []string
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + pid + "/cwd"); err != nil || cwd != dir {
			continue
		}
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || !strings.Contains(string(stat), "(git)") || strings.Contains(string(stat), ") Z ") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitFor polls cond for up to 10 seconds.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// hangingRepo makes a repository where listing the working tree blocks:
// git opens an untracked directory's .gitignore, which is a FIFO.
func hangingRepo(t *testing.T) *fastrepo.Repo {
	t.Helper()
	f := fastrepo.New(t)
	if err := os.Mkdir(filepath.Join(f.Dir, "hang"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(f.Dir, "hang", ".gitignore")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unblockFIFO(fifo) })
	return f
}

// TestContextCancelKillsGit: cancelling the context of OpenContext kills a
// blocked git and the long-running cat-file, and leaves none behind.
func TestContextCancelKillsGit(t *testing.T) {
	t.Parallel()
	f := hangingRepo(t)
	f.Import([]map[string]string{{"a.go": "package a\n"}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := git.OpenContext(ctx, f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s := openSnapshot(t, r, "HEAD")
	contents(t, s, "a.go") // starts git cat-file --batch

	done := make(chan error, 1)
	go func() {
		_, err := r.Snapshot(git.WorktreeRef)
		done <- err
	}()
	if !waitFor(func() bool { return len(gitProcessesIn(t, f.Dir)) == 2 }) {
		t.Fatalf("git processes in the repository: %v, want cat-file and a blocked ls-files", gitProcessesIn(t, f.Dir))
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Snapshot(WORKTREE) after cancel: error = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Snapshot(WORKTREE) still blocked after cancel")
	}
	if _, err := s.ReadFiles([]string{"a.go"}); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFiles after cancel: error = %v, want context.Canceled", err)
	}
	if !waitFor(func() bool { return len(gitProcessesIn(t, f.Dir)) == 0 }) {
		t.Errorf("git processes left after cancel: %v", gitProcessesIn(t, f.Dir))
	}
	if _, err := r.Snapshot("HEAD"); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot after cancel: error = %v", err)
	}
}

// TestKilledRunLeavesNoGit: when the process using the package is killed
// (SIGKILL: no chance to clean up) while git is blocked, git dies with it.
func TestKilledRunLeavesNoGit(t *testing.T) {
	if dir := os.Getenv("APICHECK_TEST_HANG_IN"); dir != "" {
		// The helper process: block in a working-tree listing until killed.
		r, err := git.Open(dir)
		if err == nil {
			_, err = r.Snapshot(git.WorktreeRef)
		}
		t.Fatalf("the listing returned: %v", err)
	}
	t.Parallel()
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("needs /proc")
	}
	f := hangingRepo(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestKilledRunLeavesNoGit$")
	helper.Env = append(os.Environ(), "APICHECK_TEST_HANG_IN="+f.Dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Wait()
	if !waitFor(func() bool { return len(gitProcessesIn(t, f.Dir)) == 1 }) {
		helper.Process.Kill()
		t.Fatalf("no blocked git in the repository")
	}
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return len(gitProcessesIn(t, f.Dir)) == 0 }) {
		t.Errorf("git outlived the killed run: %v", gitProcessesIn(t, f.Dir))
	}
}
