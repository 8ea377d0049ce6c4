package config

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// DefaultTagPattern matches release tags v<major>.<minor>.0.
const DefaultTagPattern = `^v(\d+)\.(\d+)\.0$`

var defaultTagRegexp = lazyre.New(DefaultTagPattern)

// UnprefixedTagPattern matches release tags <major>.<minor>.0. Where the
// default pattern is in effect and no tag matches it, these are the
// releases (kube-logging's logging-operator tags 6.0.0, never v6.0.0).
const UnprefixedTagPattern = `^(\d+)\.(\d+)\.0$`

// CompileTagPattern compiles a release tag pattern. A pattern starting with
// "^" is a Go regular expression (RE2 syntax) matched against the tag name
// as written (anchor the end with "$" yourself); any other pattern is a
// glob (path.Match syntax: "*" matches any run of characters except "/",
// "?" one such character, "[...]" a character class) that must match the
// whole tag name.
func CompileTagPattern(s string) (*regexp.Regexp, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty tag pattern")
	}
	if strings.HasPrefix(s, "^") {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %v", s, err)
		}
		return re, nil
	}
	if _, err := path.Match(s, ""); err != nil {
		return nil, fmt.Errorf("invalid glob %q: %v (a pattern starting with ^ is a regular expression)", s, err)
	}
	return regexp.Compile(globToRegexp(s))
}

// globToRegexp translates a valid path.Match pattern into an anchored
// regular expression.
func globToRegexp(g string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		case '[':
			j := i + 1
			b.WriteString("[")
			if j < len(g) && g[j] == '^' {
				b.WriteString("^")
				j++
			}
			for ; j < len(g) && g[j] != ']'; j++ {
				switch g[j] {
				case '\\':
					j++
					b.WriteString(regexp.QuoteMeta(g[j : j+1]))
				case '-':
					b.WriteByte('-')
				default:
					b.WriteString(regexp.QuoteMeta(g[j : j+1]))
				}
			}
			b.WriteString("]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	b.WriteString("$")
	return b.String()
}
