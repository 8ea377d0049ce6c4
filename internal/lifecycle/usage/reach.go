package usage

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
)

// Reachable declarations.
//
// The usage search needs the types of the expressions in the candidate
// files, nothing else. So a package is type-checked with only the
// declarations those files reach: the candidate files' declarations, the
// package-level declarations they name, in their own package or through
// an import (pkg.Name), and so on transitively. A type that is kept keeps
// the methods whose name kept code selects (x.Name) or a kept interface
// declares: every method call, method value and method expression of the
// kept code then has its method, and a kept type has every method of a
// kept interface it implements (type inference matches interface
// methods). A method that nothing names changes the type of no
// expression: without it the checker can only report that a type does
// not implement an interface, an error that is ignored. The names a
// declaration mentions are collected without resolving scopes: a local
// variable named like a package-level declaration keeps that declaration
// too, which costs a little time and never a type. A dot import keeps
// every declaration of the imported package.
//
// Packages are parsed in waves (loader.parseAll): a name asked of a
// package not parsed yet waits until its wave.

// piece is one declaration of a unit: a function or method, one spec of
// a type or var declaration, or a whole const declaration (its specs
// share iota and the values left implicit).
type piece struct {
	file int // index into unit.files
	decl int // index into the file's Decls
	spec int // index into the GenDecl's Specs; -1: the whole declaration
}

// declIndex is what a unit declares, for keeping what is reached.
type declIndex struct {
	byName  map[string][]piece  // package-level names
	methods map[string][]piece  // by receiver base type name
	imports []map[string]string // per file: local import name -> path (nil: not read yet)
	dots    [][]string          // per file: dot-imported paths
	cand    []bool              // per file: a candidate file (kept whole)
	kept    map[piece]bool
	asked   map[string]bool // names already asked of the unit
}

// allNames asks for every declaration of a unit (a dot import).
const allNames = "*"

func newDeclIndex(files []*ast.File, cand []bool) *declIndex {
	x := &declIndex{byName: map[string][]piece{}, methods: map[string][]piece{}, cand: cand,
		imports: make([]map[string]string, len(files)), dots: make([][]string, len(files)),
		kept: map[piece]bool{}, asked: map[string]bool{}}
	aliases := map[string]string{} // alias name -> the local type it names
	for fi, f := range files {
		for di, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				p := piece{fi, di, -1}
				if d.Recv == nil {
					if d.Name.Name != "init" && d.Name.Name != "_" {
						x.byName[d.Name.Name] = append(x.byName[d.Name.Name], p)
					}
				} else if n := recvBase(d.Recv); n != "" {
					x.methods[n] = append(x.methods[n], p)
				}
			case *ast.GenDecl:
				switch d.Tok {
				case token.CONST:
					p := piece{fi, di, -1}
					for _, s := range d.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							x.add(n.Name, p)
						}
					}
				case token.VAR:
					for si, s := range d.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							x.add(n.Name, piece{fi, di, si})
						}
					}
				case token.TYPE:
					for si, s := range d.Specs {
						ts := s.(*ast.TypeSpec)
						x.add(ts.Name.Name, piece{fi, di, si})
						if id, ok := ts.Type.(*ast.Ident); ok && ts.Assign.IsValid() {
							aliases[ts.Name.Name] = id.Name
						}
					}
				}
			}
		}
	}
	// Methods declared on an alias belong to the type it names.
	names := make([]string, 0, len(aliases))
	for a := range aliases {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if ms := x.methods[a]; len(ms) > 0 && aliases[a] != a {
			x.methods[aliases[a]] = append(x.methods[aliases[a]], ms...)
		}
	}
	return x
}

// importsOf returns the import names and dot imports of file fi, f.
func (x *declIndex) importsOf(fi int, f *ast.File) (map[string]string, []string) {
	if x.imports[fi] == nil {
		x.imports[fi], x.dots[fi] = importNames(f)
	}
	return x.imports[fi], x.dots[fi]
}

func (x *declIndex) add(name string, p piece) {
	if name == "_" {
		return
	}
	ps := x.byName[name]
	if n := len(ps); n > 0 && ps[n-1] == p {
		return // a const declaration declaring several names
	}
	x.byName[name] = append(ps, p)
}

