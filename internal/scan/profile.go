package scan

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/quote"
)

// DetectProfile decides the repository's profile from what it holds and
// how its API is served, and says what decided it (Model.ProfileReason):
//
//   - gardener: a module of the repository is github.com/gardener/... or
//     requires github.com/gardener/gardener (Gardener and its extensions),
//     unless its API is plain CRDs without Gardener's conventions: no
//     protobuf tags, no internal version, +kubebuilder markers, and CRD
//     manifests that define the kinds of every group (etcd-druid's
//     config/crd/bases): crd;
//   - kubernetes: a module is k8s.io/... (k8s.io/api, k8s.io/kubernetes and
//     its staging repositories), unless a kind carries a CRD generator's
//     marker (+kubebuilder:object:root, :resource, :subresource,
//     :storageversion: k8s.io/autoscaler's VerticalPodAutoscaler is a
//     CRD; k8s.io/api has +kubebuilder validation markers on a few fields
//     for the CRDs that embed them, and no such marker) or CRD manifests
//     define the kinds of every group (k8s.io/sample-controller): crd;
//   - crd: the API packages carry +kubebuilder markers, or show no sign
//     of an API server of their own: no version package has both protobuf
//     tags and a .proto file beside it, and no group (but a component
//     configuration) has an internal version (kubebuilder/controller-runtime
//     projects; Tekton copied Kubernetes' container types, protobuf tags
//     and all, into CRDs that serve no protobuf); or the groups with such
//     signs have CRD manifests that define their kinds (an
//     apiextensions.k8s.io/v1beta1 CRD without a schema too): the API
//     server serves them as custom resources, whatever package holds the
//     hub of their conversions;
//   - otherwise (APIs served by an API server of the project: protobuf
//     with generated.proto committed, or internal versions as in
//     k8s.io/sample-apiserver before it had a go.mod) kubernetes, whose
//     conventions such projects follow.
//
// CRD manifests are read only where they decide (internal/crd).
func (s *state) DetectProfile(m *model.Model) (model.Profile, string) {
	for _, root := range slices.Sorted(maps.Keys(s.mods.byDir)) {
		f := s.mods.byDir[root]
		mod := f.Module.Mod.Path
		why := ""
		if strings.HasPrefix(mod, "github.com/gardener/") {
			why = "module " + mod
		}
		for _, r := range f.Require {
			if why == "" && r.Mod.Path == "github.com/gardener/gardener" {
				why = "module " + mod + " requires github.com/gardener/gardener"
			}
		}
		if why == "" {
			continue
		}
		if dirs, ok := s.plainCRDs(m); ok {
			return model.ProfileCRD, why + ", but its API is plain CRDs without Gardener's conventions: +kubebuilder markers, " +
				crdManifestsServe(dirs) + ", no protobuf tags, no internal version"
		}
		return model.ProfileGardener, why
	}
	for _, root := range slices.Sorted(maps.Keys(s.mods.byDir)) {
		mod := s.mods.byDir[root].Module.Mod.Path
		if !strings.HasPrefix(mod, "k8s.io/") {
			continue
		}
		if s.crd&crdKindMarkers != 0 {
			return model.ProfileCRD, "module " + mod + ", but kinds carry a CRD generator's markers (+kubebuilder:object:root, :resource, :subresource, :storageversion)"
		}
		if dirs, ok := s.crdServed(apiGroups(m.Groups)); ok {
			return model.ProfileCRD, "module " + mod + ", but " + crdManifestsServe(dirs)
		}
		return model.ProfileKubernetes, "module " + mod
	}
	if s.crd != 0 {
		return model.ProfileCRD, "the API types carry +kubebuilder markers"
	}
	// An API server's signs: a version served over protobuf, or an
	// internal version (the hub of an API server's conversions, which
	// declares the versions' kinds; CRDs have none, a CRD group's own
	// package holds helpers at most: Tekton's Images and Options).
	var served []*model.Group // the groups with such signs
	sign, why := "", ""
	for _, g := range m.Groups {
		if g.Profile == model.ProfileComponentConfig {
			continue
		}
		switch {
		case internalHub(g):
			served = append(served, g)
			if sign == "" {
				sign = "internal version " + quote.Name(g.Internal.Dir)
				why = sign + " declares the kinds of its versions: an API server's conversion hub"
			}
		case slices.ContainsFunc(g.Versions, func(p *model.Package) bool { return s.idx.protoDirs[p.Dir] && p.HasProtobuf() }):
			served = append(served, g)
			if sign == "" {
				sign = "protobuf tags in " + quote.Name(g.Dir)
				why = sign + " beside a .proto file: an API server serves protobuf"
			}
		}
	}
	if len(served) == 0 {
		return model.ProfileCRD, "no sign of an API server of the project (no protobuf tags beside a .proto file, no internal version) and no +kubebuilder markers"
	}
	if dirs, ok := s.crdServed(served); ok {
		return model.ProfileCRD, crdManifestsServe(dirs) + ", which outweighs the " + sign
	}
	return model.ProfileKubernetes, why
}

// apiGroups are the groups of gs that are not component configurations.
func apiGroups(gs []*model.Group) []*model.Group {
	var out []*model.Group
	for _, g := range gs {
		if g.Profile != model.ProfileComponentConfig {
			out = append(out, g)
		}
	}
	return out
}

