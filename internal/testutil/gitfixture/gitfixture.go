// Package gitfixture turns txtar archives into real git repositories for
// tests.
//
// An archive describes a history as a sequence of steps. Each file name is
// "<step>/<path>"; steps are taken in order of first appearance, and each
// step's tree is the previous step's tree overlaid with that step's files. A
// file whose content is exactly "(deleted)" (with or without a final
// newline) removes that path. Every step is committed with the step name as
// message, a fixed identity and dates one minute apart from
// 2024-01-01T00:00:00Z, so shas are the same on every run, except the step
// named "worktree", which must come last and is only written to disk.
//
// A step name may carry lightweight tags after "@": "rel1@v1.1.0" commits
// step "rel1" and tags it v1.1.0 ("rel1@v1.1.0@v1.1.1" for several). An
// entry named just "<step>/" (no path, empty content) declares a step with
// no file changes; it is committed as an empty commit.
//
// Example:
//
//	-- base/go.mod --
//	module example.com/m
//	-- base/api/types.go --
//	package api
//	-- head@v1.1.0/api/types.go --
//	(deleted)
//	-- worktree/api/new.go --
//	package api
//
// Speed: a fixture costs two git processes however long its history is:
// one `git fast-import` that writes every commit and tag, and one
// `git read-tree` that checks the last commit out (New writes what git init
// would itself). Import gives tests
// the same for hand-built histories (branches, merges, modes). Commit is
// the slower, index-based way for tests that stage things themselves.
//
// Unusual repositories (bare, SHA-256, git's own templates and hooks
// directory) start with Init, which runs git init; ImportTrees commits
// whole trees (symbolic links and submodule entries written as
// "link:TARGET" and "gitlink:SHA") and CheckoutFiles writes the last one
// by hand, leaving the index's stat data stale as after a fresh clone.
//
// git runs with a hermetic environment: HOME is an empty temporary
// directory, no system or global configuration is read, and the identity is
// fixed, so fixtures behave the same on a developer's machine and in CI.
package gitfixture

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/txtarrepo"
)

// WorktreeStep is the step name that is written to disk but not committed.
const WorktreeStep = txtarrepo.WorktreeStep

// Identity used for every commit.
const (
	UserName  = "apicheck test"
	UserEmail = "test@apicheck.invalid"
)

// Deleted as a file's content removes the path (as in archives).
const Deleted = "(deleted)"

// epoch is the date of the first commit; each commit is one minute later.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// initRepo writes what `git init -q -b main --template=` writes: HEAD,
// config and the empty object and ref directories (saving a git process
// per fixture), plus repoConfig.
func initRepo(gitDir string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(gitDir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	core := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	switch runtime.GOOS {
	case "windows":
		core = "[core]\n\trepositoryformatversion = 0\n\tfilemode = false\n\tbare = false\n\tlogallrefupdates = true\n" +
			"\tsymlinks = false\n\tignorecase = true\n"
	case "darwin", "ios":
		core += "\tignorecase = true\n\tprecomposeunicode = true\n"
	}
	if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte(core+repoConfig), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
}

// repoConfig is what New writes to .git/config besides git's defaults: the
// identity and no signing, for git commands that tests run themselves
// (and for the code under test, which runs git with the user's
// environment).
const repoConfig = `[user]
	name = ` + UserName + `
	email = ` + UserEmail + `
[commit]
	gpgsign = false
[tag]
	gpgsign = false
[core]
	autocrlf = false
`

// Fixture is a real git repo in t.TempDir().
type Fixture struct {
	Dir     string            // repo root (symlinks resolved)
	Commits map[string]string // step name -> commit sha ("worktree" has none)
	Steps   []string          // step names in order

	t      testing.TB
	home   string            // HOME for git
	gitDir string            // the repository: Dir/.git, or Dir when bare
	n      int               // commits made so far, for the dates
	tree   map[string]string // the last tree ImportTrees committed
}

// New makes an empty repo (as git init -b main --template= would, local
// user.name/email set, commit.gpgsign=false) without running git.
func New(t testing.TB) *Fixture {
	t.Helper()
	f := newFixture(t)
	if err := initRepo(f.gitDir); err != nil {
		t.Fatalf("gitfixture: %v", err)
	}
	return f
}

// newFixture makes the fixture's directories: an empty work tree and
// HOME.
func newFixture(t testing.TB) *Fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("gitfixture: git is not installed: %v", err)
	}
	base := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(base); err == nil {
		base = resolved
	}
	f := &Fixture{
		Dir:     filepath.Join(base, "repo"),
		Commits: map[string]string{},
		t:       t,
		home:    filepath.Join(base, "home"),
	}
	f.gitDir = filepath.Join(f.Dir, ".git")
	for _, d := range []string{f.Dir, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("gitfixture: %v", err)
		}
	}
	return f
}

