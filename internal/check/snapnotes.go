package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/quote"
)

// maxListed bounds the paths a snapshot note names.
const maxListed = 10

// snapshotNotes say what the snapshots did not read: submodules (of
// either revision) and working-tree entries left out (special files,
// directories replaced by symbolic links, nested repositories).
func snapshotNotes(snaps ...git.Snapshot) []string {
	subs := map[string]bool{}
	var skipped []string
	for _, s := range snaps {
		if s == nil {
			continue
		}
		for _, p := range git.Submodules(s) {
			subs[p] = true
		}
		for _, sk := range git.Skipped(s) {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", quote.Name(sk.Path), sk.Reason))
		}
	}
	var notes []string
	if len(subs) > 0 {
		var names []string
		for p := range subs {
			names = append(names, quote.Name(p))
		}
		sort.Strings(names)
		notes = append(notes, "submodules are not read, so API groups inside them are not checked: "+listSome(names))
	}
	if len(skipped) > 0 {
		notes = append(notes, "working-tree entries not read: "+listSome(skipped))
	}
	return notes
}

// listSome joins up to maxListed items and says how many more there are.
func listSome(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}
