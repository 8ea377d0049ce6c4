package check

import (
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

// TestChangesAPI: what starts the release lookup ahead. A diff of equal
// models changes nothing; each kind of addition, removal or field change
// does.
func TestChangesAPI(t *testing.T) {
	build := func(edit func(p *model.Package, typ *model.Type)) *model.Model {
		f := &model.Field{Name: "Replicas", Type: "*int32", JSON: model.JSONTag{Present: true, Name: "replicas", OmitEmpty: true}}
		typ := &model.Type{Name: "Spec", Kind: model.KindStruct, Fields: []*model.Field{f}}
		p := &model.Package{Dir: "pkg/apis/x/v1", ImportPath: "example.com/pkg/apis/x/v1", Name: "v1", Version: "v1",
			Types: []*model.Type{typ}, Consts: []*model.Const{{Name: "A", Value: `"a"`}}}
		if edit != nil {
			edit(p, typ)
		}
		m := &model.Model{Groups: []*model.Group{{Dir: "pkg/apis/x", Versions: []*model.Package{p}}}}
		m.Sort()
		return m
	}
	if changesAPI(model.Compare(build(nil), build(nil))) {
		t.Error("equal models: changesAPI = true")
	}
	for name, edit := range map[string]func(p *model.Package, typ *model.Type){
		"field added": func(_ *model.Package, typ *model.Type) {
			typ.Fields = append(typ.Fields, &model.Field{Name: "Paused", Type: "bool"})
		},
		"field removed": func(_ *model.Package, typ *model.Type) { typ.Fields = nil },
		"json renamed":  func(_ *model.Package, typ *model.Type) { typ.Fields[0].JSON.Name = "count" },
		"type added": func(p *model.Package, _ *model.Type) {
			p.Types = append(p.Types, &model.Type{Name: "Status", Kind: model.KindStruct})
		},
		"const removed": func(p *model.Package, _ *model.Type) { p.Consts = nil },
		"tombstone added": func(_ *model.Package, typ *model.Type) {
			typ.Tombstones = []*model.Tombstone{{FieldName: "Old", Proto: &model.ProtoTag{Wire: "varint", Number: 3, Label: "opt"}}}
		},
	} {
		if !changesAPI(model.Compare(build(nil), build(edit))) {
			t.Errorf("%s: changesAPI = false", name)
		}
	}
}
