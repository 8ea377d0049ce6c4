package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// Error is one problem in a configuration file, at a position, about a
// key (a dotted path such as "rules.PROTO_TAG_MISSING.severity" or
// "ignore[2].reason"; "" for the document itself).
type Error struct {
	File   string
	Line   int
	Column int
	Key    string
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are all the problems found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Top-level keys, in documentation order.
var (
	topKeys      = []string{"groups", "rules", "releases", "shoot", "ignore"}
	groupKeys    = []string{"dir", "profile"}
	ruleKeys     = []string{"enabled", "severity"}
	releasesKeys = []string{"tagPattern"}
	shootKeys    = []string{"warnings", "validation", "strategy", "maintenance", "defaults", "supportedVersions"}
	ignoreKeys   = []string{"rule", "type", "field", "apiPath", "package", "group", "reason"}
)

// Parse decodes a configuration strictly: broken YAML, an unknown key, a
// value of the wrong kind, an unknown rule ID, a bad profile or severity
// and an ignore entry without reason are errors naming the key and the
// line. file is used in positions and error messages. ruleIDs are the
// known rule IDs (catalog.All()); nil skips that check. Settings the file
// does not make keep their defaults (Default). The error, if any, is an
// Errors holding every problem found.
func Parse(file string, data []byte, ruleIDs []string) (*Config, error) {
	d := &decoder{file: file, cfg: Default(), known: map[string]bool{}}
	d.cfg.File = file
	for _, id := range ruleIDs {
		d.known[id] = true
	}
	d.checkIDs = ruleIDs != nil
	d.ruleIDs = ruleIDs

	root, err := parseDocument(file, data)
	if err != nil {
		return nil, err
	}
	if root != nil {
		d.top(root)
	}
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			if d.errs[i].Line != d.errs[j].Line {
				return d.errs[i].Line < d.errs[j].Line
			}
			return d.errs[i].Column < d.errs[j].Column
		})
		return nil, d.errs
	}
	return d.cfg, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseDocument parses data into one YAML node tree; nil for an empty
// document (comments only).
func parseDocument(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, Errors{syntaxError(file, data, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: file, Line: extra.Line, Column: extra.Column, Msg: "a second YAML document (---): the configuration is one document"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, Errors{syntaxError(file, data, err)}
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		return doc.Content[0], nil
	}
	return &doc, nil
}

// syntaxError turns a YAML syntax error into an Error. yaml.v3 reports
// the line where the enclosing construct starts (sometimes none at all),
// so the line is refined to the first line at which a prefix of the
// document stops parsing: for the block-style YAML of a configuration
// file, that is the line with the mistake.
func syntaxError(file string, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) <= 5000 {
		for k := max(line, 1); k <= len(lines); k++ {
			var n yaml.Node
			if yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n) != nil {
				line = k
				break
			}
		}
	}
	if line > 0 && line <= len(lines) && strings.Contains(lines[line-1], "\t") {
		msg += " (a tab character: YAML indents with spaces only)"
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
}

type decoder struct {
	file     string
	cfg      *Config
	errs     Errors
	known    map[string]bool
	checkIDs bool
	ruleIDs  []string
}

func (d *decoder) errorf(n *yaml.Node, key, format string, args ...any) {
	e := &Error{File: d.file, Key: key, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

func (d *decoder) pos(n *yaml.Node) model.Pos {
	return model.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

// resolve follows aliases (*anchor) to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
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

func join(key, sub string) string {
	if key == "" {
		return sub
	}
	return key + "." + sub
}

// mapping walks a mapping node: every key must be one of known (an
// unknown or duplicate key is an error naming it and its line); fn gets
// each known key with its value node.
func (d *decoder) mapping(n *yaml.Node, key string, known []string, fn func(k string, kn, vn *yaml.Node)) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, key, "want a mapping with keys %s, got %s", strings.Join(known, ", "), kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.errorf(kn, key, "want a plain key, got %s", kindName(kn))
			continue
		}
		k := kn.Value
		if line, dup := seen[k]; dup {
			d.errorf(kn, join(key, k), "duplicate key %q (first at line %d)", k, line)
			continue
		}
		seen[k] = kn.Line
		if !contains(known, k) {
			d.errorf(kn, join(key, k), "unknown key %q%s; known keys: %s", k, suggest(k, known), strings.Join(known, ", "))
			continue
		}
		fn(k, kn, resolve(vn))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str decodes a scalar as a string; ok is false (and an error recorded)
// for anything but a non-null scalar.
func (d *decoder) str(n *yaml.Node, key string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, key, "want a string, got %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) boolean(n *yaml.Node, key string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		d.errorf(n, key, "want true or false, got %s", kindName(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		d.errorf(n, key, "want true or false: %v", err)
		return false, false
	}
	return b, true
}

// list calls fn for each element of a sequence node.
func (d *decoder) list(n *yaml.Node, key string, fn func(i int, el *yaml.Node)) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list, got %s", kindName(n))
		return
	}
	for i, el := range n.Content {
		fn(i, resolve(el))
	}
}

