package lifecycle_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/rulefixture"
)

// The rule fixtures of the lifecycle rules live with all others in
// internal/rules/testdata, a directory per rule, and run there
// (internal/rules/fixtures_test.go). The tests here run some of them with
// other options.

const fixtures = "../rules/testdata/"

// fixture builds the repository of a rule fixture, named as the fixture
// test names it: <RULE_ID>/<name>.
func fixture(t *testing.T, name string) (*rulefixture.Case, *gitfixture.Fixture) {
	t.Helper()
	c, err := rulefixture.Load(fixtures + name + ".txtar")
	if err != nil {
		t.Fatal(err)
	}
	return c, gitfixture.FromTxtar(t, c.History())
}

func findingLines(res *check.Result) []string {
	var out []string
	for _, f := range res.Report.Findings {
		out = append(out, fmt.Sprintf("%s %s:%d %s", f.Rule, f.Path, f.Line, rulefixture.Subject(f)))
	}
	sort.Strings(out)
	return out
}

func dump(res *check.Result) string {
	var b strings.Builder
	for _, f := range res.Report.Findings {
		b.WriteString(rulefixture.Exactly(f).String() + "\n")
	}
	for _, n := range res.Report.Notes {
		fmt.Fprintf(&b, "note: %q\n", n)
	}
	if u := res.Report.Releases.Used(); u != "" {
		fmt.Fprintf(&b, "release: %q\n", u)
	}
	return b.String()
}

func hasNote(res *check.Result, s string) bool {
	for _, n := range res.Report.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestShallowClone: in a shallow clone without the release tags the
// release-based rules say what to fetch, and the other rules still run.
func TestShallowClone(t *testing.T) {
	t.Parallel()
	_, fx := fixture(t, "FIELD_REMOVAL_NOT_RELEASED/fires")
	clone := filepath.Join(t.TempDir(), "clone")
	fx.Git("clone", "-q", "--depth", "2", "--no-tags", "file://"+fx.Dir, clone)
	res, err := check.Run(check.Request{
		Dir: clone, Base: fx.Commits["base"], Head: fx.Commits["head"],
		Lifecycle: lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff, CacheDir: "-"},
	})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	defer res.Close()
	if got := findingLines(res); len(got) != 0 {
		t.Errorf("findings in a shallow clone without tags: %v", got)
	}
	for _, want := range []string{"shallow clone", "git fetch --unshallow --tags", "FIELD_REMOVAL_NOT_RELEASED, FIELD_REMOVED_NOT_DEPRECATED skipped"} {
		if !hasNote(res, want) {
			t.Errorf("no note says %q; report:\n%s", want, dump(res))
		}
	}
}

// TestTagPattern: the configured pattern (glob or regular expression)
// decides which tags are releases.
func TestTagPattern(t *testing.T) {
	t.Parallel()
	_, fx := fixture(t, "FIELD_REMOVAL_NOT_RELEASED/fires")
	for _, c := range []struct {
		pattern string
		fires   bool
	}{
		{"v1.*", true},
		{`^v1\.1\.0$`, true},
		{"release-*", false},
	} {
		res, err := check.Run(check.Request{
			Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
			Lifecycle: lifecycle.Options{TagPattern: c.pattern, TypeInfo: lifecycle.TypeInfoOff, CacheDir: "-"},
		})
		if err != nil {
			t.Fatal(err)
		}
		fired := len(findingLines(res)) == 1
		if fired != c.fires {
			t.Errorf("%s: fired=%v, want %v; report:\n%s", c.pattern, fired, c.fires, dump(res))
		}
		if !c.fires && !hasNote(res, "no release tag matching release-*") {
			t.Errorf("%s: no note; report:\n%s", c.pattern, dump(res))
		}
		res.Close()
	}
}

// TestCatalogOrder: the lifecycle rules sit where rules.md lists them.
func TestCatalogOrder(t *testing.T) {
	t.Parallel()
	var ids []string
	for _, r := range catalog.All() {
		ids = append(ids, r.ID)
	}
	all := strings.Join(ids, " ")
	for _, seq := range []string{
		"PROTO_NUMBER_REUSED PROTO_NUMBER_PREVIOUSLY_USED PROTO_TAG_MISSING",
		"VERSION_SKEW VERSION_REMOVED FIELD_REMOVED_STILL_USED FIELD_REMOVAL_NOT_RELEASED FIELD_REMOVED_NOT_DEPRECATED " +
			"SHOOT_DEPRECATION_NO_WARNING SHOOT_DEPRECATION_NO_VALIDATION SHOOT_DEPRECATION_NO_MAINTENANCE " +
			"SHOOT_CANONICALIZE_TOO_EARLY SHOOT_CANONICALIZE_MISSING SHOOT_FIELD_REMOVED_TOO_EARLY UNCLASSIFIED_CHANGE",
	} {
		if !strings.Contains(all, seq) {
			t.Errorf("catalogue order lacks %q:\n%s", seq, all)
		}
	}
	for _, r := range catalog.All() {
		if len(r.Requires) == 0 {
			continue
		}
		if r.Check == nil || r.Summary == "" || r.Why == "" || r.Fix == "" || r.Severity == 0 {
			t.Errorf("%s: incomplete rule data", r.ID)
		}
	}
}

