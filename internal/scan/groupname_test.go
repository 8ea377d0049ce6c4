package scan_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

const schemaImport = "import \"k8s.io/apimachinery/pkg/runtime/schema\"\n"

// A version package without +groupName names its group in Go: the name
// is the value of the constant expression, evaluated over the package's
// constants and those of the repository's packages it imports ("packages."
// + operators.GroupName is not operators.GroupName), in any of the forms
// register.go and groupversion_info.go write; a name built from a
// constant outside the repository is unknown, said so in a note, and
// never taken for another group's.
func TestGroupNameFromGo(t *testing.T) {
	src := mapSource{
		"go.mod":                             "module example.com/olm\n\ngo 1.22\n",
		"pkg/api/apis/operators/register.go": "package operators\n\n// GroupName is the group.\nconst GroupName = \"operators.coreos.com\"\n",
		"pkg/api/apis/operators/v1alpha1/register.go": "package v1alpha1\n\nimport (\n\t\"example.com/olm/pkg/api/apis/operators\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n" +
			"const GroupName = operators.GroupName\n\nvar SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: \"v1alpha1\"}\n\n// Subscription is a kind.\ntype Subscription struct{}\n",
		// Operator Lifecycle Manager's package server: its own group,
		// named after the other.
		"pkg/package-server/apis/operators/v1/register.go": "package v1\n\nimport (\n\t\"example.com/olm/pkg/api/apis/operators\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n" +
			"const (\n\tGroup   = \"packages.\" + operators.GroupName\n\tVersion = \"v1\"\n)\n\nvar SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}\n\n// PackageManifest is a kind.\ntype PackageManifest struct{}\n",
		// kubebuilder's groupversion_info.go without the marker.
		"api/kb/v1/groupversion_info.go": "package v1\n\n" + schemaImport + "\nvar (\n\tGroupVersion = schema.GroupVersion{Group: \"kb.example.io\", Version: \"v1\"}\n)\n\n// Widget is a kind.\ntype Widget struct{}\n",
		// Parentheses, a conversion, a typed constant.
		"api/typed/v1/register.go": "package v1\n\n" + schemaImport + "\ntype name string\n\nconst GroupName name = name(\"typed.\" + (suffix))\n\nconst suffix = \"example.io\"\n\nvar SchemeGroupVersion = &schema.GroupVersion{string(GroupName), \"v1\"}\n\n// Gadget is a kind.\ntype Gadget struct{}\n",
		// Kubernetes' core group: its name is "".
		"api/core/v1/register.go": "// +groupName=\npackage v1\n\n" + schemaImport + "\nconst GroupName = \"\"\n\nvar SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: \"v1\"}\n\n// Pod is a kind.\ntype Pod struct{}\n",
		// A name of another module.
		"api/ext/v1/register.go": "package v1\n\nimport (\n\tupstream \"github.com/other/api/apis\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n" +
			"const GroupName = \"ext.\" + upstream.GroupName\n\nvar SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: \"v1\"}\n\n// Thing is a kind.\ntype Thing struct{}\n",
	}
	m, err := scan.Scan(src, scan.Options{Profile: model.ProfileCRD})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range m.Groups {
		got[g.Dir] = g.Name
		if g.Name != g.Versions[0].GroupName {
			t.Errorf("%s: group name %q, version's %q", g.Dir, g.Name, g.Versions[0].GroupName)
		}
	}
	want := map[string]string{
		"pkg/api/apis/operators":            "operators.coreos.com",
		"pkg/package-server/apis/operators": "packages.operators.coreos.com",
		"api/kb":                            "kb.example.io",
		"api/typed":                         "typed.example.io",
		"api/core":                          "",
		"api/ext":                           "",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("group names (-want +got):\n%s", d)
	}
	var notes []string
	for _, n := range m.Notes {
		if strings.Contains(n, "group name") {
			notes = append(notes, n)
		}
	}
	wantNotes := []string{`api/ext/v1: the API group name it declares in Go, "ext." + upstream.GroupName, could not be evaluated (a constant outside the repository): ` +
		"the group is known by its directory only, and never paired with a group of another directory"}
	if d := cmp.Diff(wantNotes, notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	if p := m.Groups[1].Versions[0]; p.Dir != "api/ext/v1" || p.GroupNameUnknown != `"ext." + upstream.GroupName` {
		t.Errorf("%s: GroupNameUnknown = %q", p.Dir, p.GroupNameUnknown)
	}
}

// Two groups whose names differ only by what a constant expression adds
// are not one group moved: the package server's group moving directory
// pairs with its own name, not the other group's.
func TestConstantGroupNamesPairMovedGroups(t *testing.T) {
	ops := "package operators\n\nconst GroupName = \"operators.coreos.com\"\n"
	pkgServer := "package v1\n\nimport (\n\t\"example.com/olm/pkg/api/apis/operators\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n" +
		"var SchemeGroupVersion = schema.GroupVersion{Group: \"packages.\" + operators.GroupName, Version: \"v1\"}\n\n// PackageManifest is a kind.\ntype PackageManifest struct{}\n"
	subs := "package v1\n\nimport (\n\t\"example.com/olm/pkg/api/apis/operators\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n" +
		"var SchemeGroupVersion = schema.GroupVersion{Group: operators.GroupName, Version: \"v1\"}\n\n// OperatorGroup is a kind.\ntype OperatorGroup struct{}\n"
	base := mapSource{
		"go.mod":                                           "module example.com/olm\n\ngo 1.22\n",
		"pkg/api/apis/operators/register.go":               ops,
		"pkg/api/apis/operators/v1/register.go":            subs,
		"pkg/package-server/apis/operators/v1/register.go": pkgServer,
	}
	head := mapSource{
		"go.mod":                                          "module example.com/olm\n\ngo 1.22\n",
		"pkg/api/apis/operators/register.go":              ops,
		"pkg/api/apis/ops/v1/register.go":                 subs,
		"pkg/package-server/apis/packages/v1/register.go": pkgServer,
	}
	var ms [2]*model.Model
	for i, src := range []mapSource{base, head} {
		m, err := scan.Scan(src, scan.Options{Profile: model.ProfileCRD})
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	d := model.Compare(ms[0], ms[1])
	got := map[string]string{}
	for _, gd := range d.Groups {
		got[gd.Dir] = gd.MovedFrom
	}
	want := map[string]string{"pkg/api/apis/ops": "pkg/api/apis/operators", "pkg/package-server/apis/packages": "pkg/package-server/apis/operators"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups and where they moved from (-want +got):\n%s", diff)
	}
}

// A CLI's or component's versioned configuration file declares kinds
// with TypeMeta and names its group in Go only (const GroupName, an
// apiVersion constant): discovered, as a component configuration. A
// package with such a constant and no kind, or an apiVersion of another
// version, is none.
func TestConfigFileAPIsDiscovered(t *testing.T) {
	kind := "\n// Config is the file's kind.\ntype Config struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\t// +optional\n\tVerbose *bool `json:\"verbose,omitempty\"`\n}\n"
	meta := "import metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n"
	src := mapSource{
		"go.mod":                              "module example.com/cli\n\ngo 1.22\n",
		"pkg/apis/settings/v1alpha1/types.go": "package v1alpha1\n\n" + meta + "\n// GroupName is the file's group.\nconst GroupName = \"cli.example.io\"\n" + kind,
		"pkg/apis/settings/v1beta1/types.go":  "package v1beta1\n\n" + meta + "\nconst APIVersion = \"cli.example.io/v1beta1\"\n" + kind,
		// An apiVersion of another version, and a constant without a kind.
		"pkg/other/v1/types.go": "package v1\n\n" + meta + "\nconst APIVersion = \"other.example.io/v2\"\n" + kind,
		"pkg/names/v1/names.go": "package v1\n\nconst GroupName = \"names.example.io\"\n",
	}
	m, err := scan.Scan(src, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range m.Groups {
		var vs []string
		for _, p := range g.Versions {
			vs = append(vs, p.Version+"="+p.GroupName)
		}
		got = append(got, g.Dir+" "+string(g.Profile)+" "+strings.Join(vs, ","))
	}
	want := []string{"pkg/apis/settings componentconfig v1alpha1=cli.example.io,v1beta1=cli.example.io"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
	// SchemeGroupVersion alone declared the group before; such a
	// configuration kind keeps being found.
	src = mapSource{
		"go.mod":                         "module example.com/cli\n\ngo 1.22\n",
		"pkg/apis/config/v1/register.go": "package v1\n\n" + schemaImport + "\nvar SchemeGroupVersion = schema.GroupVersion{Group: \"x.example.io\", Version: \"v1\"}\n",
		"pkg/apis/config/v1/types.go":    "package v1\n\n" + meta + kind,
	}
	if m, err = scan.Scan(src, scan.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 1 || m.Groups[0].Name != "x.example.io" || m.Groups[0].Profile != model.ProfileComponentConfig {
		t.Errorf("SchemeGroupVersion configuration: groups %+v", m.Groups)
	}
}

// A group whose name is built from another package's constants is built
// anew, not taken from base, when a package the evaluation read changes
// (one the group's files do not import too): the name follows it.
func TestReuseFollowsGroupNameConstants(t *testing.T) {
	base := mapSource{
		"go.mod":                 "module example.com/repo\n\ngo 1.22\n",
		"pkg/names/names.go":     "package names\n\nimport \"example.com/repo/pkg/domain\"\n\nconst Group = \"a.\" + domain.Name\n",
		"pkg/domain/domain.go":   "package domain\n\nconst Name = \"old.example.io\"\n",
		"pkg/apis/a/v1/types.go": "package v1\n\nimport (\n\t\"example.com/repo/pkg/names\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\nvar SchemeGroupVersion = schema.GroupVersion{Group: names.Group, Version: \"v1\"}\n\n// Spec is a spec.\ntype Spec struct {\n\tN string `json:\"n\"`\n}\n",
		"pkg/apis/b/v1/types.go": "// +groupName=b.example.com\npackage v1\n\n// Spec is a spec.\ntype Spec struct {\n\tN string `json:\"n\"`\n}\n",
	}
	head := maps.Clone(base)
	head["pkg/domain/domain.go"] = "package domain\n\nconst Name = \"new.example.io\"\n"
	bm, hm, taken := scanPair(t, blobSource{base}, blobSource{head})
	if d := cmp.Diff(map[string]bool{"pkg/apis/b": true}, taken); d != "" {
		t.Errorf("groups head took from base (-want +got):\n%s", d)
	}
	if bm.Groups[0].Name != "a.old.example.io" || hm.Groups[0].Name != "a.new.example.io" {
		t.Errorf("group names %q at base, %q at head", bm.Groups[0].Name, hm.Groups[0].Name)
	}
}
