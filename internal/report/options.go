package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
)

// Options configure the writers beyond the report itself.
type Options struct {
	// LinkBase is the web address of the analysed repository, e.g.
	// https://github.com/gardener/gardener (see ParseLinkBase). The
	// Markdown report then links positions to
	// LinkBase/blob/<commit>/<path>#L<line>, at the head commit (the base
	// commit, or a release tag, for positions there). "" means no links.
	LinkBase string
}

// WriterFor returns the writer of a format with options applied; false
// for an unknown format.
func WriterFor(format string, o Options) (Writer, bool) {
	if format == "markdown" {
		return MarkdownWith(o), true
	}
	w, ok := Formats[format]
	return w, ok
}

// RulesDocURL is the generated rule documentation (docs/rules.md) on
// GitHub. GitHub's anchor for the heading "### `RULE_ID`" is the
// lower-cased ID.
const RulesDocURL = "https://github.com/apicheck/apicheck/blob/main/docs/rules.md"

// ruleIDRe is what a rule ID looks like (and all that goes into a URL).
var ruleIDRe = lazyre.New(`^[A-Z][A-Z0-9_]*$`)

// RuleDocURL is the address of a rule's documentation; "" for a string
// that is no rule ID.
func RuleDocURL(id string) string {
	if !ruleIDRe.MatchString(id) {
		return ""
	}
	return RulesDocURL + "#" + strings.ToLower(id)
}

// linkBaseChars are the characters a link base may hold: those of a URL
// that need no escaping in a Markdown link destination.
var linkBaseChars = lazyre.New(`^[A-Za-z0-9\-._~:/%@+=,;$&'!*]+$`)

// ParseLinkBase checks a repository web address for links: an absolute
// http or https URL with a host and a path, without user, query or
// fragment, and no characters that would need escaping in Markdown. It
// returns the address without a trailing slash.
func ParseLinkBase(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URL: %v", s, err)
	case u.Scheme != "https" && u.Scheme != "http":
		return "", fmt.Errorf("%q: want an http or https URL such as https://github.com/org/repo", s)
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return "", fmt.Errorf("%q: want the repository's address (scheme, host and path, no user, query or fragment), such as https://github.com/org/repo", s)
	case !linkBaseChars.MatchString(s) || strings.ContainsAny(s, "()"):
		return "", fmt.Errorf("%q: the URL holds characters that need escaping; write them %%-encoded", s)
	case strings.Trim(u.Path, "/") == "":
		return "", fmt.Errorf("%q: the URL names no repository; want e.g. https://github.com/org/repo", s)
	}
	return strings.TrimRight(s, "/"), nil
}

// linker builds the links of one report.
type linker struct {
	base       string // ParseLinkBase'd; "" means no file links
	head, prev string // head and base commits
	rules      map[string]bool
}

func newLinker(o Options, r *finding.Report) *linker {
	l := &linker{head: r.Head.Commit, prev: r.Base.Commit}
	if b, err := ParseLinkBase(o.LinkBase); err == nil {
		l.base = b
	}
	if len(r.Rules) > 0 {
		l.rules = map[string]bool{}
		for _, d := range r.Rules {
			l.rules[d.ID] = true
		}
	}
	return l
}

// ruleDoc is the documentation address of a rule of the catalogue the run
// used (any rule ID when the report does not say which).
func (l *linker) ruleDoc(id string) string {
	if l.rules != nil && !l.rules[id] {
		return ""
	}
	return RuleDocURL(id)
}

// hexCommit is what a commit ID looks like.
var hexCommit = lazyre.New(`^[0-9a-f]{7,64}$`)

// file is the address of a position, "" when it cannot be linked (no link
// base, or its revision has no commit).
func (l *linker) file(p mdPos) string {
	if l.base == "" || p.path == "" {
		return ""
	}
	rev := p.rev
	switch rev {
	case revHead:
		rev = l.head
		if !hexCommit.MatchString(rev) {
			return ""
		}
	case revBase:
		rev = l.prev
		if !hexCommit.MatchString(rev) {
			return ""
		}
	}
	if rev == "" {
		return ""
	}
	u := l.base + "/blob/" + escapePath(rev) + "/" + escapePath(p.path)
	if p.line > 0 {
		u += "#L" + strconv.Itoa(p.line)
	}
	return u
}

// escapePath escapes each segment of a slash path for a URL; the
// result holds no character that ends a Markdown link destination.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s) // escapes "()<>[] '!*" and more
	}
	return strings.Join(segs, "/")
}
