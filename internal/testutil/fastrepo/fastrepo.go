// Package fastrepo builds throwaway git repositories for tests with as
// few git processes as possible: `git init`, then one `git fast-import`
// for any number of commits and refs, and optionally `git read-tree` with
// the files written by hand. It exists for tests that need many small or
// unusual repositories (SHA-256, bare, submodules, odd file names, refs
// that look like options) where gitfixture's one-process-per-step history
// would be slow.
//
// git runs with a hermetic environment: no system or global
// configuration, HOME an empty temporary directory, fixed identity and
// dates.
package fastrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Repo is a repository in a temporary directory.
type Repo struct {
	// Dir is the work tree, or the repository itself when bare. Symbolic
	// links in the temporary directory's path are resolved, so it
	// compares equal to what git reports.
	Dir string

	t    testing.TB
	home string
	last map[string]string // the last imported tree
}

// New runs `git init -q -b main <initArgs> DIR` in a new temporary
// directory.
func New(t testing.TB, initArgs ...string) *Repo {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, Dir: filepath.Join(base, "repo"), home: filepath.Join(base, "home")}
	if err := os.Mkdir(r.home, 0o755); err != nil {
		t.Fatal(err)
	}
	r.run(base, "", append(append([]string{"init", "-q", "-b", "main"}, initArgs...), r.Dir)...)
	return r
}

// Git runs git in the repository and returns its stdout, trimmed.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.run(r.Dir, "", args...)
}

func (r *Repo) run(dir, stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GIT_") && k != "HOME" && k != "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+r.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid",
		"GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("fastrepo: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// Import commits the trees in order on refs/heads/main (each commit's
// tree is exactly its map), then points each ref of refs at the commit of
// that index (refs/tags/... makes a lightweight tag). A content "link:T"
// is a symbolic link to T, "gitlink:SHA" a submodule entry. File names
// may hold any byte but NUL. It returns the commits' shas, in order.
func (r *Repo) Import(trees []map[string]string, refs map[string]int) []string {
	r.t.Helper()
	var b strings.Builder
	for i, files := range trees {
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\ncommitter t <t@t.invalid> %d +0000\ndata 2\nc%d\ndeleteall\n", i+1, 1700000000+60*i, i%10)
		for _, p := range sortedKeys(files) {
			content := files[p]
			switch {
			case strings.HasPrefix(content, "gitlink:"):
				fmt.Fprintf(&b, "M 160000 %s %s\n", strings.TrimPrefix(content, "gitlink:"), quote(p))
			case strings.HasPrefix(content, "link:"):
				target := strings.TrimPrefix(content, "link:")
				fmt.Fprintf(&b, "M 120000 inline %s\ndata %d\n%s\n", quote(p), len(target), target)
			default:
				fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", quote(p), len(content), content)
			}
		}
		b.WriteString("\n")
	}
	for _, ref := range sortedKeys(refs) {
		fmt.Fprintf(&b, "reset %s\nfrom :%d\n\n", ref, refs[ref]+1)
	}
	for i := range trees {
		fmt.Fprintf(&b, "get-mark :%d\n", i+1)
	}
	b.WriteString("done\n")
	out := r.run(r.Dir, b.String(), "fast-import", "--quiet", "--done")
	shas := strings.Fields(out)
	if len(shas) != len(trees) {
		r.t.Fatalf("fastrepo: fast-import printed %q, want %d marks", out, len(trees))
	}
	if len(trees) > 0 {
		r.last = trees[len(trees)-1]
	}
	return shas
}

// Checkout writes the last imported tree into the work tree by hand
// (regular files, symbolic links; a submodule is an empty directory) and
// makes it the index with `git read-tree HEAD`. The index's stat data does
// not match the files, as after a fresh clone before any `git status`.
func (r *Repo) Checkout() {
	r.t.Helper()
	r.Git("read-tree", "HEAD")
	for p, content := range r.last {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(content, "gitlink:"):
			err = os.Mkdir(full, 0o755)
		case strings.HasPrefix(content, "link:"):
			err = os.Symlink(strings.TrimPrefix(content, "link:"), full)
		default:
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			r.t.Fatal(err)
		}
	}
}

// WriteFiles writes files into the work tree (parents created).
func (r *Repo) WriteFiles(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// AppendConfig appends text to the repository's config file, written by
// hand (no git runs).
func (r *Repo) AppendConfig(text string) {
	r.t.Helper()
	path := filepath.Join(r.Dir, ".git", "config")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(r.Dir, "config") // bare
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.t.Fatal(err)
	}
}

// TreeState records every entry under dir (mode, size, modification
// time), to prove that nothing changed.
func TreeState(t testing.TB, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		state[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// quote quotes a path the way fast-import reads it: C style, every byte
// outside printable ASCII as an octal escape.
func quote(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b.WriteString("\\" + strconv.FormatInt(int64(c)|0o1000, 8)[1:])
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
