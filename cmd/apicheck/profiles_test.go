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
// version may get fields alone, and a field removed from a served version
// is an error, with its usages at base a warning (the CRD and its
// controller ship together: no two-step removal).
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
	want := "error FIELD_REMOVED_FROM_SERVED_VERSION api/v1/types.go WidgetSpec.Legacy\n" +
		"warning FIELD_REMOVED_STILL_USED api/v1/types.go WidgetSpec.Legacy\n" +
		"error VERSION_SKEW api/v1/types.go WidgetSpec.Legacy"
	if got := rep.lines(); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if !rep.note("profile crd (detected") {
		t.Errorf("notes %q do not name the detected crd profile", rep.Notes)
	}
}

// Gardener's layout, detected from the module path: internal types in
// pkg/apis/core, the external v1beta1 with protobuf tags, and
// seedmanagement's served v1alpha1. Protobuf tags without kubebuilder
// markers alone would say kubernetes; each profile gives another set here
// (kubernetes accepts the optional bool and only notes the missing marker,
// crd caps the protobuf finding at info, both cap the alpha version).
func TestGardenerLayout(t *testing.T) {
	rep := checkJSON(t, `
-- base/go.mod --
module github.com/gardener/gardener

go 1.24
-- base/pkg/apis/core/types_shoot.go --
package core

// ShootSpec is the internal spec of a Shoot.
type ShootSpec struct {
	Purpose *string
	Region  string
}
-- base/pkg/apis/core/v1beta1/doc.go --
// +k8s:conversion-gen=github.com/gardener/gardener/pkg/apis/core
// +groupName=core.gardener.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/types_shoot.go --
package v1beta1

// ShootSpec is the specification of a Shoot.
type ShootSpec struct {
	// Purpose is the purpose class for this cluster.
	// +optional
	Purpose *string `+"`"+`json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"`+"`"+`
	// Region is a name of a region.
	Region string `+"`"+`json:"region" protobuf:"bytes,2,opt,name=region"`+"`"+`
}
-- base/pkg/apis/seedmanagement/v1alpha1/doc.go --
// +groupName=seedmanagement.gardener.cloud
package v1alpha1
-- base/pkg/apis/seedmanagement/v1alpha1/types.go --
package v1alpha1

// ManagedSeedSpec is the specification of a ManagedSeed.
type ManagedSeedSpec struct {
	// Shoot references a Shoot.
	// +optional
	Shoot *string `+"`"+`json:"shoot,omitempty" protobuf:"bytes,1,opt,name=shoot"`+"`"+`
}
-- head/pkg/apis/seedmanagement/v1alpha1/types.go --
package v1alpha1

// ManagedSeedSpec is the specification of a ManagedSeed.
type ManagedSeedSpec struct {
	// Shoot references a Shoot.
	// +optional
	Shoot *string `+"`"+`json:"shoot,omitempty" protobuf:"bytes,1,opt,name=shoot"`+"`"+`
	// Paused stops reconciliation.
	// +optional
	Paused bool `+"`"+`json:"paused,omitempty" protobuf:"varint,2,opt,name=paused"`+"`"+`
}
-- head/pkg/apis/core/types_shoot.go --
package core

// ShootSpec is the internal spec of a Shoot.
type ShootSpec struct {
	Purpose  *string
	Region   string
	Hibernated bool
	ExposureClassName *string
}
-- head/pkg/apis/core/v1beta1/types_shoot.go --
package v1beta1

// ShootSpec is the specification of a Shoot.
type ShootSpec struct {
	// Purpose is the purpose class for this cluster.
	// +optional
	Purpose *string `+"`"+`json:"purpose,omitempty" protobuf:"bytes,1,opt,name=purpose"`+"`"+`
	// Region is a name of a region.
	Region string `+"`"+`json:"region" protobuf:"bytes,2,opt,name=region"`+"`"+`
	// Hibernated says whether the cluster is hibernated.
	// +optional
	Hibernated bool `+"`"+`json:"hibernated,omitempty" protobuf:"varint,3,opt,name=hibernated"`+"`"+`
	// ExposureClassName is the optional name of an exposure class.
	ExposureClassName *string `+"`"+`json:"exposureClassName,omitempty"`+"`"+`
}
`)
	want := strings.Join([]string{
		"error NEW_FIELD_NOT_POINTER pkg/apis/core/v1beta1/types_shoot.go ShootSpec.Hibernated",
		// The checklist asks for +optional even where omitempty makes it optional.
		"error NEW_FIELD_NOT_OPTIONAL pkg/apis/core/v1beta1/types_shoot.go ShootSpec.ExposureClassName",
		"warning PROTO_TAG_MISSING pkg/apis/core/v1beta1/types_shoot.go ShootSpec.ExposureClassName",
		// Gardener serves v1alpha1 APIs that must stay compatible.
		"error NEW_FIELD_NOT_POINTER pkg/apis/seedmanagement/v1alpha1/types.go ManagedSeedSpec.Paused",
	}, "\n")
	if got := rep.lines(); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if !rep.note("profile gardener (detected") || rep.note("groups with their own profile") {
		t.Errorf("notes %q: want the detected gardener profile for every group", rep.Notes)
	}
}