// relPath checks a repository-relative slash path; dirOK allows a
// trailing "/" (a directory).
func (d *decoder) relPath(n *yaml.Node, key string, dirOK bool) (string, bool) {
	s, ok := d.str(n, key)
	if !ok {
		return "", false
	}
	trimmed := s
	if dirOK {
		trimmed = strings.TrimSuffix(s, "/")
	}
	switch {
	case strings.TrimSpace(s) == "":
		d.errorf(n, key, "empty path")
		return "", false
	case strings.HasPrefix(s, "/") || strings.Contains(s, "\\"):
		d.errorf(n, key, "%q: want a repository-relative path with forward slashes", s)
		return "", false
	case path.Clean(trimmed) != trimmed || trimmed == ".." || strings.HasPrefix(trimmed, "../"):
		d.errorf(n, key, "%q: want a clean repository-relative path (no \"..\", \"./\" or \"//\")", s)
		return "", false
	}
	return s, true
}

func (d *decoder) pathList(n *yaml.Node, key string) ([]string, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		p, ok := d.relPath(n, key, true)
		return []string{p}, ok
	}
	out := []string{}
	good := true
	d.list(n, key, func(i int, el *yaml.Node) {
		p, ok := d.relPath(el, fmt.Sprintf("%s[%d]", key, i), true)
		if !ok {
			good = false
			return
		}
		out = append(out, p)
	})
	if n.Kind != yaml.SequenceNode {
		good = false
	}
	return out, good
}

func (d *decoder) top(n *yaml.Node) {
	if isNull(n) {
		return
	}
	d.mapping(n, "", topKeys, func(k string, kn, vn *yaml.Node) {
		if isNull(vn) {
			return // "key:" with nothing after it: keep the defaults
		}
		switch k {
		case "groups":
			d.groups(vn)
		case "rules":
			d.rules(vn)
		case "releases":
			d.releases(vn)
		case "shoot":
			d.shoot(vn)
		case "ignore":
			d.ignore(vn)
		}
	})
}

func (d *decoder) groups(n *yaml.Node) {
	seen := map[string]int{}
	d.list(n, "groups", func(i int, el *yaml.Node) {
		key := fmt.Sprintf("groups[%d]", i)
		g := Group{Pos: d.pos(el), Profile: model.ProfileAPI}
		good := true
		hasDir := false
		d.mapping(el, key, groupKeys, func(k string, kn, vn *yaml.Node) {
			switch k {
			case "dir":
				hasDir = true
				dir, ok := d.relPath(vn, key+".dir", true)
				if !ok {
					good = false
					return
				}
				g.Dir = strings.TrimSuffix(dir, "/")
			case "profile":
				s, ok := d.str(vn, key+".profile")
				if !ok {
					good = false
					return
				}
				switch p := model.Profile(s); p {
				case model.ProfileAPI, model.ProfileComponentConfig:
					g.Profile = p
				default:
					d.errorf(vn, key+".profile", "unknown profile %q (want %s or %s)", s, model.ProfileAPI, model.ProfileComponentConfig)
					good = false
				}
			}
		})
		if resolve(el).Kind != yaml.MappingNode {
			return
		}
		if !hasDir {
			d.errorf(el, key, "missing dir (the group's directory, e.g. pkg/apis/core)")
			return
		}
		if !good {
			return
		}
		if line, dup := seen[g.Dir]; dup {
			d.errorf(el, key+".dir", "group %s is listed twice (first at line %d)", g.Dir, line)
			return
		}
		seen[g.Dir] = el.Line
		d.cfg.Groups = append(d.cfg.Groups, g)
	})
}

func (d *decoder) ruleID(n *yaml.Node, key, id string) bool {
	if !d.checkIDs || d.known[id] {
		return true
	}
	d.errorf(n, key, "unknown rule ID %q%s (rule IDs are listed in docs/rules.md)", id, suggest(id, d.ruleIDs))
	return false
}

