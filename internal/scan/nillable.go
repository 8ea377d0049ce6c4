package scan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/module"

	"github.com/apicheck/apicheck/internal/goenv"
	"github.com/apicheck/apicheck/internal/model"
)

// resolver answers "is this field type nillable" without type-checking:
// it follows named types through the syntax of their declarations, in
// this repository (any module of it, read from the same revision), in the
// local module cache when the module is already downloaded (never
// fetched), and finally in a built-in table of well-known Kubernetes
// types.
type resolver struct {
	s        *state
	modCache string
	pkgs     map[string]*declPkg // by import path
}

type declPkg struct {
	path    string
	dir     string // repository dir ("" when from elsewhere)
	found   bool
	where   string // "repository", "module cache"
	decls   map[string]*typeDecl
	fromDir string
	loaded  bool
}

type typeDecl struct {
	expr    ast.Expr
	imports map[string]string
	pkg     *declPkg
}

func newResolver(s *state) *resolver {
	return &resolver{s: s, modCache: goenv.ModCache(), pkgs: map[string]*declPkg{}}
}

// resolveNillability fills Nillable and NillableWhy of every field of p.
func (s *state) resolveNillability(p *model.Package) {
	for _, t := range p.Types {
		for _, f := range t.Fields {
			expr, ok := s.exprs[f.Type]
			if !ok {
				e, err := parser.ParseExpr(f.Type)
				if err != nil {
					e = nil
				}
				if s.exprs == nil {
					s.exprs = map[string]ast.Expr{}
				}
				s.exprs[f.Type], expr = e, e
			}
			if expr == nil {
				f.Nillable, f.NillableWhy = model.NillUnknown, "cannot parse type expression"
				continue
			}
			ctx := s.res.repoPkg(p.ImportPath, p.Dir)
			f.Nillable, f.NillableWhy = s.res.nillable(expr, p.Imports[f.Pos.File], ctx, map[string]bool{})
		}
	}
}

// nillable decides whether values of type expression e can be nil.
// Parentheses and instantiations are unwrapped without limit; a chain of
// named types is followed until it ends or revisits a type (seen holds
// the named types on the way: a real definition cycle).
func (r *resolver) nillable(e ast.Expr, imports map[string]string, pkg *declPkg, seen map[string]bool) (model.Nillability, string) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.IndexListExpr:
			e = x.X
			continue
		}
		break
	}
	switch x := e.(type) {
	case *ast.StarExpr:
		return model.Nillable, "pointer"
	case *ast.ArrayType:
		if x.Len == nil {
			return model.Nillable, "slice"
		}
		return model.NotNillable, "array"
	case *ast.MapType:
		return model.Nillable, "map"
	case *ast.InterfaceType:
		return model.Nillable, "interface"
	case *ast.FuncType:
		return model.Nillable, "func"
	case *ast.ChanType:
		return model.Nillable, "channel"
	case *ast.StructType:
		return model.NotNillable, "struct"
	case *ast.Ident:
		switch x.Name {
		case "any", "error":
			return model.Nillable, "interface"
		}
		if model.IsBuiltin(x.Name) {
			return model.NotNillable, x.Name
		}
		return r.named(pkg, x.Name, seen)
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return model.NillUnknown, "unsupported type expression"
		}
		ip, ok := imports[id.Name]
		if !ok {
			return model.NillUnknown, "import " + id.Name + " not found"
		}
		from := ""
		if pkg != nil {
			from = pkg.fromDir
		}
		return r.named(r.pkgFor(ip, from), x.Sel.Name, seen)
	}
	return model.NillUnknown, "unsupported type expression"
}

