// Package crd reads the CustomResourceDefinition manifests of a revision:
// which versions of a kind the API server serves when the repository
// installs its API as CRDs (controller-gen's config/crd, a chart's crds,
// deploy/crds). A Go package of a version that no CRD serves is code (a
// conversion source, a leftover), not API: removing it breaks Go clients,
// not the API server's clients.
//
// Only manifests are read, never executed: YAML files whose path names
// CRDs (a directory or file name containing "crd"), outside vendor/,
// testdata/ and node_modules/, and not named for another group
// (controller-gen's "<group>_<plural>.yaml"), read once per set of groups
// asked for (bounded in count and bytes); for a group none of them
// defines a kind of, the YAML files named after the kind asked for
// (Knative's config/core/resources/eventtype.yaml, "300-eventtype.yaml",
// plurals too). A document is parsed only when its text
// names CustomResourceDefinition and one of the groups; one that does not
// parse (a Helm template) is skipped. Several manifests of one kind count
// together: a version any of them serves is served (KindServed.Versions),
// and one all of them serve is served everywhere (KindServed.Everywhere).
// A kind is looked up by its Go type's name (KindFold: failing that, by
// the one kind of the group whose name differs only by case, a type
// registered under another spelling). The schemas of hand-written
// manifests (without controller-gen's annotation) are kept in full
// (KindServed.HandWritten): they, not Go markers, say what the API
// server requires and defaults.
package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/git"
)

// Source is a revision's files (git.Snapshot).
type Source interface {
	Files() []string
	ReadFiles(paths []string) (map[string][]byte, error)
}

// Bounds of one read: past them the manifests are not read at all, and
// every lookup answers "unknown" (callers then keep their finding).
// Variables for the tests.
var (
	maxFiles = 4000
	maxBytes = 128 << 20
)

// Manifests are the CRD manifests of one revision, read lazily.
type Manifests struct {
	src Source

	mu     sync.Mutex
	loaded map[string]bool           // groups read
	named  map[groupKind]bool        // kinds whose kind-named files were read
	inCRDs map[string]bool           // groups some file with "crd" in its path defines kinds of
	kinds  map[groupKind]*KindServed // what the manifests say
	failed string                    // why nothing is known ("": the files were read)
	// docs are the documents decoded, shared with the other revision's
	// Manifests (NewPair): a manifest the change did not touch is
	// decoded once.
	docs *docMemo
}

// docMemo holds decoded manifest documents by their text. A document is
// read-only once decoded.
type docMemo struct {
	mu   sync.Mutex
	docs map[string]decodedDoc
}

type decodedDoc struct {
	d    doc
	node *yaml.Node
	err  error
}

type groupKind struct{ group, kind string }

// KindServed is what the manifests of a revision say about one kind.
type KindServed struct {
	// Versions are the versions some manifest serves, sorted.
	Versions []string
	// Files are the manifests defining the kind, sorted.
	Files []string
	// Everywhere are the versions every manifest of the kind serves
	// (a stale copy, a chart not synced yet, serves less or more).
	Everywhere []string
	// NoSchema are the versions no manifest gives a schema for the
	// kind's spec (an apiextensions.k8s.io/v1beta1 CRD without
	// validation, or a schema that preserves unknown fields in place of
	// describing spec): the API server validates, requires and defaults
	// nothing there.
	NoSchema []string
	// schema are the versions some manifest describes spec for.
	schema []string
	// hand are the schemas of the kind's hand-written manifests per
	// version, generated the versions some generated manifest
	// (controller-gen's annotation) defines: see HandWritten.
	hand      map[string][]*Schema
	generated []string
	// gen are the generated manifests, read into schemas only when asked
	// (see Generated); unread the versions of manifests that did not
	// decode.
	gen    []*genDoc
	unread []string
}

// genDoc is a generated manifest of the kind, its schemas read on first
// use.
type genDoc struct {
	node    *yaml.Node
	read    bool
	schemas map[string][]*Schema
}