// recvBase is the name of a method receiver's type: T of T, *T, T[K].
func recvBase(fl *ast.FieldList) string {
	if len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// importNames maps a file's import names to their paths (an import
// without a name by guessName) and lists its dot imports. Blank imports
// are left out.
func importNames(f *ast.File) (map[string]string, []string) {
	byName := map[string]string{}
	var dots []string
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch name {
		case "_":
			continue
		case ".":
			dots = append(dots, ip)
			continue
		case "":
			name = guessName(ip)
		}
		byName[name] = ip
	}
	return byName, dots
}

// reacher keeps what the candidate files reach, unit by unit.
type reacher struct {
	l    *loader
	next []*unit // units first asked for in this wave: the next wave
	todo []reached
	// selected are the method names the kept declarations select
	// (x.Name) or declare in an interface; unselected holds, by name,
	// the methods of kept types that are not (yet).
	selected   map[string]bool
	unselected map[string][]reached
}

type reached struct {
	u *unit
	p piece
}

// parsed takes in a wave's units, once parsed: a candidate unit's
// candidate files are kept whole, and the names asked of a unit before
// it was parsed are looked up. It returns the units to parse next.
func (r *reacher) parsed(wave []*unit) []*unit {
	r.next = nil
	for _, u := range wave {
		x := u.idx
		if r.l.keepAll {
			r.name(u, allNames)
		}
		for fi := range u.files {
			if x.cand[fi] {
				r.keepFile(u, fi)
			}
		}
		waiting := u.waiting
		u.waiting = nil
		for _, n := range waiting {
			r.name(u, n)
		}
		r.drain()
	}
	return r.next
}

// keepFile keeps every declaration of a file.
func (r *reacher) keepFile(u *unit, fi int) {
	for di := range u.files[fi].Decls {
		r.keepDecl(u, fi, di)
	}
}

// keepDecl keeps every piece of a declaration (import declarations are
// always kept and need nothing).
func (r *reacher) keepDecl(u *unit, fi, di int) {
	switch d := u.files[fi].Decls[di].(type) {
	case *ast.FuncDecl:
		r.keep(u, piece{fi, di, -1})
	case *ast.GenDecl:
		switch d.Tok {
		case token.CONST:
			r.keep(u, piece{fi, di, -1})
		case token.VAR, token.TYPE:
			for si := range d.Specs {
				r.keep(u, piece{fi, di, si})
			}
		}
	}
}

func (r *reacher) keep(u *unit, p piece) {
	if u.idx.kept[p] {
		return
	}
	u.idx.kept[p] = true
	r.todo = append(r.todo, reached{u, p})
}

// method keeps a method of a kept type once its name is selected.
func (r *reacher) method(u *unit, m piece) {
	name := u.files[m.file].Decls[m.decl].(*ast.FuncDecl).Name.Name
	if r.selected[name] {
		r.keep(u, m)
		return
	}
	if r.unselected == nil {
		r.unselected = map[string][]reached{}
	}
	r.unselected[name] = append(r.unselected[name], reached{u, m})
}

// selects notes a name kept code selects or an interface declares: the
// methods of that name of kept types are kept.
func (r *reacher) selects(name string) {
	if r.selected[name] {
		return
	}
	if r.selected == nil {
		r.selected = map[string]bool{}
	}
	r.selected[name] = true
	for _, m := range r.unselected[name] {
		r.keep(m.u, m.p)
	}
	delete(r.unselected, name)
}

// name asks a parsed unit for one of its package-level names.
func (r *reacher) name(u *unit, n string) {
	x := u.idx
	if x.asked[n] {
		return
	}
	x.asked[n] = true
	if n == allNames {
		for fi := range u.files {
			r.keepFile(u, fi)
		}
		return
	}
	for _, p := range x.byName[n] {
		r.keep(u, p)
	}
}