// named resolves a named type of pkg.
func (r *resolver) named(pkg *declPkg, name string, seen map[string]bool) (model.Nillability, string) {
	if pkg == nil {
		return model.NillUnknown, "unknown package"
	}
	qual := pkg.path + "." + name
	if seen[qual] {
		return model.NillUnknown, "type definition cycle through " + qual
	}
	seen[qual] = true
	if pkg.dir == "" {
		// Outside the repository: the table first (no disk access), then
		// the module cache, read once per package.
		if n, ok := wellKnown[qual]; ok {
			return n, "well-known type " + qual
		}
		r.loadModCache(pkg)
	}
	if pkg.found {
		if d := pkg.decls[name]; d != nil {
			n, why := r.nillable(d.expr, d.imports, d.pkg, seen)
			if _, isIdent := d.expr.(*ast.Ident); isIdent || strings.Contains(why, " (") {
				return n, why
			}
			return n, why + " (" + qual + ", " + pkg.where + ")"
		}
	}
	if n, ok := wellKnown[qual]; ok {
		return n, "well-known type " + qual
	}
	if pkg.found {
		return model.NillUnknown, "type " + qual + " not found in " + pkg.where
	}
	return model.NillUnknown, "cannot resolve " + qual + " (module not in this repository or the module cache, and not a well-known type)"
}

// repoPkg returns the declarations of a package in this repository.
func (r *resolver) repoPkg(importPath, dir string) *declPkg {
	if p, ok := r.pkgs[importPath]; ok {
		return p
	}
	p := &declPkg{path: importPath, dir: dir, fromDir: dir, where: "repository", decls: map[string]*typeDecl{}}
	r.pkgs[importPath] = p
	files := r.s.goFiles[dir]
	if len(files) == 0 {
		return p
	}
	if err := r.s.parseFiles(files); err != nil {
		// A package outside the API groups that does not parse only
		// loses resolution, it does not fail the scan.
		return p
	}
	p.found = true
	for _, f := range files {
		if pf := r.s.parsed[f]; pf != nil {
			indexDecls(p, pf.file)
		}
	}
	return p
}

// pkgFor finds the package of an import path as seen from a repository
// directory.
func (r *resolver) pkgFor(importPath, fromDir string) *declPkg {
	if p, ok := r.pkgs[importPath]; ok {
		return p
	}
	if dir, ok := r.s.mods.dirFor(importPath); ok && len(r.s.goFiles[dir]) > 0 {
		return r.repoPkg(importPath, dir)
	}
	p := &declPkg{path: importPath, fromDir: fromDir, where: "module cache", decls: map[string]*typeDecl{}}
	r.pkgs[importPath] = p
	return p
}

// loadModCache reads an external package from the module cache, if the
// module is already downloaded. It never downloads anything.
func (r *resolver) loadModCache(p *declPkg) {
	if p.loaded {
		return
	}
	p.loaded = true
	if r.modCache == "" {
		return
	}
	// Import paths and module requirements come from the analysed
	// repository: only well-formed ones are looked up, and only inside the
	// module cache (no "..", no absolute paths: never an oracle on the
	// runner's file system).
	if module.CheckImportPath(p.path) != nil {
		return
	}
	mod, version, sub, ok := r.s.mods.requiredVersion(p.fromDir, p.path)
	if !ok || module.Check(mod, version) != nil {
		return
	}
	emod, err1 := module.EscapePath(mod)
	ever, err2 := module.EscapeVersion(version)
	if err1 != nil || err2 != nil {
		return
	}
	dir := filepath.Join(r.modCache, emod+"@"+ever, filepath.FromSlash(sub))
	if rel, err := filepath.Rel(r.modCache, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && scannable(path.Join("x", e.Name())) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		p.found = true
		indexDecls(p, f)
	}
}

func indexDecls(p *declPkg, f *ast.File) {
	imports := fileImports(f)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			p.decls[ts.Name.Name] = &typeDecl{expr: ts.Type, imports: imports, pkg: p}
		}
	}
}

// wellKnown answers for common types of Kubernetes and the standard
// library when their modules cannot be read. Struct types are listed as
// not nillable so that a value-typed new field of such a type is caught.
var wellKnown = map[string]model.Nillability{}

