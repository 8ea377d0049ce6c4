package scan_test

import (
	"maps"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// crdManifest is a CustomResourceDefinition of group for kind, at
// apiextensions.k8s.io/v1beta1 without a schema (an old operator's
// hand-written deploy/crds).
func crdManifest(group, kind, plural string) string {
	return "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural + "." + group +
		"\nspec:\n  group: " + group + "\n  names:\n    kind: " + kind + "\n    plural: " + plural + "\n  version: v1\n"
}

// Profile detection weighs how the API is served, and says what decided
// it: CRD manifests that define the kinds outweigh an internal version;
// a github.com/gardener module whose API is plain CRDs without Gardener's
// conventions is crd; Gardener's extensions (internal versions) and
// Gardener itself (protobuf) stay gardener, k8s.io/api stays kubernetes.
func TestProfileFromHowTheAPIIsServed(t *testing.T) {
	kind := "\n// Database is a kind.\ntype Database struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\tSpec Spec `json:\"spec\"`\n}\n"
	version := "// +groupName=db.example.io\npackage v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n// Spec is a spec.\ntype Spec struct {\n\t// +optional\n\tSize *string `json:\"size,omitempty\"`\n}\n" + kind
	// An operator whose group has an internal version (the hub of its
	// conversion webhook) and hand-written v1beta1 CRDs.
	hub := mapSource{
		"go.mod":                  "module example.com/db-operator\n\ngo 1.22\n",
		"pkg/apis/db/types.go":    "package db\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n// Spec is a spec.\ntype Spec struct{ Size *string }\n" + kind,
		"pkg/apis/db/v1/types.go": version,
	}
	served := maps.Clone(hub)
	served["deploy/crds/db.example.io_databases_crd.yaml"] = crdManifest("db.example.io", "Database", "databases")
	// A manifest of another group serves nothing of this one.
	other := maps.Clone(hub)
	other["deploy/crds/other_crd.yaml"] = crdManifest("other.example.io", "Database", "databases")

	markers := "// +kubebuilder:object:root=true\n"
	kb := "// +groupName=druid.gardener.cloud\npackage v1alpha1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
		markers + "// Etcd is a kind.\ntype Etcd struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\t// +optional\n\tSpec *EtcdSpec `json:\"spec,omitempty\"`\n}\n\n" +
		"// EtcdSpec is a spec.\ntype EtcdSpec struct {\n\t// +optional\n\tReplicas *int32 `json:\"replicas,omitempty\"`\n}\n"
	druid := mapSource{
		"go.mod":                     "module github.com/gardener/etcd-druid\n\ngo 1.22\n",
		"api/core/v1alpha1/types.go": kb,
		"config/crd/bases/druid.gardener.cloud_etcds.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: etcds.druid.gardener.cloud\n" +
			"spec:\n  group: druid.gardener.cloud\n  names:\n    kind: Etcd\n    plural: etcds\n  versions:\n  - name: v1alpha1\n    served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n",
	}
	// The same with protobuf tags (Gardener's conventions): gardener.
	druidProto := maps.Clone(druid)
	druidProto["api/core/v1alpha1/types.go"] = kb + "\n// Backup is a part.\ntype Backup struct {\n\t// +optional\n\tStore *string `json:\"store,omitempty\" protobuf:\"bytes,1,opt,name=store\"`\n}\n"
	// Without the CRD manifests: gardener.
	druidNoCRDs := maps.Clone(druid)
	delete(druidNoCRDs, "config/crd/bases/druid.gardener.cloud_etcds.yaml")
	// A Gardener extension: internal versions of its provider API.
	ext := mapSource{
		"go.mod":              "module github.com/gardener/gardener-extension-provider-x\n\ngo 1.22\n",
		"pkg/apis/x/types.go": "package x\n\n// InfrastructureConfig is a kind.\ntype InfrastructureConfig struct {\n\tmetav1.TypeMeta\n\tZone string\n}\n",
		"pkg/apis/x/v1alpha1/types.go": "// +groupName=x.provider.extensions.gardener.cloud\npackage v1alpha1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
			"// InfrastructureConfig is a kind.\ntype InfrastructureConfig struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\t// +optional\n\tZone *string `json:\"zone,omitempty\"`\n}\n",
		"example/crds/10-crd-x.yaml": crdManifest("x.provider.extensions.gardener.cloud", "InfrastructureConfig", "infrastructureconfigs"),
	}
	// k8s.io's sample-controller serves its kinds as CRDs.
	sample := mapSource{
		"go.mod":                      "module k8s.io/sample-controller\n\ngo 1.22\n",
		"pkg/apis/db/v1/types.go":     version,
		"artifacts/examples/crd.yaml": crdManifest("db.example.io", "Database", "databases"),
	}
	k8sAPI := mapSource{
		"go.mod":                "module k8s.io/api\n\ngo 1.22\n",
		"db/v1/types.go":        version,
		"db/v1/generated.proto": "syntax = \"proto2\";\n",
	}
	for _, c := range []struct {
		name       string
		src        mapSource
		want       model.Profile
		wantReason string
	}{
		{"internal version, no manifests", hub, model.ProfileKubernetes,
			"internal version pkg/apis/db declares the kinds of its versions: an API server's conversion hub"},
		{"internal version and v1beta1 CRDs", served, model.ProfileCRD,
			"CRD manifests in deploy/crds serve the kinds, which outweighs the internal version pkg/apis/db"},
		{"another group's CRDs", other, model.ProfileKubernetes,
			"internal version pkg/apis/db declares the kinds of its versions: an API server's conversion hub"},
		{"gardener module, plain CRDs", druid, model.ProfileCRD,
			"module github.com/gardener/etcd-druid, but its API is plain CRDs without Gardener's conventions: +kubebuilder markers, " +
				"CRD manifests in config/crd/bases serve the kinds, no protobuf tags, no internal version"},
		{"gardener module, protobuf tags", druidProto, model.ProfileGardener, "module github.com/gardener/etcd-druid"},
		{"gardener module, no manifests", druidNoCRDs, model.ProfileGardener, "module github.com/gardener/etcd-druid"},
		{"gardener extension", ext, model.ProfileGardener, "module github.com/gardener/gardener-extension-provider-x"},
		{"k8s.io module with CRDs", sample, model.ProfileCRD, "module k8s.io/sample-controller, but CRD manifests in artifacts/examples serve the kinds"},
		{"k8s.io/api", k8sAPI, model.ProfileKubernetes, "module k8s.io/api"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := scan.Scan(c.src, scan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Profile != c.want || m.ProfileReason != c.wantReason {
				t.Errorf("profile %s (%s),\nwant %s (%s)", m.Profile, m.ProfileReason, c.want, c.wantReason)
			}
		})
	}
	// A configured profile has no reason to give.
	if m, err := scan.Scan(served, scan.Options{Profile: model.ProfileKubernetes}); err != nil || m.ProfileReason != "" {
		t.Errorf("configured: reason %q, err %v", m.ProfileReason, err)
	}
}
