package usage

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/scan"
)

// Package usage finds the usages of removed fields (rules.md "usage") in
// a revision of the repository: the first step of the two-step removal is
// done when none are left.
//
// A usage of a field is a reference to it (a selector x.Foo or a
// composite-literal key Foo:) in Go code of the repository outside the
// field's API group (the group directory and everything below it: the
// version packages, validation, helpers, install), outside generated files
// (zz_generated.*, *.pb.go, generated.*), outside tests, vendor/ and
// testdata/, and outside the configured Shoot deprecation-stage files.
//
// Candidates are found syntactically in files that import one of the
// group's packages; when the module loads offline they are confirmed with
// type information (see typecheck.go).

// fieldKey names a field independently of the version package: a usage of
// the internal ShootSpec.Foo and of v1beta1.ShootSpec.Foo is a usage of
// the same API field.
type fieldKey struct {
	group, typ, name string
}

// Usages are the usages of the removed fields in one revision.
type Usages struct {
	// Rev names the revision (e.g. "base" or "release v1.2.0").
	Rev string
	// Exact is true when every candidate was confirmed with type
	// information.
	Exact bool
	// Approx says why the result is syntactic ("" when exact or when
	// there was nothing to confirm).
	Approx string
	byKey  map[fieldKey][]model.Pos
}

// Of returns the usages of a removed field, sorted by position.
func (u *Usages) Of(fd *model.FieldDiff) []model.Pos {
	return u.byKey[keyOf(fd)]
}

func keyOf(fd *model.FieldDiff) fieldKey {
	f := fd.Base
	if f == nil {
		f = fd.Head
	}
	typ := fd.Type.Name()
	if fd.Type.Base != nil {
		typ = fd.Type.Base.Name
	}
	return fieldKey{group: fd.Type.Pkg.Group.Dir, typ: typ, name: f.Name}
}

// Finder finds the usages of the removed fields of one comparison at the
// revisions of its release history, each revision once.
type Finder struct {
	hist   *lifecycle.History
	fields []*model.FieldDiff
	memo   map[lifecycle.Rev]*usageMemo
}

type usageMemo struct {
	res *Usages
	err error
}

// New prepares the usage search for the removed fields; nothing runs yet.
func New(h *lifecycle.History, removed []*model.FieldDiff) *Finder {
	return &Finder{hist: h, fields: removed, memo: map[lifecycle.Rev]*usageMemo{}}
}

// usageQuery is what one scan looks for: every removed field of the change.
type usageQuery struct {
	groups   []*usageGroup
	names    [][]byte // distinct Go names, for the byte pre-filter
	excluded func(file string) bool
}

type usageGroup struct {
	dir     string
	imports map[string]bool
	byName  map[string][]fieldKey
}

// candidate is one match: syntactic (attributed to every removed field
// of its group with that name) or, when exact, type-checked (attributed to
// key only).
type candidate struct {
	pos   model.Pos
	group *usageGroup
	name  string
	key   fieldKey
	exact bool
}

// query builds the usage query for the removed fields.
func (e *Finder) query(fields []*model.FieldDiff) *usageQuery {
	in := e.hist.Input()
	q := &usageQuery{}
	byDir := map[string]*usageGroup{}
	seenName := map[string]bool{}
	for _, fd := range fields {
		k := keyOf(fd)
		g := byDir[k.group]
		if g == nil {
			g = &usageGroup{dir: k.group, imports: map[string]bool{}, byName: map[string][]fieldKey{}}
			for _, m := range []*model.Model{in.BaseModel, in.HeadModel} {
				if mg := m.Group(k.group); mg != nil {
					for _, p := range mg.Packages() {
						g.imports[p.ImportPath] = true
					}
				}
			}
			byDir[k.group] = g
			q.groups = append(q.groups, g)
		}
		if !containsKey(g.byName[k.name], k) {
			g.byName[k.name] = append(g.byName[k.name], k)
		}
		if !seenName[k.name] {
			seenName[k.name] = true
			q.names = append(q.names, []byte(k.name))
		}
	}
	stage := e.stagePaths()
	q.excluded = func(file string) bool {
		for _, s := range stage {
			if file == s || (strings.HasSuffix(s, "/") && strings.HasPrefix(file, s)) {
				return true
			}
		}
		return false
	}
	return q
}

