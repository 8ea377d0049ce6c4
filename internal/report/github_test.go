package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
)

func TestGitHubCommands(t *testing.T) {
	r := goldenReport()
	var buf bytes.Buffer
	if err := GitHub(&buf, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	var cmds []string
	for _, l := range lines {
		if strings.HasPrefix(l, "::") {
			cmds = append(cmds, l)
		}
	}
	active := 0
	for _, f := range r.Findings {
		if f.Suppressed == "" {
			active++
		}
	}
	if len(cmds) != active {
		t.Fatalf("%d workflow commands for %d unsuppressed findings:\n%s", len(cmds), active, buf.String())
	}
	if last := lines[len(lines)-1]; last != SummaryLine(r) {
		t.Errorf("last line %q, want the summary line %q", last, SummaryLine(r))
	}
	want := []string{
		"::error file=pkg/apis/core/v1beta1/types_shoot.go,line=120,col=2,title=PROTO_NUMBER_CHANGED::" +
			"protobuf number of ShootSpec.Purpose changed from 1 to 7 | wire break: *string <nil> & `tag`%0A" +
			"restore protobuf:\"bytes,1,opt,name=purpose\"%0Aif 1 was never released",
		"::warning file=pkg/apis/core/v1beta1/types_shoot.go,line=131,col=2,title=OPTIONAL_WITHOUT_OMITEMPTY::" +
			"field ShootSpec.Region is +optional but its json tag \"region\" has no omitempty, 50%25 of clients: see a,b%0A",
		"::notice file=pkg/apis/odd dir%2Cx/v1/types.go,title=FIELD_RENAMED::Go field Spec.OldName was renamed to Spec.NewName%0D%0Awire is unchanged",
		"::notice file=pkg/apis/core/v1/types.go,line=7,title=CUSTOM_CHECK::a finding",
	}
	for _, w := range want {
		found := false
		for _, c := range cmds {
			found = found || strings.HasPrefix(c, w)
		}
		if !found {
			t.Errorf("no command starting with\n  %s\nin\n%s", w, strings.Join(cmds, "\n"))
		}
	}
	if strings.Contains(buf.String(), "TOMBSTONE_MALFORMED") || strings.Contains(buf.String(), "FIELD_REMOVED_WITHOUT_TOMBSTONE") {
		t.Error("suppressed findings were emitted")
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got, want := ghData("100%\r\nok: a,b"), "100%25%0D%0Aok: a,b"; got != want {
		t.Errorf("ghData = %q, want %q", got, want)
	}
	if got, want := ghProperty("a:b,c%d\ne"), "a%3Ab%2Cc%25d%0Ae"; got != want {
		t.Errorf("ghProperty = %q, want %q", got, want)
	}
	// Controls GitHub has no %-escape for are Go escapes, and so is the
	// '[' of a legacy "##[" command.
	if got, want := ghData("a\x1b[31m\u2028##[error]b\r\n"), `a\x1b[31m\u2028##\x5berror]b%0D%0A`; got != want {
		t.Errorf("ghData = %q, want %q", got, want)
	}
	if got, want := ghProperty("x\x7f::y"), `x\x7f%3A%3Ay`; got != want {
		t.Errorf("ghProperty = %q, want %q", got, want)
	}
}

func TestGitHubEmpty(t *testing.T) {
	r := &finding.Report{}
	r.Finalize()
	var buf bytes.Buffer
	if err := GitHub(&buf, r); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "0 errors, 0 warnings, 0 infos\n" {
		t.Errorf("empty report: %q", got)
	}
}

// TestGitHubOneAnnotationPerField: the findings of one field on one line
// (a new field that is not optional, no pointer and has no omitempty)
// are one annotation at their highest severity, titled with every rule
// and holding every message and hint; other fields keep theirs.
func TestGitHubOneAnnotationPerField(t *testing.T) {
	r := prReport()
	var buf bytes.Buffer
	if err := GitHub(&buf, r); err != nil {
		t.Fatal(err)
	}
	var replicas []string
	cmds := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "::") {
			cmds++
		}
		if strings.Contains(l, "file=pkg/apis/core/v1beta1/types_shoot.go,line=42,") {
			replicas = append(replicas, l)
		}
	}
	// 10 unsuppressed findings about 6 fields and types.
	if cmds != 6 {
		t.Errorf("%d annotations, want 6 (one per field):\n%s", cmds, buf.String())
	}
	want := "::error file=pkg/apis/core/v1beta1/types_shoot.go,line=42,col=2," +
		"title=NEW_FIELD_NOT_OPTIONAL%2C NEW_FIELD_NOT_POINTER%2C NEW_FIELD_NO_OMITEMPTY%2C PROTO_TAG_MISSING::" +
		"NEW_FIELD_NOT_OPTIONAL (error): new field ShootSpec.Replicas is not marked // +optional%0A  add // +optional to the field's doc comment%0A" +
		"NEW_FIELD_NOT_POINTER (error): new field ShootSpec.Replicas has a non-nillable type int32%0A  make it a pointer: Replicas *int32%0A" +
		"NEW_FIELD_NO_OMITEMPTY (error): new field ShootSpec.Replicas has no omitempty in its json tag%0A  use `json:\"replicas,omitempty\"`%0A" +
		"PROTO_TAG_MISSING (warning): new field ShootSpec.Replicas has no protobuf tag%0A  run make generate WHAT=protobuf; the next safe number is 5"
	if len(replicas) != 1 || replicas[0] != want {
		t.Errorf("ShootSpec.Replicas annotations:\n%s\nwant one:\n%s", strings.Join(replicas, "\n"), want)
	}
	// A warning alone keeps its level; the internal version's field is
	// another field (another file) with an annotation of its own.
	if !strings.Contains(buf.String(), "::error file=pkg/apis/core/types_shoot.go,line=12,col=2,title=VERSION_SKEW::") {
		t.Errorf("the internal version's finding lost its annotation:\n%s", buf.String())
	}
}

