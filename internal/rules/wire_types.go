package rules

import (
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Type identities as the wire shapes see them (wire_shape.go): resolving an
// identity to its declaration in a model, and the JSON forms of Go's basic
// types and of the well-known Kubernetes types.

// resolvedType is a type declaration found in a model.
type resolvedType struct {
	typeSide
	t *model.Type
}

// with is type identity id as seen from r's package.
func (r *resolvedType) with(id string) typeSide { return typeSide{m: r.m, pkg: r.pkg, id: id} }

// with is type identity id as seen from t's package.
func (t typeSide) with(id string) typeSide { return typeSide{m: t.m, pkg: t.pkg, id: id} }

// resolve finds the declaration of a named type in the model; for a type
// outside the model it returns nil and the fully qualified identity.
func (t typeSide) resolve() (*resolvedType, string) {
	id := t.id
	if isBuiltinID(id) {
		return nil, id
	}
	pkg := t.pkg
	name := id
	if i := strings.LastIndex(id, "."); i >= 0 {
		if jsonKind(id) != "" {
			// Kubernetes' scalar types with JSON methods of their own
			// (metav1.Time, IntOrString, Quantity): their JSON form is
			// known, their declaration (read from the module cache) says
			// nothing of it.
			return nil, id
		}
		path := id[:i]
		name = id[i+1:]
		pkg = findPackage(t.m, path)
		if pkg == nil {
			return nil, id
		}
	}
	if pkg == nil {
		return nil, id
	}
	decl := pkg.Type(name)
	if decl == nil {
		return nil, pkg.ImportPath + "." + name
	}
	return &resolvedType{typeSide: typeSide{m: t.m, pkg: pkg, id: name}, t: decl}, ""
}

// findPackage returns the package of model m (an API group's, a shared
// one or one of Kubernetes' read from the module cache) with that import
// path, nil when m has none.
func findPackage(m *model.Model, importPath string) *model.Package {
	if m == nil {
		return nil
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			if p.ImportPath == importPath {
				return p
			}
		}
	}
	for _, ps := range [][]*model.Package{m.Shared, m.External} {
		for _, p := range ps {
			if p.ImportPath == importPath {
				return p
			}
		}
	}
	return nil
}

// pkgPath is p's import path ("" for nil).
func pkgPath(p *model.Package) string {
	if p == nil {
		return ""
	}
	return p.ImportPath
}

// wireID drops what JSON does not see of a type: pointers.
func wireID(id string) string { return strings.TrimLeft(id, "*") }

// isBuiltinID reports a type identity of Go's predeclared types.
func isBuiltinID(id string) bool { return model.IsBuiltin(id) || id == "any" || id == "error" }

// splitMap splits "map[K]V" into K and V.
func splitMap(id string) (k, v string, ok bool) {
	depth := 0
	for i := 3; i < len(id); i++ {
		switch id[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return id[4:i], id[i+1:], true
			}
		}
	}
	return "", "", false
}

// platformInt maps Go's platform-sized integers to their size on every
// platform an API server or controller runs on (64-bit): int and int64
// hold the same values, so a field that changes from one to the other
// carries the same numbers (OpenShift's BuildConfigStatus.LastVersion,
// int to int64, when it gained protobuf tags). int to int32 narrows.
var platformInt = map[string]string{"int": "int64", "uint": "uint64"}

// jsonKinds are the JSON forms of the types outside the repository whose
// wire shape every Kubernetes API knows, and of Go's basic types.
var jsonKinds = map[string]string{
	"string": "string", "bool": "boolean", "float32": "number", "float64": "number",
	"int": "integer", "int8": "integer", "int16": "integer", "int32": "integer", "int64": "integer",
	"uint": "integer", "uint8": "integer", "uint16": "integer", "uint32": "integer", "uint64": "integer",
	"time.Duration": "integer",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "string",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "string",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "string",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "int-or-string",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "int-or-string",
}

// declaredScalar is the scalar schema type (string, number, integer,
// boolean) a type of the repository declares with
// +kubebuilder:validation:Type, "" without one (object and array say
// nothing of the members: the shapes compare as before).
func declaredScalar(t *resolvedType) string {
	if t == nil {
		return ""
	}
	v, _ := t.t.Markers.Get("kubebuilder:validation:Type")
	switch v = strings.Trim(v, `"`); v {
	case "string", "number", "integer", "boolean":
		return v
	}
	return ""
}

// jsonKind is a type's JSON form when it is a basic or well-known type,
// else "".
func jsonKind(id string) string { return jsonKinds[id] }

// unknownOutside reports a side that is no container and names a type of
// another project (neither the standard library's nor Kubernetes', whose
// forms are known) that resolve found in no package of the model.
func unknownOutside(x typeSide) bool {
	if strings.HasPrefix(x.id, "[]") || strings.HasPrefix(x.id, "map[") {
		return false
	}
	t, id := x.resolve()
	if t != nil || !unresolvedNamed(id) || jsonKind(id) != "" || strings.HasPrefix(id, "k8s.io/") {
		return false
	}
	first, _, _ := strings.Cut(id, "/")
	return strings.Contains(first, ".")
}

// unresolvedNamed reports a qualified type identity that resolve found in
// no package of the model: its declaration is unknown.
func unresolvedNamed(id string) bool {
	return id != "" && strings.Contains(id, ".") && !isBuiltinID(id)
}