// TestHistoryCache: the struct history is cached by blob under the
// configured directory; a second run gives the same outcome from it, and
// so does a run after every entry was truncated, garbled or replaced by
// another entry, or the pack's framing broken (each bad entry is
// recomputed and written again).
func TestHistoryCache(t *testing.T) {
	t.Parallel()
	c, fx := fixture(t, "PROTO_NUMBER_PREVIOUSLY_USED/fires")
	cache := t.TempDir()
	run := func(what string) {
		t.Helper()
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
			Lifecycle: lifecycle.Options{CacheDir: cache}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		if diffs := c.Compare(res.Report); len(diffs) > 0 {
			t.Errorf("%s: the outcome differs (- want, + got):\n%s", what, strings.Join(diffs, "\n"))
		}
	}
	run("first run")
	good := lifecycle.CacheEntries(cache)
	if len(good) == 0 {
		t.Fatalf("nothing cached under %s", cache)
	}
	names := slices.Sorted(maps.Keys(good))
	for _, damage := range []struct {
		name string
		f    func(i int, b []byte) []byte
		tail string // after the entries
	}{
		{"cached", func(_ int, b []byte) []byte { return b }, ""},
		{"truncated", func(_ int, b []byte) []byte { return b[:len(b)/2] }, ""},
		{"garbage", func(_ int, b []byte) []byte { return []byte("\x00garbage{") }, ""},
		{"swapped", func(i int, _ []byte) []byte { return good[names[(i+1)%len(names)]] }, ""},
		{"empty", func(int, []byte) []byte { return nil }, ""},
		{"cut framing", func(_ int, b []byte) []byte { return b }, "0123abcd 99999\ngarbage"},
	} {
		bad := map[string][]byte{}
		for i, n := range names {
			bad[n] = damage.f(i, good[n])
		}
		if err := lifecycle.ReplaceCache(cache, names, bad, []byte(damage.tail)); err != nil {
			t.Fatal(err)
		}
		run(damage.name + " entries")
		if diff := cmp.Diff(good, lifecycle.CacheEntries(cache)); diff != "" {
			t.Errorf("%s entries were not written again:\n%s", damage.name, diff)
		}
	}
}

// hasMessage reports whether a finding of rule says text in its message,
// hint or related positions.
func hasMessage(res *check.Result, rule, text string) bool {
	for _, f := range res.Report.Findings {
		if f.Rule != rule {
			continue
		}
		all := []string{f.Message, f.Hint}
		for _, r := range f.Related {
			all = append(all, r.String())
		}
		for _, s := range all {
			if strings.Contains(s, text) {
				return true
			}
		}
	}
	return false
}

// fixtureBase opens the repository of a rule fixture and its base
// revision (closed when the test ends).
func fixtureBase(t *testing.T, name string) (*git.Repo, git.Snapshot) {
	t.Helper()
	_, fx := fixture(t, name)
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base, err := repo.Snapshot(fx.Commits["base"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	return repo, base
}

// TestHistoryMemo: a second History with the same cache reads no
// release tree and no release file from git, and answers as the first.
func TestHistoryMemo(t *testing.T) {
	t.Parallel()
	repo, base := fixtureBase(t, "PROTO_NUMBER_PREVIOUSLY_USED/fires")
	const dir = "pkg/apis/core/v1beta1"
	structs := map[string][]string{dir: {"Shoot", "ShootSpec"}}
	cache := t.TempDir()
	var loaded bool
	run := func(cacheDir string) (string, int) {
		t.Helper()
		h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: cacheDir}})
		defer h.Close()
		pn, err := h.ProtoHistory(structs)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "tags %v: ", pn.Tags)
		for _, typ := range []string{"Shoot", "ShootSpec"} {
			for _, n := range pn.Numbers(dir, typ) {
				fmt.Fprintf(&b, "%s.%d=%v ", typ, n, pn.Holders(dir, typ, n))
			}
			fmt.Fprintf(&b, "%s break %q ", typ, pn.Break(dir, typ))
		}
		loaded = lifecycle.StructsLoaded(h)
		return b.String(), lifecycle.GitReads(h)
	}
	want, uncached := run("-")
	first, reads := run(cache)
	if first != want || reads != uncached || reads == 0 {
		t.Fatalf("first run: %s (%d reads), want %s (%d reads, more than none)", first, reads, want, uncached)
	}
	// The struct histories themselves are memoised: no release tree is
	// looked at.
	if again, reads := run(cache); again != want || reads != 0 || loaded {
		t.Errorf("second run: %s (%d reads from git, release trees read %v), want %s from the memo alone", again, reads, loaded, want)
	}
}