// FromTxtar builds a repo from an archive (see the package documentation)
// with one git fast-import, and checks the last committed step out.
func FromTxtar(t testing.TB, archive []byte) *Fixture {
	t.Helper()
	return fromTxtar(t, archive, true)
}

// FromTxtarCommits is FromTxtar for tests that read commits only: it
// leaves the index and the working tree empty (no checkout, one git
// process less) and refuses an archive with a worktree step.
func FromTxtarCommits(t testing.TB, archive []byte) *Fixture {
	t.Helper()
	return fromTxtar(t, archive, false)
}

func fromTxtar(t testing.TB, archive []byte, checkout bool) *Fixture {
	t.Helper()
	steps, err := txtarrepo.Parse(archive)
	if err != nil {
		t.Fatalf("gitfixture: %v", err)
	}
	f := New(t)
	var commits []Commit
	var worktree map[string]string
	tree := map[string]bool{}
	for _, s := range steps {
		if s.Name == WorktreeStep {
			if !checkout {
				t.Fatalf("gitfixture: FromTxtarCommits: the archive has a %q step", WorktreeStep)
			}
			worktree = s.Files
			continue
		}
		// fast-import ignores the deletion of a missing path; an archive
		// that deletes one has a mistake, as Overlay would say.
		for p, content := range s.Files {
			if !isDeleted(content) {
				tree[p] = true
			} else if !tree[p] {
				t.Fatalf("gitfixture: step %q deletes %s, which does not exist", s.Name, p)
			} else {
				delete(tree, p)
			}
		}
		commits = append(commits, Commit{Step: s.Name, Files: s.Files, Tags: s.Tags})
	}
	if len(commits) > 0 {
		f.Import(commits...)
		if checkout {
			f.Checkout()
		}
	}
	if worktree != nil {
		f.WriteWorktree(worktree)
	}
	return f
}

// FromFile reads a txtar file (typically under testdata/) and calls FromTxtar.
func FromFile(t testing.TB, path string) *Fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("gitfixture: %v", err)
	}
	return FromTxtar(t, data)
}

// Commit is one commit for Import.
type Commit struct {
	// Step names the commit: its message, and its key in Fixture.Commits.
	// It must be unique, non-empty, not "worktree", without '@' or '/'.
	Step string
	// Branch is the branch the commit goes on (default "main"); the
	// branch ref ends up at its last commit of the import.
	Branch string
	// Parents are steps (committed before, or earlier in this import) or
	// full commit shas. Nil continues Branch: its previous commit in this
	// import, else the branch's current tip in the repository, else no
	// parent (the first commit of a new branch). Use an explicit list for
	// merges ("from" first) and to start a branch somewhere.
	Parents []string
	// Files overlays the first parent's tree: path -> content, Deleted
	// removes the path.
	Files map[string]string
	// Modes gives files a mode other than 100644: "100755" (executable),
	// "120000" (symlink; the content is the target) or "160000" (gitlink;
	// the content is the submodule's commit sha).
	Modes map[string]string
	// Tags are lightweight tags to create at the commit; Branches are more
	// branches to point at it.
	Tags, Branches []string
	// AnnotatedTags are annotated tags to create at the commit (message
	// "release <tag>", the fixed identity, dated 30 seconds after the
	// commit).
	AnnotatedTags []string
	// Tree makes Files the commit's whole tree instead of an overlay of
	// the first parent's: every other path goes, and a content of Deleted
	// is a file's content like any other.
	Tree bool
}

