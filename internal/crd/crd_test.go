package crd

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type fakeSource struct {
	files map[string]string
	reads int
	err   error
}

func (s *fakeSource) Files() []string {
	var out []string
	for f := range s.files {
		out = append(out, f)
	}
	return out
}

func (s *fakeSource) ReadFiles(paths []string) (map[string][]byte, error) {
	s.reads++
	if s.err != nil {
		return nil, s.err
	}
	out := map[string][]byte{}
	for _, p := range paths {
		out[p] = []byte(s.files[p])
	}
	return out, nil
}

const widgets = `# comment
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: widgets.example.com
  names: {kind: Widget}
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
  - name: v1beta1
    served: false
  - name: v1alpha1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {x-kubernetes-preserve-unknown-fields: true}
--- # another document
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: other.example.com
  names: {kind: Widget}
  versions: [{name: v2, served: true}]
---
kind: ConfigMap
`

func TestKind(t *testing.T) {
	src := &fakeSource{files: map[string]string{
		"config/crd/bases/widgets.yaml":   widgets,
		"charts/x/crds/gadget.yml":        "kind: CustomResourceDefinition\nspec:\n  group: widgets.example.com\n  names:\n    kind: Gadget\n  version: v1beta1\n",
		"charts/x/templates/crd-bad.yaml": "{{ if .X }}\nkind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Gadget}, versions: [{name: v9}]}\n{{ end }}\n",
		// a chart's template whose actions break the YAML (Longhorn's
		// crds.yaml), one whose text mentions an action, and an action
		// left open (the rest is dropped)
		"charts/x/templates/crds.yaml": "kind: CustomResourceDefinition\nmetadata:\n  labels: {{- include \"x.labels\" . | nindent 4 }}\n    app: x\n" +
			"spec:\n  group: widgets.example.com\n  names:\n    kind: Doohickey\n  versions:\n  - name: v1\n    served: {{ .Values.served }}\n  - name: v2\n    served: false\n" +
			"---\nkind: CustomResourceDefinition\nmetadata: {annotations: {note: \"{{ not an action }}\"}}\nspec: {group: widgets.example.com, names: {kind: Doohickey}, versions: [{name: v3}]}\n" +
			"---\nkind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Doohickey}, versions: [{name: v4}]}\n{{ if .X",
		"vendor/y/crds/widget.yaml": "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Widget}, versions: [{name: v7}]}\n",
		"docs/widgets.yaml":         "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Widget}, versions: [{name: v8}]}\n",
		// a copy in a chart that serves less
		"charts/x/crds/widgets.yaml": "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Widget}, versions: [{name: v1, served: true}]}\n",
		// a manifest per kind, named after it (Knative's), and a copy
		// under an ordering prefix and the plural; not in vendor/
		"config/core/resources/eventtype.yaml": "kind: CustomResourceDefinition\nspec: {group: eventing.example.com, names: {kind: EventType}, versions: [{name: v1beta2, served: true}, {name: v1beta3, served: false}]}\n",
		"config/300-eventtypes.yml":            "kind: CustomResourceDefinition\nspec: {group: eventing.example.com, names: {kind: EventType}, versions: [{name: v1beta2}]}\n",
		"vendor/z/eventtype.yaml":              "kind: CustomResourceDefinition\nspec: {group: eventing.example.com, names: {kind: EventType}, versions: [{name: v9}]}\n",
		"config/policy.yaml":                   "kind: CustomResourceDefinition\nspec: {group: eventing.example.com, names: {kind: Policy}, versions: [{name: v1}]}\n",
		"config/policies.yaml":                 "kind: CustomResourceDefinition\nspec: {group: eventing.example.com, names: {kind: Policy}, versions: [{name: v2}]}\n",
		// kinds registered under another spelling than their Go type
		// (Zalando's "postgresql"); two that differ only by case match
		// neither
		"charts/x/crds/gizmo.yaml":  "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: gizmo}, versions: [{name: v1}]}\n",
		"charts/x/crds/things.yaml": "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: thing}, versions: [{name: v1}]}\n---\nkind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: THING}, versions: [{name: v2}]}\n",
		// a design document's copy of a kind of a group whose manifests
		// are in crd-named files: not the API's (Velero's PoC)
		"design/poc/sprocket.yaml": "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Sprocket}, versions: [{name: v1}]}\n",
	}}
	m := New(src)
	m.Load("widgets.example.com", "other.example.com")
	for _, c := range []struct {
		group, kind string
		want        KindServed
		ok          bool
	}{
		// served unset counts as served; vendor/ is not read, nor are
		// files without "crd" in their path for a kind that files with
		// it define (docs/widgets.yaml).
		// (Versions: some manifest serves it; Everywhere: all do;
		// NoSchema: no manifest describes spec: v1alpha1 keeps spec's
		// unknown fields; an apiextensions.k8s.io/v1 version without a
		// schema is a fragment (v1 requires one), an unversioned or
		// v1beta1 one has none)
		{"widgets.example.com", "Widget", KindServed{Versions: []string{"v1", "v1alpha1"}, Files: []string{"charts/x/crds/widgets.yaml", "config/crd/bases/widgets.yaml"}, Everywhere: []string{"v1"}, NoSchema: []string{"v1alpha1"}}, true},
		{"other.example.com", "Widget", KindServed{Versions: []string{"v2"}, Files: []string{"config/crd/bases/widgets.yaml"}, Everywhere: []string{"v2"}}, true},
		// a v1beta1 CRD's single version, and a chart's template
		// without its actions
		{"widgets.example.com", "Gadget", KindServed{Versions: []string{"v1beta1", "v9"}, Files: []string{"charts/x/crds/gadget.yml", "charts/x/templates/crd-bad.yaml"}, Everywhere: []string{}, NoSchema: []string{"v1beta1", "v9"}}, true},
		// a templated value counts as served (unknown)
		{"widgets.example.com", "Doohickey", KindServed{Versions: []string{"v1", "v3", "v4"}, Files: []string{"charts/x/templates/crds.yaml"}, Everywhere: []string{}, NoSchema: []string{"v1", "v2", "v3", "v4"}}, true},
		{"widgets.example.com", "Sprocket", KindServed{}, false},
		{"widgets.example.com", "gizmo", KindServed{Versions: []string{"v1"}, Files: []string{"charts/x/crds/gizmo.yaml"}, Everywhere: []string{"v1"}, NoSchema: []string{"v1"}}, true},
		{"widgets.example.com", "Gizmo", KindServed{}, false}, // KindFold finds it
		// no file with "crd" in its path defines a kind of the group:
		// the files named after the kind do
		{"eventing.example.com", "EventType", KindServed{Versions: []string{"v1beta2"}, Files: []string{"config/300-eventtypes.yml", "config/core/resources/eventtype.yaml"}, Everywhere: []string{"v1beta2"}, NoSchema: []string{"v1beta2", "v1beta3"}}, true},
		{"eventing.example.com", "Policy", KindServed{Versions: []string{"v1", "v2"}, Files: []string{"config/policies.yaml", "config/policy.yaml"}, Everywhere: []string{}, NoSchema: []string{"v1", "v2"}}, true},
		{"third.example.com", "Widget", KindServed{}, false},
	} {
		got, ok := m.Kind(c.group, c.kind)
		got.hand, got.generated, got.gen, got.unread = nil, nil, nil, nil // TestHandWritten's
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Kind(%s, %s) = %+v, %v; want %+v, %v", c.group, c.kind, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		kind, file string
		ok         bool
	}{
		{"Gizmo", "charts/x/crds/gizmo.yaml", true},
		{"thing", "charts/x/crds/things.yaml", true},
		{"THING", "charts/x/crds/things.yaml", true},
		{"Thing", "", false}, // thing or THING: neither
		{"Sprocket", "", false},
	} {
		ks, ok := m.KindFold("widgets.example.com", c.kind)
		if ok != c.ok || ok && !reflect.DeepEqual(ks.Files, []string{c.file}) {
			t.Errorf("KindFold(%s) = %v, %v; want %s, %v", c.kind, ks.Files, ok, c.file, c.ok)
		}
	}
	// Load read both groups at once (Sprocket's design copy is not
	// read: crd-named files define its group's kinds); eventing.example.com
	// was a read, EventType's and Policy's files named after them a read
	// each; third.example.com was a read, and docs/widgets.yaml, named
	// after its Widget, one more.
	if src.reads != 6 {
		t.Errorf("%d reads, want 6", src.reads)
	}
}

