package config

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/quote"
)

// validator is the pass after the strict decode: it reports every problem
// with its key and position, checks what the file names against the
// vocabulary and the entries as a whole, and fills the configuration.
type validator struct {
	file  string
	vocab Vocabulary
	cfg   *Config
	errs  Errors
}

func (v *validator) errorf(n *yaml.Node, key, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.file, Line: n.Line, Column: n.Column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) pos(n *yaml.Node) Pos {
	return Pos{File: v.file, Line: n.Line, Col: n.Column}
}

// Messages of yaml.v3's TypeError entries that name a key of a mapping.
// A key may hold a line break ("a\nb": 1), which (?s) lets ".+" match.
var (
	unknownKeyMsg   = lazyre.New(`(?s)^line (\d+): field (.+) not found in type \S+$`)
	duplicateKeyMsg = lazyre.New(`(?s)^line (\d+): mapping key (".*") already defined at line (\d+)$`)
	lineMsg         = lazyre.New(`(?s)^line (\d+): (.*)$`)
)

// usable reports the problems of a mapping or list at key: a value of the
// wrong kind, the keys the decoder rejected, and the problems of its
// leaves. It returns whether the value is set and its content can be
// judged: decoded, and no leaf has a problem.
func usable[T any](v *validator, s *strict[T], key string) bool {
	if s == nil || s.n == nil {
		return false
	}
	t := reflect.TypeFor[T]()
	if s.n.Kind != nodeKind(t) {
		v.errorf(s.n, key, "want %s, got %s", describe(t), kindName(s.n))
		return false
	}
	ok := true
	for _, msg := range s.errs {
		if m := unknownKeyMsg.FindStringSubmatch(msg); m != nil {
			if k := keyAt(s.n, m[1], m[2]); k != nil {
				known := yamlKeys(t)
				v.errorf(k, join(key, k.Value), "unknown key %q%s; known keys: %s", k.Value, suggest(k.Value, known), strings.Join(known, ", "))
				continue
			}
		}
		if m := duplicateKeyMsg.FindStringSubmatch(msg); m != nil {
			ok = false // the decoder leaves the mapping empty
			name, _ := strconv.Unquote(m[2])
			if k := keyAt(s.n, m[1], name); k != nil {
				v.errorf(k, join(key, k.Value), "duplicate key %q (first at line %s)", k.Value, m[3])
				continue
			}
		}
		e := &Error{File: v.file, Key: key, Msg: decoderWords(msg)}
		if m := lineMsg.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = decoderWords(m[2])
		}
		v.errs = append(v.errs, e)
	}
	if t.Kind() == reflect.Struct {
		fields := reflect.ValueOf(&s.V).Elem()
		for i, name := range yamlKeys(t) {
			l, isLeaf := fields.Field(i).Addr().Interface().(interface{ base() *leaf })
			if !isLeaf {
				continue
			}
			for _, e := range l.base().errs {
				v.errorf(e.n, join(key, name)+e.sub, "%s", e.msg)
				ok = false
			}
		}
	}
	return ok
}

// keyAt finds the key of mapping n named name on the given line: the
// last such key (for a duplicate, the repeated one).
func keyAt(n *yaml.Node, line, name string) *yaml.Node {
	l, _ := strconv.Atoi(line)
	var found *yaml.Node
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Line == l && k.Value == name {
			found = k
		}
	}
	return found
}

// elems returns the elements of a list; a null element (nil) becomes a
// value with the null node, so that it is reported at its position.
func elems[T any](s *strict[[]*strict[T]]) []*strict[T] {
	out := make([]*strict[T], len(s.V))
	for i, el := range s.V {
		if el == nil && i < len(s.n.Content) {
			el = &strict[T]{n: s.n.Content[i]}
		}
		out[i] = el
	}
	return out
}

