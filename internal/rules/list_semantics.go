package rules

import (
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// How list semantics (server-side apply's +listType and +listMapKey, or
// what the patch strategy implies) are named in messages: LIST_TYPE_CHANGED
// and PATCH_STRATEGY_CHANGED.

// listKind describes list semantics.
func listKind(l *model.ListSemantics) string {
	switch {
	case l == nil:
		return "no list"
	case l.Type == "map" && len(l.Keys) == 0:
		return "map without keys"
	case l.Type == "map":
		return "map keyed by " + strings.Join(l.Keys, ",")
	}
	return l.Type
}

// listDesc describes list semantics and where they come from.
func listDesc(l *model.ListSemantics) string {
	if l == nil {
		return "no list"
	}
	d := listKind(l)
	switch l.From {
	case "default":
		return d + " (unmarked)"
	case "patch strategy":
		return d + " (from the patch strategy)"
	}
	return d
}
