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

// removalDiff is a diff whose one external struct lost its field A, in a
// group of profile p.
func removalDiff(p model.Profile) *model.Diff {
	mk := func(fields ...*model.Field) *model.Model {
		t := &model.Type{Name: "Spec", Kind: model.KindStruct, Fields: fields, Pos: model.Pos{File: "api/v1/types.go", Line: 4, Col: 6}}
		pkg := &model.Package{Dir: "api/v1", ImportPath: "example.com/api/v1", Name: "v1", Version: "v1", Maturity: model.GA,
			Types: []*model.Type{t}, Files: []string{"api/v1/types.go"}}
		return &model.Model{Groups: []*model.Group{{Dir: "api", Profile: p, Versions: []*model.Package{pkg}}}}
	}
	a := &model.Field{Name: "A", Type: "*string", Nillable: model.Nillable,
		JSON: model.JSONTag{Present: true, Name: "a", OmitEmpty: true}, Markers: model.Markers{{Key: "optional"}},
		Pos: model.Pos{File: "api/v1/types.go", Line: 5, Col: 2}}
	return model.Compare(mk(a), mk())
}

// A removed field that no rule judging removals judged (off in its
// profile, or skipped for want of an analysis) is UNCLASSIFIED_CHANGE,
// never silent; a disabled rule still counts as judging it.
func TestUnjudgedRemoval(t *testing.T) {
	for _, c := range []struct {
		name     string
		profile  model.Profile
		rules    []*Rule
		disabled map[string]bool
		want     string
	}{
		{"judging rule skipped", model.ProfileGardener, []*Rule{FieldRemovedStillUsed, UnclassifiedChange}, nil, "UNCLASSIFIED_CHANGE"},
		{"judging rule disabled", model.ProfileGardener, []*Rule{FieldRemovedStillUsed, UnclassifiedChange}, map[string]bool{FieldRemovedStillUsed.ID: true}, ""},
		{"judging rule off in the profile", model.ProfileCRD, []*Rule{FieldRemovalNotReleased, UnclassifiedChange}, nil, "UNCLASSIFIED_CHANGE"},
		{"judging rule reports", model.ProfileCRD, []*Rule{FieldRemovedFromServedVersion, UnclassifiedChange}, nil, "FIELD_REMOVED_FROM_SERVED_VERSION"},
		{"no rule judges removals", model.ProfileGardener, []*Rule{UnclassifiedChange}, nil, "UNCLASSIFIED_CHANGE"},
	} {
		res, err := Run(removalDiff(c.profile), c.rules, Options{Disabled: c.disabled})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(ruleIDs(res.Findings), " "); got != c.want {
			t.Errorf("%s: findings = %q, want %q", c.name, got, c.want)
		}
	}
}
