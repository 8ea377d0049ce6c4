package scan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

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
	// track, when set, receives every package resolution goes through
	// (see Reuse).
	track map[string]dep
}

type declPkg struct {
	path    string
	dir     string // repository dir ("" when from elsewhere)
	found   bool
	where   string // "repository", "module cache"
	decls   map[string]*typeDecl
	fromDir string
	loaded  bool
	// modDir is the package's directory in the module cache, relative to
	// it and slash-separated ("k8s.io/api@v0.30.0/core/v1"), and files
	// its parsed files, for a package of the modules whose packages
	// become Model.External (externalModule) that was found there.
	modDir string
	files  []*parsedFile
}

type typeDecl struct {
	expr    ast.Expr
	imports map[string]string
	pkg     *declPkg
	alias   bool
	// members are a defined struct type's members, read when it was
	// indexed (its syntax is not kept: see declExpr).
	members []declMember
}

// declMember is a member of a struct declaration as members needs it.
type declMember struct {
	name     string   // the json name ("" for an inline embedded struct)
	embedded ast.Expr // the type of an inline embedded field: its members come up
}

// newResolver returns the scan's resolver, reading the module cache at
// modCache (moduleCache's answer; "": none).
func newResolver(s *state, modCache string) *resolver {
	return &resolver{s: s, modCache: modCache, pkgs: map[string]*declPkg{}}
}

// moduleCache is the module cache directory Options.ModCache names: ""
// is where the go command has it (goenv.ModCache), a relative path none
// (the go command rejects one), returned as "".
func moduleCache(configured string) string {
	switch {
	case configured == "":
		return goenv.ModCache()
	case !filepath.IsAbs(configured):
		return ""
	}
	return configured
}

// resolveNillability fills Nillable, NillableWhy, ValueKind and
// TypeID of every field of p, a package of the repository.
func (s *state) resolveNillability(p *model.Package) {
	s.resolveIn(p, s.res.repoPkg(p.ImportPath, p.Dir))
}

// resolveIn is resolveNillability for package p whose declarations the
// resolver knows as ctx.
func (s *state) resolveIn(p *model.Package, ctx *declPkg) {
	// What a type expression of a file resolves to, for the fields of the
	// package that repeat it: the same declarations answer, and the
	// packages resolution reads are recorded (resolver.track) the first
	// time.
	type spelled struct{ typ, file string }
	type resolved struct {
		kind    model.ValueKind
		why, id string
	}
	memo := map[spelled]resolved{}
	for _, t := range p.Types {
		if t.Kind == model.KindOther && t.Underlying != "" {
			if e := s.exprs.parse(t.Underlying); e != nil {
				t.UnderlyingID = s.res.identity(e, p.Imports[t.Pos.File], ctx, map[string]bool{})
			}
		}
		for _, f := range t.Fields {
			expr := s.exprs.parse(f.Type)
			if expr == nil {
				f.Nillable, f.NillableWhy, f.ValueKind, f.TypeID = model.NillUnknown, "cannot parse type expression", model.KindUnknown, f.Type
				continue
			}
			imports := p.Imports[f.Pos.File]
			k := spelled{f.Type, f.Pos.File}
			res, ok := memo[k]
			if !ok {
				res.kind, res.why = s.res.kind(expr, imports, ctx, map[string]bool{})
				res.id = s.res.identity(expr, imports, ctx, map[string]bool{})
				memo[k] = res
			}
			f.ValueKind, f.NillableWhy = res.kind, res.why
			f.Nillable = res.kind.Nillability()
			f.TypeID = res.id
			if f.Embedded && f.Inline() {
				if names, ok := s.res.members(expr, imports, ctx, map[string]bool{}); ok {
					f.Promoted = append([]string{}, names...)
				}
				in := s.res.inlined(expr, imports, ctx, map[string]bool{}, 0)
				f.InlinedTypes = in.below
				switch {
				case f.Promoted != nil:
				case len(in.unknown) == 0: // resolved after all (a type inlined twice, a diamond)
					f.Promoted = append([]string{}, in.names...)
				default:
					f.PromotedKnown, f.PromotedUnknown = in.names, in.unknown
				}
			}
		}
	}
}

