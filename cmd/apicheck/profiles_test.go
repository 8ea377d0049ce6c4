package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

type jsonReport struct {
	Findings []struct {
		Rule, Severity, Path, Type, Field, Message string
	} `json:"findings"`
	Notes []string `json:"notes"`
}

func checkJSON(t *testing.T, archive string) jsonReport {
	t.Helper()
	fx := gitfixture.FromTxtar(t, []byte(archive))
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", fx.Commits["head"], "--format", "json", "--fail-on", "none")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return rep
}

func (r jsonReport) lines() string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Severity+" "+f.Rule+" "+f.Path+" "+f.Type+"."+f.Field)
	}
	return strings.Join(out, "\n")
}

func (r jsonReport) note(substr string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, substr) {
			return true
		}
	}
	return false
}

// Kubernetes' split layout, detected without configuration: internal types
// in pkg/apis/apps, the external version in staging/src/k8s.io/api/apps/v1
// (named by +k8s:conversion-gen-external-types in pkg/apis/apps/v1). A
// field added to the external version only is version skew across the two
// trees; the kubernetes profile is in effect.
func TestKubernetesSplitLayout(t *testing.T) {
	rep := checkJSON(t, `
-- base/go.mod --
module k8s.io/kubernetes

go 1.24

replace k8s.io/api => ./staging/src/k8s.io/api
-- base/staging/src/k8s.io/api/go.mod --
module k8s.io/api

go 1.24
-- base/pkg/apis/apps/types.go --
package apps

// DeploymentSpec is the internal spec.
type DeploymentSpec struct {
	Replicas int32
	Paused   bool
}
-- base/pkg/apis/apps/v1/doc.go --
// +k8s:conversion-gen=k8s.io/kubernetes/pkg/apis/apps
// +k8s:conversion-gen-external-types=k8s.io/api/apps/v1
// +groupName=apps
package v1
-- base/staging/src/k8s.io/api/apps/v1/doc.go --
// +groupName=apps
package v1
-- base/staging/src/k8s.io/api/apps/v1/types.go --
package v1

// DeploymentSpec is the spec.
type DeploymentSpec struct {
	// +optional
	Replicas *int32 `+"`json:\"replicas,omitempty\" protobuf:\"varint,1,opt,name=replicas\"`"+`
	// +optional
	Paused bool `+"`json:\"paused,omitempty\" protobuf:\"varint,7,opt,name=paused\"`"+`
}
-- head/staging/src/k8s.io/api/apps/v1/types.go --
package v1

// DeploymentSpec is the spec.
type DeploymentSpec struct {
	// +optional
	Replicas *int32 `+"`json:\"replicas,omitempty\" protobuf:\"varint,1,opt,name=replicas\"`"+`
	// +optional
	Paused bool `+"`json:\"paused,omitempty\" protobuf:\"varint,7,opt,name=paused\"`"+`
	// +optional
	MinReadySeconds int32 `+"`json:\"minReadySeconds,omitempty\" protobuf:\"varint,5,opt,name=minReadySeconds\"`"+`
}
`)
	want := "error VERSION_SKEW staging/src/k8s.io/api/apps/v1/types.go DeploymentSpec.MinReadySeconds"
	if got := rep.lines(); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if !rep.note("profile kubernetes (detected") {
		t.Errorf("notes %q do not name the detected kubernetes profile", rep.Notes)
	}
}

// A kubebuilder project, detected as crd: kube-api-linter's conventions
// accept a value whose validation rules out the zero value, the newest
// version may get fields alone, and a removed field with its usages is no
// two-step violation (the CRD and its controller ship together).
func TestCRDProject(t *testing.T) {
	rep := checkJSON(t, `
-- base/go.mod --
module example.com/widget-operator

go 1.24
-- base/api/v1beta1/groupversion_info.go --
// +kubebuilder:object:generate=true
// +groupName=widgets.example.com
package v1beta1

import "k8s.io/apimachinery/pkg/runtime/schema"

var GroupVersion = schema.GroupVersion{Group: "widgets.example.com", Version: "v1beta1"}
-- base/api/v1beta1/types.go --
package v1beta1

// WidgetSpec is the spec.
type WidgetSpec struct {
	// +optional
	Size *int32 `+"`json:\"size,omitempty\"`"+`
	// +optional
	Legacy *string `+"`json:\"legacy,omitempty\"`"+`
}
-- base/api/v1/groupversion_info.go --
// +kubebuilder:object:generate=true
// +groupName=widgets.example.com
package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

var GroupVersion = schema.GroupVersion{Group: "widgets.example.com", Version: "v1"}
-- base/api/v1/types.go --
package v1

// WidgetSpec is the spec.
type WidgetSpec struct {
	// +optional
	Size *int32 `+"`json:\"size,omitempty\"`"+`
	// +optional
	Legacy *string `+"`json:\"legacy,omitempty\"`"+`
}
-- base/internal/controller/widget.go --
package controller

import v1 "example.com/widget-operator/api/v1"

func legacy(w *v1.WidgetSpec) *string { return w.Legacy }
-- head/api/v1/types.go --
package v1

// WidgetSpec is the spec.
type WidgetSpec struct {
	// +optional
	Size *int32 `+"`json:\"size,omitempty\"`"+`
	// +optional
	// +kubebuilder:validation:MinLength=1
	Color string `+"`json:\"color,omitempty\"`"+`
}
-- head/internal/controller/widget.go --
package controller
`)
	// Legacy was removed from v1 only: skew (removals reach every version).
	want := "error VERSION_SKEW api/v1/types.go WidgetSpec.Legacy"
	if got := rep.lines(); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if !rep.note("profile crd (detected") {
		t.Errorf("notes %q do not name the detected crd profile", rep.Notes)
	}
}
