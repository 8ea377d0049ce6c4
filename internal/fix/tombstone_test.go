package fix

import (
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// The tombstone a fix writes must be what internal/protobuf's parser,
// which reads reservations in every form, takes as a complete
// reservation: a commented-out declaration carrying the number, named
// as the removed field, with its explanatory line and no problem — in
// an empty struct, after a field with a line comment, after another
// tombstone, before a doc comment, next to Kubernetes' +k8s:deprecated
// marker and prose reservations, for the checklist's sentence, its
// Kubernetes spelling and a house style of the repository's own (which
// the parser takes as the explanation, not as malformed).
func TestWrittenTombstoneIsACompleteReservation(t *testing.T) {
	const name = "p/v1/types.go"
	const hdr = "package v1\n\n"
	sentence := "{name} is tombstoned to show why {number} is reserved protobuf tag."
	k8s := "{name} is tombstoned to show why {number} is a reserved protobuf tag."
	own := "{name} was removed; its protobuf number {number} stays reserved."
	for _, c := range []struct {
		name    string
		src     string
		anchors []anchor
		field   string
		number  int
		typ     string
		tag     string
		style   string
		strict  bool // the explanation follows the checklist: no problem at all
	}{
		{name: "empty struct", src: "type S struct{}\n", field: "A", number: 2, typ: "*string",
			tag: `json:"a,omitempty" protobuf:"bytes,2,opt,name=a"`, style: sentence, strict: true},
		{name: "after a commented field", src: "type S struct {\n\t// B is b.\n\tB int32 `json:\"b\" protobuf:\"varint,1,opt,name=b\"` // the b\n\t// C is c.\n\tC int32 `json:\"c\" protobuf:\"varint,3,opt,name=c\"`\n}\n",
			anchors: []anchor{{field: "B"}}, field: "A", number: 2, typ: "map[string]string",
			tag: `json:"a,omitempty" protobuf:"bytes,2,rep,name=a"`, style: k8s, strict: true},
		{name: "after a tombstone", src: "type S struct {\n\t// B is tombstoned to show why 1 is reserved protobuf tag.\n\t// B *int32 `json:\"b,omitempty\" protobuf:\"varint,1,opt,name=b\"`\n\t// C is c.\n\tC int32 `json:\"c\" protobuf:\"varint,3,opt,name=c\"`\n}\n",
			anchors: []anchor{{tomb: 1}}, field: "A", number: 2, typ: "[]metav1.Condition",
			tag: `json:"a,omitempty" protobuf:"bytes,2,rep,name=a"`, style: sentence, strict: true},
		{name: "next to a k8s:deprecated marker", src: "type S struct {\n\t// +k8s:deprecated=b,protobuf=1\n\n\t// C is c.\n\tC int32 `json:\"c\" protobuf:\"varint,3,opt,name=c\"`\n}\n",
			field: "A", number: 2, typ: "*Kind",
			tag: `json:"a,omitempty" protobuf:"bytes,2,opt,name=a,casttype=Kind"`, style: sentence, strict: true},
		{name: "next to a prose reservation", src: "type S struct {\n\t// C is c.\n\t// Future extensions must not use \"b\" or field number 1.\n\tC int32 `json:\"c\" protobuf:\"varint,3,opt,name=c\"`\n}\n",
			field: "A", number: 2, typ: "*bool",
			tag: `json:"a,omitempty" protobuf:"varint,2,opt,name=a"`, style: sentence, strict: true},
		{name: "house style", src: "type S struct {\n\tC int32 `json:\"c\" protobuf:\"varint,3,opt,name=c\"`\n}\n",
			field: "A", number: 2, typ: "*int64",
			tag: `json:"a,omitempty" protobuf:"varint,2,opt,name=a"`, style: own},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(hdr + c.src)
			before := tombstonesOf(t, src)
			expl := instantiate(c.style, c.field, c.number)
			if ok, strict := recognised(c.style); !ok || strict != c.strict {
				t.Fatalf("style %q: recognised %v, strict %v", c.style, ok, strict)
			}
			it := item{kind: kindTombstone, file: name, dir: "p/v1", typ: "S", field: c.field, anchors: c.anchors,
				tomb: &tombSpec{name: c.field, number: c.number, explanation: expl, decl: tombstoneDecl(c.field, c.typ, c.tag)}}
			planFile(name, src, []*item{&it}, mapSource{name: src})
			if it.out.fix == nil {
				t.Fatalf("no fix: %+v", it.out)
			}
			out, err := applyEdits(src, it.out.fix.Edits)
			if err != nil {
				t.Fatal(err)
			}
			out, err = format.Source(out)
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			after := tombstonesOf(t, out)
			if len(after) != len(before)+1 {
				t.Fatalf("reservations before %d, after %d:\n%s", len(before), len(after), out)
			}
			var got *model.Tombstone
			for _, tb := range after {
				if tb.Proto != nil && tb.Proto.Number == c.number {
					if got != nil {
						t.Fatalf("number %d reserved twice:\n%s", c.number, out)
					}
					got = tb
				}
			}
			if got == nil {
				t.Fatalf("the parser finds no reservation of %d in\n%s", c.number, out)
			}
			if got.FieldName != c.field || got.Type != c.typ || got.Explanation != expl || got.Proto.Raw != c.tag[strings.Index(c.tag, "protobuf:")+len(`protobuf:"`):len(c.tag)-1] {
				t.Errorf("reservation %+v (protobuf %+v) in\n%s", got, *got.Proto, out)
			}
			switch {
			case strings.HasPrefix(got.Problem, protobuf.MalformedPrefix):
				t.Errorf("malformed: %s\n%s", got.Problem, out)
			case c.strict && got.Problem != "":
				t.Errorf("problem: %s\n%s", got.Problem, out)
			}
			// The fix is done: planning it again on its output is a no-op.
			again := item{kind: kindTombstone, file: name, dir: "p/v1", typ: "S", field: c.field, anchors: c.anchors, tomb: it.tomb}
			planFile(name, out, []*item{&again}, mapSource{name: out})
			if !again.out.noop {
				t.Errorf("planning again: %+v", again.out)
			}
		})
	}
}

