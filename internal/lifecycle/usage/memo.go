package usage

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
)

// A search of a commit is a function of the commit's files, the query
// (the removed fields, their groups' import paths, their paths from the
// kinds), the exclusions, the type-information setting and the code of
// the search itself. The answer is kept in the history's memo (the
// lifecycle cache) under all of those, so that a later run asking the
// same (a CI job run again, `make check` while editing other files of the
// same branch) reads it instead of searching. The working tree is never
// memoised.

// memoKind is the kind of the memo entries of usage searches.
const memoKind = "usages 1"

// memoKey is the key of the search of commit for q, "" when it cannot be
// memoised.
func (e *Finder) memoKey(commit string, q *query, typeInfo bool) string {
	id := git.BinaryID()
	if commit == "" || id == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "binary %s\ncommit %s\ntype information %v\n", id, commit, typeInfo)
	for _, g := range q.exclude.globs {
		fmt.Fprintf(&b, "exclude %q\n", g.String())
	}
	for _, s := range q.exclude.stage {
		fmt.Fprintf(&b, "stage %q\n", s)
	}
	groups := append([]*group(nil), q.groups...)
	slices.SortFunc(groups, func(x, y *group) int { return strings.Compare(x.dir, y.dir) })
	for _, g := range groups {
		fmt.Fprintf(&b, "group %q\n", g.dir)
		for _, ip := range slices.Sorted(maps.Keys(g.imports)) {
			fmt.Fprintf(&b, " import %q\n", ip)
		}
		for _, t := range slices.Sorted(maps.Keys(g.types)) {
			fmt.Fprintf(&b, " type %q\n", t)
		}
		for _, name := range slices.Sorted(maps.Keys(g.byName)) {
			for _, k := range g.byName[name] {
				fmt.Fprintf(&b, " field %q %q\n", k.Type, k.Field)
				for _, p := range q.paths[k] {
					b.WriteString("  path")
					for _, s := range p {
						fmt.Fprintf(&b, " %q/%v", s.name, s.embedded)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	return b.String()
}

// memoAnswer is the memoised part of Usages.
type memoAnswer struct {
	Packages int        `json:"packages"`
	Problems []string   `json:"problems,omitempty"`
	Refs     []memoRefs `json:"refs,omitempty"`
}

type memoRefs struct {
	Key    Key         `json:"key"`
	Typed  []model.Pos `json:"typed,omitempty"`
	ByPath []model.Pos `json:"byPath,omitempty"`
}

func encodeAnswer(u *Usages) []byte {
	a := memoAnswer{Packages: u.Packages, Problems: u.Problems}
	for k, r := range u.byKey {
		a.Refs = append(a.Refs, memoRefs{Key: k, Typed: r.Typed, ByPath: r.ByPath})
	}
	slices.SortFunc(a.Refs, func(x, y memoRefs) int {
		return cmp.Or(strings.Compare(x.Key.Group, y.Key.Group), strings.Compare(x.Key.Type, y.Key.Type), strings.Compare(x.Key.Field, y.Key.Field))
	})
	data, err := json.Marshal(a)
	if err != nil {
		return nil
	}
	return data
}

// decodeAnswer fills u from a memoised answer; false on any flaw (a
// miss).
func decodeAnswer(data []byte, u *Usages) bool {
	var a memoAnswer
	if err := json.Unmarshal(data, &a); err != nil || a.Packages < 0 {
		return false
	}
	u.Packages, u.Problems = a.Packages, a.Problems
	for _, r := range a.Refs {
		if u.byKey[r.Key] != nil {
			return false
		}
		u.byKey[r.Key] = &Refs{Typed: r.Typed, ByPath: r.ByPath}
	}
	return true
}