// TestUnknown: files that cannot be read, or too many of them, make
// every kind unknown (never "not served").
func TestUnknown(t *testing.T) {
	broken := &fakeSource{files: map[string]string{"crds/w.yaml": widgets}, err: errors.New("missing object")}
	m := New(broken)
	if _, ok := m.Kind("widgets.example.com", "Widget"); ok {
		t.Error("a read failure gave an answer")
	}
	if why := m.Unread(); why != "reading them failed: missing object" {
		t.Errorf("Unread = %q after a read failure", why)
	}
	many := &fakeSource{files: map[string]string{"crds/w.yaml": widgets}}
	for i := range maxFiles {
		many.files[fmt.Sprintf("crds/f%d.yaml", i)] = "kind: ConfigMap\n"
	}
	m = New(many)
	if _, ok := m.Kind("widgets.example.com", "Widget"); ok || many.reads != 0 {
		t.Errorf("past %d candidates: ok %v after %d reads, want no answer and no read", maxFiles, ok, many.reads)
	}
	if why, want := m.Unread(), fmt.Sprintf("%d files may hold CRD manifests, more than the %d apicheck reads", maxFiles+1, maxFiles); why != want {
		t.Errorf("Unread = %q, want %q", why, want)
	}
	defer func(n int) { maxBytes = n }(maxBytes)
	maxBytes = 1 << 20
	big := &fakeSource{files: map[string]string{}}
	for i := range 5 {
		big.files[fmt.Sprintf("crds/f%d.yaml", i)] = strings.Repeat("#", maxBytes/4)
	}
	if m = New(big); m.Unread() != "" {
		t.Error("Unread before anything was asked")
	}
	if _, ok := m.Kind("widgets.example.com", "Widget"); ok || !strings.Contains(m.Unread(), "MiB") {
		t.Errorf("past %d bytes: ok %v, Unread %q", maxBytes, ok, m.Unread())
	}
	if _, ok := New(nil).Kind("widgets.example.com", "Widget"); ok {
		t.Error("no source gave an answer")
	}
}