// HandWritten returns the schemas that the kind's manifests give version,
// when every manifest of the kind that defines the version is
// hand-written (none carries controller-gen's version annotation) and
// at least one gives a schema: what the API server validates and
// requires there is what they say, not what Go markers would generate.
// ok is false otherwise.
func (ks KindServed) HandWritten(version string) (schemas []*Schema, ok bool) {
	if slices.Contains(ks.generated, version) || len(ks.hand[version]) == 0 {
		return nil, false
	}
	return ks.hand[version], true
}

// Generated returns the schemas that the kind's manifests give version,
// when every manifest of the kind that defines the version was generated
// by controller-gen (its version annotation) and at least one gives a
// schema: what the API server requires there is what the generator
// wrote, whatever the Go markers would make of it with another
// generator's version. ok is false otherwise.
func (ks KindServed) Generated(version string) (schemas []*Schema, ok bool) {
	if len(ks.hand[version]) > 0 || !slices.Contains(ks.generated, version) || slices.Contains(ks.unread, version) {
		return nil, false
	}
	for _, g := range ks.gen {
		if !g.read {
			g.read = true
			g.schemas = versionSchemas(g.node)
			g.node = nil
		}
		schemas = append(schemas, g.schemas[version]...)
	}
	return schemas, len(schemas) > 0
}

// generatorAnnotation is the annotation controller-gen writes on every
// CRD it generates.
const generatorAnnotation = "controller-gen.kubebuilder.io/version"

// Schema is one OpenAPI v3 schema node of a hand-written manifest: the
// parts that say which members exist, which are required, and their
// types and defaults.
type Schema struct {
	// Type is the node's type (string, integer, number, boolean, object,
	// array); "" when it gives none.
	Type string `yaml:"type"`
	// Default is the node's default as compact JSON ("" without one).
	Default    jsonValue          `yaml:"default"`
	Properties map[string]*Schema `yaml:"properties"`
	// Items is the schema of a list's items (the first, when items is
	// a list of schemas), AdditionalProperties that of a map's values.
	Items                *subSchema `yaml:"items"`
	AdditionalProperties *subSchema `yaml:"additionalProperties"`
	Required             []string   `yaml:"required"`
	// AllOf, AnyOf, OneOf and Not combine schemas, which may require
	// more than Required says (their content is not read).
	AllOf []skipNode `yaml:"allOf"`
	AnyOf []skipNode `yaml:"anyOf"`
	OneOf []skipNode `yaml:"oneOf"`
	Not   *skipNode  `yaml:"not"`
}

// jsonValue is a YAML value as compact JSON; "" when it has none JSON
// can hold (a map with keys that are not strings).
type jsonValue string

func (v *jsonValue) UnmarshalYAML(n *yaml.Node) error {
	var x any
	if n.Decode(&x) != nil {
		return nil
	}
	if b, err := json.Marshal(x); err == nil {
		*v = jsonValue(b)
	}
	return nil
}

// subSchema is a schema, a list of schemas (the first counts) or a
// boolean (additionalProperties: true, no schema).
type subSchema struct{ *Schema }

func (s *subSchema) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		s.Schema = &Schema{}
		return n.Decode(s.Schema)
	case yaml.SequenceNode:
		if len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
			s.Schema = &Schema{}
			return n.Content[0].Decode(s.Schema)
		}
	}
	return nil
}

// At returns the node at path (json names from the object's root; "*"
// steps into a list's items or a map's values), nil when the schema does
// not describe it.
func (s *Schema) At(path []string) *Schema {
	n := s
	for _, step := range path {
		n = n.child(step)
	}
	return n
}

// child is the node one step down ("*": a list's items or a map's
// values), nil when the schema does not describe it.
func (s *Schema) child(step string) *Schema {
	switch {
	case s == nil:
		return nil
	case step != "*":
		return s.Properties[step]
	case s.Items != nil && s.Items.Schema != nil:
		return s.Items.Schema
	case s.AdditionalProperties != nil:
		return s.AdditionalProperties.Schema
	}
	return nil
}