// tombstonesOf parses the reservations of struct S.
func tombstonesOf(t *testing.T, src []byte) []*model.Tombstone {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	_, st := findStruct(f, "S")
	if st == nil {
		t.Fatalf("no struct S in\n%s", src)
	}
	return protobuf.ParseTombstones(protobuf.StructGroups(fset, "types.go", f, st))
}

// A tombstone is set apart by a blank line before it where the struct's
// fields are (most of them followed by a blank line): where the removed
// field was and, for a renumbered field, at the end of the struct. It
// gets none first in the struct, nor where the fields are not apart.
func TestTombstoneBlankLineStyle(t *testing.T) {
	const name = "p/v1/types.go"
	const hdr = "package v1\n\n"
	spaced := "type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
		"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n}\n"
	dense := "type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n" +
		"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n}\n"
	// One gap of two is blank: not the struct's style.
	mixed := "type S struct {\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
		"\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n\tD string `json:\"d\" protobuf:\"bytes,4,opt,name=d\"`\n}\n"
	tomb := func(field string, number int) *tombSpec {
		return &tombSpec{name: field, number: number,
			explanation: fmt.Sprintf("%s is tombstoned to show why %d is reserved protobuf tag.", field, number),
			decl:        fmt.Sprintf("%s *int32 `json:\"%s,omitempty\" protobuf:\"varint,%d,opt,name=%s\"`", field, strings.ToLower(field), number, strings.ToLower(field))}
	}
	const b2 = "\t// B is tombstoned to show why 2 is reserved protobuf tag.\n\t// B *int32 `json:\"b,omitempty\" protobuf:\"varint,2,opt,name=b\"`\n"
	const z0 = "\t// Z is tombstoned to show why 3 is reserved protobuf tag.\n\t// Z *int32 `json:\"z,omitempty\" protobuf:\"varint,3,opt,name=z\"`\n"
	for _, c := range []struct {
		name string
		src  string
		it   item
		want string
	}{
		{"where the field was", spaced, item{kind: kindTombstone, field: "B", anchors: []anchor{{field: "A"}}, tomb: tomb("B", 2)},
			"type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" + b2 +
				"\n\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n}\n"},
		{"first in the struct", spaced, item{kind: kindTombstone, field: "B", tomb: tomb("B", 2)},
			"type S struct {\n" + b2 + "\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
				"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n}\n"},
		{"last in the struct", spaced, item{kind: kindTombstone, field: "B", anchors: []anchor{{field: "C"}}, tomb: tomb("B", 2)},
			"type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
				"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n\n" + b2 + "}\n"},
		{"fields not apart", dense, item{kind: kindTombstone, field: "B", anchors: []anchor{{field: "A"}}, tomb: tomb("B", 2)},
			"type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n" + b2 +
				"\n\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n}\n"},
		{"one gap of two blank", mixed, item{kind: kindTombstone, field: "B", anchors: []anchor{{field: "D"}}, tomb: tomb("B", 2)},
			"type S struct {\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
				"\tC string `json:\"c\" protobuf:\"bytes,3,opt,name=c\"`\n\tD string `json:\"d\" protobuf:\"bytes,4,opt,name=d\"`\n" + b2 + "}\n"},
		{"renumbered, tombstone at the end", spaced, item{kind: kindNumber, field: "C", oldNumber: 3, floor: 5, tomb: tomb("Z", 3)},
			"type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n\n" +
				"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,5,opt,name=c\"`\n\n" + z0 + "}\n"},
		{"renumbered, fields not apart", dense, item{kind: kindNumber, field: "C", oldNumber: 3, floor: 5, tomb: tomb("Z", 3)},
			"type S struct {\n\t// A is a.\n\tA string `json:\"a\" protobuf:\"bytes,1,opt,name=a\"`\n" +
				"\t// C is c.\n\tC string `json:\"c\" protobuf:\"bytes,5,opt,name=c\"`\n" + z0 + "}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(hdr + c.src)
			it := c.it
			it.file, it.dir, it.typ = name, "p/v1", "S"
			planFile(name, src, []*item{&it}, mapSource{name: src})
			if it.out.fix == nil {
				t.Fatalf("no fix: %+v", it.out)
			}
			out, err := applyEdits(src, it.out.fix.Edits)
			if err != nil {
				t.Fatal(err)
			}
			out, err = format.Source(out)
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			if got := strings.TrimPrefix(string(out), hdr); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
