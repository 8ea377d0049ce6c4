package protobuf

import (
	"go/token"
	"reflect"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

var validWire = map[string]bool{
	"varint": true, "zigzag32": true, "zigzag64": true, "fixed32": true, "fixed64": true, "bytes": true, "group": true,
}

// FuzzParseTag checks that ParseTag never panics and that what it accepts
// is consistent: number in range, known wire type and label, Raw is the
// input, re-parsing Raw gives the same tag; and that FromStructTag agrees
// with reflect.StructTag.Lookup on well-formed struct tags.
func FuzzParseTag(f *testing.F) {
	for _, tc := range tagCases {
		f.Add(tc.in)
		f.Add(`json:"x,omitempty" protobuf:"` + tc.in + `"`)
	}
	f.Add(`json:"x" protobuf:bytes,1`)
	f.Add(`protobuf:"bytes,1,opt,name=\"q\""`)
	f.Fuzz(func(t *testing.T, s string) {
		pt, err := ParseTag(s)
		switch {
		case err != nil:
			if pt != nil {
				t.Fatalf("ParseTag(%q) returned %+v and error %v", s, pt, err)
			}
			if err.Error() == "" {
				t.Fatalf("ParseTag(%q): empty error message", s)
			}
		case pt == nil:
			if s != "-" {
				t.Fatalf("ParseTag(%q) = nil, nil; only \"-\" may yield no tag", s)
			}
		default:
			if !IsValidNumber(pt.Number) {
				t.Fatalf("ParseTag(%q): invalid number %d accepted", s, pt.Number)
			}
			if !validWire[pt.Wire] {
				t.Fatalf("ParseTag(%q): wire %q accepted", s, pt.Wire)
			}
			if pt.Label != "" && !isLabel(pt.Label) {
				t.Fatalf("ParseTag(%q): label %q accepted", s, pt.Label)
			}
			if pt.Raw != s {
				t.Fatalf("ParseTag(%q): Raw = %q", s, pt.Raw)
			}
			if strings.ContainsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) {
				t.Fatalf("ParseTag(%q): whitespace accepted", s)
			}
			again, err := ParseTag(pt.Raw)
			if err != nil || !reflect.DeepEqual(again, pt) {
				t.Fatalf("re-parsing %q: %+v, %v; first parse %+v", pt.Raw, again, err, pt)
			}
		}

		// s as a whole struct tag
		got, ok, err := FromStructTag(s)
		if v, found := reflect.StructTag(s).Lookup("protobuf"); found && !ok {
			t.Fatalf("FromStructTag(%q): no protobuf key, reflect finds %q", s, v)
		} else if found && err == nil {
			want, _ := ParseTag(v)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("FromStructTag(%q) = %+v, ParseTag(%q) = %+v", s, got, v, want)
			}
		}
		if !ok && (got != nil || err != nil) {
			t.Fatalf("FromStructTag(%q) = %+v, %v with ok=false", s, got, err)
		}
	})
}