func TestDocuments(t *testing.T) {
	got := documents([]byte("a: 1\n---\nb: 2\n--- # c\nc: 3\n---\n"))
	var s []string
	for _, d := range got {
		s = append(s, string(d))
	}
	if want := []string{"a: 1\n", "b: 2\n", "c: 3\n"}; !reflect.DeepEqual(s, want) {
		t.Errorf("documents = %q, want %q", s, want)
	}
}

func TestNamedGroup(t *testing.T) {
	for _, c := range []struct{ file, group string }{
		{"config/crd/bases/cert-manager.io_certificates.yaml", "cert-manager.io"},
		{"example/seed-crds/10-crd-operator.victoriametrics.com_vmclusters.yaml", "operator.victoriametrics.com"},
		{"charts/x/templates/crd-extensions.gardener.cloud_workers.yaml", "extensions.gardener.cloud"},
		{"deploy/crds/crd-certificates.yaml", ""},
		{"config/crd/crds.yaml", ""},
		{"config/crd/bases/Widget_things.yaml", ""},
		{"crds/example_things.yaml", ""},
	} {
		g, ok := namedGroup(c.file)
		if g != c.group || ok != (c.group != "") {
			t.Errorf("namedGroup(%s) = %q, %v; want %q", c.file, g, ok, c.group)
		}
	}
	// A manifest named for another group is not read.
	src := &fakeSource{files: map[string]string{
		"crds/other.example.com_widgets.yaml": "kind: CustomResourceDefinition\nspec: {group: widgets.example.com, names: {kind: Widget}, versions: [{name: v1}]}\n",
	}}
	if _, ok := New(src).Kind("widgets.example.com", "Widget"); ok || src.reads != 0 {
		t.Errorf("a manifest named for another group was read (%d reads)", src.reads)
	}
}

