package shoot

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// Validation finds the validation errors for the field (field.Forbidden,
// field.Invalid, field.NotSupported) that are reported only from a
// Kubernetes version on; Hit.From is that version.
//
// An error counts for the field when it names the field (a selector chain
// ending in its Go name, a path built with its JSON name as the last
// segment, possibly through a local variable, or a message naming its
// JSON path), or when it is built on a *field.Path parameter of a helper
// and a caller, one or two calls up, passes a path whose last segment is
// the field's JSON name: validateKubeMaxPDVols(v, version,
// fldPath.Child("kubeMaxPDVols")) with field.Forbidden(fldPath, ...) in
// the helper counts for kubeMaxPDVols (and Hit.Pos is the caller's
// argument).
//
// Recognised gates, in the helper or at any call site on the way, possibly
// negated, combined with &&, stored in a variable first, or in an if
// statement's init:
//
//	versionutils.ConstraintK8sGreaterEqual133.Check(v)     from 1.33
//	versionutils.ConstraintK8sGreaterEqual133.CheckVersion(v)
//	!versionutils.ConstraintK8sLess133.Check(v)            from 1.33
//	c.Check(v), c := versionutils.MustNewConstraint(">= 1.33")
//	  (also a package-level var, or semver.NewConstraint)
//	versionutils.CheckVersionMeetsConstraint(v, ">= 1.33") from 1.33
//	versionutils.CompareVersions(v, ">=", "1.33")          from 1.33
//
// and, for a "< 1.33" gate, its else branch and the statements after an
// "if <gate> { ...; return }" that allows the field only below 1.33.
// Nested gates are conjunctions: the highest version wins.
func Validation(files []*File, f Field) []Hit {
	ix := indexOf(files)
	parent := parentJSON(f)
	var out []Hit
	for _, es := range ix.errs {
		fn := es.fn
		if at, ok := mentions(es.call, f); ok {
			if v, ok := ix.gateAt(es); ok {
				out = append(out, Hit{Pos: fn.file.pos(at), From: v})
			}
			continue
		}
		p := fn.resolvePath(es.call.Args[0], 0)
		switch {
		case !p.ok:
		case namesField(p.segs, f.JSONName, parent):
			if v, ok := ix.gateAt(es); ok {
				out = append(out, Hit{Pos: fn.file.pos(es.call.Args[0].Pos()), From: v})
			}
		case p.param >= 0 && len(p.segs) == 0:
			v, ok := ix.gateAt(es)
			out = ix.follow(out, fn, p.param, gated{v, ok}, f, parent, 1)
		}
	}
	return out
}

// gated is a version gate that may be absent.
type gated struct {
	v  Version
	ok bool
}

func (g gated) and(h gated) gated {
	switch {
	case !g.ok:
		return h
	case !h.ok:
		return g
	case g.v.Less(h.v):
		return h
	}
	return g
}

// maxFollow is how many calls up a path parameter is followed.
const maxFollow = 2

// follow looks at the call sites of fn for the argument passed as its
// path parameter param.
func (ix *valIndex) follow(out []Hit, fn *funcInfo, param int, inner gated, f Field, parent string, depth int) []Hit {
	for _, cs := range ix.calls[fn.name] {
		if param >= len(cs.call.Args) || cs.fn == fn {
			continue
		}
		arg := cs.call.Args[param]
		p := cs.fn.resolvePath(arg, 0)
		if !p.ok {
			continue
		}
		v, ok := ix.gateAt(cs)
		g := inner.and(gated{v, ok})
		switch {
		case namesField(p.segs, f.JSONName, parent):
			if g.ok {
				out = append(out, Hit{Pos: cs.fn.file.pos(arg.Pos()), From: g.v})
			}
		case p.param >= 0 && len(p.segs) == 0 && depth < maxFollow:
			out = ix.follow(out, cs.fn, p.param, g, f, parent, depth+1)
		}
	}
	return out
}

