package rules_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// Every rule of the catalogue names the checklist item its findings are
// about, or explicitly none; every item apicheck judges has a rule.
func TestChecklistCoversTheCatalogue(t *testing.T) {
	judged := map[string]bool{}
	for _, r := range catalog.All() {
		key := rules.ChecklistItem(r)
		if key == "" {
			t.Errorf("%s: no checklist item (add it to ChecklistItem in internal/rules/checklist.go, or finding.CheckNone)", r.ID)
			continue
		}
		if got := r.Doc().Checklist; got != key {
			t.Errorf("%s: documented with checklist item %q, want %q", r.ID, got, key)
		}
		if key == finding.CheckNone {
			continue
		}
		if _, ok := finding.LookupChecklist(key); !ok {
			t.Errorf("%s: checklist item %q is not in finding.Checklist", r.ID, key)
		}
		judged[key] = true
	}
	for _, it := range finding.Checklist {
		if it.NotChecked == "" && !judged[it.Key] {
			t.Errorf("checklist item %q: no rule judges it, and it does not say it is not checked", it.Key)
		}
		if it.NotChecked != "" && judged[it.Key] {
			t.Errorf("checklist item %q: says it is not checked, but rules judge it", it.Key)
		}
	}
}
