package lifecycle_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/lifecycle/lifecycletest"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// The release layouts of real projects, built with git fast-import:
// releases tagged on main, releases on release branches (Gardener since
// v1.74, k8s.io/api), patch releases cut later on old branches, and
// repositories with no release before base.

const layoutTypes = "pkg/apis/core/v1beta1/types.go"

// shootSpec renders the Cluster types of one revision: fields are
// "Name=number" (with "!" after the name for a deprecated field, "#" for
// a tombstone).
func shootSpec(fields ...string) string {
	var b strings.Builder
	b.WriteString("package v1beta1\n\nimport \"example.com/api/pkg/meta\"\n\n// Cluster is a cluster.\ntype Cluster struct {\n" +
		"\tmeta.TypeMeta `json:\",inline\"`\n\t// +optional\n\tSpec ClusterSpec `json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`\n}\n\n" +
		"// ClusterSpec is the spec.\ntype ClusterSpec struct {\n")
	for _, f := range fields {
		name, num, _ := strings.Cut(f, "=")
		json := strings.ToLower(strings.Trim(name, "!#")[:1]) + strings.Trim(name, "!#")[1:]
		decl := fmt.Sprintf("%s *string `json:\"%s,omitempty\" protobuf:\"bytes,%s,opt,name=%s\"`", strings.Trim(name, "!#"), json, num, json)
		switch {
		case strings.HasSuffix(name, "#"):
			fmt.Fprintf(&b, "\t// %s is tombstoned to show why %s is reserved protobuf tag.\n\t// %s\n", strings.Trim(name, "#"), num, decl)
		case strings.HasSuffix(name, "!"):
			fmt.Fprintf(&b, "\t// %s is old.\n\t//\n\t// Deprecated: do not use.\n\t// +optional\n\t%s\n", strings.Trim(name, "!"), decl)
		default:
			fmt.Fprintf(&b, "\t// %s is a field.\n\t// +optional\n\t%s\n", name, decl)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// prelude is the first commit's files: module, meta package, group.
func prelude(types string) map[string]string {
	return map[string]string{
		"go.mod":                          "module example.com/api\n\ngo 1.22\n",
		"pkg/meta/meta.go":                "package meta\n\n// TypeMeta marks root kinds.\ntype TypeMeta struct {\n\tKind string `json:\"kind,omitempty\"`\n}\n",
		"pkg/apis/core/v1beta1/doc.go":    "// +groupName=core.example.cloud\npackage v1beta1\n",
		"pkg/apis/core/v1beta1/types.go":  types,
		"pkg/apis/core/v1beta1/README.md": "the core group\n",
	}
}

// history imports commits with one git fast-import, packs the refs (as
// in a clone) and returns the repository's directory.
func history(t *testing.T, commits ...gitfixture.Commit) string {
	t.Helper()
	f := gitfixture.New(t)
	f.Import(commits...)
	f.Git("pack-refs", "--all")
	return f.Dir
}

func runLayout(t *testing.T, dir, pattern string) *check.Result {
	t.Helper()
	res, err := check.Run(check.Request{Dir: dir, Base: "base", Head: "head",
		Lifecycle: lifecycle.Options{TagPattern: pattern, TypeInfo: lifecycle.TypeInfoOff, CacheDir: t.TempDir()}})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	t.Cleanup(res.Close)
	return res
}

func wantFindings(t *testing.T, res *check.Result, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := findingLines(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s\nreport:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), dump(res))
	}
}

// TestLayoutReleaseBranches is Gardener's history in small: v1.0.0 was
// tagged on main, later releases on release branches; Legacy is
// deprecated before release-v1.2 is branched, Old is removed without a
// tombstone after it. Base is on main after release-v1.3 was branched,
// and a patch v1.1.1 is cut on the old branch after that. Head removes
// Legacy (deprecated in v1.2.0 and v1.3.0: fine) and gives Old's number
// 4 to a new field (Old was last released in v1.2.0). The newest tag
// reachable from base, v1.0.0, would be wrong on both counts.
func TestLayoutReleaseBranches(t *testing.T) {
	t.Parallel()
	dir := history(t,
		gitfixture.Commit{Step: "c0", Files: prelude(shootSpec("Region=1", "Seed=2", "Legacy=3", "Old=4")), Tags: []string{"v1.0.0"}},
		gitfixture.Commit{Step: "c1", Files: map[string]string{"README.md": "1\n"}},
		gitfixture.Commit{Step: "c2", Files: map[string]string{"VERSION": "v1.1.0\n"}, AnnotatedTags: []string{"v1.1.0"}, Parents: []string{"c1"}},
		gitfixture.Commit{Step: "c3", Files: map[string]string{layoutTypes: shootSpec("Region=1", "Seed=2", "Legacy!=3", "Old=4")}, Parents: []string{"c1"}},
		gitfixture.Commit{Step: "c4", Files: map[string]string{"VERSION": "v1.2.0\n"}, AnnotatedTags: []string{"v1.2.0"}, Parents: []string{"c3"}},
		gitfixture.Commit{Step: "c5", Files: map[string]string{layoutTypes: shootSpec("Region=1", "Seed=2", "Legacy!=3")}, Parents: []string{"c3"}},
		gitfixture.Commit{Step: "c6", Files: map[string]string{"VERSION": "v1.3.0\n"}, AnnotatedTags: []string{"v1.3.0"}, Parents: []string{"c5"}},
		gitfixture.Commit{Step: "c7", Files: map[string]string{"README.md": "base\n"}, Parents: []string{"c5"}, Branches: []string{"base"}},
		gitfixture.Commit{Step: "c8", Files: map[string]string{"VERSION": "v1.1.1\n"}, Tags: []string{"v1.1.1"}, Parents: []string{"c2"}},
		gitfixture.Commit{Step: "c9", Files: map[string]string{layoutTypes: shootSpec("Region=1", "Seed=2", "Legacy#=3", "Purpose=4")},
			Parents: []string{"c7"}, Branches: []string{"head"}},
	)
	res := runLayout(t, dir, "")
	// The repository is detected as a CRD project (no Gardener module), where
	// removing a field from a served beta version is an error however it was
	// deprecated.
	wantFindings(t, res, "PROTO_NUMBER_PREVIOUSLY_USED "+layoutTypes+":24 ClusterSpec.Purpose",
		"FIELD_REMOVED_FROM_SERVED_VERSION "+layoutTypes+":21 ClusterSpec.Legacy")
	if !hasMessage(res, "PROTO_NUMBER_PREVIOUSLY_USED", "which ClusterSpec.Old carried at release v1.2.0") {
		t.Errorf("the finding does not name v1.2.0:\n%s", dump(res))
	}
	if got := res.Report.Releases.Used(); !strings.HasPrefix(got, "release used: v1.3.0 (") {
		t.Errorf("release line %q, want v1.3.0", got)
	}
	if r := res.Report.Releases.NewestBeforeBase; r == nil || r.Commit == "" || r.Date == "" {
		t.Errorf("JSON release: %+v", r)
	}

	// With patch releases as releases, base still gets the v1.3 line: the
	// later patch v1.1.1 on the old branch is not newer.
	res = runLayout(t, dir, `^v\d+\.\d+\.\d+$`)
	if got := res.Report.Releases.Used(); !strings.HasPrefix(got, "release used: v1.3.0 (") {
		t.Errorf("with patch releases: release line %q, want v1.3.0", got)
	}
}

// TestLayoutKubernetes is k8s.io/api's history in small: no release on
// main (only pre-releases), each minor on release-1.N with two tags on
// one commit (v0.N.0 and kubernetes-1.N.0). Head removes a field that
// the newest release before base did not deprecate.
func TestLayoutKubernetes(t *testing.T) {
	t.Parallel()
	dir := history(t,
		gitfixture.Commit{Step: "c0", Files: prelude(shootSpec("Region=1", "Seed=2", "Legacy=3"))},
		gitfixture.Commit{Step: "c1", Files: map[string]string{"VERSION": "1.1\n"}, Tags: []string{"v0.1.0", "kubernetes-1.1.0"}, Branches: []string{"release-1.1"}, Parents: []string{"c0"}},
		gitfixture.Commit{Step: "c2", Files: map[string]string{"README.md": "2\n"}, Parents: []string{"c0"}, Tags: []string{"v0.2.0-alpha.0"}},
		gitfixture.Commit{Step: "c3", Files: map[string]string{"VERSION": "1.2\n"}, Tags: []string{"v0.2.0", "kubernetes-1.2.0"}, Branches: []string{"release-1.2"}, Parents: []string{"c2"}},
		gitfixture.Commit{Step: "c4", Files: map[string]string{"README.md": "3\n"}, Parents: []string{"c2"}, Tags: []string{"v0.3.0-alpha.0"}, Branches: []string{"base"}},
		gitfixture.Commit{Step: "c5", Files: map[string]string{layoutTypes: shootSpec("Region=1", "Seed=2", "Legacy#=3")}, Parents: []string{"c4"}, Branches: []string{"head"}},
	)
	res := runLayout(t, dir, "")
	wantFindings(t, res, "FIELD_REMOVED_NOT_DEPRECATED "+layoutTypes+":21 ClusterSpec.Legacy",
		"FIELD_REMOVED_FROM_SERVED_VERSION "+layoutTypes+":21 ClusterSpec.Legacy")
	if !hasMessage(res, "FIELD_REMOVED_NOT_DEPRECATED", "release v0.2.0 did not mark it deprecated") {
		t.Errorf("the finding does not name v0.2.0:\n%s", dump(res))
	}
}

// TestLayoutNoRelease: a base before the first release, tags that are
// not versions, and no tags: a note says what is missing and which
// rules were skipped; the other rules run.
func TestLayoutNoRelease(t *testing.T) {
	t.Parallel()
	dir := history(t,
		gitfixture.Commit{Step: "c0", Files: prelude(shootSpec("Region=1", "Legacy=2")), Branches: []string{"base"}, Tags: []string{"release-candidate", "release-final"}},
		gitfixture.Commit{Step: "c1", Files: map[string]string{layoutTypes: shootSpec("Region=1", "Legacy#=2")}, Branches: []string{"head"}},
		gitfixture.Commit{Step: "c2", Files: map[string]string{"VERSION": "v1.0.0\n"}, Tags: []string{"v1.0.0"}},
	)
	for _, c := range []struct{ pattern, note string }{
		{"", "FIELD_REMOVED_NOT_DEPRECATED skipped: no release tag matching ^v(\\d+)\\.(\\d+)\\.0$ was cut before base"},
		{"", "(the oldest release, v1.0.0, came after it)"},
		{"release-*", "FIELD_REMOVED_NOT_DEPRECATED skipped: no release tag matching release-* carries a version: 2 tags match but none reads as a semantic version (e.g. release-candidate, release-final)"},
		{"v2.*", "no release tag matching v2.* exists (set releases.tagPattern in .apicheck.yaml)"},
	} {
		res := runLayout(t, dir, c.pattern)
		// The removal is judged without a release all the same.
		wantFindings(t, res, "FIELD_REMOVED_FROM_SERVED_VERSION "+layoutTypes+":18 ClusterSpec.Legacy")
		if !hasNote(res, c.note) {
			t.Errorf("pattern %q: no note says %q:\n%s", c.pattern, c.note, dump(res))
		}
		if res.Report.Releases != nil {
			t.Errorf("pattern %q: report names a release: %+v", c.pattern, res.Report.Releases)
		}
	}
}

// TestLayoutBeforeFirstRelease: a base older than every release tag had
// nothing released, so a json rename made then is information (nats-io's
// nack before v0.1.0). Release tags on a history apart from base's (a
// root commit of another branch) say nothing about base, and a tag of
// another naming at base (hvpa-controller's 0.1.0 before its v0.2.0) is
// a release the pattern misses: the rename stays an error in both.
func TestLayoutBeforeFirstRelease(t *testing.T) {
	t.Parallel()
	renamed := strings.Replace(shootSpec("Region=1"), `json:"region,omitempty"`, `json:"regionName,omitempty"`, 1)
	for _, c := range []struct {
		name, branch string
		baseTags     []string
		want         finding.Severity
	}{
		{"tag after head", "main", []string{"docs-2020"}, finding.Info},
		{"tag apart", "elsewhere", nil, finding.Error},
		{"another naming at base", "main", []string{"0.1.0"}, finding.Error},
	} {
		f := gitfixture.New(t)
		files := prelude(shootSpec("Region=1"))
		f.Import(gitfixture.Commit{Step: "base", Files: files, Branches: []string{"base"}, Tags: c.baseTags},
			gitfixture.Commit{Step: "head", Files: map[string]string{layoutTypes: renamed}, Branches: []string{"head"}},
			gitfixture.Commit{Step: "release", Branch: c.branch, Files: map[string]string{"VERSION": "v1.0.0\n"}, Tags: []string{"v1.0.0"}})
		res := runLayout(t, f.Dir, "")
		wantFindings(t, res, "JSON_NAME_CHANGED "+layoutTypes+":16 ClusterSpec.Region")
		if fs := res.Report.Findings; len(fs) == 1 && fs[0].Severity != c.want {
			t.Errorf("%s: severity %v, want %v", c.name, fs[0].Severity, c.want)
		}
		if got := hasMessage(res, "JSON_NAME_CHANGED", "(never released: base predates the first release, v1.0.0)"); got != (c.want == finding.Info) {
			t.Errorf("%s: the finding says base predates the first release: %v, want %v\n%s", c.name, got, !got, dump(res))
		}
	}
}

// TestLayoutManyTags: thousands of tags that are not releases, releases
// on release branches; the history finds the number Type5_1.Dropped
// (added in v1.2.0, dropped before v1.5.0) carried last at v1.4.0.
func TestLayoutManyTags(t *testing.T) {
	t.Parallel()
	r := lifecycletest.Generate(t, lifecycletest.Spec{Tags: 12, ReleaseBranches: true, OtherTags: 3000})
	res, err := check.Run(check.Request{Dir: r.Dir, Base: r.Base, Head: r.Head,
		Lifecycle: lifecycle.Options{TypeInfo: lifecycle.TypeInfoOff, CacheDir: "-"}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if !hasMessage(res, "PROTO_NUMBER_PREVIOUSLY_USED", "which Type5_1.Dropped carried at release v1.4.0") {
		t.Errorf("no PROTO_NUMBER_PREVIOUSLY_USED naming v1.4.0:\n%s", dump(res))
	}
	if got := res.Report.Releases.Used(); !strings.HasPrefix(got, "release used: v1.12.0 (") {
		t.Errorf("release line %q, want v1.12.0", got)
	}
}

// TestLayoutUnprefixedTags: a repository that names its releases 1.0.0,
// never v1.0.0 (kube-logging's logging-operator), has releases under the
// default tag pattern; where some tag is named v<major>.<minor>.0, those
// alone are releases, as before.
func TestLayoutUnprefixedTags(t *testing.T) {
	t.Parallel()
	renamed := strings.Replace(shootSpec("Region=1"), `json:"region,omitempty"`, `json:"regionName,omitempty"`, 1)
	for _, c := range []struct {
		name            string
		oldTag, baseTag string
		want            string
	}{
		{"unprefixed only", "0.9.0", "1.0.0", "release used: 1.0.0 ("},
		{"both namings", "v0.9.0", "1.0.0", "release used: v0.9.0 ("},
	} {
		f := gitfixture.New(t)
		files := prelude(shootSpec("Region=1"))
		f.Import(gitfixture.Commit{Step: "old", Files: files, Tags: []string{c.oldTag}},
			gitfixture.Commit{Step: "base", Files: map[string]string{"VERSION": "1.0.0\n"}, Branches: []string{"base"}, Tags: []string{c.baseTag}},
			gitfixture.Commit{Step: "head", Files: map[string]string{layoutTypes: renamed}, Branches: []string{"head"}})
		res := runLayout(t, f.Dir, "")
		wantFindings(t, res, "JSON_NAME_CHANGED "+layoutTypes+":16 ClusterSpec.Region")
		if got := res.Report.Releases.Used(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: release line %q, want %q…\n%s", c.name, got, c.want, dump(res))
		}
	}
}
