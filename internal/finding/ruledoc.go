package finding

// RuleDoc is what the reports know about a rule: its documentation as
// the rule catalogue declares it. The pipeline hands the catalogue's docs
// to the reporters (Report.Rules) so that they need not import the rules
// and everything the rules depend on.
type RuleDoc struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Why      string   `json:"why,omitempty"`
	Fix      string   `json:"fix,omitempty"`
	Before   string   `json:"before,omitempty"`
	After    string   `json:"after,omitempty"`
	// CategoryTitle is the category's section title in docs/rules.md.
	CategoryTitle string `json:"-"`
	// Requires names the analyses beyond the diff the rule needs
	// (release history, usages, Shoot stage code).
	Requires []string `json:"requires,omitempty"`
	// Checklist is the key of the checklist item (Checklist) the rule's
	// findings are about; CheckNone for a rule about none.
	Checklist string `json:"checklist,omitempty"`
}

// LookupRule finds a rule's documentation by ID.
func LookupRule(docs []RuleDoc, id string) (RuleDoc, bool) {
	for _, d := range docs {
		if d.ID == id {
			return d, true
		}
	}
	return RuleDoc{}, false
}
