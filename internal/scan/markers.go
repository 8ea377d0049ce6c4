package scan

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"k8s.io/gengo/v2/codetags"

	"github.com/apicheck/apicheck/internal/model"
)

// ParseMarkers extracts the "+key[=value]" markers from comment lines (the
// comment text without "//"). It is the one place that talks to gengo's
// comment-tag parser, whose API changes between versions: the version is
// pinned in go.mod and nothing else imports it.
//
// The result keeps source order. Keys are gengo's tag names, which include
// prefixes such as "k8s:" and "kubebuilder:validation:". Values keep their
// raw text ("map", "merge", `"foo"`, "{}"), with a trailing "// comment"
// removed, and for the "k8s:" tags of Kubernetes' tag grammar also a
// trailing "# comment" ("+k8s:maximum=1000000000 # HighestUserDefinablePriority").
func ParseMarkers(lines []string) model.Markers {
	// The markers of each marker text, then one slice of them all: most
	// doc comments have one to three marker lines of one marker each.
	var buf [8]model.Markers
	parsed, n := buf[:0], 0
	for _, line := range lines {
		text := strings.TrimSpace(line)
		if !strings.HasPrefix(text, "+") {
			continue
		}
		if oneMarkerText(text) {
			ms := parseMarker(text)
			parsed, n = append(parsed, ms), n+len(ms)
			continue
		}
		for _, text := range splitMarkerLine(text) {
			ms := parseMarker(text)
			parsed, n = append(parsed, ms), n+len(ms)
		}
	}
	if n == 0 {
		return nil
	}
	out := make(model.Markers, 0, n)
	for _, ms := range parsed {
		out = append(out, ms...)
	}
	return out
}

// oneMarkerText reports a marker line that splitMarkerLine leaves whole:
// one without white space (ASCII only: strings.Fields splits at Unicode
// white space too).
func oneMarkerText(text string) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= utf8.RuneSelf, c == ' ', c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		}
	}
	return true
}

// splitMarkerLine splits a line that holds several markers separated by
// white space ("+featureGate=Foo +optional", as real Kubernetes types
// write it). A line with quotes or parentheses is one marker: its value
// may contain " +".
func splitMarkerLine(text string) []string {
	if strings.ContainsAny(text, "\"'`(") {
		return []string{text}
	}
	f := strings.Fields(text)
	var out []string
	for _, tok := range f {
		if len(out) > 0 && !(strings.HasPrefix(tok, "+") && len(tok) > 1 && isLetter(tok[1])) {
			out[len(out)-1] += " " + tok
			continue
		}
		out = append(out, tok)
	}
	return out
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// markerMemo remembers parseMarker's answers: API files repeat a few
// marker texts (+optional, +listType=atomic) thousands of times, and
// gengo's parser is the costly part of a scan. At most markerMemoMax
// texts are kept, so that a repository of unique markers cannot grow it
// without bound.
var (
	markerMemo     sync.Map // text -> model.Markers (never modified)
	markerMemoSize atomic.Int64
)

const markerMemoMax = 1 << 14

func parseMarker(text string) model.Markers {
	if v, ok := markerMemo.Load(text); ok {
		return v.(model.Markers)
	}
	out := parseMarkerText(text)
	if markerMemoSize.Load() < markerMemoMax {
		if _, loaded := markerMemo.LoadOrStore(text, out); !loaded {
			markerMemoSize.Add(1)
		}
	}
	return out
}

func parseMarkerText(text string) model.Markers {
	var out model.Markers
	{
		tags := codetags.Extract("+", []string{text})
		for name, bodies := range tags {
			if name == "" {
				continue
			}
			for _, body := range bodies {
				rest := strings.TrimPrefix(body, name)
				// Function-style args (+k8s:foo(arg)=v) are kept in the value.
				value := ""
				switch {
				case strings.HasPrefix(rest, "="):
					value = rest[1:]
				case strings.HasPrefix(rest, "("):
					value = rest
				}
				value = stripTrailingComment(value, strings.HasPrefix(name, "k8s:"))
				// controller-gen's "+name:=value" (an anonymous argument,
				// "+kubebuilder:validation:Minimum:=0") is "+name=value".
				key := name
				if k, ok := strings.CutSuffix(name, ":"); ok && strings.HasPrefix(rest, "=") && k != "" {
					key = k
				}
				out = append(out, model.Marker{Key: key, Value: strings.TrimSpace(value)})
			}
		}
	}
	return out
}

// stripTrailingComment cuts a trailing comment off a marker value: " //"
// always, " #" where the tag grammar has such comments. Text inside
// quotes or backticks is never cut.
func stripTrailingComment(value string, hash bool) string {
	var quote byte
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == ' ' || c == '\t':
			rest := strings.TrimLeft(value[i:], " \t")
			if strings.HasPrefix(rest, "//") || hash && strings.HasPrefix(rest, "#") {
				return strings.TrimSpace(value[:i])
			}
		}
	}
	return value
}
