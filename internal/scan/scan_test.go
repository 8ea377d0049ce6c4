package scan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// mapSource is an in-memory revision.
type mapSource map[string]string

func (m mapSource) Files() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (m mapSource) ReadFiles(paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range paths {
		v, ok := m[p]
		if !ok {
			return nil, errors.New("no file " + p)
		}
		out[p] = []byte(v)
	}
	return out, nil
}

const shootTypes = `package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"example.com/repo/pkg/shared"
)

// +genclient
// +genclient:nonNamespaced

// Shoot is a cluster.
type Shoot struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`" + `
	Spec ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// Purpose is it.
	// Deprecated: use Usage.
	// +optional
	// +listType=atomic
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	Resources corev1.ResourceList ` + "`json:\"resources,omitempty\" protobuf:\"bytes,2,rep,name=resources\"`" + `
	Labels shared.Labels ` + "`json:\"labels,omitempty\" protobuf:\"bytes,3,rep,name=labels\"`" + `
	Window shared.Window ` + "`json:\"window\" protobuf:\"bytes,4,opt,name=window\"`" + `
	Mode Mode ` + "`json:\"mode\" protobuf:\"bytes,5,opt,name=mode,casttype=Mode\"`" + `
	Odd *string ` + "`json:\"odd\" protobuf:\"bytes,zz,opt,name=odd\"`" + `
	Unknown other.Thing ` + "`json:\"unknown\"`" + `
	// Gone is tombstoned to show why 6 is reserved protobuf tag.
	// Gone *string ` + "`json:\"gone,omitempty\" protobuf:\"bytes,6,opt,name=gone\"`" + `
}

// Mode is a mode.
type Mode string

const (
	// ModeA is a.
	ModeA Mode = "a"
	ModeB      = Mode("b")
	notExported Mode = "c"
	untyped = 3
)
`

func baseRepo() mapSource {
	return mapSource{
		"go.mod":                                         "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/types.go":                         "package core\n\ntype Shoot struct{ Spec ShootSpec }\n\ntype ShootSpec struct{ Purpose *string }\n",
		"pkg/apis/core/v1beta1/doc.go":                   "// +k8s:deepcopy-gen=package\n\n// +groupName=core.gardener.cloud\npackage v1beta1\n",
		"pkg/apis/core/v1beta1/types.go":                 shootTypes,
		"pkg/apis/core/v1beta1/generated.proto":          "syntax = \"proto2\";\n",
		"pkg/apis/core/v1beta1/zz_generated.deepcopy.go": "package v1beta1\n\ntype NotScanned struct{}\n",
		"pkg/apis/core/v1beta1/types_test.go":            "package v1beta1\n\ntype AlsoNotScanned struct{}\n",
		"pkg/apis/core/helper/helper.go":                 "package helper\n",
		"pkg/shared/shared.go":                           "package shared\n\ntype Labels map[string]string\n\ntype Window struct{ Begin string }\n",
		// A vN directory that declares no group is not an API version.
		"pkg/util/v1/util.go": "package v1\n\ntype Helper struct{}\n",
		// Component configuration, nested module.
		"pkg/gardenlet/apis/go.mod":                      "module example.com/repo/pkg/gardenlet/apis\n\ngo 1.22\n",
		"pkg/gardenlet/apis/config/types.go":             "package config\n\ntype GardenletConfiguration struct{ A *string }\n",
		"pkg/gardenlet/apis/config/v1alpha1/register.go": "package v1alpha1\n\nvar SchemeGroupVersion = 1\n\ntype GardenletConfiguration struct{ A *string }\n",
	}
}