// exprCache holds parsed field type expressions (read-only once
// parsed), for one scan or both of a pair (Reuse); safe for concurrent
// use.
type exprCache struct {
	mu sync.Mutex
	m  map[string]ast.Expr
}

func newExprCache() *exprCache { return &exprCache{m: map[string]ast.Expr{}} }

// parse returns parser.ParseExpr(typ), nil when it does not parse (a
// nil cache parses every time).
func (c *exprCache) parse(typ string) ast.Expr {
	if c == nil {
		e, err := parser.ParseExpr(typ)
		if err != nil {
			return nil
		}
		return e
	}
	c.mu.Lock()
	e, ok := c.m[typ]
	c.mu.Unlock()
	if ok {
		return e
	}
	e, err := parser.ParseExpr(typ)
	if err != nil {
		e = nil
	}
	c.mu.Lock()
	if prev, ok := c.m[typ]; ok {
		e = prev // parsed meanwhile by the other scan: one tree for all
	} else {
		c.m[typ] = e
	}
	c.mu.Unlock()
	return e
}

// kind decides what values of type expression e are (struct, string,
// pointer, ...). Parentheses and instantiations are unwrapped without
// limit; a chain of named types is followed until it ends or revisits a
// type (seen holds the named types on the way: a real definition cycle).
func (r *resolver) kind(e ast.Expr, imports map[string]string, pkg *declPkg, seen map[string]bool) (model.ValueKind, string) {
	e = unwrap(e)
	switch x := e.(type) {
	case *ast.StarExpr:
		return model.KindPointer, "pointer"
	case *ast.ArrayType:
		if x.Len == nil {
			if id, ok := x.Elt.(*ast.Ident); ok && (id.Name == "byte" || id.Name == "uint8") {
				return model.KindSlice, model.ByteSlice
			}
			return model.KindSlice, "slice"
		}
		return model.KindArray, "array"
	case *ast.MapType:
		return model.KindMap, "map"
	case *ast.InterfaceType:
		return model.KindInterface, "interface"
	case *ast.FuncType:
		return model.KindFunc, "func"
	case *ast.ChanType:
		return model.KindChan, "channel"
	case *ast.StructType:
		return model.KindStructValue, "struct"
	case *ast.Ident:
		switch x.Name {
		case "any", "error":
			return model.KindInterface, "interface"
		}
		if k, ok := builtinKind(x.Name); ok {
			return k, x.Name
		}
		return r.named(pkg, x.Name, seen)
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return model.KindUnknown, "unsupported type expression"
		}
		ip, ok := imports[id.Name]
		if !ok {
			return model.KindUnknown, "import " + id.Name + " not found"
		}
		from := ""
		if pkg != nil {
			from = pkg.fromDir
		}
		return r.named(r.pkgFor(ip, from), x.Sel.Name, seen)
	}
	return model.KindUnknown, "unsupported type expression"
}

// unwrap removes parentheses and type arguments.
func unwrap(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return e
		}
	}
}

// builtinKind classifies a predeclared type.
func builtinKind(name string) (model.ValueKind, bool) {
	switch name {
	case "string":
		return model.KindString, true
	case "bool":
		return model.KindBool, true
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
		"float32", "float64", "complex64", "complex128", "byte", "rune":
		return model.KindNumber, true
	}
	return "", false
}