// FuzzParseTombstones feeds comment text (groups separated by blank lines,
// lines by newlines) to ParseTombstones and checks it never panics and its
// results are consistent.
func FuzzParseTombstones(f *testing.F) {
	seed := [][][]Line{
		groupsOf(
			"SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.",
			"SeedTemplate *gardencorev1beta1.SeedTemplate `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`"),
		groupsOf(
			"Status is tombstoned to show why 3 is a reserved protobuf tag.",
			"This commented field should remain, so in the future if we decide to reimplement",
			"Status NetworkPolicyStatus `json:\"status,omitempty\" protobuf:\"bytes,3,opt,name=status\"`"),
		groupsOf(
			"A is tombstoned to show why 1 is reserved protobuf tag.",
			"A *bool `json:\"a,omitempty\" protobuf:\"varint,1,opt,name=a\"`",
			"B map[string]*foo.Bar `json:\"b,omitempty\" protobuf:\"bytes,2,rep,name=b\"` // Deprecated",
			"Field X was removed; protobuf tag 4 is reserved.",
			"X func() `protobuf:\"bytes,0,opt\"` trailing",
			"Use `json:\"foo\"` here.",
			"Inline struct{ A int `json:\"a\"` } `json:\"inline\" protobuf:\"bytes,4,opt,name=inline\"`"),
	}
	for _, tc := range tombstoneCases {
		seed = append(seed, tc.groups)
	}
	for _, groups := range seed {
		var blocks []string
		for _, g := range groups {
			var lines []string
			for _, l := range g {
				lines = append(lines, l.Text)
			}
			blocks = append(blocks, strings.Join(lines, "\n"))
		}
		f.Add(strings.Join(blocks, "\n\n"))
	}
	f.Fuzz(func(t *testing.T, src string) {
		var groups [][]Line
		total := 0
		lineNo := 0
		texts := map[int]string{}
		for _, block := range strings.Split(src, "\n\n") {
			var g []Line
			for _, text := range strings.Split(block, "\n") {
				lineNo++
				texts[lineNo] = text
				g = append(g, Line{Text: text, Pos: model.Pos{File: "f.go", Line: lineNo, Col: 1}})
			}
			total += len(g)
			groups = append(groups, g)
		}
		got := ParseTombstones(groups)
		if again := ParseTombstones(groups); !reflect.DeepEqual(got, again) {
			t.Fatalf("ParseTombstones is not deterministic")
		}
		if kept := mayReserve(groups); !reflect.DeepEqual(got, ParseTombstones(kept)) {
			t.Fatalf("the groups MayReserve drops change the tombstones")
		}
		if len(got) > total {
			t.Fatalf("%d tombstones from %d lines", len(got), total)
		}
		for _, ts := range got {
			text, ok := texts[ts.Pos.Line]
			if !ok || ts.Pos.File != "f.go" {
				t.Fatalf("tombstone %s at %v: no such input line", ts.FieldName, ts.Pos)
			}
			marker := strings.HasPrefix(ts.Explanation, "+k8s:deprecated=")
			malformed := strings.HasPrefix(ts.Problem, MalformedPrefix)
			if ts.FieldName != "" && (!token.IsIdentifier(ts.FieldName) || !strings.HasPrefix(strings.TrimSpace(text), ts.FieldName)) {
				t.Fatalf("tombstone name %q does not start line %q", ts.FieldName, text)
			}
			// Only a declaration gives a type; the other forms (marker,
			// prose, explanation without its declaration, garbled line)
			// carry a number and say what they are.
			if ts.Type == "" && !marker && ts.Problem == "" {
				t.Fatalf("tombstone %+v: no declaration, no marker and no problem", ts)
			}
			if ts.Type != "" && ts.JSONName == "" {
				t.Fatalf("tombstone %+v: a declaration without json name", ts)
			}
			if ts.Proto != nil {
				if !IsValidNumber(ts.Proto.Number) {
					t.Fatalf("tombstone %s: invalid number %d", ts.FieldName, ts.Proto.Number)
				}
				if ts.Proto.Raw != "" && !malformed {
					again, err := ParseTag(ts.Proto.Raw)
					if err != nil || !reflect.DeepEqual(again, ts.Proto) {
						t.Fatalf("tombstone %s: re-parsing %q gives %+v, %v", ts.FieldName, ts.Proto.Raw, again, err)
					}
				}
			} else if !malformed {
				t.Fatalf("tombstone %s without Proto has problem %q", ts.FieldName, ts.Problem)
			}
			if ts.Explanation == "" && ts.Problem == "" {
				t.Fatalf("tombstone %s without explanation has no problem", ts.FieldName)
			}
			if ts.Problem == "" && !marker {
				name, num, ok := parseExplanation(ts.Explanation)
				if !ok || name != ts.FieldName || ts.Proto == nil || num != ts.Proto.Number {
					t.Fatalf("tombstone %s has no problem but explanation %q does not match", ts.FieldName, ts.Explanation)
				}
			}
		}
		if r := Reserved(got); len(r) > len(got) {
			t.Fatalf("Reserved returned %d numbers for %d tombstones", len(r), len(got))
		}
	})
}
