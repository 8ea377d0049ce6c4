package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/report"
	"github.com/apicheck/apicheck/internal/rules"
)

func TestRulesCommand(t *testing.T) {
	all := catalog.All()

	code, out, stderr := run(t, "rules")
	if code != ExitOK {
		t.Fatalf("rules: exit %d: %s", code, stderr)
	}
	last := -1
	for _, r := range all {
		i := strings.Index(out, "\n"+r.ID+" (")
		if strings.HasPrefix(out, r.ID+" (") {
			i = 0
		}
		if i < 0 {
			t.Errorf("text output lacks %s", r.ID)
			continue
		}
		if i < last {
			t.Errorf("%s is out of catalogue order", r.ID)
		}
		last = i
		for _, part := range []string{r.Severity.String(), string(r.Category)} {
			if !strings.Contains(out[i:], part) {
				t.Errorf("%s: text lacks %q", r.ID, part)
			}
		}
	}

	code, out, stderr = run(t, "rules", "--format", "json")
	if code != ExitOK {
		t.Fatalf("rules --format json: exit %d: %s", code, stderr)
	}
	var infos []report.RuleInfo
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatalf("json: %v", err)
	}
	if len(infos) != len(all) {
		t.Fatalf("%d rules in JSON, want %d", len(infos), len(all))
	}
	for i, r := range all {
		got := infos[i]
		if got.ID != r.ID || got.Category != string(r.Category) || got.Severity != r.Severity ||
			got.Summary != r.Summary || got.Why != r.Doc().Why || got.Fix != r.Fix {
			t.Errorf("JSON rule %d = %+v, want %s", i, got, r.ID)
		}
	}

	code, out, _ = run(t, "rules", "--format", "markdown")
	if code != ExitOK || out != report.RulesMarkdown(rules.Docs(all)) {
		t.Errorf("rules --format markdown (exit %d) differs from report.RulesMarkdown (docs/rules.md)", code)
	}
}

func TestRulesCommandSelect(t *testing.T) {
	code, out, stderr := run(t, "rules", "--format", "json", "proto_number_changed", "NEW_FIELD_NOT_POINTER")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var infos []report.RuleInfo
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatal(err)
	}
	// Catalogue order, whatever the order of the arguments.
	if len(infos) != 2 || infos[0].ID != "NEW_FIELD_NOT_POINTER" || infos[1].ID != "PROTO_NUMBER_CHANGED" {
		t.Errorf("selected %+v", infos)
	}
}

func TestRulesCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"rules", "NO_SUCH_RULE"},
		{"rules", "--format", "sarif"},
	} {
		code, out, stderr := run(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
		if out != "" || stderr == "" {
			t.Errorf("%v: stdout %q, stderr %q", args, out, stderr)
		}
	}
}
