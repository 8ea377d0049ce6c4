package report

import (
	"bytes"
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