// identity is the type of e by identity rather than spelling: a name
// qualified by an import alias becomes its import path ("*metav1.Time"
// and "*mv1.Time" are both "*k8s.io/apimachinery/pkg/apis/meta/v1.Time"),
// and a type alias (type A = B) becomes what it stands for. Names of the
// package itself stay unqualified; parentheses are dropped.
func (r *resolver) identity(e ast.Expr, imports map[string]string, pkg *declPkg, seen map[string]bool) string {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return r.identity(x.X, imports, pkg, seen)
	case *ast.StarExpr:
		return "*" + r.identity(x.X, imports, pkg, seen)
	case *ast.ArrayType:
		if x.Len == nil {
			return "[]" + r.identity(x.Elt, imports, pkg, seen)
		}
		return "[" + types.ExprString(x.Len) + "]" + r.identity(x.Elt, imports, pkg, seen)
	case *ast.MapType:
		return "map[" + r.identity(x.Key, imports, pkg, seen) + "]" + r.identity(x.Value, imports, pkg, seen)
	case *ast.Ident:
		if x.Name == "any" || x.Name == "error" || model.IsBuiltin(x.Name) {
			return x.Name
		}
		if target, ok := r.alias(pkg, x.Name, seen); ok {
			return r.qualify(r.identity(target.expr, target.imports, target.pkg, seen), target.pkg, pkg)
		}
		return x.Name
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return types.ExprString(e)
		}
		ip, ok := imports[id.Name]
		if !ok {
			return types.ExprString(e)
		}
		from := ""
		if pkg != nil {
			from = pkg.fromDir
		}
		if target, ok := r.alias(r.pkgFor(ip, from), x.Sel.Name, seen); ok {
			return r.qualify(r.identity(target.expr, target.imports, target.pkg, seen), target.pkg, pkg)
		}
		if pkg != nil && ip == pkg.path {
			return x.Sel.Name
		}
		return ip + "." + x.Sel.Name
	case *ast.IndexExpr:
		return r.identity(x.X, imports, pkg, seen) + "[" + r.identity(x.Index, imports, pkg, seen) + "]"
	case *ast.IndexListExpr:
		var args []string
		for _, a := range x.Indices {
			args = append(args, r.identity(a, imports, pkg, seen))
		}
		return r.identity(x.X, imports, pkg, seen) + "[" + strings.Join(args, ",") + "]"
	}
	return types.ExprString(e)
}

// qualify rewrites the package-local names of an identity computed in
// package from so that it reads right in package to (an alias declared in
// another package that stands for one of that package's own types).
func (r *resolver) qualify(id string, from, to *declPkg) string {
	if from == nil || to == nil || from.path == to.path {
		return id
	}
	return model.QualifyLocal(id, from.path)
}

// alias returns the declaration a named type stands for when it is an
// alias (type A = B); ok is false for defined types and unknown names.
func (r *resolver) alias(pkg *declPkg, name string, seen map[string]bool) (*typeDecl, bool) {
	if pkg == nil {
		return nil, false
	}
	if pkg.dir == "" {
		r.loadModCache(pkg)
	}
	d := pkg.decls[name]
	if d == nil || !d.alias {
		return nil, false
	}
	qual := pkg.path + "." + name
	if seen[qual] {
		return nil, false
	}
	seen[qual] = true
	return d, true
}

// named resolves a named type of pkg.
func (r *resolver) named(pkg *declPkg, name string, seen map[string]bool) (model.ValueKind, string) {
	if pkg == nil {
		return model.KindUnknown, "unknown package"
	}
	qual := pkg.path + "." + name
	if seen[qual] {
		return model.KindUnknown, "type definition cycle through " + qual
	}
	seen[qual] = true
	if pkg.dir == "" {
		// Outside the repository: the table first (no disk access), then
		// the module cache, read once per package.
		if k, ok := wellKnown[qual]; ok {
			return k, "well-known type " + qual
		}
		r.loadModCache(pkg)
	}
	if pkg.found {
		if d := pkg.decls[name]; d != nil {
			k, why := r.kind(d.expr, d.imports, d.pkg, seen)
			if _, isIdent := d.expr.(*ast.Ident); isIdent || strings.Contains(why, " (") {
				return k, why
			}
			return k, why + " (" + qual + ", " + pkg.where + ")"
		}
	}
	if k, ok := wellKnown[qual]; ok {
		return k, "well-known type " + qual
	}
	if pkg.found {
		return model.KindUnknown, "type " + qual + " not found in " + pkg.where
	}
	return model.KindUnknown, "cannot resolve " + qual + " (module not in this repository or the module cache, and not a well-known type)"
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
	p := r.lookup(importPath, fromDir)
	if r.track != nil {
		r.track[importPath] = dep{dir: p.dir, from: p.fromDir, pkg: p}
	}
	return p
}

