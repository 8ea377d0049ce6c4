// Package catalog is the one explicit list of every apicheck rule. It
// feeds the engine, `apicheck rules`, the SARIF rule table and
// docs/rules.md. Rules are listed, never self-registered.
package catalog

import (
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/rules"
)

// All returns every rule in catalogue order (rules.md's): the lifecycle
// rules go before the meta rule, PROTO_NUMBER_PREVIOUSLY_USED after
// PROTO_NUMBER_REUSED.
func All() []*rules.Rule {
	var all []*rules.Rule
	for _, r := range rules.Core() {
		if r.ID == rules.UnclassifiedID {
			all = append(all, lifecycle.Rules()...)
		}
		all = append(all, r)
		if r.ID == "PROTO_NUMBER_REUSED" {
			all = append(all, lifecycle.PreviouslyUsed)
		}
	}
	return all
}
