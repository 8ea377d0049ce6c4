package deprecations

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.* from the actual output")

// TestMain keeps the tests away from the user's home and cache
// directories (the release history and the usage search write the
// lifecycle cache).
func TestMain(m *testing.M) { hermetic.Main(m) }

// plan runs the planner on rev of the fixture repository (git.WorktreeRef
// for the working tree) with the configuration the revision holds.
func plan(t *testing.T, dir, rev string) *Plan {
	t.Helper()
	return planWith(t, dir, rev, false)
}

// planWith is plan with Input.ShootRemovals set to shootRemovals.
func planWith(t *testing.T, dir, rev string, shootRemovals bool) *Plan {
	t.Helper()
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := repo.Snapshot(rev)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	cfg := config.Default()
	if data, err := snap.ReadFiles([]string{config.FileName}); err == nil {
		var profiles []string
		for _, p := range model.Profiles() {
			profiles = append(profiles, string(p))
		}
		if cfg, err = config.Parse(config.FileName, data[config.FileName], config.Vocabulary{Profiles: profiles}); err != nil {
			t.Fatal(err)
		}
	}
	var opts scan.Options
	for _, g := range cfg.Groups {
		opts.Groups = append(opts.Groups, scan.GroupSpec{Dir: g.Dir, Profile: model.Profile(g.Profile), Versions: g.Versions, Stable: g.Stable})
	}
	opts.Profile = model.Profile(cfg.Profile)
	p, err := Find(Input{Repo: repo, Snap: snap, Scan: opts, Lifecycle: lifecycle.Options{
		TagPattern: cfg.Releases.TagPattern, Shoot: cfg.Shoot, UsageExclude: cfg.Usages.Exclude, CacheDir: t.TempDir(),
	}, ShootRemovals: shootRemovals})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// golden compares out with testdata/name (rewritten with -update).
func golden(t *testing.T, name, out string) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

func render(t *testing.T, f func(*bytes.Buffer, *Plan) error, p *Plan) string {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGolden plans the working tree of the fixture history (the head
// after four releases) and compares the JSON, Markdown and text outputs
// with testdata/history.golden.* (refresh with -update).
func TestGolden(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/history.txtar")
	p := plan(t, f.Dir, git.WorktreeRef)
	for _, c := range []struct {
		name string
		f    func(*bytes.Buffer, *Plan) error
	}{
		{"history.golden.json", func(b *bytes.Buffer, p *Plan) error { return JSON(b, p) }},
		{"history.golden.md", func(b *bytes.Buffer, p *Plan) error { return Markdown(b, p) }},
		{"history.golden.txt", func(b *bytes.Buffer, p *Plan) error { return Text(b, p) }},
	} {
		golden(t, c.name, render(t, c.f, p))
	}
	// The same revision as a commit plans the same (the working tree is
	// the checked-out head).
	q := plan(t, f.Dir, f.Commits["head"])
	q.Rev = p.Rev
	if diff := cmp.Diff(p, q); diff != "" {
		t.Errorf("head commit and working tree differ (-worktree +commit):\n%s", diff)
	}
}

// byField finds the deprecation of type.field ("" field: the type).
func byField(t *testing.T, p *Plan, typ, field string) Deprecation {
	t.Helper()
	for _, d := range p.Deprecations {
		if d.Type == typ && d.Field == field {
			return d
		}
	}
	t.Fatalf("no deprecation of %s.%s in %+v", typ, field, p.Deprecations)
	return Deprecation{}
}

func TestRemovalPlan(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/history.txtar")
	p := plan(t, f.Dir, git.WorktreeRef)
	if p.NewestRelease != "v1.4.0" || p.NextRelease != "v1.5.0" {
		t.Fatalf("releases: newest %q, next %q; want v1.4.0, v1.5.0", p.NewestRelease, p.NextRelease)
	}
	type want struct {
		since, forbidden, stage, next, from string
		usages                              int
		removable                           bool
	}
	for _, c := range []struct {
		name, typ, field string
		want             want
	}{
		{"deprecated two releases ago, unused: removable", "ShootSpec", "OldA",
			want{since: "v1.2.0", stage: StageRemovable, next: "remove the field", removable: true}},
		{"deprecated in the newest release: removable from the next", "ShootSpec", "OldB",
			want{since: "v1.4.0", stage: StageReleased, next: "remove the field after v1.5.0", from: "v1.5.0"}},
		{"still used: the usages go first", "ShootSpec", "Counted",
			want{since: "v1.2.0", stage: StageReleased, next: "remove the 1 usage; remove the field after v1.5.0", from: "v1.5.0", usages: 1}},
		{"deprecated after the newest release", "ShootSpec", "Fresh",
			want{stage: StageDeprecated, next: "ship the deprecation in v1.5.0", from: "v1.6.0"}},
		{"Shoot field with warning and validation, no maintenance", "Networking", "Legacy",
			want{since: "v1.3.0", forbidden: "1.34", stage: StageValidation,
				next: "set it to nil in maintenance on forced upgrades to Kubernetes 1.34", from: "when Kubernetes 1.33 is unsupported"}},
		{"Shoot field forbidden for every supported version", "ShootSpec", "Ancient",
			want{since: "v1.2.0", forbidden: "1.30", stage: StageRemovable, next: "remove the field", removable: true}},
		{"crd profile: the next API version", "WidgetSpec", "OldSize",
			want{since: "v1.2.0", stage: StageReleased, next: NextAPIVersion}},
		{"deprecated type a live field uses", "ShootTemplate", "",
			want{since: "v1.3.0", stage: StageReleased, next: "deprecate ShootSpec.Template (it uses the type)", usages: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := byField(t, p, c.typ, c.field)
			got := want{since: d.DeprecatedSince, forbidden: d.ForbiddenFrom, stage: d.Stage, next: d.Next, from: d.RemovableFrom, removable: d.Removable}
			if d.Usages != nil {
				got.usages = *d.Usages
			}
			if got != c.want {
				t.Errorf("%s.%s:\n got %+v\nwant %+v", c.typ, c.field, got, c.want)
			}
		})
	}
	legacy := byField(t, p, "Networking", "Legacy")
	wantStages := []StageStatus{
		{Stage: StageWarning, Present: true, Since: "v1.3.0", At: "pkg/api/core/shoot/warnings.go:11"},
		{Stage: StageValidation, Present: true, Since: "v1.3.0", At: "pkg/api/core/validation/shoot.go:18"},
		{Stage: StageMaintenance},
	}
	if diff := cmp.Diff(wantStages, legacy.Stages); diff != "" {
		t.Errorf("stages of Networking.Legacy (-want +got):\n%s", diff)
	}
	if d := byField(t, p, "WidgetSpec", "OldSize"); d.Profile != "crd" || d.Group != "widgets.example.com" || d.Stages != nil {
		t.Errorf("WidgetSpec.OldSize: profile %q, group %q, stages %v; want crd, widgets.example.com and no Shoot stages", d.Profile, d.Group, d.Stages)
	}
}

// TestRevisionAtRelease plans release v1.2.0 itself: it is the newest
// release, so what it deprecates is removable from v1.3.0.
func TestRevisionAtRelease(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/history.txtar")
	p := plan(t, f.Dir, "v1.2.0")
	if p.Rev != "v1.2.0" || p.NewestRelease != "v1.2.0" || p.NextRelease != "v1.3.0" {
		t.Fatalf("rev %q, newest %q, next %q", p.Rev, p.NewestRelease, p.NextRelease)
	}
	d := byField(t, p, "ShootSpec", "OldA")
	if d.DeprecatedSince != "v1.2.0" || d.Removable || d.RemovableFrom != "v1.3.0" {
		t.Errorf("OldA at v1.2.0: since %q, removable %v from %q; want v1.2.0, false, v1.3.0", d.DeprecatedSince, d.Removable, d.RemovableFrom)
	}
	for _, x := range p.Deprecations {
		if x.Field == "Legacy" || x.Field == "OldB" || x.Type == "ShootTemplate" {
			t.Errorf("v1.2.0 did not deprecate %s.%s", x.Type, x.Field)
		}
	}
}

// TestNoReleaseTags: without release tags nothing is dated or removable,
// and a note says why.
func TestNoReleaseTags(t *testing.T) {
	data, err := os.ReadFile("testdata/history.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"@v1.1.0", "@v1.2.0", "@v1.3.0", "@v1.4.0"} {
		data = bytes.ReplaceAll(data, []byte(tag+"/"), []byte("/"))
	}
	f := gitfixture.FromTxtar(t, data)
	p := plan(t, f.Dir, git.WorktreeRef)
	if len(p.Deprecations) == 0 {
		t.Fatal("no deprecations")
	}
	for _, d := range p.Deprecations {
		if d.DeprecatedSince != "" || d.Removable && d.Field != "Ancient" {
			t.Errorf("%s.%s: since %q, removable %v without releases", d.Type, d.Field, d.DeprecatedSince, d.Removable)
		}
	}
	if d := byField(t, p, "ShootSpec", "OldA"); d.Next != "ship the deprecation in a release" {
		t.Errorf("OldA: next %q", d.Next)
	}
	if len(p.Notes) == 0 || !strings.Contains(strings.Join(p.Notes, "\n"), "no release history") {
		t.Errorf("notes %q: want one about the release history", p.Notes)
	}
}

// TestNoDeprecations: a revision without deprecations is an empty list
// (never null) and a summary.
func TestNoDeprecations(t *testing.T) {
	f := gitfixture.FromFile(t, "testdata/history.txtar")
	p := plan(t, f.Dir, "v1.1.0")
	if len(p.Deprecations) != 0 {
		t.Fatalf("deprecations at v1.1.0: %+v", p.Deprecations)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(render(t, func(b *bytes.Buffer, p *Plan) error { return JSON(b, p) }, p)), &doc); err != nil {
		t.Fatal(err)
	}
	if l, ok := doc["deprecations"].([]any); !ok || len(l) != 0 {
		t.Errorf("deprecations = %#v, want []", doc["deprecations"])
	}
	if got := render(t, func(b *bytes.Buffer, p *Plan) error { return Text(b, p) }, p); got != "no deprecations at v1.1.0 (newest release v1.1.0, next v1.2.0)\n" {
		t.Errorf("text = %q", got)
	}
}

func TestBump(t *testing.T) {
	for _, c := range []struct {
		tag  string
		k    int
		want string
	}{
		{"v1.149.0", 1, "v1.150.0"},
		{"v1.149.3", 2, "v1.151.0"},
		{"1.2.0", 1, "1.3.0"},
		{"release-v0.9.0", 1, "release-v0.10.0"},
		{"nightly", 1, ""},
	} {
		if got := bump(c.tag, c.k); got != c.want {
			t.Errorf("bump(%q, %d) = %q, want %q", c.tag, c.k, got, c.want)
		}
	}
}

func TestLastTrue(t *testing.T) {
	r := &run{}
	for n := 0; n < 9; n++ {
		for k := -1; k < n; k++ {
			probes := 0
			got, err := r.lastTrue(n, func(i int) (bool, error) { probes++; return i <= k, nil })
			if err != nil || got != k {
				t.Errorf("n=%d, true up to %d: got %d, %v", n, k, got, err)
			}
			if probes > 5 {
				t.Errorf("n=%d: %d probes", n, probes)
			}
		}
	}
}

// TestJudgeShoot judges Shoot spec fields tied to a Kubernetes version
// in the states the fixture history does not reach.
func TestJudgeShoot(t *testing.T) {
	r := &run{relOK: true, newest: "v1.4.0", supported: []shoot.Version{{Major: 1, Minor: 31}, {Major: 1, Minor: 32}}}
	stages := func(present ...bool) []*stageHit {
		names := []string{StageWarning, StageValidation, StageMaintenance, StageCanonicalize}
		var out []*stageHit
		for i, p := range present {
			out = append(out, &stageHit{name: names[i], present: p})
		}
		return out
	}
	for _, c := range []struct {
		name                    string
		sinceIdx, usages, minor int
		stages                  []*stageHit
		stage, next, from       string
		removable               bool
	}{
		{"every stage, a supported version allows it", 0, 0, 33, stages(true, true, true),
			StageMaintenance, "remove the field once Kubernetes 1.32 is unsupported", "when Kubernetes 1.32 is unsupported", false},
		{"every stage, usages left", 2, 3, 33, stages(true, true, true),
			StageMaintenance, "remove the 3 usages; then the field once Kubernetes 1.32 is unsupported", "when Kubernetes 1.32 is unsupported", false},
		{"no stage yet", -1, 0, 33, stages(false, false, false),
			StageDeprecated, "warn when it is set (WarningsOnCreate/WarningsOnUpdate)", "when Kubernetes 1.32 is unsupported", false},
		{"warning only, released", 1, 0, 33, stages(true, false, false),
			StageWarning, "forbid it from Kubernetes 1.33 on (validation)", "when Kubernetes 1.32 is unsupported", false},
		{"defaulted, Canonicalize missing before the deprecation ships", -1, 0, 33, stages(true, true, true, false),
			StageMaintenance, "force it to nil in Canonicalize, in a release after the deprecation's (v1.5.0 ships it)", "when Kubernetes 1.32 is unsupported", false},
		{"defaulted, Canonicalize missing", 0, 0, 33, stages(true, true, true, false),
			StageMaintenance, "force it to nil in Canonicalize", "when Kubernetes 1.32 is unsupported", false},
		{"forbidden for every supported version", 3, 2, 31, stages(true, true, true),
			StageRemovable, "remove the field and the 2 usages", "", true},
		{"forbidden for every supported version, deprecation unreleased", -1, 0, 31, stages(true, true, true),
			StageMaintenance, "remove the field after v1.5.0", "v1.5.0", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := &item{sinceIdx: c.sinceIdx, usages: c.usages, counted: true,
				shoot: &shootField{from: shoot.Version{Major: 1, Minor: c.minor}, tied: true, stages: c.stages}}
			r.judgeShoot(it)
			d := it.d
			if d.Stage != c.stage || d.Next != c.next || d.RemovableFrom != c.from || d.Removable != c.removable {
				t.Errorf("stage %q, next %q, removable %v from %q\nwant %q, %q, %v from %q",
					d.Stage, d.Next, d.Removable, d.RemovableFrom, c.stage, c.next, c.removable, c.from)
			}
		})
	}
}
