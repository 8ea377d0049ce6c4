package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Wording the rules' messages share.

// maxListed is how many usage positions a finding lists.
const maxListed = 5

// listed joins a sorted, duplicate-free copy of items, at most maxListed
// of them.
func listed(items []string) string {
	items = slices.Clone(items)
	slices.Sort(items)
	items = slices.Compact(items)
	if len(items) > maxListed {
		items = append(items[:maxListed:maxListed], fmt.Sprintf("and %d more", len(items)-maxListed))
	}
	return strings.Join(items, ", ")
}