func (r *resolver) lookup(importPath, fromDir string) *declPkg {
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
	rel, ok := r.modCacheDir(p)
	if !ok {
		return
	}
	r.s.lookedInto(rel)
	dir := filepath.Join(r.modCache, filepath.FromSlash(rel))
	if externalModule(p.path) {
		// Read with the comments (markers, docs) and kept: the package may
		// become one of Model.External.
		p.modDir = rel
		p.files = r.s.modFiles.read(dir, rel)
		for _, pf := range p.files {
			p.found = true
			indexDecls(p, pf.file)
		}
		return
	}
	for _, f := range r.s.modFiles.readDecls(dir) {
		p.found = true
		indexDecls(p, f)
	}
}

// readDeclFiles parses the Go files of module cache directory dir that
// the scanner reads (scannable), in name order, without comments: those
// that parse.
func readDeclFiles(dir string) []*ast.File {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && scannable(path.Join("x", e.Name())) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var out []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		out = append(out, f)
	}
	return out
}

// modCacheDir is the directory of package p in the module cache,
// relative to it and slash-separated (escaped module path, "@", escaped
// version, the package's directory in the module): at the version that
// the module of p.fromDir requires. ok is false when that module requires
// none, replaces it by a directory, or names a module path, version or
// package path that is not well-formed (not semantic versioning, an
// element "..", an absolute path).
func (r *resolver) modCacheDir(p *declPkg) (string, bool) {
	if module.CheckImportPath(p.path) != nil {
		return "", false
	}
	mod, version, sub, ok := r.s.mods.requiredVersion(p.fromDir, p.path)
	if !ok || module.Check(mod, version) != nil {
		return "", false
	}
	emod, err1 := module.EscapePath(mod)
	ever, err2 := module.EscapeVersion(version)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel := path.Join(emod+"@"+ever, sub)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", false
	}
	return rel, true
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
			alias := ts.Assign.IsValid()
			d := &typeDecl{expr: declExpr(ts.Type, alias), imports: imports, pkg: p, alias: alias}
			if st, ok := ts.Type.(*ast.StructType); ok && !alias {
				d.members = structDeclMembers(st)
			}
			p.decls[ts.Name.Name] = d
		}
	}
}

// declExpr is what the resolver keeps of a type declaration's type: of
// a defined struct or interface type only its kind (kind does not look
// inside; a struct's members are kept as typeDecl.members), so their
// fields and comments, most of a package's syntax, are not kept alive.
// An alias keeps its expression: its identity is printed from it.
func declExpr(e ast.Expr, alias bool) ast.Expr {
	if alias {
		return e
	}
	switch e.(type) {
	case *ast.StructType:
		return structKind
	case *ast.InterfaceType:
		return interfaceKind
	}
	return e
}

// structKind and interfaceKind are what declExpr keeps of a struct and an
// interface type (one for all: read only).
var (
	structKind    = &ast.StructType{Fields: &ast.FieldList{}}
	interfaceKind = &ast.InterfaceType{Methods: &ast.FieldList{}}
)

