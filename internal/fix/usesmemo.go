package fix

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
)

// The uses of a field that a pointer fix looks for are a function of the
// package's files (type-checked on their own: no import is loaded), the
// package's name and import path and the field: they are memoised (the
// run's git.Memo, the history cache) under a key that hashes all of
// these with the apicheck executable (git.BinaryID), so that a check run
// again, or a fix after the check, does not type-check the package again.

// usesMemoKind names the memo entries.
const usesMemoKind = "fix uses 1"

// fieldUses returns the uses of field of struct typ in files (see
// typedPkg.uses), or why the files do not parse.
func (l *lookups) fieldUses(files map[string][]byte, pkgName, importPath, typ, field string) ([]fieldRef, *parseError) {
	key := l.usesKey(files, pkgName, importPath, typ, field)
	if key != "" {
		if refs, pe, ok := decodeUses(l.memo.Get(usesMemoKind, key)); ok {
			return refs, pe
		}
	}
	tp, pe := l.typeCheck(files, pkgName, importPath)
	var refs []fieldRef
	if pe == nil {
		refs = tp.uses(typ, field)
	}
	if key != "" {
		l.memo.Put(usesMemoKind, key, encodeUses(refs, pe))
	}
	return refs, pe
}

// usesKey is the memo key of a question; "" when there is no memo or no
// executable to name.
func (l *lookups) usesKey(files map[string][]byte, pkgName, importPath, typ, field string) string {
	if l.memo == nil {
		return ""
	}
	k := git.NewMemoKey(usesMemoKind)
	k.Words(pkgName, importPath, typ, field)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		sum := l.fileSum(n, files[n])
		k.Words(n, string(sum[:]))
	}
	return k.String()
}

// fileSum is the SHA-256 of a file's content, computed once per content
// (every pointer fix of a package asks about the same files).
func (l *lookups) fileSum(name string, src []byte) [sha256.Size]byte {
	if s, ok := l.sums[name]; ok && len(s.src) == len(src) && (len(src) == 0 || &s.src[0] == &src[0]) {
		return s.sum
	}
	sum := sha256.Sum256(src)
	if l.sums == nil {
		l.sums = map[string]fileSum{}
	}
	l.sums[name] = fileSum{src: src, sum: sum}
	return sum
}

type fileSum struct {
	src []byte
	sum [sha256.Size]byte
}

// encodeUses writes the answer: "parse" and the error's position and
// message, or "uses" and a line per use ("sure" or "maybe", then the
// position).
func encodeUses(refs []fieldRef, pe *parseError) []byte {
	var b strings.Builder
	if pe != nil {
		b.WriteString("parse\n" + pe.pos + "\n" + pe.msg)
		return []byte(b.String())
	}
	b.WriteString("uses")
	for _, r := range refs {
		w := "maybe"
		if r.sure {
			w = "sure"
		}
		b.WriteString("\n" + w + " " + r.pos)
	}
	return []byte(b.String())
}

// decodeUses reads what encodeUses wrote; ok is false for anything else
// (nil: a miss).
func decodeUses(data []byte) (refs []fieldRef, pe *parseError, ok bool) {
	if data == nil {
		return nil, nil, false
	}
	s := string(data)
	if rest, isParse := strings.CutPrefix(s, "parse\n"); isParse {
		pos, msg, found := strings.Cut(rest, "\n")
		if !found {
			return nil, nil, false
		}
		return nil, &parseError{pos: pos, msg: msg}, true
	}
	rest, isUses := strings.CutPrefix(s, "uses")
	if !isUses {
		return nil, nil, false
	}
	if rest == "" {
		return nil, nil, true
	}
	if !strings.HasPrefix(rest, "\n") {
		return nil, nil, false
	}
	for _, l := range strings.Split(rest[1:], "\n") {
		w, pos, found := strings.Cut(l, " ")
		if !found || pos == "" || w != "sure" && w != "maybe" {
			return nil, nil, false
		}
		refs = append(refs, fieldRef{pos: pos, sure: w == "sure"})
	}
	return refs, nil, true
}

// suggestMemoKind names the memo entries of suggestions.
const suggestMemoKind = "fix suggestions 1"

// suggestions is the package's suggestions through the memo: they are a
// function of the edits and the contents of the files they edit, and
// formatting a whole file (gofmt, for the lines a fix leaves) is most of
// their cost.
func (l *lookups) suggestions(fx finding.Fix, content map[string][]byte) []finding.Suggestion {
	key := l.suggestKey(fx, content)
	if key != "" {
		if data := l.memo.Get(suggestMemoKind, key); data != nil {
			var out []finding.Suggestion
			if json.Unmarshal(data, &out) == nil {
				return out
			}
		}
	}
	out := suggestions(fx, content)
	if key != "" {
		if data, err := json.Marshal(out); err == nil {
			l.memo.Put(suggestMemoKind, key, data)
		}
	}
	return out
}

// suggestKey hashes the fix's edits and the contents of the files they
// edit ("" without a memo, or when a file's content is missing).
func (l *lookups) suggestKey(fx finding.Fix, content map[string][]byte) string {
	if l.memo == nil {
		return ""
	}
	k := git.NewMemoKey(suggestMemoKind)
	var paths []string
	for _, e := range fx.Edits {
		if !slices.Contains(paths, e.Path) {
			paths = append(paths, e.Path)
		}
		k.Words(e.Path, strconv.Itoa(e.StartOffset), strconv.Itoa(e.EndOffset), e.NewText)
	}
	slices.Sort(paths)
	for _, p := range paths {
		src, ok := content[p]
		if !ok {
			return ""
		}
		sum := l.fileSum(p, src)
		k.Words(p, string(sum[:]))
	}
	return k.String()
}
