package notes

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/model"
)

func TestDeprecationText(t *testing.T) {
	for doc, want := range map[string]string{
		"Foo is a thing.":                            "",
		"Foo is a thing.\n\nDeprecated: use bar":     "use bar.",
		"Foo.\n\nDeprecated: Use bar.\nSoon gone.":   "Use bar. Soon gone.",
		"Foo.\n\nDeprecated: x.\n\nMore text after.": "x.",
		"Deprecated:": "",
		// The other styles the scan reads as deprecations.
		"Foo.\nDeprecated, will be removed with next major version": "will be removed with next major version.",
		"DEPRECATED - use spec.outputs instead.":                    "use `spec.outputs` instead.",
		"Deprecated":                                                "",
		"Deprecated declares the spec deprecated.":                  "",
	} {
		if got := deprecationText(doc); got != want {
			t.Errorf("deprecationText(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, nil); err != nil || b.String() != None {
		t.Errorf("empty: %q, %v", b.String(), err)
	}
	b.Reset()
	blocks := []Block{{Category: "breaking", Audience: "user", Lines: []string{"a", "b"}}, {Category: "feature", Audience: "operator", Lines: []string{"c"}}}
	if err := Render(&b, blocks); err != nil {
		t.Fatal(err)
	}
	want := "```breaking user\na\nb\n```\n\n```feature operator\nc\n```\n"
	if b.String() != want {
		t.Errorf("Render = %q, want %q", b.String(), want)
	}
}

func TestQuoteReplacement(t *testing.T) {
	for in, want := range map[string]string{
		"Use .spec.network instead.": "Use `.spec.network` instead.",
		"use spec.foo instead":       "use `spec.foo` instead",
		"This field is deprecated. Please use spec.access.kubeconfig instead.": "This field is deprecated. Please use `spec.access.kubeconfig` instead.",
		"please use spec.x.":                                  "please use `spec.x`.",
		"Please use \"spec.q\". It goes away in v2.":          "Please use `spec.q`. It goes away in v2.",
		"Deprecated in favour of spec.z; it will be removed.": "Deprecated in favour of `spec.z`; it will be removed.",
		"Removed soon (deprecated in favor of spec.y).":       "Removed soon (deprecated in favor of `spec.y`).",
		"Use the new field Access instead.":                   "Use the new field `Access` instead.",
		"This field is deprecated in favor of `.spec.y`.":     "This field is deprecated in favor of `.spec.y`.",
		"Do not use this field.":                              "Do not use this field.",
		"Use it with care instead of relying on defaults.":    "Use it with care instead of relying on defaults.",
		"No longer used by the controller.":                   "No longer used by the controller.",
		"":                                                    "",
	} {
		if got := quoteReplacement(in); got != want {
			t.Errorf("quoteReplacement(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAudienceDefaults(t *testing.T) {
	group := func(profile model.Profile, dir, name string) *model.GroupDiff {
		return &model.GroupDiff{Dir: dir, Head: &model.Group{Dir: dir, Name: name, Profile: profile}}
	}
	core := group(model.ProfileGardener, "pkg/apis/core", "core.gardener.cloud")
	for _, c := range []struct {
		gd   *model.GroupDiff
		kind string
		want string
	}{
		{core, "Shoot", "user"},
		{core, "Project", "user"},
		{core, "SecretBinding", "user"},
		{core, "Quota", "user"},
		{group(model.ProfileGardener, "pkg/apis/security", "security.gardener.cloud"), "CredentialsBinding", "user"},
		{core, "Seed", "operator"},
		{core, "BackupBucket", "operator"},
		{core, "ControllerRegistration", "operator"},
		{core, "CloudProfile", "operator"},
		{group(model.ProfileGardener, "pkg/apis/seedmanagement", "seedmanagement.gardener.cloud"), "ManagedSeed", "operator"},
		{group(model.ProfileGardener, "pkg/apis/operator", "operator.gardener.cloud"), "Garden", "operator"},
		{group(model.ProfileGardener, "pkg/apis/operator", ""), "Anything", "operator"},
		{group(model.ProfileGardener, "pkg/apis/extensions", "extensions.gardener.cloud"), "Worker", "developer"},
		{group(model.ProfileGardener, "pkg/apis/extensions", ""), "Worker", "developer"},
		{group(model.ProfileComponentConfig, "pkg/gardenlet/apis/config", "gardenlet.config.gardener.cloud"), "GardenletConfiguration", "operator"},
		{group(model.ProfileKubernetes, "pkg/apis/extensions", "extensions"), "Ingress", "user"},
		{group(model.ProfileKubernetes, "pkg/apis/core", ""), "Seed", "user"},
		{group(model.ProfileCRD, "api", "example.com"), "Widget", "user"},
		{group(model.ProfileComponentConfig, "pkg/apis/config", ""), "Config", "operator"},
	} {
		if got := Audience(c.gd, c.kind, config.ReleaseNotes{}); got != c.want {
			t.Errorf("Audience(%s %s (%s), %s) = %q, want %q", c.gd.Dir, c.gd.Head.Name, c.gd.Head.Profile, c.kind, got, c.want)
		}
	}
	// The configuration comes first.
	rn := config.ReleaseNotes{Audiences: []config.Audience{
		{Group: "core.gardener.cloud", Kind: "Seed", Audience: "user"},
		{Group: "pkg/apis/extensions", Audience: "operator"},
	}}
	for _, c := range []struct {
		gd         *model.GroupDiff
		kind, want string
	}{
		{core, "Seed", "user"},
		{core, "Garden", "operator"}, // not configured: the default
		{group(model.ProfileGardener, "pkg/apis/extensions", "extensions.gardener.cloud"), "Worker", "operator"},
	} {
		if got := Audience(c.gd, c.kind, rn); got != c.want {
			t.Errorf("configured: Audience(%s, %s) = %q, want %q", c.gd.Dir, c.kind, got, c.want)
		}
	}
}

func TestAddedLeaves(t *testing.T) {
	field := func(name, typ, json string, optional bool) *model.Field {
		f := &model.Field{Name: name, Type: typ, JSON: model.JSONTag{Present: true, Name: json, OmitEmpty: optional}}
		if optional {
			f.Markers = model.Markers{{Key: "optional"}}
		}
		return f
	}
	strct := func(name string, fs ...*model.Field) *model.Type {
		return &model.Type{Name: name, Kind: model.KindStruct, Fields: fs}
	}
	many := strct("Many")
	for i := range 9 {
		many.Fields = append(many.Fields, field("F"+string(rune('A'+i)), "*string", "f"+string(rune('a'+i)), true))
	}
	existing := strct("Existing", field("X", "*string", "x", true))
	head := &model.Package{Types: []*model.Type{
		strct("Zones", field("AllowZonePinning", "*bool", "allowZonePinning", true), field("Spread", "*Spread", "spread", true)),
		strct("Spread", field("MaxSkew", "int32", "maxSkew", false)),
		strct("Inlines", &model.Field{Name: "Existing", Type: "Existing", Embedded: true}),
		existing, many,
	}}
	pd := &model.PackageDiff{Head: head, Base: &model.Package{Types: []*model.Type{existing}}}
	for _, t := range head.Types {
		td := &model.TypeDiff{Pkg: pd, Head: t}
		if t.Name == "Existing" {
			td.Base = t
		}
		pd.Types = append(pd.Types, td)
	}
	for _, c := range []struct {
		f    *model.Field
		want string
	}{
		{field("Zones", "*Zones", "zones", true), ".x.zones.allowZonePinning .x.zones.spread.maxSkew"},
		{field("Zones", "[]Zones", "zones", true), ".x.zones"},          // a list is the feature
		{field("Zones", "map[string]Zones", "zones", true), ".x.zones"}, // so is a map
		{field("E", "*Existing", "e", true), ".x.e"},                    // an existing type
		{field("I", "*Inlines", "i", true), ".x.i"},                     // a member inlined from an existing type
		{field("M", "*Many", "m", true), ".x.m (9)"},                    // too many to list
		{field("S", "*string", "s", true), ".x.s"},
	} {
		var got []string
		for _, l := range addedLeaves(pd, c.f, ".x."+c.f.JSON.Name) {
			s := l.path
			if l.more > 0 {
				s += " (" + strconv.Itoa(l.more) + ")"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("addedLeaves(%s %s) = %q, want %q", c.f.Name, c.f.Type, got, c.want)
		}
	}
}