func init() {
	add := func(pkg string, n model.Nillability, names ...string) {
		for _, name := range names {
			wellKnown[pkg+"."+name] = n
		}
	}
	const (
		corev1   = "k8s.io/api/core/v1"
		metav1   = "k8s.io/apimachinery/pkg/apis/meta/v1"
		runtime  = "k8s.io/apimachinery/pkg/runtime"
		resource = "k8s.io/apimachinery/pkg/api/resource"
		intstr   = "k8s.io/apimachinery/pkg/util/intstr"
		types    = "k8s.io/apimachinery/pkg/types"
		apiext   = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
		rbacv1   = "k8s.io/api/rbac/v1"
		netv1    = "k8s.io/api/networking/v1"
		autoscv1 = "k8s.io/api/autoscaling/v1"
	)
	add(corev1, model.Nillable, "ResourceList")
	add(corev1, model.NotNillable,
		"ResourceName", "Protocol", "PullPolicy", "RestartPolicy", "ServiceType", "IPFamily", "IPFamilyPolicy",
		"TaintEffect", "TolerationOperator", "ConditionStatus", "PersistentVolumeAccessMode", "DNSPolicy",
		"Toleration", "Taint", "LocalObjectReference", "ObjectReference", "SecretReference", "ResourceRequirements",
		"Container", "PodSpec", "PodTemplateSpec", "EnvVar", "Volume", "VolumeMount", "Affinity", "NodeSelector",
		"SecurityContext", "PodSecurityContext", "ServicePort", "ContainerPort", "TypedLocalObjectReference",
		"ConfigMapKeySelector", "SecretKeySelector", "Probe", "Capabilities", "TopologySpreadConstraint",
		"PersistentVolumeClaimSpec", "LoadBalancerIngress", "NodeAddress", "ResourceClaim")
	add(metav1, model.NotNillable,
		"Time", "MicroTime", "Duration", "ObjectMeta", "TypeMeta", "ListMeta", "LabelSelector",
		"LabelSelectorRequirement", "Condition", "ConditionStatus", "OwnerReference", "GroupVersionKind",
		"GroupVersionResource", "GroupResource", "FieldsV1", "ManagedFieldsEntry", "Status", "LabelSelectorOperator",
		"DeletionPropagation", "Preconditions")
	add(metav1, model.Nillable, "Object", "Fields")
	add(runtime, model.NotNillable, "RawExtension", "Unknown", "TypeMeta")
	add(runtime, model.Nillable, "Object")
	add(resource, model.NotNillable, "Quantity", "Format")
	add(intstr, model.NotNillable, "IntOrString", "Type")
	add(types, model.NotNillable, "UID", "NamespacedName", "PatchType", "NodeName")
	add(apiext, model.NotNillable, "JSON", "JSONSchemaProps", "CustomResourceDefinitionSpec")
	add(rbacv1, model.NotNillable, "PolicyRule", "Subject", "RoleRef", "AggregationRule")
	add(netv1, model.NotNillable, "NetworkPolicySpec", "IngressTLS", "IngressRule")
	add(autoscv1, model.NotNillable, "CrossVersionObjectReference")
	add("encoding/json", model.Nillable, "RawMessage")
	add("time", model.NotNillable, "Duration", "Time", "Month", "Weekday")
	add("k8s.io/apimachinery/pkg/labels", model.Nillable, "Set", "Selector")
	add("k8s.io/apimachinery/pkg/util/sets", model.Nillable, "String", "Int", "Int32", "Int64", "Byte", "Set", "Empty")
	add("k8s.io/component-base/config/v1alpha1", model.NotNillable,
		"LeaderElectionConfiguration", "ClientConnectionConfiguration", "DebuggingConfiguration", "LoggingConfiguration")
	add("k8s.io/component-base/config", model.NotNillable,
		"LeaderElectionConfiguration", "ClientConnectionConfiguration", "DebuggingConfiguration")
	add("k8s.io/component-base/logs/api/v1", model.NotNillable, "LoggingConfiguration", "Format")
}