// RequiresBelow reports whether the schema may require anything of the
// value at path (json names from the object's root; "*" steps into a
// list's items or a map's values): a node on the way there, or any node
// of the value's own schema, combines schemas (allOf, anyOf, oneOf, not),
// or a node of the value's schema lists a required member. A value the
// schema does not describe has nothing required.
func (s *Schema) RequiresBelow(path []string) bool {
	n, combined := s.along(path)
	return combined || n.requiresAny(0)
}

// requiresAny reports a required member or a combination of schemas
// anywhere in s (nil: none). Past maxSchemaDepth levels it
// answers yes: a schema that deep is not followed.
func (s *Schema) requiresAny(depth int) bool {
	switch {
	case s == nil:
		return false
	case depth > maxSchemaDepth:
		return true
	case len(s.Required) > 0 || s.combines():
		return true
	}
	for _, c := range s.Properties {
		if c.requiresAny(depth + 1) {
			return true
		}
	}
	for _, c := range []*subSchema{s.Items, s.AdditionalProperties} {
		if c != nil && c.Schema.requiresAny(depth+1) {
			return true
		}
	}
	return false
}

// maxSchemaDepth bounds how deep RequiresBelow follows a schema.
const maxSchemaDepth = 64

// Requires reports whether the schema may require the member at path
// (json names from the object's root; "*" steps into a list's items or
// a map's values): the node above it lists it as required, or a node on
// the way combines schemas (allOf, anyOf, oneOf, not), which apicheck
// does not follow. A member of a part the schema does not describe is
// not required.
func (s *Schema) Requires(path []string) bool {
	if len(path) == 0 {
		return false
	}
	n, combined := s.along(path[:len(path)-1])
	switch {
	case combined:
		return true
	case n == nil:
		return false
	case n.combines():
		return true
	}
	return slices.Contains(n.Required, path[len(path)-1])
}

// along walks the schema down path: the node it reaches (nil when the
// schema does not describe it), or combined when a node on the way
// combines schemas (allOf, anyOf, oneOf, not), which apicheck does not
// follow.
func (s *Schema) along(path []string) (n *Schema, combined bool) {
	n = s
	for _, step := range path {
		if n == nil {
			return nil, false
		}
		if n.combines() {
			return n, true
		}
		n = n.child(step)
	}
	return n, false
}

// combines reports a node that combines schemas.
func (s *Schema) combines() bool {
	return len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil
}

// sort sorts the lists of ks and drops their duplicates.
func (ks *KindServed) sort() {
	ks.NoSchema = slices.DeleteFunc(ks.NoSchema, func(v string) bool { return slices.Contains(ks.schema, v) })
	for _, l := range []*[]string{&ks.Versions, &ks.Everywhere, &ks.Files, &ks.NoSchema, &ks.generated} {
		sort.Strings(*l)
		*l = slices.Compact(*l)
	}
	ks.schema = nil
}

// New returns the manifests of src; nothing is read yet. A nil src has
// none.
func New(src Source) *Manifests {
	return &Manifests{src: src, loaded: map[string]bool{}, named: map[groupKind]bool{}, inCRDs: map[string]bool{}, kinds: map[groupKind]*KindServed{}}
}

// NewPair returns the manifests of two revisions (New), which decode a
// document the two have alike once.
func NewPair(base, head Source) (*Manifests, *Manifests) {
	memo := &docMemo{docs: map[string]decodedDoc{}}
	b, h := New(base), New(head)
	b.docs, h.docs = memo, memo
	return b, h
}

// decode is decodeDoc, through the memo the Manifests share (if any).
func (m *Manifests) decode(text []byte) (doc, *yaml.Node, error) {
	if m.docs == nil {
		return decodeDoc(text)
	}
	m.docs.mu.Lock()
	dd, ok := m.docs.docs[string(text)]
	m.docs.mu.Unlock()
	if !ok {
		dd.d, dd.node, dd.err = decodeDoc(text)
		m.docs.mu.Lock()
		m.docs.docs[string(text)] = dd
		m.docs.mu.Unlock()
	}
	return dd.d, dd.node, dd.err
}