// TestProtoHistorySets: one History answers ProtoHistory for every set
// of structs it is asked about (the rules ask for some, the fixes for
// others), each as a History of its own would.
func TestProtoHistorySets(t *testing.T) {
	t.Parallel()
	repo, base := fixtureBase(t, "PROTO_NUMBER_PREVIOUSLY_USED/fires")
	const dir = "pkg/apis/core/v1beta1"
	numbers := func(h *lifecycle.History, structs map[string][]string) string {
		t.Helper()
		pn, err := h.ProtoHistory(structs)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(pn.Numbers(dir, "ShootSpec"), pn.Numbers(dir, "Shoot"))
	}
	fresh := func(structs map[string][]string) string {
		h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: "-"}})
		defer h.Close()
		return numbers(h, structs)
	}
	shared := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: "-"}})
	defer shared.Close()
	spec := map[string][]string{dir: {"ShootSpec"}}
	both := map[string][]string{dir: {"Shoot", "ShootSpec"}}
	if got, want := numbers(shared, spec), "[1 2 3] []"; got != want {
		t.Errorf("ShootSpec alone: %s, want %s", got, want)
	}
	if got, want := numbers(shared, both), fresh(both); got != want || got != "[1 2 3] [2]" {
		t.Errorf("Shoot and ShootSpec after ShootSpec: %s, a History of its own says %s, want [1 2 3] [2]", got, want)
	}
	if got, want := numbers(shared, spec), "[1 2 3] []"; got != want {
		t.Errorf("ShootSpec again: %s, want %s", got, want)
	}
}

// TestReleaseIsBase: when base is the release's commit, the release's
// snapshot and model are base's (nothing is listed or scanned again);
// otherwise the release is read on its own.
func TestReleaseIsBase(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fixture string
		isBase  bool
	}{
		{"FIELD_REMOVAL_NOT_RELEASED/quiet", true}, // base is v1.2.0
		{"FIELD_REMOVAL_NOT_RELEASED/fires", false},
	} {
		_, fx := fixture(t, c.fixture)
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
			Lifecycle: lifecycle.Options{CacheDir: "-"}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		h := lifecycle.NewHistory(lifecycle.Input{Repo: res.Repo, Base: res.Base, Head: res.Head,
			BaseModel: res.BaseModel, HeadModel: res.HeadModel, Scan: res.Options.Scan, Options: lifecycle.Options{CacheDir: "-"}})
		defer h.Close()
		if got := h.IsBase(lifecycle.RevRelease); got != c.isBase {
			t.Errorf("%s: IsBase(release) = %v, want %v", c.fixture, got, c.isBase)
		}
		snap, err := h.ReleaseSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		dir := res.BaseModel.Groups[0].Dir
		g, err := h.ReleaseGroup(dir)
		if err != nil {
			t.Fatal(err)
		}
		if same := snap == res.Base && g == res.BaseModel.Group(dir); same != c.isBase {
			t.Errorf("%s: release snapshot and group are base's: %v, want %v", c.fixture, same, c.isBase)
		}
		if g == nil || len(g.Versions) == 0 {
			t.Errorf("%s: the release has no group %s", c.fixture, dir)
		}
		if again, err := h.ReleaseGroup(dir); err != nil || again != g {
			t.Errorf("%s: the release group is scanned again (%v)", c.fixture, err)
		}
		if g, err := h.ReleaseGroup("pkg/apis/nothing"); err != nil || g != nil {
			t.Errorf("%s: ReleaseGroup of a directory without a group = %v, %v", c.fixture, g, err)
		}
	}
}

// TestReleaseAhead: finding the release ahead of the rules is not a use
// of it (the report names no release no rule asked for), and the release
// a rule then asks for is the one a History without the work ahead finds.
func TestReleaseAhead(t *testing.T) {
	t.Parallel()
	repo, base := fixtureBase(t, "PROTO_NUMBER_PREVIOUSLY_USED/fires")
	plain := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: "-"}})
	defer plain.Close()
	want, problem := plain.Release()
	if problem != "" || want.Newest.Name == "" {
		t.Fatalf("no release to compare with: %q", problem)
	}
	h := lifecycle.NewHistory(lifecycle.Input{Repo: repo, Base: base, Options: lifecycle.Options{CacheDir: "-"}})
	defer h.Close()
	h.ReleaseAhead()
	h.Scanned(&model.Model{}, &model.Model{})
	if _, used := h.Used(); used {
		t.Error("the release found ahead counts as used before any rule asked")
	}
	got, problem := h.Release()
	if problem != "" || got.Newest.Name != want.Newest.Name || got.Newest.Commit != want.Newest.Commit || len(got.All) != len(want.All) {
		t.Errorf("release after ReleaseAhead = %+v, %q; want %+v", got, problem, want)
	}
	if _, used := h.Used(); !used {
		t.Error("the release a rule asked for does not count as used")
	}
}
