package fix_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
	"github.com/apicheck/apicheck/internal/testutil/rulefixture"
)

func TestMain(m *testing.M) { hermetic.Main(m) }

// The fix fixtures, testdata/*.txtar: a history as for the rule fixtures
// (base/…, head/…, optionally worktree/… for uncommitted changes, the
// same prelude), want/<path> sections with the expected content of every
// file the fix changes, and in the comment:
//
//	options: profile=kubernetes        as for rule fixtures
//	args: --dry-run --head             fix options (--head: check HEAD, not the working tree)
//	fixed: RULE_ID ...                 rules that fire before and not after the fix
//	applied: MESSAGE                   "RULE Type.Field: description" of an applied fix
//	skipped: MESSAGE                   a finding left unfixed (Skip.String())
//
// MESSAGE is "exact" or ~"substring"; the applied and skipped lists are
// complete. Every file of the repository, .git included, that is not a
// want/ file must be byte-identical after the fix; the want/ files must be
// exactly as written. The fix's unified diff must apply with git apply and
// patch -p1 to give those files; no rule may fire after the fix that did
// not fire before. A second run must change nothing.

type fixCase struct {
	name            string
	options         string
	dryRun          bool
	headCommit      bool
	fixed           []string
	applied, skippd []matcher
	history         []txtar.File
	want            map[string]string
}

type matcher struct {
	text string
	sub  bool
}

func (m matcher) match(s string) bool {
	if m.sub {
		return strings.Contains(s, m.text)
	}
	return s == m.text
}

func (m matcher) String() string {
	if m.sub {
		return "~" + strconv.Quote(m.text)
	}
	return strconv.Quote(m.text)
}

func parseMatcher(t *testing.T, s string) matcher {
	t.Helper()
	s = strings.TrimSpace(s)
	m := matcher{}
	if strings.HasPrefix(s, "~") {
		m.sub, s = true, s[1:]
	}
	text, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("bad message %s: %v", s, err)
	}
	m.text = text
	return m
}

func loadCase(t *testing.T, file string) *fixCase {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &fixCase{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), want: map[string]string{}}
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		key, rest, _ := strings.Cut(strings.TrimSpace(l), ":")
		switch key {
		case "options":
			c.options = strings.TrimSpace(rest)
		case "args":
			for _, a := range strings.Fields(rest) {
				switch a {
				case "--dry-run":
					c.dryRun = true
				case "--head":
					c.headCommit = true
				default:
					t.Fatalf("%s: unknown arg %s", file, a)
				}
			}
		case "fixed":
			c.fixed = strings.Fields(rest)
		case "applied":
			c.applied = append(c.applied, parseMatcher(t, rest))
		case "skipped":
			c.skippd = append(c.skippd, parseMatcher(t, rest))
		}
	}
	for _, f := range ar.Files {
		if p, ok := strings.CutPrefix(f.Name, "want/"); ok {
			c.want[p] = string(f.Data)
			continue
		}
		c.history = append(c.history, f)
	}
	return c
}

// build turns the history into a repository, with the rule fixtures'
// prelude (go.mod, doc.go of every version, .apicheck.yaml).
func (c *fixCase) build(t *testing.T) *gitfixture.Fixture {
	t.Helper()
	comment := "want:\n"
	if c.options != "" {
		comment = "options: " + c.options + "\n" + comment
	}
	rc, err := rulefixture.Parse("_fix/"+c.name, txtar.Format(&txtar.Archive{Comment: []byte(comment), Files: c.history}))
	if err != nil {
		t.Fatal(err)
	}
	return gitfixture.FromTxtar(t, rc.History())
}

// runCheck checks base against the working tree (or HEAD).
func runCheck(t *testing.T, dir, base, head string) *check.Result {
	t.Helper()
	res, err := check.Run(check.Request{
		Dir: dir, Base: base, Head: head,
		Lifecycle: lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff, CacheDir: t.TempDir()},
	})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	t.Cleanup(res.Close)
	return res
}

// runFix is `apicheck fix` without the printing.
func runFix(t *testing.T, dir, base, head string, opts fix.Options) (*check.Result, *fix.Result) {
	t.Helper()
	res := runCheck(t, dir, base, head)
	out, err := res.Fixes.Apply(res.Repo, opts)
	if err != nil {
		t.Fatalf("fix: %v", err)
	}
	return res, out
}

