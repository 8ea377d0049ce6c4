//go:build linux

package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/txtarrepo"
)

// TestHostileRepository runs the real binary on a repository built to make
// a careless tool run code or touch files: a toolchain line and go.work
// that would make the go command download a toolchain, a cgo file asking
// for pkg-config, .gitattributes filters and .git/config programs
// (fsmonitor, pager, filter, textconv, external diff, hooks, ssh,
// credentials, an ext:: remote) that record when they run, symbolic links
// to /etc/passwd and to a FIFO, a FIFO in place of a tracked file, a
// submodule, a file name that is not UTF-8, refs that look like options,
// and a poisoned environment (GIT_DIR, GIT_CONFIG_PARAMETERS, PAGER,
// GOFLAGS, ...). PATH holds only shims: one for git that logs its argv and
// environment and runs the real git, and recording ones for go, cc,
// pkg-config, ssh, curl and friends. The test proves that no program but
// git ran (and git with the fixed environment and flags), that nothing the
// repository configures ran, and that the repository is unchanged. With
// strace installed it also traces every process: only the binary and git
// are executed, and no file outside the test's temporary directories is
// created, written, renamed, removed or re-permissioned.
func TestHostileRepository(t *testing.T) {
	t.Parallel()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	if realGit, err = filepath.EvalSymlinks(realGit); err != nil {
		t.Fatal(err)
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := func(name string) string {
		p := filepath.Join(tmp, name)
		must(os.MkdirAll(p, 0o755))
		return p
	}
	shims, bin, home := dir("shims"), dir("bin"), dir("home")

	// The hostile repository: the example history (base@v1.0.0, head)
	// plus an "evil" commit, checked out with FIFOs and links added.
	archive, err := os.ReadFile(filepath.Join("..", "..", "examples", "shoot-api.txtar"))
	must(err)
	steps, err := txtarrepo.Parse(archive)
	must(err)
	var trees []map[string]string
	tree := map[string]string{}
	for _, st := range steps {
		for p, content := range st.Files {
			if content == "(deleted)" || content == "(deleted)\n" {
				delete(tree, p)
			} else {
				tree[p] = content
			}
		}
		trees = append(trees, maps.Clone(tree))
	}
	evilTree := maps.Clone(tree)
	maps.Copy(evilTree, map[string]string{
		"go.mod":                                "module example.com/gardenlike\n\ngo 1.99\n\ntoolchain go1.99.0\n",
		"go.work":                               "go 1.99\n\ntoolchain go1.99.0\n\nuse .\n",
		"pkg/apis/core/v1beta1/cgo.go":          "package v1beta1\n\n// #cgo pkg-config: evil\n// #include <evil.h>\nimport \"C\"\n",
		"pkg/apis/core/v1beta1/tracked_fifo.go": "package v1beta1\n",
		"pkg/apis/core/v1beta1/passwd":          "link:/etc/passwd",
		"third_party/sub":                       "gitlink:" + strings.Repeat("5", 40),
		".gitattributes":                        "* filter=evil diff=evil merge=evil\n",
		"docs/caf\xe9.txt":                      "a file name in Latin-1\n",
	})
	trees = append(trees, evilTree)
	fx := gitfixture.Init(t)
	fx.ImportTrees(trees, map[string]int{"refs/tags/v1.0.0": 0, "refs/heads/-h": 0, "refs/tags/--exec=evil": 2})
	fx.CheckoutFiles()
	path := func(p string) string { return filepath.Join(fx.Dir, filepath.FromSlash(p)) }
	must(os.Remove(path("pkg/apis/core/v1beta1/tracked_fifo.go")))
	must(syscall.Mkfifo(path("pkg/apis/core/v1beta1/tracked_fifo.go"), 0o644))
	must(syscall.Mkfifo(path("fifo"), 0o644))
	must(syscall.Mkfifo(path("pkg/apis/core/v1beta1/untracked_fifo.go"), 0o644))
	must(os.Symlink("../../../../fifo", path("pkg/apis/core/v1beta1/fifo")))
	t.Cleanup(func() {
		for _, p := range []string{"fifo", "pkg/apis/core/v1beta1/tracked_fifo.go", "pkg/apis/core/v1beta1/untracked_fifo.go"} {
			if w, err := os.OpenFile(path(p), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // releases anything stuck opening it
			}
		}
	})

	// Programs that record when they run: the repository's, and shims for
	// everything but git.
	marker := filepath.Join(tmp, "ran")
	record := func(path string) {
		must(os.WriteFile(path, []byte("#!/bin/sh\necho \""+filepath.Base(path)+" $*\" >> '"+marker+"'\nexit 97\n"), 0o755))
	}
	evil := filepath.Join(bin, "evil")
	record(evil)
	hooks := filepath.Join(fx.Dir, ".git", "hooks")
	for _, h := range []string{"post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman", "pre-auto-gc"} {
		record(filepath.Join(hooks, h))
	}
	for _, name := range []string{"go", "gofmt", "gcc", "cc", "clang", "ld", "pkg-config", "sh", "bash", "env", "ssh",
		"curl", "wget", "less", "more", "vi", "gpg", "make", "protoc", "git-upload-pack", "git-remote-ext"} {
		record(filepath.Join(shims, name))
	}
	// One log file per git process (by pid): apicheck runs some gits at
	// once, whose records would interleave in a shared file.
	gitLog := filepath.Join(tmp, "git.log")
	must(os.Mkdir(gitLog, 0o755))
	must(os.WriteFile(filepath.Join(shims, "git"), []byte(`#!/bin/sh
{ printf 'ARGV'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\n'; export -p; printf 'END\n'; } >> '`+gitLog+`'/$$
exec '`+realGit+`' "$@"
`), 0o755))
	fx.AppendConfig(fmt.Sprintf(`[core]
	fsmonitor = %[1]s
	pager = %[1]s
	sshCommand = %[1]s
	hooksPath = %[2]s
	untrackedCache = true
[filter "evil"]
	clean = %[1]s
	smudge = %[1]s
	process = %[1]s
	required = true
[diff "evil"]
	textconv = %[1]s
	command = %[1]s
[diff]
	external = %[1]s
[merge "evil"]
	driver = %[1]s
[credential]
	helper = !%[1]s
[protocol "ext"]
	allow = always
[remote "origin"]
	url = ext::%[1]s %%S
	promisor = true
[uploadpack]
	packObjectsHook = %[1]s
`, evil, hooks))
	before := gitfixture.TreeState(t, fx.Dir)

	env := []string{
		"PATH=" + shims,
		"HOME=" + home,
		"XDG_CACHE_HOME=" + dir("cache"),
		"XDG_CONFIG_HOME=" + dir("config"),
		"TMPDIR=" + dir("tmp"),
		"GOPATH=" + dir("gopath"),
		"GOMODCACHE=" + dir("modcache"),
		"GOCACHE=" + dir("gocache"),
		"GOFLAGS=-toolexec=" + evil,
		"GOTOOLCHAIN=go1.99.0+auto",
		"CGO_ENABLED=1",
		"GIT_DIR=" + filepath.Join(tmp, "no-such-repo"),
		"GIT_WORK_TREE=/",
		"GIT_INDEX_FILE=" + filepath.Join(tmp, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(tmp, "objects"),
		"GIT_CONFIG_PARAMETERS='core.fsmonitor'='" + evil + "'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=" + evil,
		"GIT_EXEC_PATH=" + shims,
		"GIT_SSH_COMMAND=" + evil,
		"GIT_PAGER=" + evil, "PAGER=" + evil, "EDITOR=" + evil,
		"GIT_TRACE=" + filepath.Join(tmp, "trace"),
	}
	traceLog := filepath.Join(tmp, "strace.log")
	strace, _ := exec.LookPath("strace")
	if strace != "" && exec.Command(strace, "-f", "--seccomp-bpf", "-qq", "-o", traceLog, "--", binary, "version").Run() != nil {
		t.Logf("strace cannot trace here (no ptrace?): checking with the shims only")
		strace = ""
	}
	runHostile := func(args ...string) result {
		t.Helper()
		var cmd *exec.Cmd
		if strace != "" {
			cmd = exec.Command(strace, append([]string{"-f", "--seccomp-bpf", "-qq", "-s", "4096", "-o", traceLog, "-e", "signal=none",
				"-e", "trace=execve,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,symlink,symlinkat,link,linkat,chmod,fchmodat,truncate,utimensat",
				"--", binary}, args...)...)
		} else {
			cmd = exec.Command(binary, args...)
		}
		cmd.Dir = fx.Dir
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running apicheck: %v", err)
		}
		if strace != "" {
			checkTrace(t, traceLog, filepath.Dir(tmp), binary, filepath.Join(shims, "git"), realGit)
		}
		return result{stdout.String(), stderr.String(), code}
	}

	// The working tree against a base named like an option.
	r := runHostile("check", "--base=-h", "--format=json")
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("check: exit %d (want 1: the example's findings), stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		`"submodules are not read, so API groups inside them are not checked: third_party/sub"`,
		`"working-tree entries not read: pkg/apis/core/v1beta1/tracked_fifo.go (named pipe (FIFO), not opened)"`,
		`"ref": "-h"`,
		`"rule": "NEW_FIELD_NOT_POINTER"`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "root:") {
		t.Errorf("the report quotes /etc/passwd")
	}
	// A ref that is an option to some git command is just an unknown ref.
	out := filepath.Join(tmp, "x")
	r = runHostile("check", "--base=--output="+out, "--head=--exec=evil")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown revision "--output=`+out+`"`) {
		t.Errorf("--base=--output=...: exit %d, stderr %q; want 2 and an unknown revision", r.code, r.stderr)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("%s was created", out)
	}

	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("programs other than git ran:\n%s", data)
	}
	for _, p := range []string{"trace", "index", "objects"} {
		if _, err := os.Lstat(filepath.Join(tmp, p)); err == nil {
			t.Errorf("%s exists: the caller's GIT_* environment reached git", p)
		}
	}
	if after := gitfixture.TreeState(t, fx.Dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the repository changed (work tree or .git)")
	}
	checkGitLog(t, gitLog)
}

// checkGitLog checks every git invocation the shim logged: the fixed
// flags, and the fixed environment without anything inherited from GIT_*,
// HOME, PAGER or EDITOR.
func checkGitLog(t *testing.T, path string) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(path, "*"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("git never ran: %v", err)
	}
	var data []byte
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	wantEnv := map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1",
		"GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_ALLOW_PROTOCOL": "", "GIT_ATTR_NOSYSTEM": "1", "LC_ALL": "C",
	}
	wantArgs := []string{"[--no-pager]", "[core.fsmonitor=false]", "[core.hooksPath=" + os.DevNull + "]", "[core.untrackedCache=false]",
		"[protocol.allow=never]", "[credential.helper=]", "[core.sshCommand=false]"}
	exportRE := regexp.MustCompile(`^export ([A-Za-z_][A-Za-z0-9_]*)(?:='(.*)')?$`)
	n := 0
	for _, inv := range strings.Split(string(data), "END\n") {
		if strings.TrimSpace(inv) == "" {
			continue
		}
		n++
		argv, exports, _ := strings.Cut(inv, "\n")
		for _, a := range wantArgs {
			if !strings.Contains(argv, a) {
				t.Errorf("git ran without %s: %s", a, argv)
			}
		}
		env := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(exports))
		for sc.Scan() {
			if m := exportRE.FindStringSubmatch(sc.Text()); m != nil {
				env[m[1]] = m[2]
			}
		}
		for k, v := range wantEnv {
			if got, ok := env[k]; !ok || got != v {
				t.Errorf("git ran with %s=%q (set: %v), want %q: %s", k, got, ok, v, argv)
			}
		}
		for k, v := range env {
			switch _, fixed := wantEnv[k]; {
			case fixed, k == "GIT_CONFIG_COUNT", strings.HasPrefix(k, "GIT_CONFIG_VALUE_"):
			case strings.HasPrefix(k, "GIT_CONFIG_KEY_"):
				// Output's overrides switch filter drivers off; nothing else.
				if !strings.HasPrefix(v, "filter.") {
					t.Errorf("git ran with %s=%s: %s", k, v, argv)
				}
			case strings.HasPrefix(k, "GIT_"), slices.Contains([]string{"HOME", "PAGER", "EDITOR", "XDG_CONFIG_HOME"}, k):
				t.Errorf("git inherited %s=%s: %s", k, v, argv)
			}
		}
	}
	if n < 5 {
		t.Errorf("the git shim logged only %d invocations", n)
	}
}

// checkTrace reads an strace log: every program executed must be one of
// allowed, and no file outside root may be created, written, renamed,
// removed, linked or re-permissioned. Relative paths are relative to a
// directory inside root (the repository), so they only count when they
// climb out with "..".
func checkTrace(t *testing.T, log, root string, allowed ...string) {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`^(\w+)\((.*)\)\s+= (-?\d+)`)
	str := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	writes := regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND`)
	outside := func(p string) bool {
		if !filepath.IsAbs(p) {
			return strings.HasPrefix(filepath.Clean(p), "..")
		}
		p = filepath.Clean(p)
		return p != root && !strings.HasPrefix(p, root+"/") && p != os.DevNull
	}
	// Calls interrupted by another process's are split in two lines:
	// "PID name(args <unfinished ...>" and "PID <... name resumed>rest".
	pending := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		pid, text, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		text = strings.TrimLeft(text, " ")
		if before, ok := strings.CutSuffix(text, " <unfinished ...>"); ok {
			pending[pid] = before
			continue
		}
		if strings.HasPrefix(text, "<... ") {
			_, rest, _ := strings.Cut(text, " resumed>")
			text = pending[pid] + rest
			delete(pending, pid)
		}
		m := call.FindStringSubmatch(text)
		if m == nil || strings.HasPrefix(m[3], "-") {
			continue // not a completed call, or a failed one: nothing happened
		}
		name, args := m[1], m[2]
		paths := str.FindAllStringSubmatch(args, -1)
		switch name {
		case "execve":
			if len(paths) == 0 || !slices.Contains(allowed, paths[0][1]) {
				t.Errorf("a program other than apicheck and git ran: %s", text)
			}
			continue
		case "open", "openat", "creat":
			if name != "creat" && !writes.MatchString(args) {
				continue // a read
			}
		}
		for _, p := range paths {
			if outside(p[1]) {
				t.Errorf("touched a file outside the test's directories: %s", text)
				break
			}
		}
	}
}
