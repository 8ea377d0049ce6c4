package scan

import (
	"strings"

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
// removed.
func ParseMarkers(lines []string) model.Markers {
	var out model.Markers
	for _, line := range lines {
		text := strings.TrimSpace(line)
		if !strings.HasPrefix(text, "+") {
			continue
		}
		for _, text := range splitMarkerLine(text) {
			out = append(out, parseMarker(text)...)
		}
	}
	return out
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

func parseMarker(text string) model.Markers {
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
				if i := strings.Index(value, " //"); i >= 0 {
					value = value[:i]
				}
				out = append(out, model.Marker{Key: name, Value: strings.TrimSpace(value)})
			}
		}
	}
	return out
}