// structDeclMembers lists the members of a struct type: the json name of
// each exported field (its Go name without one), fields skipped by json
// left out, and for an embedded field without a json name its type, whose
// members come up to this level.
func structDeclMembers(st *ast.StructType) []declMember {
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	out := make([]declMember, 0, n)
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			if t, err := strconv.Unquote(f.Tag.Value); err == nil {
				tag = reflect.StructTag(t).Get("json")
			}
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if len(f.Names) == 0 {
			if name == "" { // embedded and inline: its members come up
				out = append(out, declMember{embedded: f.Type})
			} else {
				out = append(out, declMember{name: name})
			}
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			if name != "" {
				out = append(out, declMember{name: name})
			} else {
				out = append(out, declMember{name: n.Name})
			}
		}
	}
	return out
}

// wellKnown answers for common types of Kubernetes and the standard
// library when their modules cannot be read: what their values are.
var wellKnown = map[string]model.ValueKind{}

// wellKnownMembers are the json names that apimachinery's object and
// list metadata put at the level of a struct embedding them inline
// (metav1.TypeMeta in every kind), when the module cannot be read.
var wellKnownMembers = map[string][]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta": {"kind", "apiVersion"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta": {"selfLink", "resourceVersion", "continue", "remainingItemCount"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta": {"name", "generateName", "namespace", "selfLink", "uid",
		"resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
		"labels", "annotations", "ownerReferences", "finalizers", "managedFields"},
}