func TestScanDiscoveryAndModel(t *testing.T) {
	m, err := scan.Scan(baseRepo(), scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range m.Groups {
		var vs []string
		for _, p := range g.Packages() {
			vs = append(vs, p.ImportPath+"@"+p.Version)
		}
		groups = append(groups, g.Dir+" "+string(g.Profile)+" "+g.Name+" "+strings.Join(vs, ","))
	}
	want := []string{
		"pkg/apis/core kubernetes core.gardener.cloud example.com/repo/pkg/apis/core@,example.com/repo/pkg/apis/core/v1beta1@v1beta1",
		"pkg/gardenlet/apis/config componentconfig  example.com/repo/pkg/gardenlet/apis/config@,example.com/repo/pkg/gardenlet/apis/config/v1alpha1@v1alpha1",
	}
	if d := cmp.Diff(want, groups); d != "" {
		t.Fatalf("groups (-want +got):\n%s", d)
	}
	v := m.Groups[0].Version("v1beta1")
	var types []string
	for _, ty := range v.Types {
		types = append(types, ty.Name)
	}
	if d := cmp.Diff([]string{"Mode", "Shoot", "ShootSpec"}, types); d != "" {
		t.Errorf("types (-want +got):\n%s", d)
	}
	if !v.Type("Shoot").RootKind || v.Type("ShootSpec").RootKind {
		t.Errorf("root kinds wrong")
	}
	if !v.Type("Shoot").Markers.Has("genclient:nonNamespaced") {
		t.Errorf("markers of the comment group above the doc comment are missing: %v", v.Type("Shoot").Markers)
	}
	spec := v.Type("ShootSpec")
	purpose := spec.Field("Purpose")
	if !purpose.Optional() || !purpose.Deprecated || purpose.Proto.Number != 1 || !purpose.Omits() {
		t.Errorf("Purpose parsed wrong: %+v", purpose)
	}
	if lt, _ := purpose.Markers.Get("listType"); lt != "atomic" {
		t.Errorf("listType = %q", lt)
	}
	nill := map[string]model.Nillability{}
	for _, f := range spec.Fields {
		nill[f.Name] = f.Nillable
	}
	wantNill := map[string]model.Nillability{
		"Purpose": model.Nillable, "Resources": model.Nillable, "Labels": model.Nillable,
		"Window": model.NotNillable, "Mode": model.NotNillable, "Odd": model.Nillable, "Unknown": model.NillUnknown,
	}
	if d := cmp.Diff(wantNill, nill); d != "" {
		t.Errorf("nillability (-want +got):\n%s", d)
	}
	if odd := spec.Field("Odd"); odd.Proto != nil || !strings.Contains(odd.ProtoErr, "zz") {
		t.Errorf("malformed protobuf tag not recorded: %+v", odd)
	}
	if len(spec.Tombstones) != 1 || spec.Tombstones[0].FieldName != "Gone" || spec.Tombstones[0].Proto.Number != 6 || spec.Tombstones[0].Problem != "" {
		t.Errorf("tombstones: %+v", spec.Tombstones)
	}
	var consts []string
	for _, c := range v.Consts {
		consts = append(consts, c.Name+"="+c.Value)
	}
	if d := cmp.Diff([]string{`ModeA="a"`, `ModeB=Mode("b")`}, consts); d != "" {
		t.Errorf("consts (-want +got):\n%s", d)
	}
	paths := v.APIPaths()
	if paths["ShootSpec"] != "Shoot.spec" {
		t.Errorf("APIPaths = %v", paths)
	}
}

func TestScanErrors(t *testing.T) {
	src := baseRepo()
	src["pkg/apis/core/v1beta1/broken.go"] = "package v1beta1\n\ntype X struct {\n\tA int\n"
	_, err := scan.Scan(src, scan.Options{})
	var se *scan.Error
	if !errors.As(err, &se) || se.Pos.File != "pkg/apis/core/v1beta1/broken.go" || se.Pos.Line == 0 {
		t.Fatalf("want a scan error naming the file and line, got %v", err)
	}

	src = baseRepo()
	src["pkg/apis/core/v1beta1/dup.go"] = "package v1beta1\n\ntype ShootSpec struct{}\n"
	_, err = scan.Scan(src, scan.Options{})
	if err == nil || !strings.Contains(err.Error(), "declared twice") || !strings.Contains(err.Error(), "dup.go:3") {
		t.Fatalf("want a duplicate-type error with positions, got %v", err)
	}
}

func TestScanExplicitGroups(t *testing.T) {
	src := baseRepo()
	m, err := scan.Scan(src, scan.Options{Groups: []scan.GroupSpec{{Dir: "pkg/util", Profile: model.ProfileGardener}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 1 || m.Groups[0].Dir != "pkg/util" || m.Groups[0].Versions[0].Type("Helper") == nil {
		t.Fatalf("explicit group not scanned: %+v", m.Groups)
	}
	// A configured group that does not exist at this revision (say, base of
	// the change that adds it) is absent, not an error.
	m, err = scan.Scan(src, scan.Options{Groups: []scan.GroupSpec{{Dir: "pkg/nothing"}, {Dir: "pkg/util"}}})
	if err != nil || len(m.Groups) != 1 || m.Groups[0].Dir != "pkg/util" {
		t.Fatalf("want only pkg/util, got %v %+v", err, m)
	}
}

func TestComponentConfigDetection(t *testing.T) {
	kind := func(name string, meta bool) *model.Type {
		t := &model.Type{Name: name, Kind: model.KindStruct, RootKind: true,
			Fields: []*model.Field{{Name: "TypeMeta", Embedded: true}}}
		if meta {
			t.Fields = append(t.Fields, &model.Field{Name: "ObjectMeta", Embedded: true})
		}
		return t
	}
	for _, c := range []struct {
		dir, group string
		kinds      []*model.Type
		want       bool
	}{
		{"pkg/apis/core", "core.gardener.cloud", []*model.Type{kind("Shoot", true)}, false},
		{"pkg/controllermanager/apis/config", "", nil, true},
		{"pkg/apis/config/gardenlet", "", nil, true},
		{"pkg/kubelet/apis", "kubelet.config.k8s.io", nil, true},
		{"pkg/apis/operator", "operator.gardener.cloud", []*model.Type{kind("Garden", true)}, false},
		// An admission plugin's configuration: its kind has no ObjectMeta.
		{"plugin/pkg/shoot/dnsrewriting/apis/dnsrewriting", "dnsrewriting.admission.gardener.cloud",
			[]*model.Type{kind("Configuration", false)}, true},
		{"pkg/apis/kubelet", "kubelet.example.io", []*model.Type{kind("KubeletConfiguration", false)}, true},
		// A Gardener extension's provider configuration: no ObjectMeta, but
		// users write it into Shoots and it is stored; an API, not a file.
		{"pkg/apis/aws", "aws.provider.extensions.gardener.cloud",
			[]*model.Type{kind("InfrastructureConfig", false), kind("WorkerStatus", false)}, false},
		// Cluster API's runtime hooks: requests and responses on the wire.
		{"api/runtime/hooks", "hooks.runtime.cluster.x-k8s.io",
			[]*model.Type{kind("BeforeClusterCreateRequest", false), kind("BeforeClusterCreateResponse", false)}, false},
		// One configuration kind among others is not enough.
		{"pkg/apis/mixed", "mixed.example.io",
			[]*model.Type{kind("Configuration", false), kind("ControlPlaneConfig", false)}, false},
	} {
		g := &model.Group{Dir: c.dir, Name: c.group, Versions: []*model.Package{{Version: "v1alpha1", Types: c.kinds}}}
		if got := scan.IsComponentConfig(g); got != c.want {
			t.Errorf("IsComponentConfig(%s) = %v, want %v", c.dir, got, c.want)
		}
	}
}

// Discovery finds API groups only: generated clients that use another
// package's SchemeGroupVersion, test fixtures, vendored copies and sample
// code (controller-runtime's and code-generator's examples) are not
// groups, nor are configured exclusions, nor copies of other projects'
// APIs below a directory named external or externalapi; groups named
// example and external are.
func TestDiscoveryFindsOnlyAPIGroups(t *testing.T) {
	api := "// +groupName=core.example.cloud\npackage v1\n\n// Spec is a spec.\ntype Spec struct{}\n"
	src := mapSource{
		"go.mod":                    "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/types.go": api,
		"pkg/client/clientset/versioned/typed/core/v1/core_client.go": "package v1\n\nimport v1 \"example.com/repo/pkg/apis/core/v1\"\n\nvar _ = v1.SchemeGroupVersion\n\n// CoreV1Client is a client.\ntype CoreV1Client struct{}\n",
		"pkg/client/core/v1/lister.go":                                "package v1\n\nimport v1 \"example.com/repo/pkg/apis/core/v1\"\n\nvar _ = v1.SchemeGroupVersion\n\n// Lister lists.\ntype Lister struct{}\n",
		"test/e2e/apis/fixture/v1/types.go":                           api,
		"third_party/upstream/apis/v1alpha1/types.go":                 "// +groupName=upstream.io\npackage v1alpha1\n\n// Thing is upstream.\ntype Thing struct{}\n",
		"examples/conversion/pkg/apis/jobs/v1/types.go":               "// +groupName=jobs.example.org\npackage v1\n\n// Job is a sample.\ntype Job struct{}\n",
		"docs/samples/apis/demo/v1/types.go":                          "// +groupName=demo.example.org\npackage v1\n\n// Demo is a sample.\ntype Demo struct{}\n",
		"pkg/apis/example/v1/types.go":                                "// +groupName=example.example.cloud\npackage v1\n\n// Example is a kind of its own group.\ntype Example struct{}\n",
		"pkg/provider-local/apis/local/v1alpha1/types.go":             "// +groupName=local.provider.example.cloud\npackage v1alpha1\n\n// Config is local.\ntype Config struct{}\n",
		"pkg/apis/kb/v1/groupversion_info.go":                         "package v1\n\nimport \"k8s.io/apimachinery/pkg/runtime/schema\"\n\nvar GroupVersion = schema.GroupVersion{Group: \"kb.example.io\", Version: \"v1\"}\n\n// Widget is a kind.\ntype Widget struct{}\n",
		// Copies of other projects' APIs (Kuadrant's, vm-operator's), and
		// a group of the repository's own named external.
		"api/external/maistra/v1/types.go":            "// +groupName=maistra.io\npackage v1\n\n// Mesh is Maistra's.\ntype Mesh struct{}\n",
		"external/net-operator/api/v1alpha1/types.go": "// +groupName=netoperator.vmware.com\npackage v1alpha1\n\n// Net is net-operator's.\ntype Net struct{}\n",
		"pkg/externalapi/monitoring/v1/types.go":      "// +groupName=monitoring.coreos.com\npackage v1\n\n// Prometheus is prometheus-operator's.\ntype Prometheus struct{}\n",
		"pkg/apis/external/v1/types.go":               "// +groupName=external.example.cloud\npackage v1\n\n// Link is a kind of its own group.\ntype Link struct{}\n",
	}
	m, err := scan.Scan(src, scan.Options{Exclude: []string{"pkg/provider-local/**"}})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, g := range m.Groups {
		dirs = append(dirs, g.Dir)
	}
	if got, want := strings.Join(dirs, " "), "pkg/apis/core pkg/apis/example pkg/apis/external pkg/apis/kb"; got != want {
		t.Errorf("groups = %s, want %s", got, want)
	}
}

// An exclude pattern that names one version directory leaves that
// version out of its group; Discover reports what a scan would check.
func TestExcludeOneVersion(t *testing.T) {
	api := "// +groupName=core.example.cloud\npackage %s\n\n// Spec is a spec.\ntype Spec struct{}\n"
	src := mapSource{
		"go.mod":                          "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/types.go":       fmt.Sprintf(api, "v1"),
		"pkg/apis/core/v1alpha1/types.go": fmt.Sprintf(api, "v1alpha1"),
		"pkg/util/v1/util.go":             "package v1\n\ntype Helper struct{}\n",
	}
	opts := scan.Options{Exclude: []string{"pkg/apis/core/v1alpha1"}}
	m, err := scan.Scan(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 1 || len(m.Groups[0].Versions) != 1 || m.Groups[0].Versions[0].Version != "v1" {
		t.Errorf("groups = %+v", m.Groups)
	}
	for _, tc := range []struct {
		opts scan.Options
		want map[string][]string
	}{
		{opts, map[string][]string{"pkg/apis/core": {"pkg/apis/core/v1"}}},
		{scan.Options{}, map[string][]string{"pkg/apis/core": {"pkg/apis/core/v1", "pkg/apis/core/v1alpha1"}}},
		{scan.Options{Exclude: []string{"pkg/apis/**"}}, map[string][]string{}},
	} {
		got, err := scan.Discover(src, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Discover(%+v) (-want +got):\n%s", tc.opts, d)
		}
	}
}

// The repository's profile is detected from its modules and API markers;
// versions get their maturity from their names or the configuration.
func TestProfileAndMaturity(t *testing.T) {
	types := "// +groupName=core.example.cloud\npackage %s\n\n// Spec is a spec.\ntype Spec struct {\n\t// This is an alpha field and requires enabling the Foo feature gate.\n\t// +optional\n\tFoo *string `json:\"foo,omitempty\" protobuf:\"bytes,1,opt,name=foo\"`\n}\n"
	files := func(mod, extra string) mapSource {
		return mapSource{
			"go.mod":                           "module " + mod + "\n\ngo 1.22\n" + extra,
			"pkg/apis/core/v1/types.go":        fmt.Sprintf(types, "v1"),
			"pkg/apis/core/v1/generated.proto": "syntax = \"proto2\";\n",
			"pkg/apis/core/v1beta1/types.go":   fmt.Sprintf(types, "v1beta1"),
			"pkg/apis/core/v1alpha1/types.go":  fmt.Sprintf(types, "v1alpha1"),
		}
	}
	noProto := files("example.com/copied", "")
	delete(noProto, "pkg/apis/core/v1/generated.proto")
	// An internal version declares the versions' kinds.
	kind := "\n// Shoot is a kind.\n// +genclient\ntype Shoot struct {\n\tSpec Spec `json:\"spec\"`\n}\n"
	internal := maps.Clone(noProto)
	internal["pkg/apis/core/types.go"] = "package core\n\n// Spec is a spec.\ntype Spec struct{ Foo *string }\n" + kind
	internal["pkg/apis/core/v1/types.go"] += kind
	// A CRD group's own package with helpers only (Tekton's Images).
	helpers := maps.Clone(noProto)
	helpers["pkg/apis/core/images.go"] = "package core\n\n// Images are images.\ntype Images struct{ Entrypoint string }\n"
	helpers["pkg/apis/core/v1/types.go"] += kind
	// A k8s.io module with validation markers on fields (k8s.io/api's
	// for the CRDs that embed its types) stays kubernetes; one whose kinds
	// carry a CRD generator's markers (k8s.io/autoscaler's VPA) is crd.
	k8sValidation := files("k8s.io/api", "")
	k8sValidation["pkg/apis/core/v1/types.go"] = strings.Replace(k8sValidation["pkg/apis/core/v1/types.go"], "\t// +optional\n", "\t// +optional\n\t// +kubebuilder:validation:MaxLength=256\n", 1)
	k8sCRD := files("k8s.io/autoscaler/vertical-pod-autoscaler", "")
	k8sCRD["pkg/apis/core/v1/types.go"] += "\n// VPA is a kind.\n// +kubebuilder:resource:shortName=vpa\n// +kubebuilder:subresource:status\ntype VPA struct {\n\tSpec Spec `json:\"spec\"`\n}\n"
	for _, c := range []struct {
		src  mapSource
		want model.Profile
	}{
		{k8sValidation, model.ProfileKubernetes},
		{k8sCRD, model.ProfileCRD},
		{files("github.com/gardener/gardener-extension-x", ""), model.ProfileGardener},
		{files("example.com/ext", "require github.com/gardener/gardener v1.100.0\n"), model.ProfileGardener},
		{files("k8s.io/api", ""), model.ProfileKubernetes},
		{files("example.com/other", ""), model.ProfileKubernetes}, // protobuf tags and a .proto file, no kubebuilder
		// Protobuf tags without a .proto file beside them (Tekton copied
		// Kubernetes' container types into its CRDs): no protobuf served.
		{noProto, model.ProfileCRD},
		// An internal version is an API server's conversion hub
		// (k8s.io/sample-apiserver before it had a go.mod): kubernetes.
		{internal, model.ProfileKubernetes},
		{helpers, model.ProfileCRD},
	} {
		m, err := scan.Scan(c.src, scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Profile != c.want || m.Groups[0].Profile != c.want {
			t.Errorf("%s: profile %s / group %s, want %s", c.src["go.mod"], m.Profile, m.Groups[0].Profile, c.want)
		}
	}
	m, err := scan.Scan(files("example.com/other", ""), scan.Options{Groups: []scan.GroupSpec{{Dir: "pkg/apis/core", Stable: []string{"v1alpha1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.Maturity{}
	for _, p := range m.Groups[0].Versions {
		got[p.Version] = p.Maturity
		if f := p.Type("Spec").Field("Foo"); !f.Alpha {
			t.Errorf("%s: Foo not detected as an alpha field", p.Version)
		}
	}
	want := map[string]model.Maturity{"v1": model.GA, "v1beta1": model.Beta, "v1alpha1": model.GA}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("maturity (-want +got):\n%s", d)
	}
	// Without kubebuilder markers and protobuf tags: crd.
	crd := mapSource{"go.mod": "module example.com/op\n\ngo 1.22\n", "api/v1/types.go": "// +kubebuilder:object:generate=true\n// +groupName=op.example.io\npackage v1\n\n// Spec is a spec.\ntype Spec struct{}\n"}
	if m, err := scan.Scan(crd, scan.Options{}); err != nil || m.Profile != model.ProfileCRD {
		t.Errorf("kubebuilder project: profile %v, err %v; want crd", m.Profile, err)
	}
}

// The scanner reads a real revision from git objects and the working tree.
func TestScanGitSnapshots(t *testing.T) {
	t.Parallel()
	fx := gitfixture.New(t)
	fx.Import(gitfixture.Commit{Step: "base", Files: baseRepo()})
	fx.Checkout()
	fx.WriteWorktree(map[string]string{"pkg/apis/core/v1beta1/new.go": "package v1beta1\n\n// Added is untracked.\ntype Added struct{}\n"})
	repo, err := git.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for ref, wantAdded := range map[string]bool{"base": false, git.WorktreeRef: true} {
		rev := ref
		if ref == "base" {
			rev = fx.Commits["base"]
		}
		snap, err := repo.Snapshot(rev)
		if err != nil {
			t.Fatal(err)
		}
		m, err := scan.Scan(snap, scan.Options{})
		snap.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := m.Groups[0].Version("v1beta1").Type("Added") != nil
		if got != wantAdded {
			t.Errorf("%s: type Added present = %v, want %v", ref, got, wantAdded)
		}
	}
}

func TestParseMarkers(t *testing.T) {
	got := scan.ParseMarkers([]string{
		"Foo is a field.",
		"+optional",
		"+listType=map",
		"+listMapKey=name",
		"+kubebuilder:default={\"a\": 1}",
		"+k8s:validation:minimum=1 // a trailing comment",
		"+apicheck:ignore=PROTO_NUMBER_CHANGED approved in review",
		"+k8s:maximum=1000000000 # HighestUserDefinablePriority",
		"+kubebuilder:validation:Pattern=`^#[a-f0-9]{6} //x$` // a comment",
		"+k8s:validation:pattern=\"a # b\" # the comment",
		"+kubebuilder:validation:Pattern=^a #b$",
		"+kubebuilder:validation:Minimum:=0",
		"+kubebuilder:default:={}",
		"not +a marker",
	})
	want := model.Markers{
		{Key: "optional"}, {Key: "listType", Value: "map"}, {Key: "listMapKey", Value: "name"},
		{Key: "kubebuilder:default", Value: `{"a": 1}`}, {Key: "k8s:validation:minimum", Value: "1"},
		{Key: "apicheck:ignore", Value: "PROTO_NUMBER_CHANGED approved in review"},
		// "# comment" ends Kubernetes tags only, never inside quotes.
		{Key: "k8s:maximum", Value: "1000000000"},
		{Key: "kubebuilder:validation:Pattern", Value: "`^#[a-f0-9]{6} //x$`"},
		{Key: "k8s:validation:pattern", Value: `"a # b"`},
		{Key: "kubebuilder:validation:Pattern", Value: "^a #b$"},
		// controller-gen's anonymous-argument form "+name:=value".
		{Key: "kubebuilder:validation:Minimum", Value: "0"},
		{Key: "kubebuilder:default", Value: "{}"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("markers (-want +got):\n%s", d)
	}
}

// Types of other modules are resolved from the module cache when the
// module is downloaded (never fetched), else they stay unknown.
func TestNillabilityFromModuleCache(t *testing.T) {
	src := mapSource{
		"go.mod": "module example.com/repo\n\ngo 1.22\n\nrequire example.com/ext v1.2.3\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\nimport ext \"example.com/ext/types\"\n\n" +
			"type Spec struct {\n\tBag ext.Bag\n\tBox ext.Box\n\tAlias ext.BagAlias\n}\n",
	}
	nillability := func() map[string]string {
		m, err := scan.Scan(src, scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range m.Groups[0].Version("v1").Type("Spec").Fields {
			out[f.Name] = string(f.Nillable)
		}
		return out
	}

	t.Setenv("GOMODCACHE", t.TempDir())
	if got := nillability(); got["Bag"] != "unknown" || got["Box"] != "unknown" {
		t.Errorf("without the module: %v, want unknown (never guessed)", got)
	}

	cache := t.TempDir()
	dir := cache + "/example.com/ext@v1.2.3/types"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/types.go", []byte("package types\n\ntype Bag map[string]string\n\ntype BagAlias = Bag\n\ntype Box struct{ A int }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMODCACHE", cache)
	want := map[string]string{"Bag": "yes", "Box": "no", "Alias": "yes"}
	if d := cmp.Diff(want, nillability()); d != "" {
		t.Errorf("from the module cache (-want +got):\n%s", d)
	}
}

// Nillability is decided however deep the parentheses or however long the
// chain of named types (issue: 17 of either turned an error into info);
// only a real definition cycle is unknown.
func TestNillabilityDeepChains(t *testing.T) {
	var chain strings.Builder
	for i := range 40 {
		fmt.Fprintf(&chain, "type T%d T%d\n", i, i+1)
	}
	chain.WriteString("type T40 struct{ A int }\n")
	src := mapSource{
		"go.mod": "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\n" +
			"type Spec struct {\n" +
			"\tParens " + strings.Repeat("(", 40) + "int32" + strings.Repeat(")", 40) + "\n" +
			"\tPtrParens " + strings.Repeat("(", 40) + "*int32" + strings.Repeat(")", 40) + "\n" +
			"\tChain T0\n" +
			"\tCycle C1\n" +
			"}\n\n" + chain.String() + "type C1 C2\ntype C2 C1\n",
	}
	m, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range m.Groups[0].Version("v1").Type("Spec").Fields {
		got[f.Name] = string(f.Nillable) + " " + f.NillableWhy
	}
	want := map[string]string{
		"Parens":    "no int32",
		"PtrParens": "yes pointer",
		"Chain":     "no struct (example.com/repo/pkg/apis/core/v1.T40, repository)",
		"Cycle":     "unknown type definition cycle through example.com/repo/pkg/apis/core/v1.C1",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Import paths and requirements from the repository never make the
// module-cache lookup read outside the module cache.
func TestModuleCacheLookupStaysInside(t *testing.T) {
	outside := t.TempDir()
	if err := os.MkdirAll(outside+"/types", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside+"/types/types.go", []byte("package types\n\ntype Secret map[string]string\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	rel, err := filepath.Rel(cache, outside)
	if err != nil {
		t.Fatal(err)
	}
	src := mapSource{
		"go.mod": "module example.com/repo\n\ngo 1.22\n\nrequire example.com/ext v1.2.3\n",
		"pkg/apis/core/v1/types.go": "// +groupName=core.example.cloud\npackage v1\n\n" +
			"import ext \"example.com/ext/../../" + filepath.ToSlash(rel) + "/types\"\n\n" +
			"type Spec struct {\n\tLeak ext.Secret\n}\n",
	}
	m, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Groups[0].Version("v1").Type("Spec").Field("Leak"); f.Nillable != model.NillUnknown {
		t.Errorf("Leak resolved through a path outside the module cache: %s (%s)", f.Nillable, f.NillableWhy)
	}
}

// Files the platform leaves out (build constraints, GOOS/GOARCH file
// names) and stray package main or external test files are not part of
// the API package: a type declared per platform is not "declared twice".
func TestBuildConstraints(t *testing.T) {
	const typ = "\n\n// Spec is per platform.\ntype Spec struct {\n\tA *string `json:\"a,omitempty\"`\n}\n"
	src := mapSource{
		"go.mod":                                "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":               "// +groupName=core.example.cloud\npackage v1\n",
		"pkg/apis/core/v1/spec_linux.go":        "package v1" + typ,
		"pkg/apis/core/v1/spec_windows.go":      "package v1" + typ,
		"pkg/apis/core/v1/spec_darwin_arm64.go": "package v1" + typ,
		"pkg/apis/core/v1/gen.go":               "//go:build ignore\n\npackage main\n\nfunc main() {}\n" + typ,
		"pkg/apis/core/v1/tools.go":             "//go:build tools\n\npackage v1" + typ,
		"pkg/apis/core/v1/old.go":               "// +build ignore\n\npackage v1" + typ,
		"pkg/apis/core/v1/broken.go":            "//go:build ignore\n\npackage v1\n\nthis does not parse {\n",
		"pkg/apis/core/v1/stray.go":             "package main\n\ntype Other struct{}\n",
		"pkg/apis/core/v1/generic.go":           "//go:build linux && amd64 && go1.21 && !cgo\n\npackage v1\n\ntype Extra struct{}\n",
	}
	m, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Groups[0].Version("v1")
	var names []string
	for _, ty := range p.Types {
		names = append(names, ty.Name)
	}
	if got := strings.Join(names, " "); got != "Extra Spec" {
		t.Errorf("types = %s, want Extra Spec", got)
	}
	if got := strings.Join(p.Files, " "); got != "pkg/apis/core/v1/doc.go pkg/apis/core/v1/generic.go pkg/apis/core/v1/spec_linux.go" {
		t.Errorf("files = %s", got)
	}
}

// hugeStruct declares a struct with one field more than MaxFields.
func hugeStruct(name string) string {
	var b strings.Builder
	b.WriteString("type " + name + " struct {\n")
	for i := range scan.MaxFields + 1 {
		fmt.Fprintf(&b, "\tF%d *string `json:\"f%d,omitempty\"`\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// A struct with more fields than MaxFields fails the scan (fails closed)
// with an error naming the file, the struct and the limit: a struct whose
// fields went unchecked would let any change to them pass.
func TestFieldLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("package v1\n\n// Huge has too many fields.\n" + hugeStruct("Huge"))
	src := mapSource{
		"go.mod":                    "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go":   "// +groupName=core.example.cloud\npackage v1\n",
		"pkg/apis/core/v1/types.go": b.String(),
	}
	m, err := scan.Scan(src, scan.Options{})
	want := fmt.Sprintf("pkg/apis/core/v1/types.go:4:6: struct Huge has %d fields, more than apicheck's limit of %d fields per struct: its fields cannot be checked", scan.MaxFields+1, scan.MaxFields)
	if err == nil || err.Error() != want {
		t.Fatalf("Scan = %v, %v; want the error %q", m, err, want)
	}
	var se *scan.Error
	if !errors.As(err, &se) {
		t.Errorf("error %T is not a *scan.Error", err)
	}
	// At the limit the struct is read whole.
	b.Reset()
	b.WriteString("package v1\n\ntype Big struct {\n")
	for i := range scan.MaxFields {
		fmt.Fprintf(&b, "\tF%d *string `json:\"f%d,omitempty\"`\n", i, i)
	}
	b.WriteString("}\n")
	src["pkg/apis/core/v1/types.go"] = b.String()
	if m, err = scan.Scan(src, scan.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Groups[0].Version("v1").Type("Big").Fields); n != scan.MaxFields {
		t.Errorf("Big has %d fields, want %d", n, scan.MaxFields)
	}
}

// Scans that share a Reuse parse a file with the same path and content
// once, and build the same models as scans of their own. Without blob
// ids (these sources) nothing is taken and every common file is shared.
func TestSharedParses(t *testing.T) {
	base := baseRepo()
	head := baseRepo()
	head["pkg/apis/core/v1beta1/types.go"] = strings.Replace(shootTypes, "Odd *string", "Odder *string", 1)
	head["pkg/apis/core/v1beta1/more.go"] = "package v1beta1\n\ntype More struct{ A *string }\n"
	r, _, _, taken := scanPairWith(t, base, head)
	if len(taken) != 0 {
		t.Errorf("took %v from sources without blob ids", taken)
	}
	// Parsed at base: the Go files of the groups (core: 3, gardenlet
	// config: 2), of the candidate version pkg/util/v1 and shared.go (a
	// field type); head adds its changed types.go and more.go.
	if n := r.ParsedOnce(); n != 9 {
		t.Errorf("%d distinct files parsed, want 9", n)
	}
	// Both scans took the 7 files they share, which the cache let go; it
	// still holds the files only one of them read: types.go at base and
	// at head, and more.go.
	if n := r.Held(); n != 3 {
		t.Errorf("the cache holds %d parsed files after both scans, want 3", n)
	}

	// A file that does not parse fails the scan that reads it, with its
	// position, also when another scan shares the cache.
	head["pkg/apis/core/v1beta1/broken.go"] = "package v1beta1\n\ntype X struct {\n\tA int\n"
	rr := scan.NewReuse()
	errs := make(chan error, 1)
	go func() {
		_, err := scan.Scan(base, scan.Options{Record: rr})
		errs <- err
	}()
	_, err := scan.Scan(head, scan.Options{Reuse: rr})
	if berr := <-errs; berr != nil {
		t.Fatal(berr)
	}
	var se *scan.Error
	if !errors.As(err, &se) || se.Pos.File != "pkg/apis/core/v1beta1/broken.go" || se.Pos.Line == 0 {
		t.Fatalf("want a scan error naming the file and line, got %v", err)
	}
}

// Only builds the named groups alone, each as a whole scan builds it.
func TestScanOnly(t *testing.T) {
	src := baseRepo()
	full, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Groups) < 2 {
		t.Fatalf("want a repository of several groups, got %d", len(full.Groups))
	}
	for _, g := range full.Groups {
		m, err := scan.Scan(src, scan.Options{Only: []string{g.Dir}, Profile: full.Profile})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Groups) != 1 || m.Groups[0].Dir != g.Dir {
			t.Fatalf("Only %s: groups %v", g.Dir, m.Groups)
		}
		want, _ := json.Marshal(g)
		got, _ := json.Marshal(m.Groups[0])
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("Only %s: the group differs from the whole scan's (-whole +only):\n%s", g.Dir, diff)
		}
	}
	if m, err := scan.Scan(src, scan.Options{Only: []string{"pkg/none"}}); err != nil || len(m.Groups) != 0 {
		t.Errorf("Only a directory without a group: %d groups, %v", len(m.Groups), err)
	}
}

// The known generators' output is not read, any other generated file is:
// crossplane generates its v1beta1 API types from v1's.
func TestScannable(t *testing.T) {
	for p, want := range map[string]bool{
		"apis/pkg/v1beta1/function_types.go":                    true,
		"apis/pkg/v1beta1/zz_generated.function_types.go":       true,
		"apis/pkg/v1beta1/zz_generated.deepcopy.go":             false,
		"pkg/apis/core/v1/zz_generated.conversion.go":           false,
		"pkg/apis/core/v1/zz_generated.model_name.go":           false,
		"pkg/apis/core/v1/generated.pb.go":                      false,
		"apis/fn/v1/zz_generated_run_function.pb.go":            false,
		"pkg/apis/core/v1/types_test.go":                        false,
		"vendor/k8s.io/api/core/v1/types.go":                    false,
		"pkg/apis/core/v1/testdata/types.go":                    false,
		"apis/ec2/v1beta1/zz_instance_types.go":                 true,
		"pkg/apis/core/v1/zz_generated.prerelease-lifecycle.go": false,
		// crossplane's generated copies of v1 types files declare types
		// whatever their names (v1.12: composition_common, meta).
		"apis/apiextensions/v1beta1/zz_generated.composition_common.go":     true,
		"apis/apiextensions/v1beta1/zz_generated.composition_transforms.go": true,
		"apis/pkg/meta/v1alpha1/zz_generated.meta.go":                       true,
		"pkg/apis/core/v1/zz_generated.conversion_legacy.go":                false,
		"pkg/apis/core/v1/zz_generated.defaults.go":                         false,
		"pkg/apis/core/v1/zz_generated.openapi.go":                          false,
		"pkg/apis/core/v1/zz_generated.register.go":                         false,
		"pkg/apis/core/v1/zz_generated.validations.go":                      false,
		"config/v1/zz_generated.swagger_doc_generated.go":                   false,
		"core/v1/types_swagger_doc_generated.go":                            false,
		"apis/ec2/v1beta1/zz_generated.managed.go":                          false,
		"apis/ec2/v1beta1/zz_generated.resolvers.go":                        false,
		"pkg/util/zz_generated.go":                                          false,
	} {
		if got := scan.Scannable(p); got != want {
			t.Errorf("Scannable(%q) = %v, want %v", p, got, want)
		}
	}
}

// The packages outside the API groups that the API types use are read up
// to scan.MaxShared; past it a note names what was not read, so that the
// changes left unjudged there are not silent.
func TestSharedPackagesBound(t *testing.T) {
	src := mapSource{
		"go.mod":                  "module example.com/repo\n\ngo 1.22\n",
		"pkg/apis/core/v1/doc.go": "// +groupName=core.example.cloud\npackage v1\n",
	}
	var types strings.Builder
	types.WriteString("package v1\n\nimport (\n")
	n := scan.MaxShared + 2
	for i := range n {
		fmt.Fprintf(&types, "\tp%02d \"example.com/repo/pkg/shared/p%02d\"\n", i, i)
		src[fmt.Sprintf("pkg/shared/p%02d/types.go", i)] = fmt.Sprintf("package p%02d\n\n// T is a shared type.\ntype T struct {\n\tA *string `json:\"a,omitempty\"`\n}\n", i)
	}
	types.WriteString(")\n\n// Spec uses every shared package.\ntype Spec struct {\n")
	for i := range n {
		fmt.Fprintf(&types, "\tF%02d *p%02d.T `json:\"f%02d,omitempty\"`\n", i, i, i)
	}
	types.WriteString("}\n")
	src["pkg/apis/core/v1/types.go"] = types.String()
	m, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shared) != scan.MaxShared {
		t.Errorf("read %d shared packages, want %d", len(m.Shared), scan.MaxShared)
	}
	want := fmt.Sprintf("2 package(s) of the repository outside the API groups whose types the API types use were not read (at most %d are): "+
		"changes in them are not judged (pkg/shared/p64, pkg/shared/p65)", scan.MaxShared)
	if !slices.Contains(m.Notes, want) {
		t.Errorf("notes = %q, want one %q", m.Notes, want)
	}
}