// Kind returns what the manifests say about kind of group: ok is false
// when no manifest of the revision defines it (or they could not be
// read), so nothing is known about which versions are served.
func (m *Manifests) Kind(group, kind string) (KindServed, bool) {
	if m == nil || m.src == nil || group == "" || kind == "" {
		return KindServed{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded[group] {
		m.load([]string{group})
	}
	if m.failed != "" {
		return KindServed{}, false
	}
	gk := groupKind{group, kind}
	ks, ok := m.kinds[gk]
	if !ok && !m.named[gk] && !m.inCRDs[group] {
		m.named[gk] = true
		m.loadNamed(gk)
		ks, ok = m.kinds[gk]
	}
	if !ok {
		return KindServed{}, false
	}
	return *ks, true
}

// KindFold is Kind, falling back to the one kind of the group whose name
// differs from kind only by case: a Go type registered under another
// spelling (Zalando's Postgresql is the kind "postgresql"). Callers that
// know the type has no kind of its own spelling use it (a renamed type's
// old name would find the new kind).
func (m *Manifests) KindFold(group, kind string) (KindServed, bool) {
	if ks, ok := m.Kind(group, kind); ok || m == nil {
		return ks, ok
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ks, ok := m.foldedKind(groupKind{group, kind}); ok {
		return *ks, true
	}
	return KindServed{}, false
}

// foldedKind returns the one kind of k's group whose name equals k's
// but for case: a Go type registered under another spelling (Zalando's
// Postgresql is the kind "postgresql"); m.mu is held. ok is false when
// no kind, or more than one, matches.
func (m *Manifests) foldedKind(k groupKind) (ks *KindServed, ok bool) {
	for o, v := range m.kinds {
		if o.group == k.group && strings.EqualFold(o.kind, k.kind) {
			if ok {
				return nil, false
			}
			ks, ok = v, true
		}
	}
	return ks, ok
}

// maxNamed bounds the kind-named files read for one kind.
const maxNamed = 32

// loadNamed reads the YAML files named after kind k that are not
// candidates (those were read): a manifest per kind, as Knative keeps
// them; only for a group no candidate defines a kind of (a repository
// keeps its manifests one way: Velero's CRDs are in config/crd, and its
// design/CLI/PoC/base/resticrepository.yaml is no manifest of the API);
// m.mu is held. Past maxNamed files, or when reading them fails,
// the kind stays unknown (the other kinds' answers hold).
func (m *Manifests) loadNamed(k groupKind) {
	all, err := git.Select(m.src, namedSelection(k.kind))
	if err != nil {
		return // the kind stays unknown; the other kinds' answers hold
	}
	var files []string
	for _, f := range all {
		if named(f, k.kind) && !strings.Contains(strings.ToLower(f), "crd") && !excluded(f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return
	}
	if len(files) > maxNamed {
		return // a name too common to be a manifest's ("config"): the kind stays unknown
	}
	data, err := m.src.ReadFiles(files)
	if err != nil {
		return // the kind stays unknown; the other kinds' answers hold
	}
	for _, f := range files {
		if len(data[f]) > maxBytes {
			continue
		}
		m.read(f, data[f], []string{k.group})
	}
	if ks := m.kinds[k]; ks != nil {
		ks.sort()
	}
}

// named reports whether YAML file f is named after kind: its base name,
// without extension and "NNN-" ordering prefixes, is the kind or its
// plural, in lower case.
func named(f, kind string) bool {
	ext := strings.ToLower(path.Ext(f))
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	name := strings.ToLower(strings.TrimSuffix(path.Base(f), path.Ext(f)))
	for {
		prefix, rest, ok := strings.Cut(name, "-")
		if !ok || prefix == "" || strings.Trim(prefix, "0123456789") != "" {
			break
		}
		name = rest
	}
	k := strings.ToLower(kind)
	switch name {
	case k, k + "s", k + "es":
		return true
	}
	if stem, ok := strings.CutSuffix(k, "y"); ok && name == stem+"ies" {
		return true
	}
	return false
}

// Unread says why the manifests could not be read ("" when they were,
// or were not needed yet): every lookup then answers "unknown".
func (m *Manifests) Unread() string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failed
}

// Load reads the manifests of several groups in one pass (Kind reads one
// group at a time otherwise).
func (m *Manifests) Load(groups ...string) {
	if m == nil || m.src == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var todo []string
	for _, g := range groups {
		if g != "" && !m.loaded[g] && !slices.Contains(todo, g) {
			todo = append(todo, g)
		}
	}
	if len(todo) > 0 {
		m.load(todo)
	}
}

// load reads the candidate files for groups; m.mu is held.
func (m *Manifests) load(groups []string) {
	for _, g := range groups {
		m.loaded[g] = true
	}
	if m.failed != "" {
		return
	}
	all, err := git.Select(m.src, candidateSelection)
	if err != nil {
		m.failed = "listing them failed: " + err.Error()
		return
	}
	files := slices.DeleteFunc(candidates(all), func(f string) bool {
		g, ok := namedGroup(f)
		return ok && !slices.Contains(groups, g)
	})
	if len(files) > maxFiles {
		m.failed = fmt.Sprintf("%d files may hold CRD manifests, more than the %d apicheck reads", len(files), maxFiles)
		return
	}
	// In batches, so that a large repository's manifests are not all in
	// memory at once.
	total := 0
	for len(files) > 0 {
		n := min(len(files), 64)
		batch := files[:n]
		files = files[n:]
		data, err := m.src.ReadFiles(batch)
		if err != nil { // a missing object, a file too large
			m.failed = "reading them failed: " + err.Error()
			return
		}
		for _, f := range batch {
			total += len(data[f])
			if total > maxBytes {
				m.failed = fmt.Sprintf("they hold more than the %d MiB apicheck reads", maxBytes>>20)
				return
			}
			m.read(f, data[f], groups)
		}
	}
	for k := range m.kinds {
		if slices.Contains(groups, k.group) {
			m.inCRDs[k.group] = true
		}
	}
	for _, ks := range m.kinds {
		ks.sort()
	}
}

// candidateSelection keeps the candidates, and more (git.Select): the
// YAML files whose path contains "crd".
var candidateSelection = &git.Selection{
	Name:     "crd 1",
	Mark:     func(name string) bool { return strings.Contains(strings.ToLower(name), "crd") },
	MarkFile: isYAML,
}

// namedSelection keeps the YAML files named after kind (git.Select).
func namedSelection(kind string) *git.Selection {
	return &git.Selection{
		Name: "named 1 " + strings.ToLower(kind),
		File: func(name string) bool { return named(name, kind) },
	}
}

func isYAML(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// candidates are the files that may hold CRD manifests: YAML whose path
// contains "crd" (any case), outside vendor/, testdata/, node_modules/
// and hidden directories.
func candidates(files []string) []string {
	var out []string
	for _, f := range files {
		ext := strings.ToLower(path.Ext(f))
		if ext != ".yaml" && ext != ".yml" || !strings.Contains(strings.ToLower(f), "crd") {
			continue
		}
		if !excluded(f) {
			out = append(out, f)
		}
	}
	return out
}

// excluded reports a file in vendor/, testdata/, node_modules/ or a
// hidden directory: never the repository's own manifests.
func excluded(f string) bool {
	for _, seg := range strings.Split(path.Dir(f), "/") {
		if seg == "vendor" || seg == "testdata" || seg == "node_modules" || strings.HasPrefix(seg, ".") && seg != "." {
			return true
		}
	}
	return false
}

// namedGroup returns the API group a manifest's file name says it
// defines, the way controller-gen names its output
// ("<group>_<plural>.yaml", also behind a "10-crd-" or "crd-" prefix):
// a repository that vendors third-party CRDs (Gardener has 185 files,
// 55 MB) need not read the other groups' manifests. ok is false when the
// name names no group ("crd-certificates.yaml", "crds.yaml").
func namedGroup(file string) (group string, ok bool) {
	name := strings.TrimSuffix(path.Base(file), path.Ext(file))
	for {
		i := strings.IndexByte(name, '-')
		if i < 0 {
			break
		}
		prefix := name[:i]
		if prefix != "crd" && strings.Trim(prefix, "0123456789") != "" {
			break
		}
		name = name[i+1:]
	}
	group, plural, ok := strings.Cut(name, "_")
	if !ok || plural == "" || !strings.Contains(group, ".") || strings.Trim(group, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return "", false
	}
	return group, true
}

// doc is the part of a CRD manifest (apiextensions.k8s.io v1 or v1beta1)
// that says which versions are served.
type doc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec struct {
		Group string `yaml:"group"`
		Names struct {
			Kind string `yaml:"kind"`
		} `yaml:"names"`
		// Version is v1beta1's single version (served), Validation its
		// schema (the default of versions without one of their own).
		Version    string    `yaml:"version"`
		Validation schemaDoc `yaml:"validation"`
		Versions   []struct {
			Name   string    `yaml:"name"`
			Served *bool     `yaml:"served"`
			Schema schemaDoc `yaml:"schema"`
		} `yaml:"versions"`
	} `yaml:"spec"`
}

// schemaDoc is the part of a version's schema that says whether it
// describes the kind's spec: the root's properties, one level down.
type schemaDoc struct {
	Root *struct {
		Preserve   bool `yaml:"x-kubernetes-preserve-unknown-fields"`
		Properties map[string]struct {
			Preserve   bool                `yaml:"x-kubernetes-preserve-unknown-fields"`
			Properties map[string]skipNode `yaml:"properties"`
		} `yaml:"properties"`
	} `yaml:"openAPIV3Schema"`
}

// describesSpec reports whether the schema describes the members of
// spec: it lists spec's properties. A schema without spec, or without one
// at all, describes it only when the manifest is apiextensions.k8s.io/v1
// (required), which requires a structural schema: a manifest without is
// a fragment, taken to describe spec; v1beta1 validated nothing there.
func (d schemaDoc) describesSpec(required bool) bool {
	if d.Root == nil {
		return required
	}
	spec, ok := d.Root.Properties["spec"]
	if !ok {
		return required && !d.Root.Preserve
	}
	return len(spec.Properties) > 0
}

// skipNode decodes nothing (the schema below spec's properties).
type skipNode struct{}

func (*skipNode) UnmarshalYAML(*yaml.Node) error { return nil }

// read adds the CRDs of groups that file f defines.
func (m *Manifests) read(f string, data []byte, groups []string) {
	if !bytes.Contains(data, []byte("CustomResourceDefinition")) {
		return
	}
	for _, text := range documents(data) {
		if !bytes.Contains(text, []byte("CustomResourceDefinition")) ||
			!slices.ContainsFunc(groups, func(g string) bool { return bytes.Contains(text, []byte(g)) }) {
			continue
		}
		d, node, err := m.decode(text)
		if err != nil && bytes.Contains(text, []byte("{{")) {
			// A Helm chart's template (Longhorn's generated crds.yaml
			// carries a {{- include ... }} label): without its actions
			// the rest is the manifest the chart installs.
			d, node, _ = m.decode(withoutActions(text))
		}
		if d.Kind != "CustomResourceDefinition" ||
			!slices.Contains(groups, d.Spec.Group) || d.Spec.Names.Kind == "" {
			continue
		}
		k := groupKind{d.Spec.Group, d.Spec.Names.Kind}
		ks := m.kinds[k]
		if ks == nil {
			ks = &KindServed{}
			m.kinds[k] = ks
		}
		var served []string
		v1 := d.APIVersion == "apiextensions.k8s.io/v1"
		schema := func(v string, described bool) {
			if described {
				ks.schema = append(ks.schema, v)
			} else {
				ks.NoSchema = append(ks.NoSchema, v)
			}
		}
		if d.Spec.Version != "" {
			served = append(served, d.Spec.Version)
			if len(d.Spec.Versions) == 0 {
				schema(d.Spec.Version, d.Spec.Validation.describesSpec(v1))
			}
		}
		for _, v := range d.Spec.Versions {
			if v.Name != "" && (v.Served == nil || *v.Served) { // unset: count it served
				served = append(served, v.Name)
			}
			if v.Name != "" {
				if v.Schema.Root != nil {
					schema(v.Name, v.Schema.describesSpec(v1))
				} else {
					schema(v.Name, d.Spec.Validation.describesSpec(v1))
				}
			}
		}
		if len(ks.Files) == 0 {
			ks.Everywhere = slices.Clone(served)
		} else {
			ks.Everywhere = slices.DeleteFunc(ks.Everywhere, func(v string) bool { return !slices.Contains(served, v) })
		}
		ks.Files = append(ks.Files, f)
		readSchemas(ks, d, node)
		ks.Versions = append(ks.Versions, served...)
	}
}

// decodeDoc parses a manifest once (its node tree, which readSchemas
// decodes again when it is hand-written) and decodes what says which
// versions are served. The error is the parser's or the decoder's (the
// decoder fills what it can).
func decodeDoc(text []byte) (doc, *yaml.Node, error) {
	var d doc
	n := &yaml.Node{}
	if err := yaml.Unmarshal(text, n); err != nil {
		return d, n, err
	}
	if n.Kind == 0 {
		return d, n, nil // an empty document
	}
	return d, n, n.Decode(&d)
}

// handDoc is the schemas of a hand-written CRD manifest, in full.
type handDoc struct {
	Spec struct {
		Version    string     `yaml:"version"`
		Validation handSchema `yaml:"validation"`
		Versions   []struct {
			Name   string     `yaml:"name"`
			Schema handSchema `yaml:"schema"`
		} `yaml:"versions"`
	} `yaml:"spec"`
}

type handSchema struct {
	Root *Schema `yaml:"openAPIV3Schema"`
}

// readSchemas records the schemas of manifest d (text) of kind ks per
// version: in full when it is hand-written (no controller-gen
// annotation), otherwise that a generated manifest defines the versions.
func readSchemas(ks *KindServed, d doc, node *yaml.Node) {
	var versions []string
	if d.Spec.Version != "" {
		versions = append(versions, d.Spec.Version)
	}
	for _, v := range d.Spec.Versions {
		if v.Name != "" {
			versions = append(versions, v.Name)
		}
	}
	if _, gen := d.Metadata.Annotations[generatorAnnotation]; gen {
		ks.generated = append(ks.generated, versions...)
		ks.gen = append(ks.gen, &genDoc{node: node})
		return
	}
	schemas := versionSchemas(node)
	if schemas == nil {
		// Unknown: no hand-written schema to trust, and no generated one.
		ks.generated = append(ks.generated, versions...)
		ks.unread = append(ks.unread, versions...)
		return
	}
	if ks.hand == nil {
		ks.hand = map[string][]*Schema{}
	}
	for v, list := range schemas {
		ks.hand[v] = append(ks.hand[v], list...)
	}
}

// versionSchemas reads a manifest's schema per version; nil when the
// manifest does not decode.
func versionSchemas(node *yaml.Node) map[string][]*Schema {
	var h handDoc
	if err := node.Decode(&h); err != nil {
		return nil
	}
	out := map[string][]*Schema{}
	add := func(v string, s *Schema) {
		if s != nil {
			out[v] = append(out[v], s)
		}
	}
	if h.Spec.Version != "" && len(h.Spec.Versions) == 0 {
		add(h.Spec.Version, h.Spec.Validation.Root)
	}
	for _, v := range h.Spec.Versions {
		if v.Name == "" {
			continue
		}
		if v.Schema.Root != nil {
			add(v.Name, v.Schema.Root)
		} else {
			add(v.Name, h.Spec.Validation.Root)
		}
	}
	return out
}

// withoutActions returns text without its template actions ("{{ ... }}",
// Go's text/template syntax, which Helm charts use); an action left open
// drops the rest of the text.
func withoutActions(text []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(text, []byte("{{"))
		if i < 0 {
			return append(out, text...)
		}
		out = append(out, text[:i]...)
		j := bytes.Index(text[i+2:], []byte("}}"))
		if j < 0 {
			return out
		}
		text = text[i+2+j+2:]
	}
}

// documents splits a YAML stream at its "---" lines.
func documents(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i <= len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		line := bytes.TrimRight(data[i:end], " \t\r")
		if bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")) {
			out = append(out, data[start:i])
			start = end + 1
		}
		i = end + 1
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}
