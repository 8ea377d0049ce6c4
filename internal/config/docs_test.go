package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/notes"
)

// TestDocsExamples parses every yaml block of docs/configuration.md with
// the real vocabulary (rule catalogue, profiles, severities), so the
// reference never shows an example the decoder rejects. A block right
// after a line "<!-- invalid -->" must fail instead.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	vocab := config.Vocabulary{Severities: finding.SeverityNames(), Audiences: notes.Audiences}
	for _, r := range catalog.All() {
		vocab.RuleIDs = append(vocab.RuleIDs, r.ID)
	}
	for _, p := range model.Profiles() {
		vocab.Profiles = append(vocab.Profiles, string(p))
	}
	lines := strings.Split(string(data), "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```yaml" {
			continue
		}
		invalid := i > 0 && strings.TrimSpace(lines[i-1]) == "<!-- invalid -->"
		start := i + 1
		j := start
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		block := strings.Join(lines[start:j], "\n")
		_, err := config.Parse(config.FileName, []byte(block), vocab)
		switch {
		case invalid && err == nil:
			t.Errorf("docs/configuration.md:%d: example marked invalid parses", start)
		case !invalid && err != nil:
			t.Errorf("docs/configuration.md:%d: example does not parse: %v", start, err)
		}
		n++
		i = j
	}
	if n < 8 {
		t.Errorf("found only %d yaml examples", n)
	}
}

// TestDocsUsageDefaults: docs/configuration.md explains every default
// usage exclusion.
func TestDocsUsageDefaults(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range config.DefaultUsageExclude() {
		if !strings.Contains(string(data), "`"+p+"`") {
			t.Errorf("docs/configuration.md does not list the default usage exclusion %s", p)
		}
	}
}
