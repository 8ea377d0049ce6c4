package config

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/glob"
)

// The raw types mirror the file; the strict decoder (KnownFields) fills
// them and reports every key they do not declare. Mappings and lists are
// strict values, which keep their node. Leaves are small value types that
// check their own shape while they are decoded and keep their node and
// problems; the validation pass, which knows the key paths, reports them.
type (
	rawConfig struct {
		Profile      str                               `yaml:"profile"`
		VersionSkew  str                               `yaml:"versionSkew"`
		Exclude      globs                             `yaml:"exclude"`
		Groups       strict[[]*strict[rawGroup]]       `yaml:"groups"`
		Rules        strict[map[node]*strict[rawRule]] `yaml:"rules"`
		Releases     strict[rawReleases]               `yaml:"releases"`
		ReleaseNotes strict[rawReleaseNotes]           `yaml:"releaseNotes"`
		Shoot        strict[rawShoot]                  `yaml:"shoot"`
		Usages       strict[rawUsages]                 `yaml:"usages"`
		Ignore       strict[[]*strict[rawIgnore]]      `yaml:"ignore"`
	}
	rawGroup struct {
		Dir      dirPath `yaml:"dir"`
		Profile  str     `yaml:"profile"`
		Versions paths   `yaml:"versions"`
		Stable   words   `yaml:"stable"`
	}
	rawRule struct {
		Enabled  flag `yaml:"enabled"`
		Severity str  `yaml:"severity"`
	}
	rawReleases struct {
		TagPattern str `yaml:"tagPattern"`
	}
	rawReleaseNotes struct {
		Audiences strict[[]*strict[rawAudience]] `yaml:"audiences"`
	}
	rawAudience struct {
		Group    text `yaml:"group"`
		Kind     text `yaml:"kind"`
		Audience text `yaml:"audience"`
	}
	rawShoot struct {
		Warnings          paths    `yaml:"warnings"`
		Validation        paths    `yaml:"validation"`
		Strategy          paths    `yaml:"strategy"`
		Maintenance       paths    `yaml:"maintenance"`
		Defaults          paths    `yaml:"defaults"`
		SupportedVersions filePath `yaml:"supportedVersions"`
	}
	rawUsages struct {
		Exclude usageGlobs `yaml:"exclude"`
	}
	rawIgnore struct {
		Rule    text   `yaml:"rule"`
		Type    text   `yaml:"type"`
		Field   text   `yaml:"field"`
		APIPath text   `yaml:"apiPath"`
		Package text   `yaml:"package"`
		Group   text   `yaml:"group"`
		Reason  reason `yaml:"reason"`
	}
)

// node is any value, as parsed (a rule ID key, or the node of a strict
// value).
type node struct{ n *yaml.Node }

func (x *node) UnmarshalYAML(n *yaml.Node) error {
	x.n = n
	return nil
}

// strict is a mapping (T a struct or map) or a list (T a slice) decoded by
// the strict decoder, with its node. A value of the wrong kind is left
// undecoded (V is zero) for the validation pass to report; the decoder's
// complaints about the value's own keys (unknown, duplicate) are kept in
// errs. n is nil when the key is absent or has no value (null).
type strict[T any] struct {
	n    *yaml.Node
	V    T
	errs []string
}

// UnmarshalYAML implements yaml.v3's callback-style unmarshaler: unlike
// yaml.Node.Decode, the callback decodes with the same (strict) decoder.
func (s *strict[T]) UnmarshalYAML(decode func(any) error) error {
	var at node
	if err := decode(&at); err != nil {
		return err
	}
	if s.n = at.n; s.n.Kind != nodeKind(reflect.TypeFor[T]()) {
		return nil
	}
	err := decode(&s.V)
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		// Nested strict values keep their own errors, so these are about
		// this value's keys. The decoder reuses the slice's array: copy.
		s.errs = slices.Clone(te.Errors)
		return nil
	}
	return err
}

func nodeKind(t reflect.Type) yaml.Kind {
	if t.Kind() == reflect.Slice {
		return yaml.SequenceNode
	}
	return yaml.MappingNode
}

// describe says what a value of type t looks like in the file.
func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "a list"
	case reflect.Map:
		return "a mapping from rule ID to settings" // rules is the only map
	}
	return "a mapping with keys " + strings.Join(yamlKeys(t), ", ")
}

// yamlKeys lists the keys of a raw struct type in declaration order.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	if t.Kind() == reflect.Struct {
		for f := range t.Fields() {
			keys = append(keys, f.Tag.Get("yaml"))
		}
	}
	return keys
}

// leaf is what every leaf value keeps: its node (nil when the key is
// absent or has no value) and the problems found while decoding it.
type leaf struct {
	n    *yaml.Node
	errs []leafError
}

type leafError struct {
	n   *yaml.Node
	sub string // appended to the key, e.g. "[1]" for a list element
	msg string
}

func (l *leaf) base() *leaf { return l }
func (l *leaf) set() bool   { return l.n != nil }

func (l *leaf) fail(n *yaml.Node, sub, format string, args ...any) {
	l.errs = append(l.errs, leafError{n, sub, fmt.Sprintf(format, args...)})
}

