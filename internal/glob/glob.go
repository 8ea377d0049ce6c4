// Package glob is the path pattern syntax of apicheck's configuration:
// the exclude key (directories that are never API groups), the
// directory patterns of releaseNotes.audiences and the usages.exclude
// globs. The configuration checks its patterns with Compile when it is
// read; discovery, suppression, the usage search and the notes match
// with Match and Glob.
package glob

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Glob is a compiled path pattern.
//
//   - A pattern without "/" matches any single segment of the path: a
//     directory name or the file name ("*_test.go", "testing", "*fake*").
//   - A pattern with "/" matches the whole repository-relative path from
//     its start, segment by segment; "**" matches any number of segments
//     (none included), so "pkg/registry/**" is everything below
//     pkg/registry and "**/validation/**" everything below any directory
//     named validation.
//
// Within a segment, "*", "?" and "[...]" work as in path.Match.
type Glob struct {
	pattern string
	segs    []seg
	anySeg  bool
}

// seg is a compiled segment of a pattern: the common shapes ("zz_*",
// "*_test.go", "*fake*", a plain name, "**") are matched with string
// comparisons, the others with path.Match.
type seg struct {
	kind segKind
	s    string // the literal part, or the pattern (segMatch)
}

type segKind uint8

const (
	segMatch    segKind = iota // path.Match(s, name)
	segLiteral                 // name == s
	segAnyName                 // "*": any name
	segPrefix                  // "s*"
	segSuffix                  // "*s"
	segContains                // "*s*"
	segAnyDepth                // "**": any number of segments
)

func compileSeg(p string) seg {
	switch {
	case p == "**":
		return seg{kind: segAnyDepth}
	case strings.ContainsAny(p, "?[\\"):
		return seg{kind: segMatch, s: p}
	case p == "*":
		return seg{kind: segAnyName}
	}
	inner := strings.Trim(p, "*")
	if strings.Contains(inner, "*") {
		return seg{kind: segMatch, s: p}
	}
	switch star := len(p) - len(inner); {
	case star == 0:
		return seg{kind: segLiteral, s: p}
	case star == 2 && p[0] == '*' && p[len(p)-1] == '*':
		return seg{kind: segContains, s: inner}
	case star == 1 && p[0] == '*':
		return seg{kind: segSuffix, s: inner}
	case star == 1:
		return seg{kind: segPrefix, s: inner}
	}
	return seg{kind: segMatch, s: p} // "**x" and the like
}

// match reports whether a path segment (a name, never "**") matches.
func (g seg) match(name string) bool {
	switch g.kind {
	case segLiteral:
		return name == g.s
	case segAnyName:
		return true
	case segPrefix:
		return strings.HasPrefix(name, g.s)
	case segSuffix:
		return strings.HasSuffix(name, g.s)
	case segContains:
		return strings.Contains(name, g.s)
	}
	ok, _ := path.Match(g.s, name)
	return ok
}

// Compile checks and compiles a pattern.
func Compile(p string) (Glob, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return Glob{}, errors.New("empty pattern")
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\"):
		return Glob{}, fmt.Errorf("%q: want a repository-relative pattern with forward slashes", p)
	case strings.HasSuffix(p, "/"):
		return Glob{}, fmt.Errorf("%q: a trailing / matches nothing; write %q for everything below a directory", p, p+"**")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return Glob{}, fmt.Errorf("%q: want a clean pattern (no empty, \".\" or \"..\" segments)", p)
		}
		if s != "**" && strings.Contains(s, "**") {
			return Glob{}, fmt.Errorf("%q: ** must be a whole segment", p)
		}
		if _, err := path.Match(s, ""); err != nil {
			return Glob{}, fmt.Errorf("%q: %v", p, err)
		}
	}
	g := Glob{pattern: p, anySeg: len(segs) == 1 && segs[0] != "**"}
	for _, s := range segs {
		g.segs = append(g.segs, compileSeg(s))
	}
	return g, nil
}

// CompileAll compiles a list of patterns; the first invalid one is an
// error.
func CompileAll(list []string) ([]Glob, error) {
	out := make([]Glob, 0, len(list))
	for _, p := range list {
		g, err := Compile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// String is the pattern as written.
func (g Glob) String() string { return g.pattern }

// Match reports whether the repository-relative slash path matches.
func (g Glob) Match(file string) bool { return g.MatchSegments(strings.Split(file, "/")) }

// MatchSegments is Match for a path already split at "/" (to split it once
// for many patterns).
func (g Glob) MatchSegments(parts []string) bool {
	if g.anySeg {
		for _, s := range parts {
			if g.segs[0].match(s) {
				return true
			}
		}
		return false
	}
	return matchSegs(g.segs, parts)
}

// matchSegs matches pattern segments against path segments in
// O(len(pat)·len(parts)) (dynamic programming, so that patterns with many
// "**" from an untrusted configuration cannot take exponential time).
func matchSegs(pat []seg, parts []string) bool {
	if len(pat) > 0 && pat[0].kind != segAnyDepth && (len(parts) == 0 || !pat[0].match(parts[0])) {
		return false // the common miss: the first directory differs
	}
	// ok[j] reports whether pat[i:] matches parts[j:], for the current i;
	// next is the row for i-1 being filled (on the stack for paths of up
	// to 31 segments).
	var buf [2][32]bool
	ok, next := buf[0][:], buf[1][:]
	if len(parts)+1 > len(ok) {
		ok, next = make([]bool, len(parts)+1), make([]bool, len(parts)+1)
	}
	ok, next = ok[:len(parts)+1], next[:len(parts)+1]
	ok[len(parts)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		clear(next)
		if pat[i].kind == segAnyDepth {
			// ** matches parts[j:k] for any k >= j.
			any := false
			for j := len(parts); j >= 0; j-- {
				any = any || ok[j]
				next[j] = any
			}
		} else {
			for j := len(parts) - 1; j >= 0; j-- {
				if ok[j+1] && pat[i].match(parts[j]) {
					next[j] = true
				}
			}
		}
		ok, next = next, ok
	}
	return ok[0]
}

// Match reports whether a directory (a slash path) is matched by a
// directory pattern (the exclude key, Compile syntax; a trailing "/" is
// dropped): the pattern matches the directory or one of its parents, so a
// matched directory covers everything below it. An invalid pattern
// matches nothing (the configuration rejects such patterns when it is
// read).
func Match(pattern, dir string) bool {
	g, err := Compile(strings.TrimSuffix(pattern, "/"))
	if err != nil {
		return false
	}
	parts := strings.Split(dir, "/")
	for i := len(parts); i > 0; i-- {
		if g.MatchSegments(parts[:i]) {
			return true
		}
	}
	return false
}