func (d *decoder) rules(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "rules", "want a mapping from rule ID to settings, got %s", kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], resolve(n.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			d.errorf(kn, "rules", "want a rule ID as key, got %s", kindName(kn))
			continue
		}
		id := kn.Value
		key := "rules." + id
		if line, dup := seen[id]; dup {
			d.errorf(kn, key, "duplicate rule %q (first at line %d)", id, line)
			continue
		}
		seen[id] = kn.Line
		if !d.ruleID(kn, key, id) {
			continue
		}
		s := RuleSetting{Pos: d.pos(kn)}
		good := true
		if !isNull(vn) {
			d.mapping(vn, key, ruleKeys, func(k string, _, v *yaml.Node) {
				switch k {
				case "enabled":
					b, ok := d.boolean(v, key+".enabled")
					if !ok {
						good = false
						return
					}
					s.Enabled = &b
				case "severity":
					str, ok := d.str(v, key+".severity")
					if !ok {
						good = false
						return
					}
					sev, err := parseSeverity(str)
					if err != nil {
						d.errorf(v, key+".severity", "%v", err)
						good = false
						return
					}
					s.Severity = sev
				}
			})
		}
		if good {
			d.cfg.Rules[id] = s
		}
	}
}

// parseSeverity accepts exactly the three documented names.
func parseSeverity(s string) (finding.Severity, error) {
	switch s {
	case "error":
		return finding.Error, nil
	case "warning":
		return finding.Warning, nil
	case "info":
		return finding.Info, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info; to turn a rule off use enabled: false)", s)
}

func (d *decoder) releases(n *yaml.Node) {
	d.mapping(n, "releases", releasesKeys, func(k string, _, vn *yaml.Node) {
		if k != "tagPattern" || isNull(vn) {
			return
		}
		s, ok := d.str(vn, "releases.tagPattern")
		if !ok {
			return
		}
		re, err := CompileTagPattern(s)
		if err != nil {
			d.errorf(vn, "releases.tagPattern", "%v", err)
			return
		}
		d.cfg.Releases = Releases{TagPattern: s, TagRegexp: re}
	})
}

func (d *decoder) shoot(n *yaml.Node) {
	s := &d.cfg.Shoot
	d.mapping(n, "shoot", shootKeys, func(k string, _, vn *yaml.Node) {
		if isNull(vn) {
			return
		}
		key := "shoot." + k
		if k == "supportedVersions" {
			if p, ok := d.relPath(vn, key, false); ok {
				s.SupportedVersions = p
			}
			return
		}
		list, ok := d.pathList(vn, key)
		if !ok {
			return
		}
		switch k {
		case "warnings":
			s.Warnings = list
		case "validation":
			s.Validation = list
		case "strategy":
			s.Strategy = list
		case "maintenance":
			s.Maintenance = list
		case "defaults":
			s.Defaults = list
		}
	})
}

func (d *decoder) ignore(n *yaml.Node) {
	d.list(n, "ignore", func(i int, el *yaml.Node) {
		key := fmt.Sprintf("ignore[%d]", i)
		ig := Ignore{Pos: d.pos(el)}
		good := true
		nodes := map[string]*yaml.Node{}
		d.mapping(el, key, ignoreKeys, func(k string, _, vn *yaml.Node) {
			sub := key + "." + k
			nodes[k] = vn
			s, ok := d.str(vn, sub)
			if !ok {
				good = false
				return
			}
			s = strings.TrimSpace(s)
			if s == "" {
				if k == "reason" {
					d.errorf(vn, sub, "empty reason: say why the finding is accepted")
				} else {
					d.errorf(vn, sub, "empty value (leave the key out instead)")
				}
				good = false
				return
			}
			switch k {
			case "rule":
				if !d.ruleID(vn, sub, s) {
					good = false
				}
				ig.Rule = s
			case "type":
				ig.Type = s
			case "field":
				ig.Field = s
			case "apiPath":
				ig.APIPath = s
			case "package":
				ig.Package = strings.TrimSuffix(s, "/")
			case "group":
				ig.Group = strings.TrimSuffix(s, "/")
			case "reason":
				ig.Reason = s
			}
		})
		if resolve(el).Kind != yaml.MappingNode || !good {
			return
		}
		switch {
		case ig.Rule == "":
			d.errorf(el, key, "missing rule (the rule ID whose findings this entry suppresses)")
		case ig.Reason == "":
			d.errorf(el, key+".reason", "missing reason: every ignore entry must say why the finding is accepted")
		case ig.Type == "" && ig.APIPath == "":
			d.errorf(el, key, "needs type (with optional field) or apiPath to say which findings it suppresses; to turn a rule off everywhere use rules.%s.enabled: false", ig.Rule)
		case ig.Field != "" && ig.Type == "":
			d.errorf(nodes["field"], key+".field", "field needs type (the Go type the field belongs to)")
		default:
			d.cfg.Ignore = append(d.cfg.Ignore, ig)
		}
	})
}

// suggest returns ` (did you mean "x"?)` for the closest candidate within
// a small edit distance, or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if dist := editDistance(strings.ToLower(s), strings.ToLower(c)); dist < bestD {
			best, bestD = c, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