// Import writes commits with one `git fast-import`, records them in
// Commits and Steps, and leaves the working tree and index alone (see
// Checkout). Dates continue one minute apart after the fixture's previous
// commit.
func (f *Fixture) Import(commits ...Commit) {
	f.t.Helper()
	if len(commits) == 0 {
		return
	}
	if slices.Contains(f.Steps, WorktreeStep) {
		f.t.Fatalf("gitfixture: cannot commit after the %q step", WorktreeStep)
	}
	var s bytes.Buffer
	marks := map[string]int{}        // step -> mark in this import
	lastOnBranch := map[string]int{} // branch -> mark of its last commit in this import
	for i, c := range commits {
		mark := i + 1
		f.checkStep(c.Step)
		if _, dup := marks[c.Step]; dup {
			f.t.Fatalf("gitfixture: step %q committed twice", c.Step)
		}
		branch := c.Branch
		if branch == "" {
			branch = "main"
		}
		var parents []string
		switch {
		case c.Parents != nil:
			for _, p := range c.Parents {
				switch {
				case marks[p] != 0:
					parents = append(parents, ":"+strconv.Itoa(marks[p]))
				case f.Commits[p] != "":
					parents = append(parents, f.Commits[p])
				case isSHA(p):
					parents = append(parents, p)
				default:
					f.t.Fatalf("gitfixture: step %q: unknown parent %q", c.Step, p)
				}
			}
		case lastOnBranch[branch] != 0:
			parents = []string{":" + strconv.Itoa(lastOnBranch[branch])}
		case f.branchExists(branch):
			parents = []string{"refs/heads/" + branch + "^0"}
		}
		date := epoch.Add(time.Duration(f.n+i) * time.Minute).Unix()
		msg := c.Step + "\n"
		fmt.Fprintf(&s, "commit refs/heads/%s\nmark :%d\n", branch, mark)
		fmt.Fprintf(&s, "author %s <%s> %d +0000\ncommitter %s <%s> %d +0000\n", UserName, UserEmail, date, UserName, UserEmail, date)
		fmt.Fprintf(&s, "data %d\n%s", len(msg), msg)
		for j, p := range parents {
			if j == 0 {
				fmt.Fprintf(&s, "from %s\n", p)
			} else {
				fmt.Fprintf(&s, "merge %s\n", p)
			}
		}
		paths := make([]string, 0, len(c.Files))
		for p := range c.Files {
			if err := txtarrepo.CheckPath(p); err != nil {
				f.t.Fatalf("gitfixture: step %q: %v", c.Step, err)
			}
			paths = append(paths, p)
		}
		for p := range c.Modes {
			if _, ok := c.Files[p]; !ok {
				f.t.Fatalf("gitfixture: step %q: mode for %s, which has no content", c.Step, p)
			}
		}
		sort.Strings(paths)
		if c.Tree {
			s.WriteString("deleteall\n")
		}
		for _, p := range paths {
			content := c.Files[p]
			if isDeleted(content) && !c.Tree {
				fmt.Fprintf(&s, "D %s\n", quotePath(p))
				continue
			}
			switch mode := c.Modes[p]; mode {
			case "", "100644", "100755", "120000":
				if mode == "" {
					mode = "100644"
				}
				fmt.Fprintf(&s, "M %s inline %s\ndata %d\n%s\n", mode, quotePath(p), len(content), content)
			case "160000":
				fmt.Fprintf(&s, "M 160000 %s %s\n", strings.TrimSpace(content), quotePath(p))
			default:
				f.t.Fatalf("gitfixture: step %q: unsupported mode %q for %s", c.Step, mode, p)
			}
		}
		s.WriteByte('\n')
		for _, tag := range c.Tags {
			fmt.Fprintf(&s, "reset refs/tags/%s\nfrom :%d\n\n", tag, mark)
		}
		for _, tag := range c.AnnotatedTags {
			tmsg := "release " + tag + "\n"
			fmt.Fprintf(&s, "tag %s\nfrom :%d\ntagger %s <%s> %d +0000\ndata %d\n%s\n", tag, mark, UserName, UserEmail, date+30, len(tmsg), tmsg)
		}
		for _, b := range c.Branches {
			fmt.Fprintf(&s, "reset refs/heads/%s\nfrom :%d\n\n", b, mark)
		}
		marks[c.Step] = mark
		lastOnBranch[branch] = mark
	}
	s.WriteString("done\n")

	marksFile := filepath.Join(f.home, fmt.Sprintf("marks-%d", f.n))
	// Fixture repositories are small and short-lived: storing objects
	// uncompressed saves the time zlib takes on large test files, and
	// keeping fast-import's one pack (unpackLimit=0) instead of exploding
	// it into loose objects, one file and directory each, halves the cost
	// of the import.
	f.run(&s, "-c", "core.compression=0", "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--done", "--export-marks="+marksFile)
	data, err := os.ReadFile(marksFile)
	if err != nil {
		f.t.Fatalf("gitfixture: reading fast-import marks: %v", err)
	}
	_ = os.Remove(marksFile)
	byMark := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if m, sha, ok := strings.Cut(sc.Text(), " "); ok {
			byMark[m] = sha
		}
	}
	for i, c := range commits {
		sha := byMark[":"+strconv.Itoa(i+1)]
		if sha == "" {
			f.t.Fatalf("gitfixture: fast-import gave no commit for step %q", c.Step)
		}
		f.Commits[c.Step] = sha
		f.Steps = append(f.Steps, c.Step)
	}
	f.n += len(commits)
}