func containsKey(ks []fieldKey, k fieldKey) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// stagePaths are the configured Shoot stage files and directories.
func (e *Finder) stagePaths() []string {
	s := e.hist.Options().Shoot
	var out []string
	for _, l := range [][]string{s.Warnings, s.Validation, s.Strategy, s.Maintenance, s.Defaults} {
		out = append(out, l...)
	}
	return out
}

// At returns the usages of the removed fields at a revision (base or the
// newest release before base).
func (e *Finder) At(rev lifecycle.Rev) (*Usages, error) {
	if m := e.memo[rev]; m != nil {
		return m.res, m.err
	}
	m := &usageMemo{}
	e.memo[rev] = m
	m.res, m.err = e.usagesIn(rev)
	return m.res, m.err
}

func (e *Finder) usagesIn(rev lifecycle.Rev) (*Usages, error) {
	fields := e.fields
	if len(fields) == 0 {
		return &Usages{Rev: string(rev), Exact: true}, nil
	}
	snap, label, err := e.hist.Snapshot(rev)
	if err != nil {
		return nil, err
	}
	q := e.query(fields)
	cands, err := scanUsages(snap, q)
	if err != nil {
		return nil, err
	}
	res := &Usages{Rev: label, byKey: map[fieldKey][]model.Pos{}}
	if len(cands) > 0 {
		confirmed, why := e.confirm(snap, q, cands)
		if why == "" {
			res.Exact, cands = true, confirmed
		} else {
			res.Approx = why
		}
	} else {
		res.Exact = true
	}
	for _, c := range cands {
		if c.exact {
			res.byKey[c.key] = append(res.byKey[c.key], c.pos)
			continue
		}
		for _, k := range c.group.byName[c.name] {
			res.byKey[k] = append(res.byKey[k], c.pos)
		}
	}
	for k, ps := range res.byKey {
		sortPos(ps)
		res.byKey[k] = dedupPos(ps)
	}
	return res, nil
}

func sortPos(ps []model.Pos) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Col < ps[j].Col
	})
}

func dedupPos(ps []model.Pos) []model.Pos {
	out := ps[:0]
	for i, p := range ps {
		if i == 0 || p != ps[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// inGroup reports whether file lies in the group directory or below it.
func inGroup(file, dir string) bool {
	return dir == "." || strings.HasPrefix(file, dir+"/")
}

// scanUsages finds the syntactic candidates in one pass over the revision:
// every file is read once (one cat-file batch), files that do not contain
// any of the names are dropped without parsing, the rest are parsed in
// parallel.
func scanUsages(src scan.Source, q *usageQuery) ([]candidate, error) {
	var paths []string
	for _, p := range src.Files() {
		if !scan.Scannable(p) || q.excluded(p) {
			continue
		}
		outside := false
		for _, g := range q.groups {
			if !inGroup(p, g.dir) {
				outside = true
				break
			}
		}
		if outside {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	contents, err := src.ReadFiles(paths)
	if err != nil {
		return nil, err
	}
	results, err := par.Map(len(paths), func(i int) ([]candidate, error) {
		return fileCandidates(paths[i], contents[paths[i]], q), nil
	})
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// fileCandidates returns the matches in one file.
func fileCandidates(p string, src []byte, q *usageQuery) []candidate {
	hit := false
	for _, n := range q.names {
		if bytes.Contains(src, n) {
			hit = true
			break
		}
	}
	if !hit {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		return nil // not our business: the compiler reports broken files
	}
	importNames := map[string]bool{}
	var groups []*usageGroup
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(ip)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		importNames[name] = true
		for _, g := range q.groups {
			if g.imports[ip] && !inGroup(p, g.dir) && !containsGroup(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	var out []candidate
	add := func(id *ast.Ident) {
		for _, g := range groups {
			if len(g.byName[id.Name]) > 0 {
				ps := fset.Position(id.Pos())
				out = append(out, candidate{pos: model.Pos{File: p, Line: ps.Line, Col: ps.Column}, group: g, name: id.Name})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// pkg.Foo names a package member, not a field.
			if x, ok := n.X.(*ast.Ident); ok && importNames[x.Name] {
				return true
			}
			add(n.Sel)
		case *ast.CompositeLit:
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		}
		return true
	})
	return out
}

func containsGroup(gs []*usageGroup, g *usageGroup) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}