// parentJSON is the JSON name of the field's parent in its path ("" when
// the field sits at the top of the Shoot).
func parentJSON(f Field) string {
	i := strings.LastIndex(f.Path, ".")
	if i < 0 {
		return ""
	}
	return path.Base(strings.ReplaceAll(f.Path[:i], ".", "/"))
}

// namesField reports whether path segments end with the field's JSON name
// (and, when the segment before it is known, with its parent's).
func namesField(segs []string, json, parent string) bool {
	n := len(segs)
	if n == 0 || segs[n-1] != json {
		return false
	}
	return n < 2 || segs[n-2] == "" || parent == "" || segs[n-2] == parent
}

// valIndex is what Validation derives from all files at once: functions,
// field error constructions, calls between the package's functions and
// package-level constraint variables.
type valIndex struct {
	consts map[string]gate
	funcs  map[string][]*funcInfo
	errs   []site
	calls  map[string][]site // callee name -> call sites
}

// funcInfo is one function of the validation code.
type funcInfo struct {
	file   *File
	name   string
	params map[string]int      // parameter name -> position
	locals map[string]ast.Expr // variables assigned exactly once
	gates  map[string]gate     // boolean variables holding a gate
	consts map[string]gate     // constraint variables (local and package)
}

// site is a call inside a function and the nodes enclosing it.
type site struct {
	fn    *funcInfo
	call  *ast.CallExpr
	stack []ast.Node
}

// indexOf returns the index of the files, cached when they are the files
// of one Parse call.
func indexOf(files []*File) *valIndex {
	if len(files) > 0 {
		u := files[0].unit
		if u != nil && len(u.files) == len(files) {
			same := true
			for i := range files {
				if files[i] != u.files[i] {
					same = false
					break
				}
			}
			if same {
				if u.vix == nil {
					u.vix = buildIndex(files)
				}
				return u.vix
			}
		}
	}
	return buildIndex(files)
}

func buildIndex(files []*File) *valIndex {
	ix := &valIndex{consts: map[string]gate{}, funcs: map[string][]*funcInfo{}, calls: map[string][]site{}}
	for _, file := range files {
		packageConstraints(file.ast, ix.consts)
	}
	for _, file := range files {
		imports := importNames(file.ast)
		for _, d := range file.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn := &funcInfo{file: file, name: fd.Name.Name, params: map[string]int{}}
			i := 0
			for _, fl := range fd.Type.Params.List {
				if len(fl.Names) == 0 {
					i++
					continue
				}
				for _, n := range fl.Names {
					fn.params[n.Name] = i
					i++
				}
			}
			fn.locals = singleAssignments(fd.Body)
			fn.consts = localConstraints(fd.Body, ix.consts)
			fn.gates = gateVars(fd.Body, fn.consts)
			ix.funcs[fn.name] = append(ix.funcs[fn.name], fn)
			var stack []ast.Node
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if n == nil {
					stack = stack[:len(stack)-1]
					return true
				}
				stack = append(stack, n)
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				s := site{fn: fn, call: call, stack: append([]ast.Node(nil), stack...)}
				if isFieldError(call) && len(call.Args) > 0 {
					ix.errs = append(ix.errs, s)
					return true
				}
				if name := calleeName(call, imports); name != "" {
					ix.calls[name] = append(ix.calls[name], s)
				}
				return true
			})
		}
	}
	return ix
}

// importNames are the names a file's imports are referred to by (the
// alias, else the last path element).
func importNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, im := range f.Imports {
		if im.Name != nil {
			out[im.Name.Name] = true
			continue
		}
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		out[path.Base(p)] = true
	}
	return out
}

// calleeName is the name of a function or method of the package a call
// calls: f(...) or recv.f(...), not pkg.F(...).
func calleeName(call *ast.CallExpr, imports map[string]bool) string {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		if id, ok := fn.X.(*ast.Ident); ok && !imports[id.Name] {
			return fn.Sel.Name
		}
	}
	return ""
}

