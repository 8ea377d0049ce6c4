package scan

import (
	"bytes"
	"go/ast"
	"go/token"
	"path"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// DetectProfile decides the repository's profile from what it holds:
//
//   - gardener: a module of the repository is github.com/gardener/... or
//     requires github.com/gardener/gardener (Gardener and its extensions);
//   - kubernetes: a module is k8s.io/... (k8s.io/api, k8s.io/kubernetes and
//     its staging repositories), unless a kind carries a CRD generator's
//     marker (+kubebuilder:object:root, :resource, :subresource,
//     :storageversion: k8s.io/autoscaler's VerticalPodAutoscaler is a
//     CRD; k8s.io/api has +kubebuilder validation markers on a few fields
//     for the CRDs that embed them, and no such marker);
//   - crd: the API packages carry +kubebuilder markers, or show no sign
//     of an API server of their own: no version package has both protobuf
//     tags and a .proto file beside it, and no group (but a component
//     configuration) has an internal version (kubebuilder/controller-runtime
//     projects; Tekton copied Kubernetes' container types, protobuf tags
//     and all, into CRDs that serve no protobuf);
//   - otherwise (APIs served by an API server of the project: protobuf
//     with generated.proto committed, or internal versions as in
//     k8s.io/sample-apiserver before it had a go.mod) kubernetes, whose
//     conventions such projects follow.
func (s *state) DetectProfile(m *model.Model) model.Profile {
	for _, f := range s.mods.byDir {
		mod := f.Module.Mod.Path
		if strings.HasPrefix(mod, "github.com/gardener/") {
			return model.ProfileGardener
		}
		for _, r := range f.Require {
			if r.Mod.Path == "github.com/gardener/gardener" {
				return model.ProfileGardener
			}
		}
	}
	for _, f := range s.mods.byDir {
		if strings.HasPrefix(f.Module.Mod.Path, "k8s.io/") && s.crd&crdKindMarkers == 0 {
			return model.ProfileKubernetes
		}
	}
	protoDirs := s.idx.protoDirs
	// An API server's signs: a version served over protobuf, or an
	// internal version (the hub of an API server's conversions, which
	// declares the versions' kinds; CRDs have none, a CRD group's own
	// package holds helpers at most: Tekton's Images and Options).
	apiServer := false
	for _, g := range m.Groups {
		if g.Profile != model.ProfileComponentConfig && internalHub(g) {
			apiServer = true
		}
		for _, p := range g.Versions {
			if protoDirs[p.Dir] && p.HasProtobuf() {
				apiServer = true
			}
		}
	}
	if s.crd != 0 || !apiServer {
		return model.ProfileCRD
	}
	return model.ProfileKubernetes
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
