package lifecycle_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// Each testdata/*.txtar is a history with release tags, run end to end
// through check.Run (so the catalogue and the Env wiring are covered).
// Steps are committed in order; "base" and "head" are the compared steps,
// a step named "x@v1.2.0" is tagged. The archive comment holds:
//
//	options: typeinfo=off        (optional; default auto)
//	want:
//	RULE path:line Type.Field    (the COMPLETE list of findings)
//	notes:
//	some text                    (a note containing it must exist)
//	!some text                   (no note may contain it)
//	messages:
//	RULE some text               (that rule's finding says it, in its
//	                              message or related positions)
//	release:
//	release used: v1.2.0         (the report's release line contains it;
//	                              "none" when the report names none)
//
// The harness adds to the first step a go.mod (module example.com/api), a
// tiny pkg/meta package (TypeMeta, so root kinds need no dependency) and a
// doc.go declaring +groupName for every version directory without one.

type fixtureCase struct {
	want, notes, notNotes, messages []string
	typeInfo, release               string
}

func loadFixture(t *testing.T, file string) (*txtar.Archive, fixtureCase) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	var fc fixtureCase
	section := ""
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case l == "want:" || l == "notes:" || l == "messages:" || l == "release:":
			section = l
		case strings.HasPrefix(l, "options:"):
			for _, o := range strings.Fields(strings.TrimPrefix(l, "options:")) {
				k, v, _ := strings.Cut(o, "=")
				if k == "typeinfo" {
					fc.typeInfo = v
				}
			}
		case section == "want:":
			fc.want = append(fc.want, l)
		case section == "notes:" && strings.HasPrefix(l, "!"):
			fc.notNotes = append(fc.notNotes, l[1:])
		case section == "notes:":
			fc.notes = append(fc.notes, l)
		case section == "messages:":
			fc.messages = append(fc.messages, l)
		case section == "release:":
			fc.release = l
		}
	}
	if section == "" {
		t.Fatalf("%s: no want: section", file)
	}
	return ar, fc
}

var versionDirRe = regexp.MustCompile(`(^|/)v[0-9]+((alpha|beta)[0-9]+)?$`)

// withPrelude adds go.mod, pkg/meta and doc.go files to the first step.
func withPrelude(ar *txtar.Archive) []byte {
	if len(ar.Files) == 0 {
		return txtar.Format(ar)
	}
	first, _, _ := strings.Cut(ar.Files[0].Name, "/")
	have := map[string]bool{}
	var dirs []string
	for _, f := range ar.Files {
		_, p, _ := strings.Cut(f.Name, "/")
		have[p] = true
		if d := path.Dir(p); versionDirRe.MatchString(d) && !have["dir:"+d] {
			have["dir:"+d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	var extra []txtar.File
	add := func(p, content string) {
		if !have[p] {
			extra = append(extra, txtar.File{Name: first + "/" + p, Data: []byte(content)})
		}
	}
	add("go.mod", "module example.com/api\n\ngo 1.22\n")
	add("pkg/meta/meta.go", "package meta\n\n// TypeMeta marks root kinds.\ntype TypeMeta struct {\n\tKind string `json:\"kind,omitempty\"`\n}\n")
	for _, d := range dirs {
		add(d+"/doc.go", fmt.Sprintf("// +groupName=%s.example.cloud\npackage %s\n", path.Base(path.Dir(d)), path.Base(d)))
	}
	return txtar.Format(&txtar.Archive{Comment: ar.Comment, Files: append(extra, ar.Files...)})
}

func runFixture(t *testing.T, fx *gitfixture.Fixture, typeInfo string) *check.Result {
	t.Helper()
	res, err := check.Run(check.Request{
		Dir:       fx.Dir,
		Base:      fx.Commits["base"],
		Head:      fx.Commits["head"],
		Lifecycle: lifecycle.Options{TypeInfo: typeInfo, CacheDir: t.TempDir()},
	})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	t.Cleanup(res.Close)
	return res
}

func findingLines(res *check.Result) []string {
	var out []string
	for _, f := range res.Report.Findings {
		subject := f.Type
		if f.Field != "" {
			subject += "." + f.Field
		}
		out = append(out, fmt.Sprintf("%s %s:%d %s", f.Rule, f.Path, f.Line, subject))
	}
	sort.Strings(out)
	return out
}

func dump(res *check.Result) string {
	var b strings.Builder
	for _, f := range res.Report.Findings {
		fmt.Fprintf(&b, "  %s %s:%d %s.%s: %s\n", f.Rule, f.Path, f.Line, f.Type, f.Field, f.Message)
		for _, r := range f.Related {
			fmt.Fprintf(&b, "      %s\n", r)
		}
	}
	for _, n := range res.Report.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	fmt.Fprintf(&b, "  %s\n", res.Report.Releases.Used())
	return b.String()
}

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, fc := loadFixture(t, file)
			fx := gitfixture.FromTxtar(t, withPrelude(ar))
			res := runFixture(t, fx, fc.typeInfo)
			got := findingLines(res)
			want := append([]string(nil), fc.want...)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings differ (-want +got):\n%s\nreport:\n%s", diff, dump(res))
			}
			for _, n := range fc.notes {
				if !hasNote(res, n) {
					t.Errorf("no note contains %q; report:\n%s", n, dump(res))
				}
			}
			for _, m := range fc.messages {
				rule, text, _ := strings.Cut(m, " ")
				if !hasMessage(res, rule, text) {
					t.Errorf("no %s finding says %q; report:\n%s", rule, text, dump(res))
				}
			}
			for _, n := range fc.notNotes {
				if hasNote(res, n) {
					t.Errorf("a note contains %q; report:\n%s", n, dump(res))
				}
			}
			if used := res.Report.Releases.Used(); fc.release == "none" && used != "" ||
				fc.release != "" && fc.release != "none" && !strings.Contains(used, fc.release) {
				t.Errorf("report names %q, want %q", used, fc.release)
			}
		})
	}
}