// singleAssignments maps the local variables of a function body that are
// assigned exactly once to the expression assigned.
func singleAssignments(body *ast.BlockStmt) map[string]ast.Expr {
	out := map[string]ast.Expr{}
	count := map[string]int{}
	set := func(id *ast.Ident, e ast.Expr) {
		if id.Name == "_" {
			return
		}
		count[id.Name]++
		out[id.Name] = e
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch t := n.(type) {
		case *ast.AssignStmt:
			for i, l := range t.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok {
					continue
				}
				var e ast.Expr
				if len(t.Rhs) == len(t.Lhs) {
					e = t.Rhs[i]
				}
				set(id, e)
			}
		case *ast.ValueSpec:
			for i, id := range t.Names {
				var e ast.Expr
				if len(t.Values) == len(t.Names) {
					e = t.Values[i]
				}
				set(id, e)
			}
		case *ast.RangeStmt:
			for _, x := range []ast.Expr{t.Key, t.Value} {
				if id, ok := x.(*ast.Ident); ok {
					set(id, nil)
				}
			}
		}
		return true
	})
	for name, c := range count {
		if c != 1 || out[name] == nil {
			delete(out, name)
		}
	}
	return out
}

// pathRef is a resolved *field.Path expression: the parameter it starts
// from (-1 for none, e.g. field.NewPath) and the segments added to it ("" for
// a segment that is not a string literal).
type pathRef struct {
	param int
	segs  []string
	ok    bool
}

// resolvePath resolves a field path expression within the function:
// p.Child("a", "b"), p.Index(i), p.Key(k), field.NewPath("a"), parameters
// and local variables assigned once.
func (fn *funcInfo) resolvePath(e ast.Expr, depth int) pathRef {
	if depth > 8 {
		return pathRef{}
	}
	switch t := ast.Unparen(e).(type) {
	case *ast.Ident:
		if i, ok := fn.params[t.Name]; ok {
			return pathRef{param: i, ok: true}
		}
		if x, ok := fn.locals[t.Name]; ok {
			return fn.resolvePath(x, depth+1)
		}
	case *ast.CallExpr:
		name, recv := "", ast.Expr(nil)
		switch f := t.Fun.(type) {
		case *ast.SelectorExpr:
			name, recv = f.Sel.Name, f.X
		case *ast.Ident:
			name = f.Name
		}
		switch name {
		case "NewPath":
			return pathRef{param: -1, segs: literalSegs(t.Args), ok: true}
		case "Child", "Index", "Key":
			if recv == nil {
				return pathRef{}
			}
			p := fn.resolvePath(recv, depth+1)
			if !p.ok {
				return p
			}
			if name == "Child" {
				p.segs = append(append([]string(nil), p.segs...), literalSegs(t.Args)...)
			}
			return p
		}
	}
	return pathRef{}
}

func literalSegs(args []ast.Expr) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		s, _ := stringLit(a)
		out = append(out, s)
	}
	return out
}

// isFieldError matches field.Forbidden(...), field.Invalid(...) and
// field.NotSupported(...) (with any name for the field package).
func isFieldError(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if _, ok := sel.X.(*ast.Ident); !ok {
		return false
	}
	switch sel.Sel.Name {
	case "Forbidden", "Invalid", "NotSupported":
		return true
	}
	return false
}

// gate is what a condition says about the Kubernetes version v when it is
// true: v >= version (atLeast) or v < version (!atLeast).
type gate struct {
	version Version
	atLeast bool
}

// packageConstraints collects package-level constraint variables:
// "var c = versionutils.MustNewConstraint(">= 1.33")", "c, err =
// semver.NewConstraint(...)" (also in an init function).
func packageConstraints(f *ast.File, out map[string]gate) {
	for _, d := range f.Decls {
		switch t := d.(type) {
		case *ast.GenDecl:
			if t.Tok != token.VAR {
				continue
			}
			for _, sp := range t.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					constraintSpec(vs, out)
				}
			}
		case *ast.FuncDecl:
			if t.Name.Name == "init" && t.Recv == nil && t.Body != nil {
				for _, st := range t.Body.List {
					if as, ok := st.(*ast.AssignStmt); ok {
						constraintAssign(as, out)
					}
				}
			}
		}
	}
}

