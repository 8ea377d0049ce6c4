//go:build unix

package git_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// unblockFIFO opens a FIFO for writing without blocking, which releases a
// reader stuck opening it (if any), so that a failing test never leaves a
// blocked process behind.
func unblockFIFO(p string) {
	if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

// TestUntrustedRepository reads one repository built to trip a careless
// reader, through everything the package offers:
//
//   - its .git/config names a recording program for every hook git has
//     (fsmonitor, pager, filters with .gitattributes, textconv, external
//     diff, hooks, ssh, credentials, an ext:: remote allowed by
//     protocol.ext.allow): none runs, Output with diff and log included;
//   - refs named like options (-h, --exec=true, --output=...) are refs;
//   - submodules are named, not read; a file name that is not UTF-8 is
//     listed, and reading it is a *FileNameError;
//   - in the working tree, symbolic links read as links (never the secret
//     or /etc/passwd behind them), FIFOs are skipped and never opened, a
//     directory replaced by a link to the outside is not followed;
//   - a file above MaxFileSize is a *FileTooLargeError, in a commit and in
//     the working tree, and the reader stays in step after it.
func TestUntrustedRepository(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.go")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(secret, []byte("package secret // SECRET\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "x.go"), []byte("package moved // SECRET\n"), 0o644))
	bad := "api/v1/bad\xff\xfe.go"
	const limit = 1000 // MaxFileSize, scaled down
	f := gitfixture.Init(t)
	shas := f.ImportTrees([]map[string]string{{"README": "old\n"}, {
		".gitattributes":   "* filter=evil diff=evil\n",
		"README":           "read me\n",
		"api/v1/types.go":  "package v1\n",
		"api/v1/pipe.go":   "package v1 // a FIFO on disk\n",
		"api/v1/big.go":    strings.Repeat("x", limit+1),
		"api/v1/secret.go": "link:" + secret,
		bad:                "package v1 // a Latin-1 name\n",
		"moved/x.go":       "package moved\n",
		"third_party/lib":  "gitlink:" + strings.Repeat("1", 40),
		"deps/a":           "gitlink:" + strings.Repeat("2", 40),
	}}, map[string]int{"refs/heads/-h": 1, "refs/heads/--exec=true": 0, "refs/tags/--upload-pack=evil": 1})
	f.CheckoutFiles()

	// The working tree: an edit, an untracked file, FIFOs, links out.
	f.WriteWorktree(map[string]string{"README": "changed\n", "untracked.go": "package x\n"})
	path := func(p string) string { return filepath.Join(f.Dir, filepath.FromSlash(p)) }
	must(os.Remove(path("api/v1/pipe.go")))
	must(syscall.Mkfifo(path("api/v1/pipe.go"), 0o644))    // tracked file now a FIFO
	must(syscall.Mkfifo(path("fifo"), 0o644))              // untracked FIFO: git ignores it
	must(os.Symlink("../../fifo", path("api/v1/fifo.go"))) // untracked link to a FIFO
	must(os.Symlink("/etc/passwd", path("api/v1/passwd"))) // untracked link out
	must(os.RemoveAll(path("moved")))                      //
	must(os.Symlink(outside, path("moved")))               // tracked directory now a link out
	t.Cleanup(func() { unblockFIFO(path("fifo")); unblockFIFO(path("api/v1/pipe.go")) })

	// The configuration and hooks.
	bin := t.TempDir()
	marker := filepath.Join(bin, "ran")
	evil := filepath.Join(bin, "evil")
	script := "#!/bin/sh\necho \"$0 $*\" >> '" + marker + "'\ncat\n"
	must(os.WriteFile(evil, []byte(script), 0o755))
	hooks := filepath.Join(f.Dir, ".git", "hooks")
	for _, h := range []string{"post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"} {
		must(os.WriteFile(filepath.Join(hooks, h), []byte(script), 0o755))
	}
	f.AppendConfig(`[core]
	fsmonitor = ` + evil + `
	pager = ` + evil + `
	sshCommand = ` + evil + `
	askPass = ` + evil + `
	hooksPath = ` + hooks + `
	untrackedCache = true
[filter "evil"]
	clean = ` + evil + `
	smudge = ` + evil + `
	required = true
[diff "evil"]
	textconv = ` + evil + `
	command = ` + evil + `
[diff]
	external = ` + evil + `
[credential]
	helper = !` + evil + `
[log]
	showSignature = true
[gpg]
	program = ` + evil + `
[protocol "ext"]
	allow = always
[remote "origin"]
	url = ext::` + evil + ` %S
	fetch = +refs/heads/*:refs/remotes/origin/*
`)

	r := openRepo(t, f.Dir)
	git.SetFileLimit(r, limit)
	wantSubmodules := []string{"deps/a", "third_party/lib"}

	// The commit.
	head := openSnapshot(t, r, "HEAD")
	if got := head.Files(); !reflect.DeepEqual(got, []string{".gitattributes", "README", "api/v1/bad\xff\xfe.go", "api/v1/big.go",
		"api/v1/pipe.go", "api/v1/secret.go", "api/v1/types.go", "moved/x.go"}) {
		t.Errorf("HEAD: Files = %q", got)
	}
	if got := git.Submodules(head); !reflect.DeepEqual(got, wantSubmodules) {
		t.Errorf("HEAD: Submodules = %q", got)
	}
	if got := contents(t, head, "api/v1/secret.go", "README"); got["api/v1/secret.go"] != secret || got["README"] != "read me\n" {
		t.Errorf("HEAD: contents = %q", got)
	}

	// The working tree.
	wt := openSnapshot(t, r, git.WorktreeRef)
	// "moved" itself is an untracked symbolic link now: listed, read as a link.
	wantFiles := []string{".gitattributes", "README", "api/v1/bad\xff\xfe.go", "api/v1/big.go", "api/v1/fifo.go", "api/v1/passwd",
		"api/v1/secret.go", "api/v1/types.go", "moved", "untracked.go"}
	if got := wt.Files(); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("WORKTREE: Files = %q\nwant %q", got, wantFiles)
	}
	wantSkipped := []git.SkippedFile{
		{Path: "api/v1/pipe.go", Reason: "named pipe (FIFO), not opened"},
		{Path: "moved", Reason: "directory replaced by a symbolic link; the tracked files below it are not read (git does not follow it either)"},
	}
	if got := git.Skipped(wt); !reflect.DeepEqual(got, wantSkipped) {
		t.Errorf("WORKTREE: Skipped = %q\nwant %q", got, wantSkipped)
	}
	if got := git.Submodules(wt); !reflect.DeepEqual(got, wantSubmodules) {
		t.Errorf("WORKTREE: Submodules = %q", got)
	}
	done := make(chan map[string]string, 1)
	go func() {
		done <- contents(t, wt, "api/v1/fifo.go", "api/v1/passwd", "api/v1/secret.go", "moved", "README", "untracked.go")
	}()
	select {
	case got := <-done:
		want := map[string]string{"api/v1/fifo.go": "../../fifo", "api/v1/passwd": "/etc/passwd", "api/v1/secret.go": secret,
			"moved": outside, "README": "changed\n", "untracked.go": "package x\n"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("WORKTREE: contents = %q\nwant %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the working tree hangs: a FIFO was opened")
	}
	for _, p := range []string{"api/v1/pipe.go", "moved/x.go"} {
		if _, err := wt.ReadFiles([]string{p}); err == nil || !strings.Contains(err.Error(), "no such file") {
			t.Errorf("WORKTREE: ReadFiles(%s) error = %v, want 'no such file'", p, err)
		}
	}

	// Limits, in both.
	for _, s := range []git.Snapshot{head, wt} {
		_, err := s.ReadFiles([]string{"api/v1/types.go", bad})
		var fe *git.FileNameError
		if !errors.As(err, &fe) || fe.Path != bad || !strings.Contains(err.Error(), `"api/v1/bad\xff\xfe.go"`) {
			t.Errorf("%s: ReadFiles(non-UTF-8 name) error = %v, want a *FileNameError naming it", s.Ref(), err)
		}
		_, err = s.ReadFiles([]string{"api/v1/types.go", "api/v1/big.go"})
		var te *git.FileTooLargeError
		if !errors.As(err, &te) || te.Path != "api/v1/big.go" || te.Size != limit+1 || te.Limit != limit || !strings.Contains(err.Error(), "api/v1/big.go") {
			t.Errorf("%s: ReadFiles(big) error = %v, want a *FileTooLargeError naming the file", s.Ref(), err)
		}
		if got := contents(t, s, "api/v1/types.go"); got["api/v1/types.go"] != "package v1\n" {
			t.Errorf("%s: after the big file: %q", s.Ref(), got)
		}
	}

	// Diff machinery: the clean filter would see the stat-dirty files,
	// textconv and the external diff the commits' changes.
	if out, err := r.Output("diff", "--name-only", "HEAD", "--", "README", "api/v1/types.go"); err != nil || strings.TrimSpace(string(out)) != "README" {
		t.Errorf("Output(diff --name-only HEAD) = %q, %v; want README only", out, err)
	}
	if _, err := r.Output("log", "-p", "-2"); err != nil {
		t.Errorf("Output(log -p): %v", err)
	}

	// Refs that look like options.
	if got, err := r.ResolveCommit("-h"); err != nil || got != shas[1] {
		t.Errorf("ResolveCommit(-h) = %q, %v; want %s", got, err, shas[1])
	}
	out := filepath.Join(bin, "x")
	if _, err := r.Snapshot("--output=" + out); !errors.As(err, new(*git.UnknownRefError)) {
		t.Errorf("Snapshot(--output=...) error = %v, want *UnknownRefError", err)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("--output=%s was taken as an option", out)
	}
	if got := contents(t, openSnapshot(t, r, "--exec=true"), "README"); got["README"] != "old\n" {
		t.Errorf("README at --exec=true = %q", got)
	}
	if tags, err := r.Tags(""); err != nil || len(tags) != 1 || tags[0].Name != "--upload-pack=evil" || tags[0].Commit != shas[1] {
		t.Errorf("Tags = %+v, %v; want --upload-pack=evil at %s", tags, err, shas[1])
	}
	if rs, err := r.ReleaseTags(nil); err != nil || rs.Total != 1 || len(rs.Tags) != 0 || strings.Join(rs.NotVersions, ",") != "--upload-pack=evil" {
		t.Errorf("ReleaseTags = %+v, %v; want --upload-pack=evil as a tag without a version", rs, err)
	} else if before, err := rs.Before("-h"); err != nil || len(before) != 1 || before[0].Name != "" {
		t.Errorf("Before(-h) = %+v, %v; want no release", before, err)
	}

	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program named by the repository's configuration ran:\n%s", data)
	}
}

// TestSafeDirectory: a repository owned by another user opens only when
// the user's global configuration marks it safe, as for git itself; the
// repository's own configuration cannot.
func TestSafeDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	f := gitfixture.Init(t)
	f.ImportTrees([]map[string]string{{"a.go": "package a\n"}}, nil)
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
func hangingRepo(t *testing.T) *gitfixture.Fixture {
	t.Helper()
	f := gitfixture.Init(t)
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
	f.ImportTrees([]map[string]string{{"a.go": "package a\n"}}, nil)
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