// Checkout makes the index and the working tree match HEAD (one git
// read-tree), e.g. after Import.
func (f *Fixture) Checkout() {
	f.t.Helper()
	f.Git("read-tree", "--reset", "-u", "HEAD")
}

// Commit overlays files on the working tree and the index (a content of
// "(deleted)" removes the path), commits with step as message, records the
// step and returns the commit sha. Prefer Import, which needs neither the
// working tree nor a git process per commit, unless the test stages
// things in the index itself.
func (f *Fixture) Commit(step string, files map[string]string) string {
	f.t.Helper()
	f.checkStep(step)
	if slices.Contains(f.Steps, WorktreeStep) {
		f.t.Fatalf("gitfixture: cannot commit step %q after the %q step", step, WorktreeStep)
	}
	touched := f.overlay(step, files)
	if len(touched) > 0 {
		// update-index takes the NUL-separated paths literally (no
		// pathspec globbing, no quadratic matching, no argument limits),
		// stages deletions (--remove) and ignores .gitignore, so files the
		// archive lists are committed even if the fixture ignores them.
		var list bytes.Buffer
		for _, p := range touched {
			list.WriteString(p)
			list.WriteByte(0)
		}
		f.run(&list, "update-index", "--add", "--remove", "-z", "--stdin")
	}
	date := fmt.Sprintf("@%d +0000", epoch.Add(time.Duration(f.n)*time.Minute).Unix())
	f.n++
	f.runEnv(nil, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date},
		"commit", "-q", "--allow-empty", "--no-verify", "-m", step)
	sha := f.Git("rev-parse", "HEAD")
	f.Commits[step] = sha
	f.Steps = append(f.Steps, step)
	return sha
}

// Tag creates a lightweight tag at a step's commit.
func (f *Fixture) Tag(name, step string) {
	f.t.Helper()
	f.Git("tag", name, f.commitOf(step))
}

// SetRef runs `git update-ref refs/remotes/<name> <sha of step>`, e.g.
// SetRef("origin/main", "base") to simulate an upstream.
func (f *Fixture) SetRef(name, step string) {
	f.t.Helper()
	f.Git("update-ref", "refs/remotes/"+name, f.commitOf(step))
}

// WriteWorktree overlays files on disk without committing ("(deleted)"
// removes a file from disk). It records the step "worktree" once.
func (f *Fixture) WriteWorktree(files map[string]string) {
	f.t.Helper()
	f.overlay(WorktreeStep, files)
	if !slices.Contains(f.Steps, WorktreeStep) {
		f.Steps = append(f.Steps, WorktreeStep)
	}
}

