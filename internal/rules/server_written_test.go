package rules

import (
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

func TestReadOnlyClient(t *testing.T) {
	status := &model.Field{Name: "Status", JSON: model.JSONTag{Present: true, Name: "status"}}
	for _, c := range []struct {
		name    string
		markers []string // "key=value" or "key"
		status  bool
		want    string
	}{
		{"readonly", []string{"genclient", "genclient:readonly"}, true, "+genclient:readonly"},
		{"onlyVerbs", []string{"genclient", "genclient:onlyVerbs=get,list,watch"}, true, "+genclient:onlyVerbs=get,list,watch"},
		{"spaces and a trailing comma", []string{"genclient", "genclient:onlyVerbs= watch , get,"}, true, "+genclient:onlyVerbs= watch , get,"},
		{"readonly and a read verb", []string{"genclient", "genclient:readonly", "genclient:onlyVerbs=delete"}, true, "+genclient:readonly +genclient:onlyVerbs=delete"},
		{"a method that reads", []string{"genclient", "genclient:readonly", "genclient:method=GetScale,verb=get,subresource=scale"}, true, "+genclient:readonly"},
		{"status verbs of a kind without status", []string{"genclient", "genclient:onlyVerbs=get,updateStatus"}, false, "+genclient:onlyVerbs=get,updateStatus"},
		{"every write skipped", []string{"genclient", "genclient:skipVerbs=create,update,updateStatus,patch,apply,applyStatus"}, true, "+genclient:skipVerbs=create,update,updateStatus,patch,apply,applyStatus"},
		{"every verb", []string{"genclient"}, true, ""},
		{"no client", []string{"genclient:readonly"}, true, ""},
		{"noVerbs", []string{"genclient", "genclient:noVerbs", "genclient:readonly"}, true, ""},
		{"create", []string{"genclient", "genclient:onlyVerbs=create"}, true, ""},
		{"readonly and create", []string{"genclient", "genclient:readonly", "genclient:onlyVerbs=create"}, true, ""},
		{"a second list with a write", []string{"genclient", "genclient:onlyVerbs=get", "genclient:onlyVerbs=patch"}, true, ""},
		{"status verbs of a kind with status", []string{"genclient", "genclient:onlyVerbs=get,updateStatus"}, true, ""},
		{"skipped writes, status kept", []string{"genclient", "genclient:skipVerbs=create,update,patch,apply"}, true, ""},
		{"unknown verb", []string{"genclient", "genclient:onlyVerbs=get,Create"}, true, ""},
		{"empty verb list", []string{"genclient", "genclient:onlyVerbs="}, true, ""},
		{"a method that updates", []string{"genclient", "genclient:readonly", "genclient:method=UpdateScale,verb=update,subresource=scale"}, true, ""},
		{"a method without a verb", []string{"genclient", "genclient:readonly", "genclient:method=Scale"}, true, ""},
	} {
		typ := &model.Type{Name: "K", Kind: model.KindStruct, RootKind: true}
		if c.status {
			typ.Fields = []*model.Field{status}
		}
		for _, m := range c.markers {
			k, v, _ := strings.Cut(m, "=")
			typ.Markers = append(typ.Markers, model.Marker{Key: k, Value: v})
		}
		if got := readOnlyClient(typ); got != c.want {
			t.Errorf("%s: readOnlyClient = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReviewRequest(t *testing.T) {
	field := func(name, typeID, json string) *model.Field {
		return &model.Field{Name: name, Type: typeID, TypeID: typeID, JSON: model.JSONTag{Present: true, Name: json}}
	}
	typeMeta := &model.Field{Name: "TypeMeta", Embedded: true, Type: "metav1.TypeMeta", JSON: model.JSONTag{Present: true, Inline: true}}
	req, resp := field("Request", "*Req", "request"), field("Response", "*Resp", "response")
	for _, c := range []struct {
		name    string
		fields  []*model.Field
		markers model.Markers
		want    *model.Field
	}{
		{"review", []*model.Field{typeMeta, req, resp}, nil, req},
		{"off the wire", []*model.Field{typeMeta, req, resp, field("Cache", "map[string]string", "-")}, nil, req},
		{"no response", []*model.Field{typeMeta, req}, nil, nil},
		{"no request", []*model.Field{typeMeta, resp}, nil, nil},
		{"object metadata", []*model.Field{typeMeta, field("ObjectMeta", "metav1.ObjectMeta", "metadata"), req, resp}, nil, nil},
		{"another member", []*model.Field{typeMeta, req, resp, field("Spec", "Spec", "spec")}, nil, nil},
		{"a value request", []*model.Field{typeMeta, field("Request", "Req", "request"), resp}, nil, nil},
		{"a generated client", []*model.Field{typeMeta, req, resp}, model.Markers{{Key: "genclient"}}, nil},
	} {
		typ := &model.Type{Name: "Review", Kind: model.KindStruct, RootKind: true, Fields: c.fields, Markers: c.markers}
		if got := reviewRequest(typ); got != c.want {
			t.Errorf("%s: reviewRequest = %v, want %v", c.name, got, c.want)
		}
	}
}