// plainCRDs reports a repository whose API is plain CRDs without
// Gardener's conventions: +kubebuilder markers, no protobuf tag in any
// version, no group with an internal package, and CRD manifests that
// define the kinds of every group (crdServed), whose directories it
// returns.
func (s *state) plainCRDs(m *model.Model) (dirs []string, ok bool) {
	if s.crd&kubebuilderMarkers == 0 {
		return nil, false
	}
	for _, g := range m.Groups {
		if g.Internal != nil {
			return nil, false
		}
		for _, p := range g.Versions {
			if p.HasProtobuf() {
				return nil, false
			}
		}
	}
	return s.crdServed(apiGroups(m.Groups))
}

// crdServed returns the directories of the CRD manifests that define a
// kind of each of the groups (a committed CustomResourceDefinition of the
// group naming a root kind of one of its versions: controller-gen's
// config/crd/bases, a chart's crds/, an apiextensions.k8s.io/v1beta1 CRD
// without schema alike), sorted; ok is false when there are no groups,
// or a group has no name, no kind or no such manifest (the answer for
// the first such group: the others are not read).
func (s *state) crdServed(gs []*model.Group) (dirs []string, ok bool) {
	if len(gs) == 0 {
		return nil, false
	}
	var names []string
	for _, g := range gs {
		if g.Name == "" {
			return nil, false
		}
		names = append(names, g.Name)
	}
	ms := crd.New(s.src)
	ms.Load(names...)
	for _, g := range gs {
		found := false
		asked := map[string]bool{}
		for _, p := range g.Versions {
			for _, t := range p.Types {
				if found || !t.RootKind || strings.HasSuffix(t.Name, "List") || asked[t.Name] {
					continue
				}
				asked[t.Name] = true
				if ks, ok := ms.Kind(g.Name, t.Name); ok {
					for _, f := range ks.Files {
						dirs = append(dirs, path.Dir(f))
					}
					found = true
				}
			}
		}
		if !found {
			return nil, false
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs), true
}

// crdManifestsServe says where the CRD manifests that serve the kinds
// are ("CRD manifests in config/crd/bases serve the kinds").
func crdManifestsServe(dirs []string) string {
	const most = 3
	var shown []string
	for i, d := range dirs {
		if i == most {
			shown = append(shown, fmt.Sprintf("%d more", len(dirs)-most))
			break
		}
		shown = append(shown, quote.Name(d))
	}
	return "CRD manifests in " + strings.Join(shown, ", ") + " serve the kinds"
}

// externalTypes follows Kubernetes' split layout: a version directory
// whose doc.go says +k8s:conversion-gen-external-types=<import path> and
// declares no API types of its own names where its types live (e.g.
// pkg/apis/apps/v1 -> staging/src/k8s.io/api/apps/v1). It returns that
// directory, or "" when the layout does not apply or the package is not in
// the repository.
func (s *state) externalTypes(dir string) string {
	var target string
	for _, f := range s.goFiles[dir] {
		pf := s.parsed[f]
		if pf == nil {
			continue
		}
		if i := bytes.Index(pf.src, []byte("+k8s:conversion-gen-external-types=")); i >= 0 {
			rest := pf.src[i+len("+k8s:conversion-gen-external-types="):]
			if j := bytes.IndexAny(rest, " \t\r\n"); j >= 0 {
				rest = rest[:j]
			}
			target = string(rest)
		}
		for _, d := range pf.file.Decls {
			if hasExportedType(d) {
				return "" // the types are here after all
			}
		}
	}
	if target == "" {
		return ""
	}
	ext, ok := s.mods.dirFor(target)
	if !ok || len(s.goFiles[ext]) == 0 || path.Base(ext) != path.Base(dir) {
		return ""
	}
	if err := s.parseFiles(s.goFiles[ext]); err != nil {
		return ""
	}
	return ext
}

// hasExportedType reports an exported type declaration.
func hasExportedType(d ast.Decl) bool {
	gd, ok := d.(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE {
		return false
	}
	for _, sp := range gd.Specs {
		if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.IsExported() {
			return true
		}
	}
	return false
}

// internalHub reports whether a group's internal package declares a kind
// of one of its versions: an internal version that conversions go
// through.
func internalHub(g *model.Group) bool {
	if g.Internal == nil {
		return false
	}
	for _, p := range g.Versions {
		for _, t := range p.Types {
			if t.RootKind && g.Internal.Type(t.Name) != nil {
				return true
			}
		}
	}
	return false
}

// crdSigns are what a group's version files say about CRDs.
type crdSigns uint8

const (
	// kubebuilderMarkers: some +kubebuilder: marker.
	kubebuilderMarkers crdSigns = 1 << iota
	// crdKindMarkers: a marker only a kind that a CRD generator turns
	// into a CustomResourceDefinition carries.
	crdKindMarkers
)

// crdKindMarkerPrefixes are the markers of crdKindMarkers.
var crdKindMarkerPrefixes = [][]byte{
	[]byte("+kubebuilder:object:root=true"), []byte("+kubebuilder:resource"),
	[]byte("+kubebuilder:subresource:"), []byte("+kubebuilder:storageversion"),
}

// crdSignsOf reads the CRD signs of one file's source.
func crdSignsOf(src []byte) crdSigns {
	if !bytes.Contains(src, []byte("+kubebuilder:")) {
		return 0
	}
	signs := kubebuilderMarkers
	for _, m := range crdKindMarkerPrefixes {
		if bytes.Contains(src, m) {
			return signs | crdKindMarkers
		}
	}
	return signs
}
