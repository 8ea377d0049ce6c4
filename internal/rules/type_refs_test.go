package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

func TestFieldSteps(t *testing.T) {
	for _, c := range []struct {
		name, typeID, json string
		want               string
	}{
		{"Spec", "Spec", `json:"spec"`, "spec"},
		{"Targets", "[]*Target", `json:"targets,omitempty"`, "targets.*"},
		{"Pools", "map[string]*Pool", `json:"pools"`, "pools.*"},
		{"Nested", "[]map[string][]Pool", `json:"nested"`, "nested.*.*.*"},
		{"Keyed", "map[map[string]int]Pool", `json:"keyed"`, "keyed.*"},
		{"Common", "Common", `json:",inline"`, ""},
	} {
		f := &model.Field{Name: c.name, TypeID: c.typeID, Type: c.typeID, Tag: c.json}
		name, opts, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(c.json, `json:"`), `"`), ",")
		f.JSON = model.JSONTag{Present: true, Name: name, Inline: strings.Contains(opts, "inline")}
		if got := strings.Join(fieldSteps(f), "."); got != c.want {
			t.Errorf("fieldSteps(%s %s %s) = %q, want %q", c.name, c.typeID, c.json, got, c.want)
		}
	}
}

func TestPathsTo(t *testing.T) {
	// Kind -> spec Spec -> targets []Target (and Target.Next *Target:
	// recursive); Other -> items map[string]Target.
	p := &model.Package{ImportPath: "ex/v1"}
	field := func(name, typeID, json string) *model.Field {
		return &model.Field{Name: name, Type: typeID, TypeID: typeID, JSON: model.JSONTag{Present: true, Name: json}}
	}
	p.Types = []*model.Type{
		{Name: "Kind", Kind: model.KindStruct, RootKind: true, Fields: []*model.Field{field("Spec", "Spec", "spec")}},
		{Name: "Other", Kind: model.KindStruct, RootKind: true, Fields: []*model.Field{field("Items", "map[string]Target", "items")}},
		{Name: "Spec", Kind: model.KindStruct, Fields: []*model.Field{field("Targets", "[]Target", "targets")}},
		{Name: "Target", Kind: model.KindStruct, Fields: []*model.Field{field("Next", "*Target", "next")}},
	}
	m := &model.Model{Groups: []*model.Group{{Versions: []*model.Package{p}}}}
	refs := refsOf(m)
	paths, ok := refs.pathsTo("ex/v1.Target")
	var got []string
	for _, kp := range paths {
		got = append(got, kp.root+" "+strings.Join(kp.steps, "."))
	}
	slices.Sort(got)
	want := []string{"ex/v1.Kind spec.targets.*", "ex/v1.Other items.*"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("pathsTo(Target) = %q, %v; want %q, true", got, ok, want)
	}
	if _, ok := refs.pathsTo("ex/v1.Missing"); ok {
		t.Error("pathsTo(Missing): ok")
	}
}