// A Gardener extension, detected from its requirement of
// github.com/gardener/gardener: the provider configuration
// (pkg/apis/foo: WorkerConfig, WorkerStatus, without ObjectMeta, written by
// users into Shoots) is judged by the gardener profile, the controller's
// component configuration (pkg/apis/config) by the relaxed componentconfig
// sub-profile: the same new field is an error in one and a warning (the
// checklist applies, but a convention break is no client break) in the
// other, the same removal of a used field an error in one and info in the
// other.
func TestGardenerExtensionLayout(t *testing.T) {
	rep := checkJSON(t, `
-- base/go.mod --
module github.com/gardener/gardener-extension-provider-foo

go 1.24

require github.com/gardener/gardener v1.120.0
-- base/pkg/apis/foo/types_worker.go --
package foo

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WorkerConfig contains configuration settings for the worker nodes.
type WorkerConfig struct {
	metav1.TypeMeta
	IAMInstanceProfile *string
}
-- base/pkg/apis/foo/v1alpha1/doc.go --
// +k8s:conversion-gen=github.com/gardener/gardener-extension-provider-foo/pkg/apis/foo
// +groupName=foo.provider.extensions.gardener.cloud
package v1alpha1
-- base/pkg/apis/foo/v1alpha1/types_worker.go --
package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WorkerConfig contains configuration settings for the worker nodes.
type WorkerConfig struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// IAMInstanceProfile contains configuration for the IAM instance profile.
	// +optional
	IAMInstanceProfile *string `+"`"+`json:"iamInstanceProfile,omitempty"`+"`"+`
	// NodeTemplate contains resource information of the machine.
	// +optional
	NodeTemplate *string `+"`"+`json:"nodeTemplate,omitempty"`+"`"+`
}

// WorkerStatus contains information about created worker resources.
type WorkerStatus struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// MachineImages is a list of machine images that have been used in this worker.
	// +optional
	MachineImages []string `+"`"+`json:"machineImages,omitempty"`+"`"+`
}
-- base/pkg/apis/config/types.go --
package config

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ControllerConfiguration defines the configuration for the provider controller.
type ControllerConfiguration struct {
	metav1.TypeMeta
	ETCD ETCD
}

// ETCD is an etcd configuration.
type ETCD struct {
	StorageClassName *string
}
-- base/pkg/apis/config/v1alpha1/doc.go --
// +groupName=foo.provider.extensions.config.gardener.cloud
package v1alpha1
-- base/pkg/apis/config/v1alpha1/types.go --
package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ControllerConfiguration defines the configuration for the provider controller.
type ControllerConfiguration struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// ETCD is the etcd configuration.
	ETCD ETCD `+"`"+`json:"etcd"`+"`"+`
	// HealthCheckConfig is the config for the health check controller.
	// +optional
	HealthCheckConfig *string `+"`"+`json:"healthCheckConfig,omitempty"`+"`"+`
}

// ETCD is an etcd configuration.
type ETCD struct {
	// StorageClassName is the name of the storage class.
	// +optional
	StorageClassName *string `+"`"+`json:"storageClassName,omitempty"`+"`"+`
}
-- base/pkg/controller/worker/machines.go --
package worker

import (
	"github.com/gardener/gardener-extension-provider-foo/pkg/apis/config/v1alpha1"
	foov1alpha1 "github.com/gardener/gardener-extension-provider-foo/pkg/apis/foo/v1alpha1"
)

func nodeTemplate(w *foov1alpha1.WorkerConfig) *string { return w.NodeTemplate }

func healthCheck(c *v1alpha1.ControllerConfiguration) *string { return c.HealthCheckConfig }
-- head/pkg/controller/worker/machines.go --
package worker
-- head/pkg/apis/foo/v1alpha1/types_worker.go --
package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WorkerConfig contains configuration settings for the worker nodes.
type WorkerConfig struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// IAMInstanceProfile contains configuration for the IAM instance profile.
	// +optional
	IAMInstanceProfile *string `+"`"+`json:"iamInstanceProfile,omitempty"`+"`"+`
	// CPUCredits is the credit option for CPU usage.
	CPUCredits string `+"`"+`json:"cpuCredits"`+"`"+`
}

// WorkerStatus contains information about created worker resources.
type WorkerStatus struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// MachineImages is a list of machine images that have been used in this worker.
	// +optional
	MachineImages []string `+"`"+`json:"machineImages,omitempty"`+"`"+`
}
-- head/pkg/apis/config/v1alpha1/types.go --
package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ControllerConfiguration defines the configuration for the provider controller.
type ControllerConfiguration struct {
	metav1.TypeMeta `+"`"+`json:",inline"`+"`"+`
	// ETCD is the etcd configuration.
	ETCD ETCD `+"`"+`json:"etcd"`+"`"+`
}

// ETCD is an etcd configuration.
type ETCD struct {
	// StorageClassName is the name of the storage class.
	// +optional
	StorageClassName *string `+"`"+`json:"storageClassName,omitempty"`+"`"+`
	// BackupLeaderElection configures leader election of the backup sidecar.
	Replicas int32 `+"`"+`json:"replicas"`+"`"+`
}
`)
	want := strings.Join([]string{
		"info FIELD_REMOVED_STILL_USED pkg/apis/config/v1alpha1/types.go ControllerConfiguration.HealthCheckConfig",
		// Removed without deprecation and without a release note: the
		// checklist allows that with a `breaking operator` note.
		"warning RELEASE_NOTE_MISSING pkg/apis/config/v1alpha1/types.go ControllerConfiguration.HealthCheckConfig",
		"warning NEW_FIELD_NOT_OPTIONAL pkg/apis/config/v1alpha1/types.go ETCD.Replicas",
		"warning NEW_FIELD_NOT_POINTER pkg/apis/config/v1alpha1/types.go ETCD.Replicas",
		"warning NEW_FIELD_NO_OMITEMPTY pkg/apis/config/v1alpha1/types.go ETCD.Replicas",
		"info VERSION_SKEW pkg/apis/config/v1alpha1/types.go ETCD.Replicas",
		"error NEW_FIELD_NOT_OPTIONAL pkg/apis/foo/v1alpha1/types_worker.go WorkerConfig.CPUCredits",
		"error NEW_FIELD_NOT_POINTER pkg/apis/foo/v1alpha1/types_worker.go WorkerConfig.CPUCredits",
		"error NEW_FIELD_NO_OMITEMPTY pkg/apis/foo/v1alpha1/types_worker.go WorkerConfig.CPUCredits",
		"error VERSION_SKEW pkg/apis/foo/v1alpha1/types_worker.go WorkerConfig.CPUCredits",
		"error FIELD_REMOVED_STILL_USED pkg/apis/foo/v1alpha1/types_worker.go WorkerConfig.NodeTemplate",
	}, "\n")
	if got := rep.lines(); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if !rep.note("profile gardener (detected") || !rep.note("groups with their own profile: pkg/apis/config: componentconfig") {
		t.Errorf("notes %q: want the detected gardener profile with pkg/apis/config as componentconfig", rep.Notes)
	}
}