// scalar is the string value of n; anything but a scalar is a problem.
func (l *leaf) scalar(n *yaml.Node, sub string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		l.fail(n, sub, "want a string, got %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

// path is n as a clean repository-relative slash path; dirOK allows a
// trailing "/" (a directory).
func (l *leaf) path(n *yaml.Node, sub string, dirOK bool) string {
	s, ok := l.scalar(n, sub)
	if !ok {
		return ""
	}
	clean := s
	if dirOK {
		clean = strings.TrimSuffix(s, "/")
	}
	switch {
	case strings.TrimSpace(s) == "":
		l.fail(n, sub, "empty path")
	case strings.HasPrefix(s, "/") || strings.Contains(s, "\\"):
		l.fail(n, sub, "%q: want a repository-relative path with forward slashes", s)
	case path.Clean(clean) != clean || clean == ".." || strings.HasPrefix(clean, "../"):
		l.fail(n, sub, "%q: want a clean repository-relative path (no \"..\", \"./\" or \"//\")", s)
	}
	return s
}

// str is a string (any scalar but null).
type str struct {
	leaf
	V string
}

func (s *str) UnmarshalYAML(n *yaml.Node) error {
	s.n = n
	s.V, _ = s.scalar(n, "")
	return nil
}

// text is a trimmed string with something in it; reason is an ignore
// entry's text.
type (
	text   struct{ str }
	reason struct{ text }
)

func (t *text) UnmarshalYAML(n *yaml.Node) error {
	t.trimmed(n, "empty value (leave the key out instead)")
	return nil
}

func (r *reason) UnmarshalYAML(n *yaml.Node) error {
	r.trimmed(n, "empty reason: say why the finding is accepted")
	return nil
}

func (t *text) trimmed(n *yaml.Node, empty string) {
	t.n = n
	s, ok := t.scalar(n, "")
	if t.V = strings.TrimSpace(s); ok && t.V == "" {
		t.fail(n, "", "%s", empty)
	}
}

// flag is true or false.
type flag struct {
	leaf
	V bool
}

func (f *flag) UnmarshalYAML(n *yaml.Node) error {
	f.n = n
	if n.ShortTag() != "!!bool" || n.Decode(&f.V) != nil {
		f.fail(n, "", "want true or false, got %s", kindName(n))
	}
	return nil
}

// dirPath is a path that may name a directory (trailing "/").
type dirPath struct{ str }

func (p *dirPath) UnmarshalYAML(n *yaml.Node) error {
	p.n, p.V = n, p.path(n, "", true)
	return nil
}

// filePath is a path that names a file.
type filePath struct{ str }

func (p *filePath) UnmarshalYAML(n *yaml.Node) error {
	p.n, p.V = n, p.path(n, "", false)
	return nil
}

// paths is a path or a list of paths (directories allowed). A list is
// never nil, so "[]" means none.
type paths struct {
	leaf
	V []string
}

func (p *paths) UnmarshalYAML(n *yaml.Node) error {
	p.n = n
	switch n.Kind {
	case yaml.ScalarNode:
		p.V = []string{p.path(n, "", true)}
	case yaml.SequenceNode:
		p.V = []string{}
		for i, el := range n.Content {
			p.V = append(p.V, p.path(el, fmt.Sprintf("[%d]", i), true))
		}
	default:
		p.fail(n, "", "want a path or a list of paths, got %s", kindName(n))
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean"
		case "!!int", "!!float":
			return "a number"
		}
		return fmt.Sprintf("the string %q", n.Value)
	}
	return "an unsupported value"
}

// globs is a list of path patterns (glob.Compile; a trailing "/" is
// dropped); a single pattern is accepted too.
type globs struct {
	leaf
	V []string
}

func (g *globs) UnmarshalYAML(n *yaml.Node) error { return g.decode(n, false) }

// usageGlobs is globs that may also hold the entry "default" (the default
// usage exclusions). A list is never nil, so "[]" means none.
type usageGlobs struct{ globs }

func (g *usageGlobs) UnmarshalYAML(n *yaml.Node) error { return g.decode(n, true) }

func (g *globs) decode(n *yaml.Node, allowDefault bool) error {
	g.n = n
	items, ok := scalarOrList(n)
	if !ok {
		g.fail(n, "", "want a glob or a list of globs, got %s", kindName(n))
		return nil
	}
	g.V = []string{}
	for i, el := range items {
		sub := ""
		if n.Kind == yaml.SequenceNode {
			sub = fmt.Sprintf("[%d]", i)
		}
		s, ok := g.scalar(el, sub)
		if !ok {
			continue
		}
		s = strings.TrimSpace(s)
		if allowDefault && s == UsageExcludeDefaultEntry {
			g.V = append(g.V, s)
			continue
		}
		if !allowDefault {
			s = strings.TrimSuffix(s, "/")
		}
		if _, err := glob.Compile(s); err != nil {
			g.fail(el, sub, "%v", err)
			continue
		}
		g.V = append(g.V, s)
	}
	return nil
}

// words is a list of plain words (a single word is accepted too).
type words struct {
	leaf
	V []string
}

func (w *words) UnmarshalYAML(n *yaml.Node) error {
	w.n = n
	items, ok := scalarOrList(n)
	if !ok {
		w.fail(n, "", "want a word or a list of words, got %s", kindName(n))
		return nil
	}
	w.V = []string{}
	for i, el := range items {
		sub := ""
		if n.Kind == yaml.SequenceNode {
			sub = fmt.Sprintf("[%d]", i)
		}
		if s, ok := w.scalar(el, sub); ok {
			if strings.TrimSpace(s) == "" {
				w.fail(el, sub, "empty value")
				continue
			}
			w.V = append(w.V, strings.TrimSpace(s))
		}
	}
	return nil
}

// scalarOrList returns the items of a value written as one scalar or as a
// list of them; ok is false for anything else.
func scalarOrList(n *yaml.Node) (items []*yaml.Node, ok bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []*yaml.Node{n}, true
	case yaml.SequenceNode:
		return n.Content, true
	}
	return nil, false
}