func init() {
	add := func(pkg string, k model.ValueKind, names ...string) {
		for _, name := range names {
			wellKnown[pkg+"."+name] = k
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
	add(corev1, model.KindMap, "ResourceList")
	add(corev1, model.KindString,
		"ResourceName", "Protocol", "PullPolicy", "RestartPolicy", "ServiceType", "IPFamily", "IPFamilyPolicy",
		"TaintEffect", "TolerationOperator", "ConditionStatus", "PersistentVolumeAccessMode", "DNSPolicy")
	add(corev1, model.KindStructValue,
		"Toleration", "Taint", "LocalObjectReference", "ObjectReference", "SecretReference", "ResourceRequirements",
		"Container", "PodSpec", "PodTemplateSpec", "EnvVar", "Volume", "VolumeMount", "Affinity", "NodeSelector",
		"SecurityContext", "PodSecurityContext", "ServicePort", "ContainerPort", "TypedLocalObjectReference",
		"ConfigMapKeySelector", "SecretKeySelector", "Probe", "Capabilities", "TopologySpreadConstraint",
		"PersistentVolumeClaimSpec", "LoadBalancerIngress", "NodeAddress", "ResourceClaim")
	add(metav1, model.KindStructValue,
		"Time", "MicroTime", "Duration", "ObjectMeta", "TypeMeta", "ListMeta", "LabelSelector",
		"LabelSelectorRequirement", "Condition", "OwnerReference", "GroupVersionKind",
		"GroupVersionResource", "GroupResource", "FieldsV1", "ManagedFieldsEntry", "Status", "Preconditions")
	add(metav1, model.KindString, "ConditionStatus", "LabelSelectorOperator", "DeletionPropagation")
	add(metav1, model.KindInterface, "Object")
	add(metav1, model.KindMap, "Fields")
	add(runtime, model.KindStructValue, "RawExtension", "Unknown", "TypeMeta")
	add(runtime, model.KindInterface, "Object")
	add(resource, model.KindStructValue, "Quantity")
	add(resource, model.KindString, "Format")
	add(intstr, model.KindStructValue, "IntOrString")
	add(intstr, model.KindNumber, "Type")
	add(types, model.KindString, "UID", "PatchType", "NodeName")
	add(types, model.KindStructValue, "NamespacedName")
	add(apiext, model.KindStructValue, "JSON", "JSONSchemaProps", "CustomResourceDefinitionSpec")
	add(rbacv1, model.KindStructValue, "PolicyRule", "Subject", "RoleRef", "AggregationRule")
	add(netv1, model.KindStructValue, "NetworkPolicySpec", "IngressTLS", "IngressRule")
	add(autoscv1, model.KindStructValue, "CrossVersionObjectReference")
	add("encoding/json", model.KindSlice, "RawMessage")
	add("time", model.KindStructValue, "Time")
	add("time", model.KindNumber, "Duration", "Month", "Weekday")
	add("k8s.io/apimachinery/pkg/labels", model.KindMap, "Set")
	add("k8s.io/apimachinery/pkg/labels", model.KindInterface, "Selector")
	add("k8s.io/apimachinery/pkg/util/sets", model.KindMap, "String", "Int", "Int32", "Int64", "Byte", "Set")
	add("k8s.io/apimachinery/pkg/util/sets", model.KindStructValue, "Empty")
	add("k8s.io/component-base/config/v1alpha1", model.KindStructValue,
		"LeaderElectionConfiguration", "ClientConnectionConfiguration", "DebuggingConfiguration", "LoggingConfiguration")
	add("k8s.io/component-base/config", model.KindStructValue,
		"LeaderElectionConfiguration", "ClientConnectionConfiguration", "DebuggingConfiguration")
	add("k8s.io/component-base/logs/api/v1", model.KindStructValue, "LoggingConfiguration")
	add("k8s.io/component-base/logs/api/v1", model.KindString, "Format")
}

// members returns the json names an embedded struct type e puts at its
// parent's level: its fields' names, and those of the structs it inlines
// in turn. ok is false when the type cannot be resolved (a module that
// is not in the module cache) or is no struct.
func (r *resolver) members(e ast.Expr, imports map[string]string, pkg *declPkg, seen map[string]bool) (names []string, ok bool) {
	e = unwrap(e)
	if s, isPtr := e.(*ast.StarExpr); isPtr {
		e = unwrap(s.X)
	}
	var d *typeDecl
	switch x := e.(type) {
	case *ast.StructType:
		return r.structMembers(x, imports, pkg, seen)
	case *ast.Ident:
		if pkg == nil {
			return nil, false
		}
		d, ok = r.decl(pkg, x.Name, seen)
	case *ast.SelectorExpr:
		id, isIdent := x.X.(*ast.Ident)
		if !isIdent {
			return nil, false
		}
		ip, found := imports[id.Name]
		if !found {
			return nil, false
		}
		from := ""
		if pkg != nil {
			from = pkg.fromDir
		}
		d, ok = r.decl(r.pkgFor(ip, from), x.Sel.Name, seen)
		if known, isKnown := wellKnownMembers[ip+"."+x.Sel.Name]; isKnown && (!ok || d == nil) {
			return known, true
		}
	}
	if !ok || d == nil {
		return nil, false
	}
	if d.members != nil {
		return r.declMembers(d.members, d.imports, d.pkg, seen)
	}
	return r.members(d.expr, d.imports, d.pkg, seen)
}

// inlineMembers is what an inline embedded type puts at its parent's
// level, as far as it is known: the json names resolved, the identities
// of the types it embeds inline in turn (at any depth), and those of the
// inline types whose members are unknown (the type itself when it could
// not be resolved). Identities are qualified with their package.
type inlineMembers struct {
	names, below, unknown []string
}

// maxInlineDepth bounds the nesting inlined follows.
const maxInlineDepth = 16

// inlined is members for a type whose inline members may be known in
// part: a nested inline type that cannot be resolved (corev1's
// ResourceRequirements without k8s.io/api in the module cache) leaves
// the others known. seen holds the types on the way down (a definition
// cycle); a type inlined twice on different branches is read twice.
func (r *resolver) inlined(e ast.Expr, imports map[string]string, pkg *declPkg, seen map[string]bool, depth int) inlineMembers {
	e = unwrap(e)
	if s, isPtr := e.(*ast.StarExpr); isPtr {
		e = unwrap(s.X)
	}
	self := r.absIdentity(e, imports, pkg)
	unknown := inlineMembers{unknown: []string{self}}
	if depth > maxInlineDepth {
		return unknown
	}
	var d *typeDecl
	ok := false
	switch x := e.(type) {
	case *ast.StructType:
		return r.inlinedMembers(structDeclMembers(x), imports, pkg, seen, depth)
	case *ast.Ident:
		d, ok = r.decl(pkg, x.Name, maps.Clone(seen))
		if ok {
			seen = maps.Clone(seen)
			seen[pkg.path+"."+x.Name] = true
		}
	case *ast.SelectorExpr:
		id, isIdent := x.X.(*ast.Ident)
		ip, found := "", false
		if isIdent {
			ip, found = imports[id.Name]
		}
		if !found {
			return unknown
		}
		from := ""
		if pkg != nil {
			from = pkg.fromDir
		}
		target := r.pkgFor(ip, from)
		d, ok = r.decl(target, x.Sel.Name, maps.Clone(seen))
		if known, isKnown := wellKnownMembers[ip+"."+x.Sel.Name]; isKnown && (!ok || d == nil) {
			return inlineMembers{names: known}
		}
		if ok {
			seen = maps.Clone(seen)
			seen[target.path+"."+x.Sel.Name] = true
		}
	default:
		return unknown
	}
	if !ok || d == nil {
		return unknown
	}
	if d.members != nil {
		return r.inlinedMembers(d.members, d.imports, d.pkg, seen, depth)
	}
	return r.inlined(d.expr, d.imports, d.pkg, seen, depth+1)
}

// inlinedMembers is inlined for the members of one struct declaration.
func (r *resolver) inlinedMembers(members []declMember, imports map[string]string, pkg *declPkg, seen map[string]bool, depth int) inlineMembers {
	var out inlineMembers
	for _, m := range members {
		if m.embedded == nil {
			out.names = append(out.names, m.name)
			continue
		}
		e := unwrap(m.embedded)
		if s, isPtr := e.(*ast.StarExpr); isPtr {
			e = unwrap(s.X)
		}
		out.below = append(out.below, r.absIdentity(e, imports, pkg))
		sub := r.inlined(m.embedded, imports, pkg, seen, depth+1)
		out.names = append(out.names, sub.names...)
		out.below = append(out.below, sub.below...)
		out.unknown = append(out.unknown, sub.unknown...)
	}
	return out
}

// absIdentity is a type's identity with the package's own names
// qualified by its import path.
func (r *resolver) absIdentity(e ast.Expr, imports map[string]string, pkg *declPkg) string {
	id := r.identity(e, imports, pkg, map[string]bool{})
	if pkg == nil {
		return id
	}
	return model.QualifyLocal(id, pkg.path)
}

// decl finds a named type's declaration, reading the module cache for a
// package outside the repository; seen stops definition cycles.
func (r *resolver) decl(pkg *declPkg, name string, seen map[string]bool) (*typeDecl, bool) {
	if pkg == nil {
		return nil, false
	}
	qual := pkg.path + "." + name
	if seen[qual] {
		return nil, false
	}
	seen[qual] = true
	if pkg.dir == "" {
		r.loadModCache(pkg)
	}
	if !pkg.found {
		return nil, false
	}
	d := pkg.decls[name]
	return d, d != nil
}

func (r *resolver) structMembers(st *ast.StructType, imports map[string]string, pkg *declPkg, seen map[string]bool) ([]string, bool) {
	return r.declMembers(structDeclMembers(st), imports, pkg, seen)
}

// declMembers resolves the json names of members: inline embedded
// structs contribute theirs.
func (r *resolver) declMembers(members []declMember, imports map[string]string, pkg *declPkg, seen map[string]bool) ([]string, bool) {
	var names []string
	for _, m := range members {
		if m.embedded == nil {
			names = append(names, m.name)
			continue
		}
		sub, ok := r.members(m.embedded, imports, pkg, seen)
		if !ok {
			return nil, false
		}
		names = append(names, sub...)
	}
	return names, true
}
