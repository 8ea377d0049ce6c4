package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// pairDiff is a diff with one existing external struct whose field A
// changed in the given way.
func pairDiff(mutate func(b, h *model.Field)) *model.Diff {
	mk := func() *model.Model {
		f := &model.Field{Name: "A", Type: "*string", Nillable: model.Nillable,
			JSON: model.JSONTag{Present: true, Name: "a", OmitEmpty: true}, Markers: model.Markers{{Key: "optional"}},
			Pos: model.Pos{File: "api/v1/types.go", Line: 5, Col: 2}}
		t := &model.Type{Name: "Spec", Kind: model.KindStruct, Fields: []*model.Field{f}, Pos: model.Pos{File: "api/v1/types.go", Line: 4, Col: 6}}
		p := &model.Package{Dir: "api/v1", ImportPath: "example.com/api/v1", Name: "v1", Version: "v1", Types: []*model.Type{t}, Files: []string{"api/v1/types.go"}}
		return &model.Model{Groups: []*model.Group{{Dir: "api", Profile: model.ProfileGardener, Versions: []*model.Package{p}}}}
	}
	base, head := mk(), mk()
	mutate(base.Groups[0].Versions[0].Types[0].Fields[0], head.Groups[0].Versions[0].Types[0].Fields[0])
	return model.Compare(base, head)
}

func ruleIDs(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

// A rule whose required analysis the run cannot provide does not run; a
// note names it and says why. Rules skipped for one reason share a note.
func TestRequiredInputMissing(t *testing.T) {
	ran := false
	needs := func(id string) *Rule {
		return &Rule{ID: id, Severity: finding.Error, Requires: []Input{InputRelease}, Check: func(c *Context) { ran = true }}
	}
	res, err := Run(pairDiff(func(b, h *model.Field) {}), []*Rule{needs("A_RULE"), needs("B_RULE")},
		Options{Analyses: Analyses{Unavailable: "audit reads one revision"}})
	if err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("a rule ran without its required input")
	}
	want := "A_RULE, B_RULE skipped: needs release history, which this run does not have (audit reads one revision)"
	if len(res.Notes) != 1 || res.Notes[0] != want {
		t.Errorf("notes = %q, want [%q]", res.Notes, want)
	}
}

// A rule that reads an input it did not declare is an internal error
// naming the rule, never a silent nil.
func TestUndeclaredInputIsAnError(t *testing.T) {
	r := &Rule{ID: "SNEAKY", Severity: finding.Error, Check: func(c *Context) { c.Usages() }}
	_, err := Run(pairDiff(func(b, h *model.Field) {}), []*Rule{r}, Options{})
	if err == nil || !strings.Contains(err.Error(), "SNEAKY") || !strings.Contains(err.Error(), "Requires") {
		t.Fatalf("err = %v, want an internal error naming SNEAKY and Requires", err)
	}
}

