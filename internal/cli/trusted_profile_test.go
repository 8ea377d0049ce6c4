package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// gardenerTypes is a released Gardener-style kind whose Spec.B carries
// protobuf number num.
func gardenerTypes(num string) string {
	return "package v1beta1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
		"// Shoot is a shoot.\ntype Shoot struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n" +
		"\tmetav1.ObjectMeta `json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`\n" +
		"\tSpec Spec `json:\"spec\" protobuf:\"bytes,2,opt,name=spec\"`\n}\n\n" +
		"// Spec is a spec.\ntype Spec struct {\n" +
		"\t// A is a.\n\t// +optional\n\tA *string `json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`\n" +
		"\t// B is b.\n\t// +optional\n\tB *string `json:\"b,omitempty\" protobuf:\"bytes," + num + ",opt,name=b\"`\n}\n"
}

// profileFlipRepo has a released Gardener API at "base" and a change
// that renumbers a protobuf field and, with files of its own, makes
// another profile detected (or configured).
func profileFlipRepo(t *testing.T, head map[string]string) *gitfixture.Fixture {
	t.Helper()
	f := gitfixture.New(t)
	f.Import(
		gitfixture.Commit{Step: "base", Tags: []string{"v1.0.0"}, Files: map[string]string{
			"go.mod":                                "module github.com/gardener/example\n\ngo 1.22\n",
			"pkg/apis/core/v1beta1/doc.go":          "// +groupName=core.gardener.cloud\npackage v1beta1\n",
			"pkg/apis/core/v1beta1/types.go":        gardenerTypes("2"),
			"pkg/apis/core/v1beta1/generated.proto": "syntax = \"proto2\";\npackage github.com.gardener.example.pkg.apis.core.v1beta1;\n",
		}},
		gitfixture.Commit{Step: "head", Files: head},
	)
	return f
}

// flipToCRD is a change that renumbers Spec.B and moves the module out
// of github.com/gardener/ with generated.proto gone: detection says crd,
// under which protobuf findings are information.
var flipToCRD = map[string]string{
	"go.mod":                                "module example.com/example\n\ngo 1.22\n",
	"pkg/apis/core/v1beta1/types.go":        gardenerTypes("3"),
	"pkg/apis/core/v1beta1/generated.proto": gitfixture.Deleted,
}

