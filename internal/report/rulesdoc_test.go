package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/rules"
)

// rulesDocPath is docs/rules.md, relative to this package.
const rulesDocPath = "../../docs/rules.md"

// TestRulesDoc fails when docs/rules.md is not what the catalogue
// generates; -update rewrites it.
func TestRulesDoc(t *testing.T) {
	got := RulesMarkdown(rules.Docs(catalog.All()))
	if *update {
		if err := os.WriteFile(rulesDocPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(rulesDocPath)
	if err != nil {
		t.Fatalf("%v; generate it with: %s", err, RulesDocUpdateCommand)
	}
	if string(want) != got {
		t.Errorf("docs/rules.md is stale: regenerate it with\n\t%s\n%s", RulesDocUpdateCommand, lineDiff(string(want), got))
	}
}

func TestRulesMarkdownContent(t *testing.T) {
	all := rules.Docs(catalog.All())
	md := RulesMarkdown(all)
	for _, r := range all {
		h := "\n### `" + r.ID + "`\n"
		i := strings.Index(md, h)
		if i < 0 {
			t.Errorf("no section for %s", r.ID)
			continue
		}
		if !strings.Contains(md, "(#"+strings.ToLower(r.ID)+")") {
			t.Errorf("index does not link %s", r.ID)
		}
		section := md[i:]
		if j := strings.Index(section[len(h):], "\n### "); j >= 0 {
			section = section[:len(h)+j]
		}
		for _, part := range []string{r.Summary, r.Why, r.Fix, r.Before, r.After, r.Severity.String(), string(r.Category)} {
			if !strings.Contains(section, part) {
				t.Errorf("%s: section lacks %q", r.ID, part)
			}
		}
	}
	if RulesMarkdown(all) != md {
		t.Error("RulesMarkdown is not deterministic")
	}
}

func TestRulesJSONAndText(t *testing.T) {
	all := rules.Docs(catalog.All())
	var buf bytes.Buffer
	if err := RulesJSON(&buf, all); err != nil {
		t.Fatal(err)
	}
	var got []RuleInfo
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("%d rules in JSON, want %d", len(got), len(all))
	}
	for i, r := range all {
		if got[i].ID != r.ID || got[i].Severity != r.Severity || got[i].Category != r.Category || got[i].Fix != r.Fix {
			t.Errorf("rule %d: %+v", i, got[i])
		}
	}
	buf.Reset()
	if err := RulesJSON(&buf, nil); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("no rules: %q, %v", buf.String(), err)
	}

	buf.Reset()
	if err := RulesText(&buf, all); err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if !strings.Contains(buf.String(), r.ID+" ("+string(r.Category)+", "+r.Severity.String()+")") {
			t.Errorf("text lacks the heading of %s", r.ID)
		}
	}
}