// tree describes every file below dir (.git included): mode and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		var content string
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			content = "-> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			content = hex.EncodeToString(sum[:])
		}
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %s", fi.Mode(), content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// worktreeFiles reads every regular file below dir but .git.
func worktreeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changedFiles(before, after map[string]string) []string {
	var out []string
	for p, v := range before {
		if after[p] != v {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func rulesOf(r *finding.Report) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Findings {
		if f.Suppressed == "" {
			out[f.Rule] = true
		}
	}
	return out
}

func appliedLines(out *fix.Result) []string {
	var lines []string
	for _, a := range out.Applied {
		lines = append(lines, strings.Join(a.Findings, ", ")+": "+a.Description)
	}
	return lines
}

func skippedLines(out *fix.Result) []string {
	var lines []string
	for _, s := range out.Skipped {
		lines = append(lines, s.String())
	}
	return lines
}

// matchAll reports the lines no matcher takes and the matchers no line
// satisfies.
func matchAll(lines []string, ms []matcher) (extra []string, missing []matcher) {
	used := make([]bool, len(lines))
	for _, m := range ms {
		found := false
		for i, l := range lines {
			if !used[i] && m.match(l) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, m)
		}
	}
	for i, l := range lines {
		if !used[i] {
			extra = append(extra, strconv.Quote(l))
		}
	}
	return extra, missing
}

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		c := loadCase(t, file)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

func (c *fixCase) run(t *testing.T) {
	fx := c.build(t)
	base := fx.Commits[rulefixture.BaseStep]
	head := ""
	if c.headCommit {
		head = "HEAD"
	}
	treeBefore := tree(t, fx.Dir)
	contentBefore := worktreeFiles(t, fx.Dir)
	before, out := runFix(t, fx.Dir, base, head, fix.Options{DryRun: c.dryRun})
	for _, r := range c.fixed {
		if !rulesOf(before.Report)[r] {
			t.Errorf("%s does not fire before the fix", r)
		}
	}
	if extra, missing := matchAll(appliedLines(out), c.applied); len(extra)+len(missing) > 0 {
		t.Errorf("applied fixes differ:\nunexpected: %s\nmissing: %v", strings.Join(extra, "\n\t"), missing)
	}
	if extra, missing := matchAll(skippedLines(out), c.skippd); len(extra)+len(missing) > 0 {
		t.Errorf("skipped fixes differ:\nunexpected: %s\nmissing: %v", strings.Join(extra, "\n\t"), missing)
	}
	treeAfter := tree(t, fx.Dir)
	var wantChanged []string
	for p := range c.want {
		wantChanged = append(wantChanged, p)
		got, err := os.ReadFile(filepath.Join(fx.Dir, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if string(got) != c.want[p] {
			t.Errorf("%s after the fix:\n%s\nwant:\n%s", p, got, c.want[p])
		}
	}
	sort.Strings(wantChanged)
	if got := changedFiles(treeBefore, treeAfter); !slices.Equal(got, wantChanged) {
		t.Errorf("changed files (.git included) = %v, want %v", got, wantChanged)
	}
	if c.dryRun {
		if len(out.Files) > 0 && len(out.Diff) == 0 {
			t.Errorf("dry run without a diff")
		}
	} else if !slices.Equal(out.Files, wantChanged) {
		t.Errorf("Result.Files = %v, want %v", out.Files, wantChanged)
	}
	// The diff is a patch git apply and patch -p1 accept, and it turns
	// the files into what the fix wrote (in a dry run, that it applies).
	if len(out.Files) > 0 {
		if len(out.Diff) == 0 {
			t.Errorf("files changed without a diff")
		}
		var patched map[string][]byte
		for _, p := range out.Files {
			if c.dryRun {
				break
			}
			if patched == nil {
				patched = map[string][]byte{}
			}
			b, err := os.ReadFile(filepath.Join(fx.Dir, filepath.FromSlash(p)))
			if err != nil {
				t.Fatal(err)
			}
			patched[p] = b
		}
		fix.CheckPatch(t, contentBefore, patched, out.Diff)
	} else if len(out.Diff) > 0 {
		t.Errorf("a diff without changed files:\n%s", out.Diff)
	}
	// Idempotent: a second run changes nothing, and when the first left
	// nothing unfixed there is nothing left to do. Its check of the
	// working tree shows the fixed rules gone.
	after, again := runFix(t, fx.Dir, base, head, fix.Options{DryRun: c.dryRun})
	if got := changedFiles(treeAfter, tree(t, fx.Dir)); len(got) > 0 {
		t.Errorf("the second run changed %v", got)
	}
	if len(out.Skipped) == 0 && !c.dryRun && (len(again.Applied) > 0 || len(again.Skipped) > 0) {
		t.Errorf("the second run still had work: applied %q, skipped %q", appliedLines(again), skippedLines(again))
	}
	if head != "" {
		if len(c.fixed) == 0 {
			return // the working tree need not even parse (bad_input)
		}
		after = runCheck(t, fx.Dir, base, "")
	}
	fired, firedBefore := rulesOf(after.Report), rulesOf(before.Report)
	for _, r := range c.fixed {
		if fired[r] {
			t.Errorf("%s still fires after the fix", r)
		}
	}
	// A fix brings no finding of its own (a tombstone the parser finds
	// malformed, a number reserved twice).
	for r := range fired {
		if !firedBefore[r] {
			t.Errorf("%s fires after the fix but not before", r)
		}
	}
}

// TestFixtureCoverage: every rule with a fix has a fixture where fixing
// makes it go away and one where its fix is refused with a reason.
func TestFixtureCoverage(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	fixed, refused := map[string]bool{}, map[string]bool{}
	for _, file := range files {
		c := loadCase(t, file)
		for _, r := range c.fixed {
			fixed[r] = true
		}
		for _, m := range c.skippd {
			for _, r := range fix.Rules() {
				if strings.Contains(" "+m.text, " "+r+" ") {
					refused[r] = true
				}
			}
		}
	}
	for _, r := range fix.Rules() {
		if !fixed[r] {
			t.Errorf("no fixture lists %s under fixed:", r)
		}
		if !refused[r] {
			t.Errorf("no fixture has a skipped: line for %s (a fix refused with its reason)", r)
		}
	}
}

// A file of the working tree that changed after the check read it is not
// fixed, in a dry run neither: the fixes were computed on what the check
// read. It is refused once, naming the file, for all its findings; the
// other file, unchanged, is fixed, and the user's latest content stays.
func TestApplyRefusesFileChangedSinceCheck(t *testing.T) {
	const types, backup = "pkg/apis/core/v1beta1/types.go", "pkg/apis/core/v1beta1/backup.go"
	ar := txtar.Parse([]byte(`-- base/` + types + ` --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// Region is the region.
	Region string ` + "`json:\"region\"`" + `
}
-- head/` + types + ` --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// Region is the region.
	Region string ` + "`json:\"region\"`" + `
}
-- worktree/` + types + ` --
package v1beta1

// ShootSpec is the spec.
type ShootSpec struct {
	// Region is the region.
	Region string ` + "`json:\"region\"`" + `
	// Replicas is the number of replicas.
	Replicas int32 ` + "`json:\"replicas\"`" + `
}
-- worktree/` + backup + ` --
package v1beta1

// Backup is new.
type Backup struct {
	// Provider is the provider.
	// +optional
	Provider *string ` + "`json:\"provider\"`" + `
}
`))
	fx := (&fixCase{name: "changed_since_check", history: ar.Files}).build(t)
	base := fx.Commits[rulefixture.BaseStep]
	file := filepath.Join(fx.Dir, filepath.FromSlash(types))
	for _, dryRun := range []bool{true, false} {
		res := runCheck(t, fx.Dir, base, "")
		orig, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		latest := string(orig) + "\n// Saved again after the check.\n"
		if err := os.WriteFile(file, []byte(latest), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := res.Fixes.Apply(res.Repo, fix.Options{DryRun: dryRun})
		if err != nil {
			t.Fatal(err)
		}
		want := types + ": NEW_FIELD_NOT_POINTER ShootSpec.Replicas, NEW_FIELD_NOT_OPTIONAL ShootSpec.Replicas, NEW_FIELD_NO_OMITEMPTY ShootSpec.Replicas not fixed: " +
			types + " changed since apicheck read it; run apicheck fix again"
		if got := skippedLines(out); len(got) != 1 || got[0] != want {
			t.Errorf("dry run %v: skipped %q\nwant %q", dryRun, got, want)
		}
		if out.Unfixed() != 3 {
			t.Errorf("dry run %v: %d findings unfixed, want 3", dryRun, out.Unfixed())
		}
		if !slices.Equal(out.Files, []string{backup}) || !strings.Contains(string(out.Diff), "+++ b/"+backup) || strings.Contains(string(out.Diff), types) {
			t.Errorf("dry run %v: files %v, diff:\n%s", dryRun, out.Files, out.Diff)
		}
		if now, _ := os.ReadFile(file); string(now) != latest {
			t.Errorf("dry run %v: the changed file was written:\n%s", dryRun, now)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(fx.Dir, filepath.FromSlash(backup))); !strings.Contains(string(got), "`json:\"provider,omitempty\"`") {
		t.Errorf("%s not fixed:\n%s", backup, got)
	}
}