// localConstraints adds a function's local constraint variables to the
// package-level ones.
func localConstraints(body *ast.BlockStmt, pkg map[string]gate) map[string]gate {
	var local map[string]gate
	ast.Inspect(body, func(n ast.Node) bool {
		m := map[string]gate{}
		switch t := n.(type) {
		case *ast.AssignStmt:
			constraintAssign(t, m)
		case *ast.ValueSpec:
			constraintSpec(t, m)
		}
		for k, v := range m {
			if local == nil {
				local = map[string]gate{}
				for k2, v2 := range pkg {
					local[k2] = v2
				}
			}
			local[k] = v
		}
		return true
	})
	if local == nil {
		return pkg
	}
	return local
}

func constraintSpec(vs *ast.ValueSpec, out map[string]gate) {
	if len(vs.Values) == 1 && len(vs.Names) >= 1 {
		if g, ok := constraintCtor(vs.Values[0]); ok {
			out[vs.Names[0].Name] = g
		}
		return
	}
	for i, v := range vs.Values {
		if i < len(vs.Names) {
			if g, ok := constraintCtor(v); ok {
				out[vs.Names[i].Name] = g
			}
		}
	}
}

func constraintAssign(as *ast.AssignStmt, out map[string]gate) {
	if len(as.Rhs) == 1 && len(as.Lhs) >= 1 {
		if id, ok := as.Lhs[0].(*ast.Ident); ok {
			if g, ok := constraintCtor(as.Rhs[0]); ok {
				out[id.Name] = g
			}
		}
	}
}

// constraintCtor reads NewConstraint(">= 1.33") and MustNewConstraint(...).
func constraintCtor(e ast.Expr) (gate, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return gate{}, false
	}
	name := ""
	switch f := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = f.Sel.Name
	case *ast.Ident:
		name = f.Name
	}
	if name != "NewConstraint" && name != "MustNewConstraint" {
		return gate{}, false
	}
	s, ok := stringLit(call.Args[0])
	if !ok {
		return gate{}, false
	}
	m := constraintText.FindStringSubmatch(s)
	if m == nil || strings.ContainsAny(s, ",|") {
		return gate{}, false
	}
	return opGate(m[1], m[2], m[3])
}

