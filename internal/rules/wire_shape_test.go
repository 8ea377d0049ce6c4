package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

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