// TestNamedTooCommon: a kind named like too many files ("Config") stays
// unknown, and the other kinds' answers hold; at the bound it is read.
func TestNamedTooCommon(t *testing.T) {
	for _, n := range []int{maxNamed, maxNamed + 1} {
		src := &fakeSource{files: map[string]string{
			"config/crd/widgets.yaml": widgets,
		}}
		for i := range n {
			src.files[fmt.Sprintf("deploy/%d/config.yaml", i)] = "kind: CustomResourceDefinition\nspec: {group: conf.example.com, names: {kind: Config}, versions: [{name: v1}]}\n"
		}
		m := New(src)
		if ks, ok := m.Kind("conf.example.com", "Config"); ok != (n <= maxNamed) {
			t.Errorf("%d kind-named files: Kind(Config) = %+v, %v; want known up to %d", n, ks, ok, maxNamed)
		}
		if ks, ok := m.Kind("widgets.example.com", "Widget"); !ok || !reflect.DeepEqual(ks.Everywhere, []string{"v1", "v1alpha1"}) {
			t.Errorf("Kind(Widget) = %+v, %v after Config's lookup; want served v1 and v1alpha1", ks, ok)
		}
		if why := m.Unread(); why != "" {
			t.Errorf("Unread = %q, want \"\"", why)
		}
	}
}