// gateVars collects boolean variables assigned from a gate in a function:
// "k8sGreaterEqual133, _ := versionutils.CheckVersionMeetsConstraint(...)".
func gateVars(body *ast.BlockStmt, consts map[string]gate) map[string]gate {
	vars := map[string]gate{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch t := n.(type) {
		case *ast.AssignStmt:
			if len(t.Rhs) == 1 && len(t.Lhs) >= 1 {
				if id, ok := t.Lhs[0].(*ast.Ident); ok {
					if gs := gatesOf(t.Rhs[0], vars, consts); len(gs) == 1 {
						vars[id.Name] = gs[0]
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range t.Names {
				var v ast.Expr
				switch {
				case len(t.Values) == len(t.Names):
					v = t.Values[i]
				case len(t.Values) == 1 && i == 0:
					v = t.Values[0]
				default:
					continue
				}
				if gs := gatesOf(v, vars, consts); len(gs) == 1 {
					vars[name.Name] = gs[0]
				}
			}
		}
		return true
	})
	return vars
}

// gateAt returns the version from which a call site runs only for
// Kubernetes versions >= that version (the highest such version of all
// the gates around it).
func (ix *valIndex) gateAt(s site) (Version, bool) {
	var best Version
	found := false
	consider := func(v Version) {
		if !found || best.Less(v) {
			best, found = v, true
		}
	}
	stack := s.stack
	for i := len(stack) - 2; i >= 0; i-- {
		child := stack[i+1]
		switch t := stack[i].(type) {
		case *ast.IfStmt:
			gs := gatesOf(t.Cond, s.fn.gates, s.fn.consts)
			switch child {
			case t.Body:
				for _, g := range gs {
					if g.atLeast {
						consider(g.version)
					}
				}
			case t.Else:
				if len(gs) == 1 && !gs[0].atLeast && !isConjunction(t.Cond) {
					consider(gs[0].version)
				}
			}
		case *ast.BlockStmt:
			// "if v < 1.33 { return }" before the statement: the rest runs
			// from 1.33 on.
			for _, st := range t.List {
				if st == child {
					break
				}
				ifs, ok := st.(*ast.IfStmt)
				if !ok || ifs.Else != nil || !returns(ifs.Body) {
					continue
				}
				gs := gatesOf(ifs.Cond, s.fn.gates, s.fn.consts)
				if len(gs) == 1 && !gs[0].atLeast && !isConjunction(ifs.Cond) {
					consider(gs[0].version)
				}
			}
		}
	}
	return best, found
}

// returns reports whether a block ends in a return statement.
func returns(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

func isConjunction(e ast.Expr) bool {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	return ok && b.Op == token.LAND
}

var (
	constraintName = lazyre.New(`^ConstraintK8s(GreaterEqual|Greater|LessEqual|Less)(\d)(\d+)$`)
	constraintText = lazyre.New(`^\s*(>=|>|<=|<)\s*v?(\d+)\.(\d+)`)
)

// gatesOf returns the version facts a condition implies when it is true:
// one per recognised conjunct.
func gatesOf(e ast.Expr, vars, consts map[string]gate) []gate {
	switch t := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if t.Op == token.LAND {
			return append(gatesOf(t.X, vars, consts), gatesOf(t.Y, vars, consts)...)
		}
	case *ast.UnaryExpr:
		if t.Op == token.NOT {
			gs := gatesOf(t.X, vars, consts)
			if len(gs) == 1 && !isConjunction(t.X) {
				return []gate{{gs[0].version, !gs[0].atLeast}}
			}
		}
	case *ast.Ident:
		if g, ok := vars[t.Name]; ok {
			return []gate{g}
		}
	case *ast.CallExpr:
		if g, ok := callGate(t, consts); ok {
			return []gate{g}
		}
	}
	return nil
}

func callGate(call *ast.CallExpr, consts map[string]gate) (gate, bool) {
	name := ""
	var recv ast.Expr
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		name, recv = fn.Sel.Name, fn.X
	case *ast.Ident:
		name = fn.Name
	}
	switch name {
	case "Check", "CheckVersion":
		cname := ""
		switch r := ast.Unparen(recv).(type) {
		case *ast.SelectorExpr:
			cname = r.Sel.Name
		case *ast.Ident:
			if g, ok := consts[r.Name]; ok {
				return g, true
			}
			cname = r.Name
		}
		m := constraintName.FindStringSubmatch(cname)
		if m == nil {
			return gate{}, false
		}
		return opGate(m[1], m[2], m[3])
	case "CheckVersionMeetsConstraint":
		if len(call.Args) < 2 {
			return gate{}, false
		}
		s, ok := stringLit(call.Args[1])
		if !ok {
			return gate{}, false
		}
		m := constraintText.FindStringSubmatch(s)
		if m == nil {
			return gate{}, false
		}
		return opGate(m[1], m[2], m[3])
	case "CompareVersions":
		if len(call.Args) < 3 {
			return gate{}, false
		}
		op, ok1 := stringLit(call.Args[1])
		v, ok2 := stringLit(call.Args[2])
		if !ok1 || !ok2 {
			return gate{}, false
		}
		m := constraintText.FindStringSubmatch(op + " " + v)
		if m == nil {
			return gate{}, false
		}
		return opGate(m[1], m[2], m[3])
	}
	return gate{}, false
}

// opGate turns an operator and a major.minor version into a gate. Only
// minor versions matter: "> 1.32" and "<= 1.32" are read as ">= 1.33"
// and "< 1.33".
func opGate(op, major, minor string) (gate, bool) {
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return gate{}, false
	}
	v := Version{Major: ma, Minor: mi}
	switch op {
	case ">=", "GreaterEqual":
		return gate{v, true}, true
	case ">", "Greater":
		return gate{Version{ma, mi + 1}, true}, true
	case "<", "Less":
		return gate{v, false}, true
	case "<=", "LessEqual":
		return gate{Version{ma, mi + 1}, false}, true
	}
	return gate{}, false
}