// The meta rule reports what no rule of the catalogue judges; a disabled
// rule's declared attributes still count as judged.
func TestJudgedAttributesAreDeclared(t *testing.T) {
	diff := func() *model.Diff {
		return pairDiff(func(b, h *model.Field) { h.Markers = append(h.Markers, model.Marker{Key: "listType", Value: "set"}) })
	}
	rs := []*Rule{ListTypeChanged, UnclassifiedChange}
	res, err := Run(diff(), rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ruleIDs(res.Findings), " "); got != "LIST_TYPE_CHANGED" {
		t.Errorf("findings = %s, want LIST_TYPE_CHANGED only", got)
	}
	res, err = Run(diff(), rs, Options{Disabled: map[string]bool{"LIST_TYPE_CHANGED": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("disabling a rule turned its change into %v", ruleIDs(res.Findings))
	}
	// Without the rule in the catalogue at all, the change is unclassified.
	res, err = Run(diff(), []*Rule{UnclassifiedChange}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ruleIDs(res.Findings), " "); got != "UNCLASSIFIED_CHANGE" {
		t.Errorf("findings = %s, want UNCLASSIFIED_CHANGE", got)
	}
}

// Relax caps the severity in a profile and leaves others alone.
func TestSeverityIn(t *testing.T) {
	if got := FieldRenamed.SeverityIn(model.ProfileComponentConfig, finding.Error); got != finding.Info {
		t.Errorf("componentconfig: %v, want info", got)
	}
	if got := JSONNameChanged.SeverityIn(model.ProfileComponentConfig, finding.Error); got != finding.Warning {
		t.Errorf("componentconfig: %v, want warning", got)
	}
	if got := NewFieldNotPointer.SeverityIn(model.ProfileGardener, finding.Error); got != finding.Error {
		t.Errorf("api: %v, want error", got)
	}
	if got := FieldRenamed.SeverityIn(model.ProfileComponentConfig, finding.Info); got != finding.Info {
		t.Errorf("a cap never raises: %v", got)
	}
}

// The first difference of two struct shapes, which FIELD_TYPE_CHANGED's
// message names, is the same on every run: members are compared in name
// order, never in map order.
func TestShapeDifferenceDeterministic(t *testing.T) {
	field := func(name string, required bool) *model.Field {
		c := &model.Contract{Name: name, Type: "string", Presence: model.Optional}
		if required {
			c.Presence = model.Required
		}
		return &model.Field{Name: strings.ToUpper(name), Type: "string", Contract: c}
	}
	var bf, hf []*model.Field
	for _, n := range []string{"m", "k", "z", "b", "q", "d", "x", "h"} {
		bf = append(bf, field(n, false))
		hf = append(hf, field(n, n == "q" || n == "x")) // two members became required
	}
	bf = append(bf, field("c", false), field("w", false)) // two members are gone at head
	p := func(name string, fs []*model.Field) *model.Package {
		return &model.Package{ImportPath: "example.com/api/v1", Types: []*model.Type{{Name: name, Kind: model.KindStruct, Fields: fs}}}
	}
	base := typeSide{pkg: p("Artifact", bf), id: "Artifact"}
	head := typeSide{pkg: p("ArtifactV2", hf), id: "ArtifactV2"}
	for range 30 {
		res := compareShapesDropped(base, head, shapeOpts{})
		m, why := res.match, res.why
		if m != shapeDifferent || why != `member "c" is gone` {
			t.Fatalf("compareShapesDropped = %v, %q; want different, the first member in name order", m, why)
		}
	}
}

// A type compared below an alpha member and found different is still
// different when a stable member reaches it: letting the alpha member go
// does not let the stable one go with it.
func TestShapeAlphaMemberDoesNotHideStable(t *testing.T) {
	member := func(name, typ string, alpha bool) *model.Field {
		return &model.Field{Name: strings.ToUpper(name), Type: typ, Alpha: alpha,
			Contract: &model.Contract{Name: name, Type: typ, Presence: model.Optional}}
	}
	// S (R at head) has members that point to T at base and to U at
	// head, whose x changed from int32 to string.
	pkg := func(name, target, xType string, members ...string) *model.Package {
		var fs []*model.Field
		for _, m := range members {
			fs = append(fs, member(m, "*"+target, m == "a"))
		}
		return &model.Package{ImportPath: "example.com/api/v1", Types: []*model.Type{
			{Name: name, Kind: model.KindStruct, Fields: fs},
			{Name: target, Kind: model.KindStruct, Fields: []*model.Field{member("x", xType, false)}},
		}}
	}
	for _, c := range []struct {
		members []string // "a" is alpha
		want    shapeMatch
	}{
		{[]string{"a", "b"}, shapeDifferent},
		{[]string{"a"}, shapeSame},
	} {
		base := typeSide{pkg: pkg("S", "T", "int32", c.members...), id: "S"}
		head := typeSide{pkg: pkg("R", "U", "string", c.members...), id: "R"}
		res := compareShapesDropped(base, head, shapeOpts{alphaGoes: true})
		if res.match != c.want || !slices.Equal(res.alphaGone, []string{"a"}) {
			t.Errorf("members %v: match %v, alpha gone %v; want %v, [a]", c.members, res.match, res.alphaGone, c.want)
		}
	}
}

// TestMergeNotes: the notes of runs over parts of a tree read as one run
// over the whole: a statement once, the rules skipped for one reason in
// one note in the catalogue's order, counts summed.
func TestMergeNotes(t *testing.T) {
	rs := []*Rule{{ID: "A"}, {ID: "Z", Last: true}, {ID: "B"}, {ID: "C"}}
	parts := []*Result{
		{plain: []string{"usages at base typed"}, skips: []skipNote{{why: "no release", ids: []string{"C"}}},
			counts: []countNote{{format: "could not judge %d field(s)", n: 2}}},
		{plain: []string{"usages at base typed", "manifests not read"},
			skips:  []skipNote{{why: "no release", ids: []string{"Z", "A"}}, {why: "no manifests", ids: []string{"B"}}},
			counts: []countNote{{format: "could not judge %d field(s)", n: 3}}},
		{},
	}
	got := MergeNotes(parts, rs)
	want := []string{
		"usages at base typed", "manifests not read",
		"A, C, Z skipped: no release", "B skipped: no manifests",
		"could not judge 5 field(s)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("MergeNotes =\n%q\nwant\n%q", got, want)
	}
}