func hasNote(res *check.Result, s string) bool {
	for _, n := range res.Report.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func hasMessage(res *check.Result, rule, text string) bool {
	for _, f := range res.Report.Findings {
		if f.Rule != rule {
			continue
		}
		all := append([]string{f.Message, f.Hint}, f.Related...)
		for _, s := range all {
			if strings.Contains(s, text) {
				return true
			}
		}
	}
	return false
}

// TestShallowClone: in a shallow clone without the release tags the
// release-based rules say what to fetch, and the other rules still run.
func TestShallowClone(t *testing.T) {
	ar, _ := loadFixture(t, "testdata/removal_too_early_fires.txtar")
	fx := gitfixture.FromTxtar(t, withPrelude(ar))
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
	ar, _ := loadFixture(t, "testdata/removal_too_early_fires.txtar")
	fx := gitfixture.FromTxtar(t, withPrelude(ar))
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
	var ids []string
	for _, r := range catalog.All() {
		ids = append(ids, r.ID)
	}
	all := strings.Join(ids, " ")
	for _, seq := range []string{
		"PROTO_NUMBER_REUSED PROTO_NUMBER_PREVIOUSLY_USED PROTO_TAG_MISSING",
		"VERSION_SKEW FIELD_REMOVED_STILL_USED FIELD_REMOVAL_NOT_RELEASED FIELD_REMOVED_NOT_DEPRECATED " +
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
// configured directory; a second run gives the same findings from it, and
// so does a run after every entry was truncated, garbled or replaced by
// another entry (each bad entry is recomputed and rewritten).
func TestHistoryCache(t *testing.T) {
	ar, fc := loadFixture(t, "testdata/proto_previously_used_fires.txtar")
	fx := gitfixture.FromTxtar(t, withPrelude(ar))
	cache := t.TempDir()
	run := func() []string {
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Head: fx.Commits["head"],
			Lifecycle: lifecycle.Options{CacheDir: cache}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		return findingLines(res)
	}
	entries := func() map[string][]byte {
		files, err := filepath.Glob(filepath.Join(cache, "*", "*", "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("nothing cached under %s: %v", cache, err)
		}
		out := map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[f] = b
		}
		return out
	}
	if diff := cmp.Diff(fc.want, run()); diff != "" {
		t.Errorf("first run differs (-want +got):\n%s", diff)
	}
	good := entries()
	var names []string
	for f := range good {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, damage := range []struct {
		name string
		f    func(i int, b []byte) []byte
	}{
		{"cached", func(_ int, b []byte) []byte { return b }},
		{"truncated", func(_ int, b []byte) []byte { return b[:len(b)/2] }},
		{"garbage", func(_ int, b []byte) []byte { return []byte("\x00garbage{") }},
		{"swapped", func(i int, _ []byte) []byte { return good[names[(i+1)%len(names)]] }},
		{"empty", func(int, []byte) []byte { return nil }},
	} {
		for i, f := range names {
			if err := os.WriteFile(f, damage.f(i, good[f]), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(fc.want, run()); diff != "" {
			t.Errorf("%s entries: findings differ (-want +got):\n%s", damage.name, diff)
		}
		if diff := cmp.Diff(good, entries()); diff != "" {
			t.Errorf("%s entries were not rewritten:\n%s", damage.name, diff)
		}
	}
}