func findingsOf(r *finding.Report, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// Under --trusted-config base the change cannot choose its own profile:
// the renumbered field stays an error under base's gardener profile, and
// the profile head would have is reported with what it would lower.
func TestTrustedBaseKeepsBaseProfile(t *testing.T) {
	f := profileFlipRepo(t, flipToCRD)
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--trusted-config", "base", "--format", "json")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	r := jsonReport(t, stdout)
	pn := findingsOf(r, "PROTO_NUMBER_CHANGED")
	if len(pn) != 1 || pn[0].Severity != finding.Error {
		t.Fatalf("PROTO_NUMBER_CHANGED = %+v, want one error", pn)
	}
	sa := findingsOf(r, "SUPPRESSION_ADDED")
	want := "profile crd instead of base's gardener for 1 API group: pkg/apis/core (detected from what head holds " +
		"(go.mod's module path, CRD markers and manifests, protobuf files)): would lower 1 finding: PROTO_NUMBER_CHANGED Spec.B (v1beta1)"
	if len(sa) != 1 || sa[0].Message != want || sa[0].Severity != finding.Warning || sa[0].Path != "pkg/apis/core/v1beta1/doc.go" || sa[0].Line != 1 {
		t.Errorf("SUPPRESSION_ADDED = %+v\nwant one warning at pkg/apis/core/v1beta1/doc.go:1: %s", sa, want)
	}
	if !strings.Contains(sa[0].Hint, "does not apply in this run") {
		t.Errorf("hint %q does not say the profile is not in effect", sa[0].Hint)
	}
}

// With head's configuration in effect the change's profile applies, and
// the change of profile is reported with what it lowers.
func TestProfileChangeReportedInEveryMode(t *testing.T) {
	f := profileFlipRepo(t, flipToCRD)
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json", "--fail-on", "warning")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	r := jsonReport(t, stdout)
	if pn := findingsOf(r, "PROTO_NUMBER_CHANGED"); len(pn) != 1 || pn[0].Severity != finding.Info {
		t.Fatalf("PROTO_NUMBER_CHANGED = %+v, want one info (crd profile in effect)", pn)
	}
	sa := findingsOf(r, "SUPPRESSION_ADDED")
	want := "profile crd instead of base's gardener for 1 API group: pkg/apis/core (detected from what head holds " +
		"(go.mod's module path, CRD markers and manifests, protobuf files)): lowers 1 finding: PROTO_NUMBER_CHANGED Spec.B (v1beta1)"
	if len(sa) != 1 || sa[0].Message != want {
		t.Errorf("SUPPRESSION_ADDED = %+v\nwant: %s", sa, want)
	}
}

// A profile set in head's configuration is a relaxation like a disabled
// rule; under the trusted base configuration it does not apply.
func TestConfiguredProfileIsARelaxation(t *testing.T) {
	head := map[string]string{
		".apicheck.yaml":                 "profile: crd\n",
		"pkg/apis/core/v1beta1/types.go": gardenerTypes("3"),
	}
	f := profileFlipRepo(t, head)
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (head's profile in effect, only a warning)\n%s%s", code, stdout, stderr)
	}
	r := jsonReport(t, stdout)
	sa := findingsOf(r, "SUPPRESSION_ADDED")
	want := "profile crd instead of base's gardener for 1 API group: pkg/apis/core (set in head's configuration): " +
		"lowers 1 finding: PROTO_NUMBER_CHANGED Spec.B (v1beta1)"
	if len(sa) != 1 || sa[0].Message != want || sa[0].Path != ".apicheck.yaml" || sa[0].Line != 1 {
		t.Errorf("SUPPRESSION_ADDED = %+v\nwant at .apicheck.yaml:1: %s", sa, want)
	}
	code, stdout, stderr = run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json", "--trusted-config", "base")
	if code != ExitFindings {
		t.Fatalf("trusted base: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	r = jsonReport(t, stdout)
	if pn := findingsOf(r, "PROTO_NUMBER_CHANGED"); len(pn) != 1 || pn[0].Severity != finding.Error {
		t.Errorf("trusted base: PROTO_NUMBER_CHANGED = %+v, want one error", pn)
	}
	want = strings.Replace(want, "lowers", "would lower", 1)
	if sa := findingsOf(r, "SUPPRESSION_ADDED"); len(sa) != 1 || sa[0].Message != want {
		t.Errorf("trusted base: SUPPRESSION_ADDED = %+v\nwant: %s", sa, want)
	}
}

// Settings of head's configuration that judge the change less strictly
// are reported too: the release tag pattern, usages.exclude.
func TestLaxerSettingsAreRelaxations(t *testing.T) {
	head := map[string]string{
		".apicheck.yaml": "releases:\n  tagPattern: 'release-*'\nusages:\n  exclude: [default, 'pkg/controller/**']\n",
	}
	f := profileFlipRepo(t, head)
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	var got []string
	for _, sa := range findingsOf(jsonReport(t, stdout), "SUPPRESSION_ADDED") {
		got = append(got, sa.Path+":"+strconv.Itoa(sa.Line)+": "+sa.Message)
	}
	want := []string{
		`.apicheck.yaml:2: releases.tagPattern changed from "^v(\\d+)\\.(\\d+)\\.0$" to "release-*": other tags count as releases: the release-aware rules ` +
			"(two-step removal, protobuf numbers of earlier releases, severities of unreleased fields) judge against other releases",
		`.apicheck.yaml:4: usages.exclude adds "pkg/controller/**": code there no longer counts as a usage of a removed field`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SUPPRESSION_ADDED:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An invalid marker that the change adds is the change's error under the
// trusted base configuration (exit 1), not a usage error of the CI job.
func TestInvalidMarkerUnderTrustedBase(t *testing.T) {
	head := map[string]string{
		"pkg/apis/core/v1beta1/types.go": strings.Replace(gardenerTypes("2"), "\t// A is a.\n", "\t// A is a.\n\t// +apicheck:ignore=NO_SUCH_RULE because\n", 1),
	}
	f := profileFlipRepo(t, head)
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--format", "json", "--trusted-config", "base")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	sa := findingsOf(jsonReport(t, stdout), "SUPPRESSION_ADDED")
	want := `invalid +apicheck:ignore marker added on Spec.A: unknown rule ID "NO_SUCH_RULE" (rule IDs are listed in docs/rules.md); it suppresses nothing`
	if len(sa) != 1 || sa[0].Severity != finding.Error || sa[0].Message != want || sa[0].Path != "pkg/apis/core/v1beta1/types.go" {
		t.Errorf("SUPPRESSION_ADDED = %+v\nwant one error: %s", sa, want)
	}
	// With head's configuration in effect the marker would suppress: it
	// is the repository's usage error.
	if code, _, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"]); code != ExitUsage || !strings.Contains(stderr, "NO_SUCH_RULE") {
		t.Errorf("trusted head: exit %d, want 2 naming the rule ID\n%s", code, stderr)
	}
}

// A struct past the field limit fails the run (exit 3) naming the file,
// the struct and the limit, under every configuration: a limit never
// turns checks off.
func TestFieldLimitFailsClosed(t *testing.T) {
	var b strings.Builder
	b.WriteString(gardenerTypes("3"))
	b.WriteString("\n// Huge is padded.\ntype Huge struct {\n")
	for i := range 10001 {
		b.WriteString("\tF" + strconv.Itoa(i) + " *string `json:\"f" + strconv.Itoa(i) + ",omitempty\"`\n")
	}
	b.WriteString("}\n")
	f := profileFlipRepo(t, map[string]string{"pkg/apis/core/v1beta1/types.go": b.String()})
	code, stdout, stderr := run(t, "check", "--repo", f.Dir, "--base", f.Commits["base"], "--head", f.Commits["head"], "--trusted-config", "base")
	want := "pkg/apis/core/v1beta1/types.go:23:6: struct Huge has 10001 fields, more than apicheck's limit of 10000 fields per struct"
	if code != ExitFailure || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("exit %d, want 3 with %q\nstdout: %s\nstderr: %s", code, want, stdout, stderr)
	}
}