func TestHandWritten(t *testing.T) {
	const hand = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: pg.example.com
  names: {kind: Cluster}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            properties:
              image: {type: string}
              pools:
                type: array
                items: [{type: object, required: [name]}]
              labels:
                type: object
                additionalProperties: {type: object, required: [value]}
              tls:
                oneOf: [{required: [ca]}, {required: [cert]}]
  - name: v2
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
spec:
  group: pg.example.com
  names: {kind: Cluster}
  version: v2
  validation:
    openAPIV3Schema:
      properties:
        spec:
          properties:
            image: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.16.0
spec:
  group: pg.example.com
  names: {kind: Backup}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, required: [target], properties: {target: {type: string}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.11.3
spec:
  group: pg.example.com
  names: {kind: Restore}
  versions:
  - name: v1
    schema:
      openAPIV3Schema: {type: object, properties: {spec: {type: object}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: pg.example.com
  names: {kind: Restore}
  versions:
  - name: v1
    schema:
      openAPIV3Schema: {type: object, properties: [spec, status]}
`
	m := New(&fakeSource{files: map[string]string{"deploy/crds/pg.yaml": hand}})
	ks, ok := m.Kind("pg.example.com", "Cluster")
	if !ok {
		t.Fatal("Cluster: no manifest")
	}
	v1, ok := ks.HandWritten("v1")
	if !ok || len(v1) != 1 {
		t.Fatalf("HandWritten(v1) = %d schemas, %v; want 1, true", len(v1), ok)
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"spec.image", true},
		{"spec.pools", false},
		{"spec.pools.*.name", true},
		{"spec.pools.*.size", false},
		{"spec.labels.*.value", true},
		{"spec.labels.*.key", false},
		{"spec.tls.ca", true}, // oneOf: not followed, taken as required
		{"spec.undescribed.deeper", false},
		{"status.phase", false},
	} {
		if got := v1[0].Requires(strings.Split(c.path, ".")); got != c.want {
			t.Errorf("Requires(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	// RequiresBelow: anything required in the value at path, or a
	// combination of schemas on the way or in it.
	for _, c := range []struct {
		path string
		want bool
	}{
		{"spec", true},
		{"spec.image", false},
		{"spec.pools", true},   // its items require name
		{"spec.pools.*", true}, // as above
		{"spec.labels", true},  // its values require value
		{"spec.labels.*.value", false},
		{"spec.tls", true},    // oneOf
		{"spec.tls.ca", true}, // a combination on the way
		{"spec.undescribed", false},
		{"status", false},
	} {
		if got := v1[0].RequiresBelow(strings.Split(c.path, ".")); got != c.want {
			t.Errorf("RequiresBelow(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	// v2: one manifest gives no schema, the other a partial one.
	if v2, ok := ks.HandWritten("v2"); !ok || len(v2) != 1 || v2[0].Requires([]string{"spec", "image"}) {
		t.Errorf("HandWritten(v2) = %d schemas, %v; want one that requires nothing", len(v2), ok)
	}
	if _, ok := ks.HandWritten("v3"); ok {
		t.Error("HandWritten(v3) of a version no manifest defines: ok")
	}
	b := mustKind(t, m, "pg.example.com", "Backup")
	if _, ok := b.HandWritten("v1"); ok {
		t.Error("HandWritten(v1) of a controller-gen manifest: ok")
	}
	// Generated: the schemas of controller-gen's manifests, read when
	// asked; none for a version a hand-written manifest defines.
	g, ok := b.Generated("v1")
	if !ok || len(g) != 1 || !g[0].Requires([]string{"spec", "target"}) || g[0].At([]string{"spec", "target"}) == nil {
		t.Errorf("Generated(v1) of Backup = %d schemas, %v; want one that has and requires spec.target", len(g), ok)
	}
	if g2, ok := b.Generated("v1"); !ok || len(g2) != 1 || g2[0] != g[0] {
		t.Error("Generated(v1) asked again: the schemas were read again")
	}
	if _, ok := ks.Generated("v1"); ok {
		t.Error("Generated(v1) of a hand-written manifest: ok")
	}
	if _, ok := b.Generated("v2"); ok {
		t.Error("Generated(v2) of a version no manifest defines: ok")
	}
	// A version that a manifest which does not decode defines too: what
	// that one says is unknown.
	r := mustKind(t, m, "pg.example.com", "Restore")
	if _, ok := r.Generated("v1"); ok {
		t.Error("Generated(v1) beside a manifest that does not decode: ok")
	}
}

// mustKind is what the manifests say about a kind they define.
func mustKind(t *testing.T, m *Manifests, group, kind string) KindServed {
	t.Helper()
	ks, ok := m.Kind(group, kind)
	if !ok {
		t.Fatalf("%s: no manifest", kind)
	}
	return ks
}

// TestNewPair: the manifests of two revisions made by NewPair answer as
// New's, and decode a document the two have alike once.
func TestNewPair(t *testing.T) {
	changed := strings.Replace(widgets, "served: false", "served: true", 1)
	gadgets := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: gadgets.example.com\n  names: {kind: Gadget}\n  versions: [{name: v1, served: true}]\n"
	baseSrc := &fakeSource{files: map[string]string{"config/crd/widgets.yaml": widgets, "config/crd/gadgets.yaml": gadgets}}
	headSrc := &fakeSource{files: map[string]string{"config/crd/widgets.yaml": changed, "config/crd/gadgets.yaml": gadgets}}
	base, head := NewPair(baseSrc, headSrc)
	alone := [2]*Manifests{New(baseSrc), New(headSrc)}
	for i, m := range []*Manifests{base, head} {
		for _, gk := range [][2]string{{"widgets.example.com", "Widget"}, {"gadgets.example.com", "Gadget"}, {"other.example.com", "Widget"}} {
			got, gok := m.Kind(gk[0], gk[1])
			want, wok := alone[i].Kind(gk[0], gk[1])
			if gok != wok || !reflect.DeepEqual(got, want) {
				t.Errorf("revision %d, %v: NewPair's answer %+v, %v; New's %+v, %v", i, gk, got, gok, want, wok)
			}
		}
	}
	// widgets.yaml's first document differs, its second (other.example.com)
	// and gadgets.yaml's are the same: 2 + 1 + 1 distinct documents.
	if n := len(base.docs.docs); n != 4 {
		t.Errorf("%d documents decoded, want 4 (a document both revisions have once)", n)
	}
}