// word looks s up in a vocabulary list, case-insensitively, and returns
// the list's spelling; a nil list accepts any word (lower-cased).
func word(list []string, s string) (string, bool) {
	s = strings.TrimSpace(s)
	if list == nil {
		return strings.ToLower(s), true
	}
	i := slices.IndexFunc(list, func(w string) bool { return strings.EqualFold(w, s) })
	if i < 0 {
		return "", false
	}
	return list[i], true
}

// oneOf renders a list as "a, b or c".
func oneOf(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

func (v *validator) ruleID(n *yaml.Node, key, id string) bool {
	if v.vocab.RuleIDs == nil || slices.Contains(v.vocab.RuleIDs, id) {
		return true
	}
	v.errorf(n, key, "unknown rule ID %q%s (rule IDs are listed in docs/rules.md)", id, suggest(id, v.vocab.RuleIDs))
	return false
}

func (v *validator) config(raw *strict[rawConfig]) {
	if !usable(v, raw, "") {
		return
	}
	if p := raw.V.Profile; p.set() && len(p.errs) == 0 {
		var known bool
		if v.cfg.Profile, known = word(v.vocab.Profiles, p.V); !known {
			v.errorf(p.n, "profile", "unknown profile %q (want %s)", p.V, oneOf(v.vocab.Profiles))
		}
		v.cfg.ProfilePos = v.pos(p.n)
	}
	if vs := raw.V.VersionSkew; vs.set() && len(vs.errs) == 0 {
		var known bool
		if v.cfg.VersionSkew, known = word([]string{"all", "newest"}, vs.V); !known {
			v.errorf(vs.n, "versionSkew", "unknown policy %q (want all or newest)", vs.V)
		}
		v.cfg.VersionSkewPos = v.pos(vs.n)
	}
	if ex := raw.V.Exclude; ex.set() && len(ex.errs) == 0 {
		items := ex.n.Content
		if ex.n.Kind == yaml.ScalarNode {
			items = []*yaml.Node{ex.n}
		}
		for i, pat := range ex.V {
			v.cfg.Exclude = append(v.cfg.Exclude, ExcludePattern{Pattern: pat, Pos: v.pos(items[min(i, len(items)-1)])})
		}
	}
	v.groups(&raw.V.Groups)
	v.rules(&raw.V.Rules)
	v.releases(&raw.V.Releases)
	v.releaseNotes(&raw.V.ReleaseNotes)
	v.shoot(&raw.V.Shoot)
	v.usages(&raw.V.Usages)
	v.ignores(&raw.V.Ignore)
}

func (v *validator) groups(s *strict[[]*strict[rawGroup]]) {
	if !usable(v, s, "groups") {
		return
	}
	first := map[string]int{}
	for i, el := range elems(s) {
		key := fmt.Sprintf("groups[%d]", i)
		if !usable(v, el, key) {
			continue
		}
		g := Group{Dir: strings.TrimSuffix(el.V.Dir.V, "/"), Pos: v.pos(el.n)}
		if el.V.Versions.set() {
			for _, d := range el.V.Versions.V {
				g.Versions = append(g.Versions, strings.TrimSuffix(d, "/"))
			}
		}
		if el.V.Stable.set() {
			g.Stable = el.V.Stable.V
		}
		if p := el.V.Profile; p.set() {
			var known bool
			if g.Profile, known = word(v.vocab.Profiles, p.V); !known {
				v.errorf(p.n, key+".profile", "unknown profile %q (want %s)", p.V, oneOf(v.vocab.Profiles))
				continue
			}
		}
		switch line, dup := first[g.Dir]; {
		case !el.V.Dir.set():
			v.errorf(el.n, key, "missing dir (the group's directory, e.g. pkg/apis/core)")
		case dup:
			v.errorf(el.n, key+".dir", "group %s is listed twice (first at line %d)", quote.Name(g.Dir), line)
		default:
			first[g.Dir] = el.n.Line
			v.cfg.Groups = append(v.cfg.Groups, g)
		}
	}
}

func (v *validator) rules(s *strict[map[node]*strict[rawRule]]) {
	if !usable(v, s, "rules") {
		return
	}
	ids := slices.SortedFunc(maps.Keys(s.V), func(a, b node) int {
		return cmp.Or(a.n.Line-b.n.Line, a.n.Column-b.n.Column)
	})
	for _, k := range ids {
		if k.n.Kind != yaml.ScalarNode || k.n.ShortTag() == "!!null" {
			v.errorf(k.n, "rules", "want a rule ID as key, got %s", kindName(k.n))
			continue
		}
		id, key := k.n.Value, "rules."+k.n.Value
		if !v.ruleID(k.n, key, id) {
			continue
		}
		rs := RuleSetting{Pos: v.pos(k.n)}
		if set := s.V[k]; usable(v, set, key) {
			if e := set.V.Enabled; e.set() {
				rs.Enabled = &e.V
			}
			if sev := set.V.Severity; sev.set() {
				var known bool
				if rs.Severity, known = word(v.vocab.Severities, sev.V); !known {
					v.errorf(sev.n, key+".severity", "unknown severity %q (want %s; to turn a rule off use enabled: false)", sev.V, oneOf(v.vocab.Severities))
				}
			}
		}
		v.cfg.Rules[id] = rs
	}
}

func (v *validator) releases(s *strict[rawReleases]) {
	if tp := s.V.TagPattern; usable(v, s, "releases") && tp.set() {
		re, err := CompileTagPattern(tp.V)
		if err != nil {
			v.errorf(tp.n, "releases.tagPattern", "%v", err)
			return
		}
		v.cfg.Releases = Releases{TagPattern: tp.V, TagRegexp: re, Pos: v.pos(tp.n)}
	}
}

func (v *validator) shoot(s *strict[rawShoot]) {
	if !usable(v, s, "shoot") {
		return
	}
	in, out := &s.V, &v.cfg.Shoot
	for _, l := range []struct {
		in  *paths
		out *[]string
	}{
		{&in.Warnings, &out.Warnings},
		{&in.Validation, &out.Validation},
		{&in.Strategy, &out.Strategy},
		{&in.Maintenance, &out.Maintenance},
		{&in.Defaults, &out.Defaults},
	} {
		if l.in.set() {
			*l.out = l.in.V
		}
	}
	if in.SupportedVersions.set() {
		out.SupportedVersions = in.SupportedVersions.V
	}
}

func (v *validator) usages(s *strict[rawUsages]) {
	if ex := s.V.Exclude; usable(v, s, "usages") && ex.set() {
		v.cfg.Usages.Exclude = ExpandUsageExclude(ex.V)
		v.cfg.Usages.Pos = v.pos(ex.n)
	}
}

func (v *validator) ignores(s *strict[[]*strict[rawIgnore]]) {
	if !usable(v, s, "ignore") {
		return
	}
	for i, el := range elems(s) {
		key := fmt.Sprintf("ignore[%d]", i)
		if !usable(v, el, key) {
			continue
		}
		r := &el.V
		switch {
		case !r.Rule.set():
			v.errorf(el.n, key, "missing rule (the rule ID whose findings this entry suppresses)")
		case !r.Reason.set():
			v.errorf(el.n, key+".reason", "missing reason: every ignore entry must say why the finding is accepted")
		case !r.Type.set() && !r.APIPath.set():
			v.errorf(el.n, key, "needs type (with optional field) or apiPath to say which findings it suppresses; to turn a rule off everywhere use rules.%s.enabled: false", quote.Name(r.Rule.V))
		case r.Field.set() && !r.Type.set():
			v.errorf(r.Field.n, key+".field", "field needs type (the Go type the field belongs to)")
		case v.ruleID(r.Rule.n, key+".rule", r.Rule.V):
			v.cfg.Ignore = append(v.cfg.Ignore, Ignore{
				Rule: r.Rule.V, Type: r.Type.V, Field: r.Field.V, APIPath: r.APIPath.V,
				Package: strings.TrimSuffix(r.Package.V, "/"), Group: strings.TrimSuffix(r.Group.V, "/"),
				Reason: r.Reason.V, Pos: v.pos(el.n),
			})
		}
	}
}