// TestGitHubPerStepLimit: GitHub shows 10 annotations of each level of a
// step; past that, a line says how many are in the log only and where
// every finding is.
func TestGitHubPerStepLimit(t *testing.T) {
	for _, c := range []struct {
		errors, warnings int
		note             string
	}{
		{10, 10, ""},
		{23, 3, "apicheck note: GitHub shows the first 10 annotations of each level of a step, so 13 of 23 error annotations are in this log only; " +
			"the Markdown report (the job summary) and the SARIF report have every finding\n"},
		{11, 12, "so 1 of 11 error annotations and 2 of 12 warning annotations are in this log only"},
	} {
		r := &finding.Report{}
		for i := range c.errors + c.warnings {
			sev := finding.Error
			if i >= c.errors {
				sev = finding.Warning
			}
			r.Findings = append(r.Findings, finding.Finding{Rule: "R", Severity: sev, Path: fmt.Sprintf("f%03d.go", i), Line: 1, Type: "T", Field: "F", Message: "m"})
		}
		r.Finalize()
		var b strings.Builder
		if err := GitHub(&b, r); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(b.String(), "GitHub shows the first")
		if c.note == "" && got || c.note != "" && !strings.Contains(b.String(), c.note) {
			t.Errorf("%d errors, %d warnings: want note %q in\n%s", c.errors, c.warnings, c.note, b.String())
		}
	}
}

// A run that compared a commit with itself says so, as a notice first.
func TestGitHubSameCommit(t *testing.T) {
	r := &finding.Report{Base: finding.Rev{Ref: "main", Commit: testBaseSHA}, Head: finding.Rev{Ref: "HEAD", Commit: testBaseSHA}}
	r.Finalize()
	var b strings.Builder
	if err := GitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "::notice title=apicheck::nothing to compare: base and head are the same commit 0123456789ab\n" +
		"0 errors, 0 warnings, 0 infos\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// The working tree at the base commit: its uncommitted changes are
	// compared, which the notice says (never "nothing to compare").
	r = &finding.Report{Base: finding.Rev{Ref: "HEAD", Commit: testBaseSHA}, Head: finding.Rev{Ref: "WORKTREE", Commit: testBaseSHA}}
	r.Finalize()
	b.Reset()
	if err := GitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	want = "::notice title=apicheck::comparing 0123456789ab with the working tree at that commit: only its uncommitted changes are checked\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to start\n%s", b.String(), want)
	}
}