// ask asks the in-repository package ip, as imported by u, for a name.
func (r *reacher) ask(u *unit, ip, n string) {
	if ip == u.path {
		return
	}
	if !u.needSet[ip] {
		u.needSet[ip] = true
		u.needs = append(u.needs, ip)
	}
	l := r.l
	t := l.units[ip]
	if t == nil {
		d, ok := l.mods.dir(ip)
		if !ok || len(l.byDir[d]) == 0 {
			return
		}
		if len(l.units) >= maxUnits {
			l.limited = true
			return
		}
		t = &unit{path: ip, dir: d}
		l.units[ip] = t
		r.next = append(r.next, t)
	}
	if t.idx == nil {
		t.waiting = append(t.waiting, n)
		return
	}
	r.name(t, n)
}

// drain follows the kept pieces to what they name.
func (r *reacher) drain() {
	for len(r.todo) > 0 {
		k := r.todo[len(r.todo)-1]
		r.todo = r.todo[:len(r.todo)-1]
		r.follow(k.u, k.p)
	}
}

// follow asks for every name a kept piece mentions, and keeps the
// methods of a type.
func (r *reacher) follow(u *unit, p piece) {
	imps, dots := u.idx.importsOf(p.file, u.files[p.file])
	for _, ip := range dots {
		r.ask(u, ip, allNames)
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if ip, ok := imps[x.Name]; ok {
					r.ask(u, ip, n.Sel.Name)
					return false
				}
			}
			r.selects(n.Sel.Name) // a field or method
			ast.Inspect(n.X, visit)
			return false
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				for _, id := range m.Names {
					r.selects(id.Name)
				}
			}
		case *ast.Field:
			// Field and parameter names declare nothing package-level.
			ast.Inspect(n.Type, visit)
			return false
		case *ast.Ident:
			r.name(u, n.Name)
		}
		return true
	}
	walk := func(ns ...ast.Node) {
		for _, n := range ns {
			ast.Inspect(n, visit)
		}
	}
	switch d := u.files[p.file].Decls[p.decl].(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			walk(d.Recv)
		}
		walk(d.Type)
		if d.Body != nil {
			walk(d.Body)
		}
	case *ast.GenDecl:
		if p.spec < 0 {
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				walkValueSpec(vs, walk)
			}
			return
		}
		switch s := d.Specs[p.spec].(type) {
		case *ast.ValueSpec:
			walkValueSpec(s, walk)
		case *ast.TypeSpec:
			if s.TypeParams != nil {
				walk(s.TypeParams)
			}
			walk(s.Type)
			for _, m := range u.idx.methods[s.Name.Name] {
				r.method(u, m)
			}
		}
	}
}

func walkValueSpec(vs *ast.ValueSpec, walk func(...ast.Node)) {
	if vs.Type != nil {
		walk(vs.Type)
	}
	for _, v := range vs.Values {
		walk(v)
	}
}

// prune leaves a unit with the declarations that are kept: a file keeps
// its imports and kept pieces, and is left out when it keeps no piece;
// candidate files are kept whole (their syntax is the one searched).
func (u *unit) prune() {
	x := u.idx
	var files []*ast.File
	for fi, f := range u.files {
		if x.cand[fi] {
			files = append(files, f)
			continue
		}
		var decls []ast.Decl
		some := false // a piece is kept
		for di, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if x.kept[piece{fi, di, -1}] {
					decls, some = append(decls, d), true
				}
			case *ast.GenDecl:
				switch {
				case d.Tok == token.IMPORT:
					decls = append(decls, d)
				case x.kept[piece{fi, di, -1}]:
					decls, some = append(decls, d), true
				case d.Tok == token.VAR || d.Tok == token.TYPE:
					var specs []ast.Spec
					for si, s := range d.Specs {
						if x.kept[piece{fi, di, si}] {
							specs = append(specs, s)
						}
					}
					if len(specs) == 0 {
						continue
					}
					nd := *d
					nd.Specs = specs
					decls, some = append(decls, &nd), true
				}
			}
		}
		if !some {
			continue
		}
		nf := *f
		nf.Decls = decls
		files = append(files, &nf)
	}
	u.files = files
	u.idx = nil
	sort.Strings(u.needs)
}