// Git runs git in the repo and returns stdout with trailing white space
// trimmed, failing the test on error. Leading white space is kept: it is
// significant in, e.g., `git status --porcelain`.
func (f *Fixture) Git(args ...string) string {
	f.t.Helper()
	return strings.TrimRight(f.run(nil, args...), " \t\r\n")
}

// GitStdin is Git with stdin fed from a string, for plumbing such as
// `update-index --index-info` or `hash-object -w --stdin`.
func (f *Fixture) GitStdin(stdin string, args ...string) string {
	f.t.Helper()
	return strings.TrimRight(f.run(bytes.NewBufferString(stdin), args...), " \t\r\n")
}

// Path returns the absolute path of a repo-relative slash path.
func (f *Fixture) Path(rel string) string {
	return filepath.Join(f.Dir, filepath.FromSlash(rel))
}

func (f *Fixture) checkStep(step string) {
	f.t.Helper()
	if step == "" || step == WorktreeStep || strings.ContainsAny(step, "@/") {
		f.t.Fatalf("gitfixture: cannot commit step %q (must be non-empty, not %q, without '@' or '/')", step, WorktreeStep)
	}
	if _, dup := f.Commits[step]; dup {
		f.t.Fatalf("gitfixture: step %q committed twice", step)
	}
}

// commitOf returns the sha of a committed step.
func (f *Fixture) commitOf(step string) string {
	f.t.Helper()
	sha, ok := f.Commits[step]
	if !ok {
		f.t.Fatalf("gitfixture: no committed step %q (have %v)", step, f.Steps)
	}
	return sha
}

// branchExists says whether refs/heads/<b> exists, from the files backend
// git init created (loose ref or packed-refs), without running git.
func (f *Fixture) branchExists(b string) bool {
	ref := "refs/heads/" + b
	if _, err := os.Stat(filepath.Join(f.gitDir, filepath.FromSlash(ref))); err == nil {
		return true
	}
	packed, err := os.ReadFile(filepath.Join(f.gitDir, "packed-refs"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(packed), "\n") {
		if _, name, ok := strings.Cut(l, " "); ok && name == ref {
			return true
		}
	}
	return false
}

// overlay writes files to the work tree and returns the touched paths,
// sorted.
func (f *Fixture) overlay(step string, files map[string]string) []string {
	f.t.Helper()
	paths, err := txtarrepo.Overlay(f.Dir, files)
	if err != nil {
		f.t.Fatalf("gitfixture: step %q: %v", step, err)
	}
	return paths
}

func isDeleted(content string) bool {
	return content == Deleted || content == Deleted+"\n"
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// quotePath quotes a path for fast-import when it must be (a leading
// double quote or a newline) or could be misread (a backslash, control
// characters), C-style as git reads it.
func quotePath(p string) string {
	needs := strings.HasPrefix(p, `"`)
	for i := 0; i < len(p) && !needs; i++ {
		needs = p[i] < 0x20 || p[i] == '\\' || p[i] == 0x7f
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// env is the hermetic environment git runs with.
func (f *Fixture) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" ||
			k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" || k == "EMAIL" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+f.home,
		"XDG_CONFIG_HOME="+filepath.Join(f.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME="+UserName,
		"GIT_AUTHOR_EMAIL="+UserEmail,
		"GIT_COMMITTER_NAME="+UserName,
		"GIT_COMMITTER_EMAIL="+UserEmail,
		"GIT_TERMINAL_PROMPT=0",
		// So that even "git status" never refreshes the index: tests check
		// that the code under test leaves .git/index alone.
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
	)
}

func (f *Fixture) run(stdin *bytes.Buffer, args ...string) string {
	f.t.Helper()
	return f.runEnv(stdin, nil, args...)
}

func (f *Fixture) runEnv(stdin *bytes.Buffer, extraEnv []string, args ...string) string {
	f.t.Helper()
	full := append([]string{"-c", "init.defaultBranch=main", "-c", "core.quotepath=off"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = f.Dir
	cmd.Env = append(f.env(), extraEnv...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		f.t.Fatalf("gitfixture: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
