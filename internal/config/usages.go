package config

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Usages configures the usage search of the two-step removal rules
// (FIELD_REMOVED_STILL_USED, FIELD_REMOVAL_NOT_RELEASED): which code is not
// a usage of a removed field.
type Usages struct {
	// Exclude lists globs (see Glob) of repository-relative files whose
	// references are not usages. Never nil in a Config from Default or
	// Parse; the entry "default" in the file stands for DefaultUsageExclude.
	Exclude []string
	// Pos is where exclude is set (zero when it is not).
	Pos Pos
}

// UsageExcludeDefaultEntry is the list entry that stands for the default
// exclusions, so a configuration can add to them.
const UsageExcludeDefaultEntry = "default"

// DefaultUsageExclude returns the default usage exclusions. Beyond these,
// the usage search always skips the removed field's API group directory
// and everything below it (conversion, defaulting, helpers, validation of
// the group), the configured Shoot stage files, vendor/ and testdata/, and
// files whose header says "Code generated ... DO NOT EDIT.".
func DefaultUsageExclude() []string {
	return []string{
		// Tests, test helper packages, mocks and fakes: they never run
		// against a live API server of another version.
		"*_test.go", "*test", "testing", "*fake*", "mock*",
		// Generated code, also when its header is missing.
		"zz_generated*", "*.pb.go",
		// Code that runs inside the API server and is upgraded together
		// with the types: registry strategies (current and older layouts),
		// the API packages' validation, warnings and helpers, admission
		// plugins, the API server's own command.
		"pkg/apiserver/**", "pkg/registry/**", "pkg/api/**", "pkg/apis/**/validation/**", "plugin/**",
		"cmd/*apiserver*/**",
		// Admission and authorization webhooks of the API server's
		// control plane: called by the API server about the object of a
		// request, rolled out with it (docs/configuration.md "usages").
		"pkg/admissioncontroller/**", "**/webhook/defaulting/**", "**/webhook/validation/**",
	}
}

// ExpandUsageExclude replaces the entry "default" by the default list. The
// result is never nil.
func ExpandUsageExclude(list []string) []string {
	out := []string{}
	for _, e := range list {
		if e == UsageExcludeDefaultEntry {
			out = append(out, DefaultUsageExclude()...)
			continue
		}
		out = append(out, e)
	}
	return slices.Compact(out)
}

// Glob is a compiled path pattern of a usage exclusion.
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
	segs    []string
	anySeg  bool
}

// CompileGlob checks and compiles a pattern.
func CompileGlob(p string) (Glob, error) {
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
	return Glob{pattern: p, segs: segs, anySeg: len(segs) == 1 && segs[0] != "**"}, nil
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
			if ok, _ := path.Match(g.segs[0], s); ok {
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
func matchSegs(pat, parts []string) bool {
	// ok[j] reports whether pat[i:] matches parts[j:], for the current i.
	ok := make([]bool, len(parts)+1)
	ok[len(parts)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(parts)+1)
		if pat[i] == "**" {
			// ** matches parts[j:k] for any k >= j.
			any := false
			for j := len(parts); j >= 0; j-- {
				any = any || ok[j]
				next[j] = any
			}
		} else {
			for j := len(parts) - 1; j >= 0; j-- {
				if m, _ := path.Match(pat[i], parts[j]); m {
					next[j] = ok[j+1]
				}
			}
		}
		ok = next
	}
	return ok[0]
}

// CompileGlobs compiles a list (after ExpandUsageExclude); the first
// invalid pattern is an error.
func CompileGlobs(list []string) ([]Glob, error) {
	out := make([]Glob, 0, len(list))
	for _, p := range ExpandUsageExclude(list) {
		g, err := CompileGlob(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}
