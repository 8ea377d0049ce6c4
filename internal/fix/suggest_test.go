package fix

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/finding"
)

func TestSuggestions(t *testing.T) {
	src := "package v1\n\ntype S struct {\n\tA    string `json:\"a\"`\n\tLong int32  `json:\"long\"`\n}\n"
	at := func(sub string) int {
		for i := 0; i+len(sub) <= len(src); i++ {
			if src[i:i+len(sub)] == sub {
				return i
			}
		}
		t.Fatalf("%q not in source", sub)
		return 0
	}
	ins := at("\tLong")
	ptr := at("int32")
	cases := []struct {
		name  string
		edits []finding.Edit
		want  []finding.Suggestion
	}{
		// gofmt aligns fields separated by a comment line no more: the
		// suggestion is what apicheck fix writes.
		{"insertion, formatted", []finding.Edit{{Path: "a.go", StartOffset: ins, EndOffset: ins, NewText: "\t// +optional\n"}},
			[]finding.Suggestion{{Path: "a.go", StartLine: 4, EndLine: 5, Text: "\tA string `json:\"a\"`\n\t// +optional\n\tLong int32 `json:\"long\"`"}}},
		// gofmt realigns the tag after the type grew: the suggestion is
		// the line as apicheck fix writes it.
		{"formatted", []finding.Edit{{Path: "a.go", StartOffset: ptr, EndOffset: ptr + len("int32"), NewText: "*int32"}},
			[]finding.Suggestion{{Path: "a.go", StartLine: 5, EndLine: 5, Text: "\tLong *int32 `json:\"long\"`"}}},
		// A longer name realigns the other field too.
		{"realigned", []finding.Edit{{Path: "a.go", StartOffset: ins + 1, EndOffset: ins + 5, NewText: "Longer"}},
			[]finding.Suggestion{{Path: "a.go", StartLine: 4, EndLine: 5, Text: "\tA      string `json:\"a\"`\n\tLonger int32  `json:\"long\"`"}}},
		{"unknown file", []finding.Edit{{Path: "b.go", StartOffset: 0, EndOffset: 0, NewText: "x"}}, nil},
		{"no change", []finding.Edit{{Path: "a.go", StartOffset: ptr, EndOffset: ptr + len("int32"), NewText: "int32"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := suggestions(finding.Fix{Edits: c.edits}, map[string][]byte{"a.go": []byte(src)})
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("suggestions (-want +got):\n%s", d)
			}
		})
	}
}

func TestLineChangeAtTheEnds(t *testing.T) {
	// An insertion after the last line takes the line before it along.
	got, ok := lineChange("f", []byte("a\nb\n"), []byte("a\nb\nc\n"))
	if want := (finding.Suggestion{Path: "f", StartLine: 2, EndLine: 2, Text: "b\nc"}); !ok || got != want {
		t.Errorf("append: %+v, %v; want %+v", got, ok, want)
	}
	// In the middle, the line after it.
	got, ok = lineChange("f", []byte("a\nc\n"), []byte("a\nb\nc\n"))
	if want := (finding.Suggestion{Path: "f", StartLine: 2, EndLine: 2, Text: "b\nc"}); !ok || got != want {
		t.Errorf("insert: %+v, %v; want %+v", got, ok, want)
	}
	got, ok = lineChange("f", []byte("a\nb\nc\n"), []byte("a\nX\nc\n"))
	if want := (finding.Suggestion{Path: "f", StartLine: 2, EndLine: 2, Text: "X"}); !ok || got != want {
		t.Errorf("replace: %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := lineChange("f", []byte(""), []byte("")); ok {
		t.Error("an empty file has no change")
	}
}
