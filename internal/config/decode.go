package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/quote"
)

// MaxSize is the size limit of a configuration file in bytes (1 MiB). The
// configuration of the head revision is written by whoever opens a pull
// request, so the decoder never reads more.
const MaxSize = 1 << 20

// TooLarge is the error of a configuration file of size bytes, above
// MaxSize: for callers that learn the size without reading the file.
func TooLarge(file string, size int64) error {
	return Errors{{File: file, Msg: fmt.Sprintf("the file has %d bytes; a configuration may have at most %d (1 MiB)", size, MaxSize)}}
}

// Error is one problem in a configuration file, at a position, about a
// key (a dotted path such as "rules.PROTO_TAG_MISSING.severity" or
// "ignore[2].reason"; "" for the document itself). The file and the key
// print as quote.Name has them: a key the file spells with a line break
// or another control character is quoted.
type Error struct {
	File   string
	Line   int
	Column int
	Key    string
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(quote.Name(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(quote.Name(e.Key) + ": ")
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

// Parse decodes a configuration strictly. The file must be at most MaxSize
// bytes and one YAML document without anchors, aliases or merge keys.
// Broken YAML, an unknown key, a value of the wrong kind, a duplicate key,
// a rule ID, profile or severity that v does not list and an ignore entry
// without reason are errors naming the key and the line. file is used in
// positions and error messages. Settings the file does not make (absent,
// or a key without value) keep their defaults (Default). The error, if
// any, is an Errors holding every problem found, in file order.
func Parse(file string, data []byte, v Vocabulary) (*Config, error) {
	if len(data) > MaxSize {
		return nil, TooLarge(file, int64(len(data)))
	}
	root, err := parseDocument(file, data)
	if err != nil {
		return nil, err
	}
	cfg := Default()
	cfg.File = file
	if root == nil {
		return cfg, nil
	}
	if err := rejectAnchors(file, root, nil); err != nil {
		return nil, Errors{err}
	}

	// The strict decode: KnownFields makes the decoder itself report every
	// key that no field of the raw types declares.
	var raw strict[rawConfig]
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil && !errors.Is(err, io.EOF) {
		return nil, Errors{{File: file, Msg: "invalid YAML: " + decoderWords(strings.TrimPrefix(err.Error(), "yaml: "))}}
	}

	val := &validator{file: file, vocab: v, cfg: cfg}
	val.config(&raw)
	if k := topKey(root, "groups"); k != nil && len(cfg.Groups) > 0 {
		cfg.GroupsPos = val.pos(k)
	}
	if len(val.errs) > 0 {
		slices.SortStableFunc(val.errs, func(a, b *Error) int {
			return cmp.Or(a.Line-b.Line, a.Column-b.Column)
		})
		return nil, val.errs
	}
	return cfg, nil
}

// parseDocument parses data into one YAML node tree; nil for an empty
// document (comments only). Aliases are not expanded here.
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

var yamlLine = lazyre.New(`^yaml: line (\d+): (.*)$`)

// syntaxBudget bounds the bytes syntaxError re-parses to find the line of
// a mistake, so that a crafted file cannot make it quadratic.
const syntaxBudget = 8 << 20

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
	prefix := len(strings.Join(lines[:min(max(line, 1)-1, len(lines))], ""))
	for k, spent := max(line, 1), 0; k <= len(lines); k++ {
		prefix += len(lines[k-1])
		if spent += prefix; spent > syntaxBudget {
			break
		}
		var n yaml.Node
		if yaml.Unmarshal(data[:prefix], &n) != nil {
			line = k
			break
		}
	}
	if line > 0 && line <= len(lines) && strings.Contains(lines[line-1], "\t") {
		msg += " (a tab character: YAML indents with spaces only)"
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML: " + decoderWords(msg)}
}

// Messages of yaml.v3 that name a Go type of this package ("field x not
// found in type config.rawConfig"), which means nothing to the author of
// the file: decoderWords says them in the file's terms.
var (
	fieldNotFoundMsg = lazyre.New(`(?s)^field (.*) not found in type \S+$`)
	fieldSetMsg      = lazyre.New(`(?s)^field (.*) already set in type \S+$`)
	mappingKeyMsg    = lazyre.New(`(?s)^mapping key (".*") already defined at line (\d+)$`)
	unmarshalMsg     = lazyre.New(`(?s)^cannot unmarshal (.*) into \S+$`)
	goTypeWords      = lazyre.New(`\s+(?:in type|into|of type)\s+\S*config\.\S*`)
)

// decoderWords rewrites a message of the YAML decoder (without its "line
// N: " prefix) for the author of the file: no Go type names, keys quoted,
// and every character quote.Text escapes escaped, since the decoder quotes
// the file's text.
func decoderWords(msg string) string {
	if m := fieldNotFoundMsg.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown key %q", m[1])
	}
	if m := fieldSetMsg.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("key %q is set twice", m[1])
	}
	if m := mappingKeyMsg.FindStringSubmatch(msg); m != nil {
		return quote.Text(fmt.Sprintf("duplicate key %s (first at line %s)", m[1], m[2]))
	}
	if m := unmarshalMsg.FindStringSubmatch(msg); m != nil {
		return quote.Text("cannot use " + m[1] + " here")
	}
	return quote.Text(goTypeWords.ReplaceAllString(msg, ""))
}

// rejectAnchors returns an error for the first anchor (&a), alias (*a) or
// merge key (<<) of the tree. Expanding aliases can blow a small file up
// exponentially ("billion laughs"); a configuration has no use for them.
// The tree is walked as parsed: aliases are not followed. path is the key
// path of n, one segment per level.
func rejectAnchors(file string, n *yaml.Node, path []string) *Error {
	what := ""
	switch {
	case n.Kind == yaml.AliasNode:
		what = "alias *" + n.Value
	case n.Anchor != "":
		what = "anchor &" + n.Anchor
	case n.Tag == "!!merge":
		what = "merge key " + n.Value
	}
	if what != "" {
		return &Error{File: file, Line: n.Line, Column: n.Column, Key: strings.TrimPrefix(strings.Join(path, ""), "."),
			Msg: what + ": YAML anchors, aliases and merge keys are not allowed in the configuration; write the value out"}
	}
	for i, c := range n.Content {
		seg := ""
		switch {
		case n.Kind == yaml.SequenceNode:
			seg = fmt.Sprintf("[%d]", i)
		case n.Kind == yaml.MappingNode && i%2 == 1:
			seg = "." + n.Content[i-1].Value
		}
		if err := rejectAnchors(file, c, append(path, seg)); err != nil {
			return err
		}
	}
	return nil
}

// topKey is the key node of a top-level key of the document, or nil.
func topKey(root *yaml.Node, name string) *yaml.Node {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == name {
			return k
		}
	}
	return nil
}

func join(key, sub string) string {
	if key == "" {
		return sub
	}
	return key + "." + sub
}

// suggest returns ` (did you mean "x"?)` for the closest candidate within
// a small edit distance, or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if dist := EditDistance(strings.ToLower(s), strings.ToLower(c)); dist < bestD {
			best, bestD = c, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// EditDistance is the Levenshtein distance of a and b (insertions,
// deletions and substitutions of bytes), for "did you mean" suggestions.
func EditDistance(a, b string) int {
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
