package scan

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"hash/fnv"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
	"github.com/apicheck/apicheck/internal/quote"
)

var groupNameValue = lazyre.New(`\+groupName\s*=\s*([A-Za-z0-9.\-]+)`)

// conversionGenValue is a package's +k8s:conversion-gen=<import path>
// (not the type-level =false, nor -external-types).
var conversionGenValue = lazyre.New(`^\+k8s:conversion-gen=([A-Za-z0-9._~/\-]+)\s*$`)

// pendingConst is an exported constant with the name of its type, kept
// until the package's types are known.
type pendingConst struct {
	c   *model.Const
	typ string
}

// pkgBuilder holds what buildPackage gathers across a package's files.
type pkgBuilder struct {
	s           *state
	dir         string
	pkg         *model.Package
	seen        map[string]*model.Type // the package's exported types by name
	consts      []pendingConst
	jsonMethods map[string]*jsonMethodSet // by receiver type
	scope       *constScope               // the package's constants: its group name in Go (groupNameOf)
}

// buildPackage translates the parsed files of dir into a model.Package.
func (s *state) buildPackage(dir, version string) (*model.Package, error) {
	return s.buildPackageFiles(dir, s.mods.importPath(dir), version, s.dirFiles(dir))
}

// dirFiles are the parsed files of dir (those the platform builds).
func (s *state) dirFiles(dir string) []*parsedFile {
	var files []*parsedFile
	for _, fp := range s.goFiles[dir] {
		if pf := s.parsed[fp]; pf != nil {
			files = append(files, pf)
		}
	}
	return files
}

// buildPackageFiles translates parsed files into the model.Package of
// directory dir with import path importPath: buildPackage for a package
// of the repository, and for one read from the module cache
// (externalPackages).
func (s *state) buildPackageFiles(dir, importPath, version string, files []*parsedFile) (*model.Package, error) {
	b := &pkgBuilder{
		s:   s,
		dir: dir,
		pkg: &model.Package{
			Dir:        dir,
			Version:    version,
			ImportPath: importPath,
			Imports:    map[string]map[string]string{},
		},
		seen:        map[string]*model.Type{},
		jsonMethods: map[string]*jsonMethodSet{},
		scope:       newConstScope(dir),
	}
	pkg := b.pkg
	name := packageNameOf(files)
	for _, pf := range files {
		if pf.file.Name.Name != name {
			continue // a stray package main / external test
		}
		if err := b.addFile(pf.path, pf); err != nil {
			return nil, err
		}
	}
	if pkg.GroupName == "" && version != "" {
		if g, ok, unknown := s.groupNameOf(b.scope, version); ok {
			pkg.GroupName = g
		} else {
			pkg.GroupNameUnknown = unknown
		}
	}
	b.decideCustomJSON()
	b.keepEnumConsts()
	sort.Strings(pkg.Files)
	propagateAlpha(pkg)
	return pkg, nil
}

// addFile adds one file of the package: its imports, the package-level
// markers it carries, its JSON methods and conversion functions, its
// exported types and its typed constants.
func (b *pkgBuilder) addFile(fp string, pf *parsedFile) error {
	pkg := b.pkg
	pkg.Files = append(pkg.Files, fp)
	if pkg.Name == "" {
		pkg.Name = pf.file.Name.Name
	}
	pkg.Imports[fp] = fileImports(pf.file)
	if pkg.GroupName == "" && bytes.Contains(pf.src, []byte("+groupName")) { // the comments only where one can say it
		for _, cg := range pf.file.Comments {
			if m := groupNameValue.FindStringSubmatch(cg.Text()); m != nil {
				pkg.GroupName = m[1]
				break
			}
		}
	}
	if pkg.ConversionGen == "" {
		pkg.ConversionGen = conversionGen(pf.file)
	}
	if !pkg.DefaultOptional && bytes.Contains(pf.src, []byte("+kubebuilder:validation:Optional")) { // the comments only where they can say so
		pkg.DefaultOptional = defaultOptional(pf.file)
	}
	generated := ast.IsGenerated(pf.file)
	for _, decl := range pf.file.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			b.addFunc(pf, fd, generated)
			continue
		}
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		b.scope.add(gd, pkg.Imports[fp])
		switch gd.Tok {
		case token.TYPE:
			if err := b.addTypes(pf, gd); err != nil {
				return err
			}
		case token.CONST:
			b.addConsts(pf, gd)
		}
	}
	return nil
}

// addFunc records a function declaration: a JSON marshal or unmarshal
// method by its receiver type, and a hand-written Convert_ function by
// its fingerprint.
func (b *pkgBuilder) addFunc(pf *parsedFile, fd *ast.FuncDecl, generated bool) {
	if r, delegates := jsonMethod(fd); r != "" {
		if b.jsonMethods[r] == nil {
			b.jsonMethods[r] = &jsonMethodSet{}
		}
		b.jsonMethods[r].add(fd.Name.Name, delegates)
	}
	if fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Convert_") && !generated {
		if b.pkg.Conversions == nil {
			b.pkg.Conversions = map[string]string{}
		}
		b.pkg.Conversions[fd.Name.Name] = pf.fingerprint(fd)
	}
}

// addTypes adds the exported types of a type declaration; a type
// declared twice in the package is an error.
func (b *pkgBuilder) addTypes(pf *parsedFile, gd *ast.GenDecl) error {
	for _, spec := range gd.Specs {
		ts := spec.(*ast.TypeSpec)
		if !ts.Name.IsExported() {
			continue
		}
		t, err := buildType(pf, gd, ts)
		if err != nil {
			return err
		}
		if prev := b.seen[t.Name]; prev != nil {
			return &Error{Pos: t.Pos, Msg: fmt.Sprintf("type %s is declared twice in package %s (also at %s)", t.Name, quote.Name(b.dir), prev.Pos)}
		}
		b.seen[t.Name] = t
		b.pkg.Types = append(b.pkg.Types, t)
	}
	return nil
}

// addConsts collects the exported constants of a const declaration
// whose type is known: written out, carried from the spec before, or
// given by a conversion.
func (b *pkgBuilder) addConsts(pf *parsedFile, gd *ast.GenDecl) {
	lastType := ""
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		if vs.Type != nil {
			lastType = exprString(vs.Type)
		} else if len(vs.Values) > 0 {
			lastType = ""
			// Typed by conversion: const A = Kind("x").
			if call, ok := vs.Values[0].(*ast.CallExpr); ok && len(call.Args) == 1 {
				if id, ok := call.Fun.(*ast.Ident); ok {
					lastType = id.Name
				}
			}
		}
		if lastType == "" {
			continue
		}
		for i, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			c := &model.Const{Name: n.Name, Type: lastType, Pos: pf.pos(n.Pos()), Below: versionBound(constDoc(gd, vs))}
			if i < len(vs.Values) {
				c.Value = exprString(vs.Values[i])
			}
			b.consts = append(b.consts, pendingConst{c, lastType})
		}
	}
}

// decideCustomJSON marks the types whose JSON form their own methods
// decide.
//
// Both directions custom, neither delegating to the default: the
// methods alone decide the JSON form (apiextensions' JSON). A method
// the struct does not declare may be promoted from the one embedded
// field whose type has it (a wrapper of metav1.Time).
func (b *pkgBuilder) decideCustomJSON() {
	for _, t := range b.pkg.Types {
		if t.Kind != model.KindStruct {
			// A named map, slice or scalar may decide its JSON form
			// too (ClickHouse operator's Settings, a map with methods
			// that write a list); it embeds nothing to promote them.
			if ms := b.jsonMethods[t.Name]; ms != nil && t.Kind == model.KindOther && !t.Alias {
				t.CustomJSON = ms.custom()
			}
			continue
		}
		ms := b.jsonMethods[t.Name]
		if ms == nil {
			ms = &jsonMethodSet{}
		}
		if !ms.marshal || !ms.unmarshal {
			if promoted := promotedJSON(b.pkg, t, b.jsonMethods, b.seen); promoted {
				ms = &jsonMethodSet{marshal: true, unmarshal: true, delegates: ms.delegates}
			}
		}
		t.CustomJSON = ms.custom()
	}
}

// keepEnumConsts keeps the constants of the package's own named
// non-struct types: those are the enum values of the API.
func (b *pkgBuilder) keepEnumConsts() {
	for _, pc := range b.consts {
		if t := b.seen[pc.typ]; t != nil && t.Kind == model.KindOther {
			b.pkg.Consts = append(b.pkg.Consts, pc.c)
		}
	}
}

// constDoc is a constant's doc comment: its own, or the declaration's
// when the declaration holds only it.
func constDoc(gd *ast.GenDecl, vs *ast.ValueSpec) string {
	if vs.Doc != nil {
		return vs.Doc.Text()
	}
	if len(gd.Specs) == 1 && gd.Doc != nil {
		return gd.Doc.Text()
	}
	return ""
}

// upperBound finds a documented upper version bound of availability:
// "only available for Kubernetes versions < v1.30", "supported for
// versions below 1.30", "only valid with Kubernetes versions older than
// v1.30".
var upperBound = lazyre.New(`(?i)\b(?:available|supported|allowed|valid|usable)\s+(?:for|with|on|in)\s+(?:\w+\s+)?versions?\s*(?:<|below|before|lower than|older than|prior to)\s*(v?\d+\.\d+(?:\.\d+)?)\b`)

// versionBound is the version an upper bound in doc names, "" for none.
func versionBound(doc string) string {
	// Every match says "version": in any case, and under (?i) its s may
	// also be U+017F, but v, e, r, i, o and n fold to ASCII only.
	if !protobuf.ContainsFold(doc, "ver") || !protobuf.ContainsFold(doc, "ion") {
		return ""
	}
	m := upperBound.FindStringSubmatch(strings.Join(strings.Fields(doc), " "))
	if m == nil {
		return ""
	}
	return m[1]
}

// packageName is the name of the package in dir: the most common package
// clause among its files, preferring any name to "main" and to external
// test packages ("x_test"), which can sit beside API files without being
// part of the API package.
func (s *state) packageName(dir string) string { return packageNameOf(s.dirFiles(dir)) }

// packageNameOf is packageName for a package of these files.
func packageNameOf(files []*parsedFile) string {
	count := map[string]int{}
	for _, pf := range files {
		count[pf.file.Name.Name]++
	}
	rank := func(n string) int {
		if n == "main" || strings.HasSuffix(n, "_test") {
			return 0
		}
		return 1
	}
	best := ""
	for n, c := range count {
		switch {
		case best == "",
			rank(n) > rank(best),
			rank(n) == rank(best) && c > count[best],
			rank(n) == rank(best) && c == count[best] && n < best:
			best = n
		}
	}
	return best
}

// fingerprint identifies a declaration's source text (a hash: equal
// for the same text).
func (pf *parsedFile) fingerprint(n ast.Node) string {
	f := pf.fset.File(n.Pos())
	if f == nil {
		return ""
	}
	start, end := f.Offset(n.Pos()), f.Offset(n.End())
	if start < 0 || end > len(pf.src) || start > end {
		return ""
	}
	h := fnv.New64a()
	h.Write(pf.src[start:end])
	return strconv.FormatUint(h.Sum64(), 16)
}

func (pf *parsedFile) pos(p token.Pos) model.Pos {
	line, col := pf.position(p)
	return model.Pos{File: pf.path, Line: line, Col: col}
}

func fileImports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else {
			name = defaultImportName(p)
		}
		if name == "_" || name == "." {
			continue
		}
		out[name] = p
	}
	return out
}

// defaultImportName guesses the package name of an unaliased import from
// its path (last element, without a ".vN" or "-go" suffix and with other
// punctuation removed), as gopls and goimports do.
func defaultImportName(p string) string {
	base := path.Base(p)
	if strings.HasPrefix(base, "v") && len(base) > 1 {
		if _, err := strconv.Atoi(base[1:]); err == nil && base[1:] != "0" && base[1:] != "1" {
			// Major-version suffix: example.com/foo/v2 -> foo.
			if d := path.Base(path.Dir(p)); d != "." && !IsVersionDir(d) {
				base = d
			}
		}
	}
	if i := strings.Index(base, ".v"); i > 0 {
		base = base[:i]
	}
	base = strings.TrimPrefix(base, "go-")
	base = strings.TrimSuffix(base, "-go")
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return -1
		}
		return r
	}, base)
}

// docGroups are the comment groups of a declaration's documentation: its
// doc comment and the comment group directly above it when only one blank
// line separates them (where Kubernetes puts +genclient and friends), in
// source order.
func (pf *parsedFile) docGroups(doc *ast.CommentGroup, declPos token.Pos) []*ast.CommentGroup {
	var groups []*ast.CommentGroup
	start := declPos
	if doc != nil {
		start = doc.Pos()
	}
	startLine, _ := pf.position(start)
	// Only the comment group right before start can qualify.
	comments := pf.file.Comments
	i := sort.Search(len(comments), func(i int) bool { return comments[i].End() >= start })
	for _, cg := range comments[max(0, i-2):i] {
		if cg == doc {
			continue
		}
		end, _ := pf.position(cg.End())
		if end == startLine-2 || (doc == nil && end == startLine-1) {
			groups = append(groups, cg)
		}
	}
	if doc != nil {
		groups = append(groups, doc)
	}
	return groups
}

// ownMarkerPrefix starts the markers addressed to apicheck.
const ownMarkerPrefix = "apicheck:"

// ownMarkers returns the "+apicheck:..." markers of comment groups with
// the position of the comment line each is written on.
func (pf *parsedFile) ownMarkers(groups ...*ast.CommentGroup) []model.LocatedMarker {
	var out []model.LocatedMarker
	for _, cg := range groups {
		if cg == nil {
			continue
		}
		for _, c := range cg.List {
			if !strings.Contains(c.Text, "+"+ownMarkerPrefix) {
				continue
			}
			base := pf.pos(c.Pos())
			for i, line := range commentLines(&ast.CommentGroup{List: []*ast.Comment{c}}) {
				pos := base
				if i > 0 { // a line of a /* */ block
					pos.Line += i
				}
				for _, m := range ParseMarkers([]string{line}) {
					if strings.HasPrefix(m.Key, ownMarkerPrefix) {
						out = append(out, model.LocatedMarker{Marker: m, Pos: pos})
					}
				}
			}
		}
	}
	return out
}

// commentLines returns the lines of a comment group with the comment
// markers removed (keeping "+markers" that ast.CommentGroup.Text drops
// nothing of, but Text also strips directives, which we keep).
func commentLines(cg *ast.CommentGroup) []string {
	if cg == nil {
		return nil
	}
	return appendCommentLines(make([]string, 0, len(cg.List)), cg)
}

// appendCommentLines appends the lines of commentLines(cg) to out.
func appendCommentLines(out []string, cg *ast.CommentGroup) []string {
	for _, c := range cg.List {
		t := c.Text
		if strings.HasPrefix(t, "//") {
			t = strings.TrimPrefix(t[2:], " ")
			out = append(out, t)
			continue
		}
		t = strings.TrimSuffix(strings.TrimPrefix(t, "/*"), "*/")
		for _, l := range strings.Split(t, "\n") {
			out = append(out, strings.TrimPrefix(strings.TrimSpace(l), "* "))
		}
	}
	return out
}

// deprecatedLine matches a doc comment line that says its declaration is
// deprecated: the word Deprecated (any case) first, then a colon (Go's
// "Deprecated:" paragraph), other punctuation or nothing ("Deprecated.",
// "Deprecated, will be removed with next major version", "DEPRECATED -
// This group version of …", a line "Deprecated" alone), a version
// ("DEPRECATED 1.9 - …") or a word that goes on to say when or why
// ("Deprecated in v1.17 in favor of …", "Deprecated since …", "Deprecated
// field. …", "Deprecated and will be removed …", "Deprecated, use …").
// A line that only starts with the word ("Deprecated declares whether
// the operation is deprecated", the doc of a field named Deprecated;
// "Deprecated features are …") is no such statement.
var deprecatedLine = lazyre.New(`(?i)^\s*deprecated(\s*$|\s*[:.,;!(]|\s+[-\x{2013}\x{2014}]|\s+\d|\s+(in|since|as|field|and|for|until|use|now|starting|from|with)\b)`)

// DeprecationLine reports whether a line of a doc comment (its comment
// markers removed) says that the declaration it documents is deprecated
// (see deprecatedLine).
func DeprecationLine(line string) bool {
	// The word first: most lines are not, and need no regexp.
	t := strings.TrimLeft(line, " \t")
	return len(t) >= len("deprecated") && strings.EqualFold(t[:len("deprecated")], "deprecated") && deprecatedLine.MatchString(t)
}

// alphaText is how Kubernetes-style doc comments call a field alpha
// ("This is an alpha field and requires enabling the X feature gate.",
// "alpha-level", "This field is alpha").
var alphaText = lazyre.New(`(?i)\b(an alpha field|alpha-level|(field|feature) is (in )?alpha|is an alpha feature)\b`)

// experimentalChannel reports a doc comment line "<gateway:experimental>":
// Gateway API's CRD generator (and the projects that reuse it) leaves
// such a field out of the standard channel's CRDs. It ships in the
// experimental channel only, whose fields may change or go away (the
// project's versioning policy), so it is an alpha field.
func experimentalChannel(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == "<gateway:experimental>" {
			return true
		}
	}
	return false
}

// mentionsAlpha reports whether s contains "alpha" in any case: every
// phrase alphaText matches does (and the case folds of a, l, p and h are
// ASCII), so the costly regexp runs only on the few comments that do.
func mentionsAlpha(s string) bool { return protobuf.ContainsFold(s, "alpha") }

// isDeprecated reports whether a doc comment has a line that says the
// declaration is deprecated: Go's "Deprecated:" paragraph, or the other
// ways API code writes it (see deprecatedLine).
func isDeprecated(lines []string) bool {
	for _, l := range lines {
		if DeprecationLine(l) {
			return true
		}
	}
	return false
}

// docText is the text of a doc comment's lines without its marker lines:
// the others joined by newlines, white space trimmed off both ends.
func docText(lines []string) string {
	n, size, one := 0, 0, ""
	for _, l := range lines {
		if !markerLine(l) {
			n, size, one = n+1, size+len(l), l
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return strings.TrimSpace(one)
	}
	var b strings.Builder
	b.Grow(size + n - 1)
	first := true
	for _, l := range lines {
		if markerLine(l) {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(l)
	}
	return strings.TrimSpace(b.String())
}

// markerLine reports a comment line docText leaves out (a "+marker").
func markerLine(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "+") }

// MaxFields bounds the fields of a struct the scanner reads: API types
// have dozens of fields, Kubernetes' largest a few hundred. A struct with
// more fails the scan (fails closed, as a file above the size limit does):
// a struct whose fields went unchecked would let any change to them pass.
const MaxFields = 10000

func buildType(pf *parsedFile, gd *ast.GenDecl, ts *ast.TypeSpec) (*model.Type, error) {
	doc := ts.Doc
	if doc == nil && len(gd.Specs) == 1 {
		doc = gd.Doc
	}
	declPos := ts.Pos()
	if len(gd.Specs) == 1 {
		declPos = gd.Pos()
	}
	groups := pf.docGroups(doc, declPos)
	var lines []string
	if len(groups) > 0 {
		n := 0
		for _, cg := range groups {
			n += len(cg.List)
		}
		lines = make([]string, 0, n)
		for _, cg := range groups {
			lines = appendCommentLines(lines, cg)
		}
	}
	t := &model.Type{
		Name:    ts.Name.Name,
		Pos:     pf.pos(ts.Name.Pos()),
		Doc:     docText(lines),
		Markers: ParseMarkers(lines),
		Own:     pf.ownMarkers(groups...),
		Alias:   ts.Assign.IsValid(),
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || t.Alias {
		t.Kind = model.KindOther
		t.Underlying = exprString(ts.Type)
		t.End = pf.pos(ts.End())
		return t, nil
	}
	t.Kind = model.KindStruct
	t.End = pf.pos(st.Fields.Closing)
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	if n > MaxFields {
		return nil, &Error{Pos: t.Pos, Msg: fmt.Sprintf("struct %s has %d fields, more than apicheck's limit of %d fields per struct: "+
			"its fields cannot be checked", t.Name, n, MaxFields)}
	}
	if n > 0 {
		t.Fields = make([]*model.Field, 0, n)
	}
	store := make([]model.Field, n) // the fields, one allocation for the struct
	for _, f := range st.Fields.List {
		from := len(t.Fields)
		var err error
		if t.Fields, store, err = appendFields(t.Fields, store, pf, f); err != nil {
			return nil, err
		}
		for _, fld := range t.Fields[from:] {
			if fld.Embedded && strings.HasSuffix(fld.Name, "TypeMeta") {
				t.RootKind = true
			}
		}
	}
	if len(t.Fields) == 0 {
		t.Fields = nil // no exported field
	}
	if t.Markers.Has("genclient") {
		if v, _ := t.Markers.Get("kubebuilder:object:root"); v != "false" {
			t.RootKind = true
		}
	}
	if v, ok := t.Markers.Get("kubebuilder:object:root"); ok && v != "false" {
		t.RootKind = true
	}
	t.Tombstones = structTombstones(pf, st)
	t.Deprecated = t.Markers.Has("k8s:prerelease-lifecycle-gen:deprecated") || t.Markers.Has("k8s:prerelease-lifecycle-gen:removed") ||
		deprecatedDoc(t.Doc)
	return t, nil
}

// deprecatedDoc is isDeprecated of the lines of doc.
func deprecatedDoc(doc string) bool {
	for l := range strings.SplitSeq(doc, "\n") {
		if DeprecationLine(l) {
			return true
		}
	}
	return false
}

// appendFields appends the exported fields that f declares (or the field
// it embeds) to out, each stored in the next element of store, and
// returns out and the rest of store: store has an element for each name
// of f (one for an embedded field).
func appendFields(out []*model.Field, store []model.Field, pf *parsedFile, f *ast.Field) ([]*model.Field, []model.Field, error) {
	lines := commentLines(f.Doc)
	base := model.Field{
		Type:    exprString(f.Type),
		Doc:     docText(lines),
		Markers: ParseMarkers(lines),
		Own:     pf.ownMarkers(f.Doc),
	}
	base.Deprecated = isDeprecated(lines)
	base.Alpha = base.Markers.Has("k8s:alpha") || mentionsAlpha(base.Doc) && alphaText.MatchString(base.Doc) || experimentalChannel(lines)
	if f.Tag != nil {
		tag, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return nil, nil, &Error{Pos: pf.pos(f.Tag.Pos()), Msg: "cannot read struct tag: " + err.Error()}
		}
		base.Tag = tag
		st := reflect.StructTag(tag)
		if v, ok := st.Lookup("json"); ok {
			base.JSON = parseJSONTag(v)
		}
		base.PatchStrategy, _ = st.Lookup("patchStrategy")
		base.PatchMergeKey, _ = st.Lookup("patchMergeKey")
		pt, ok, err := protobuf.FromStructTag(tag)
		if err != nil {
			base.ProtoErr = err.Error()
		} else if ok {
			base.Proto = pt
		}
	}
	if len(f.Names) == 0 {
		fld := &store[0]
		*fld = base
		fld.Embedded = true
		fld.Name = EmbeddedName(f.Type)
		fld.Pos = pf.pos(f.Type.Pos())
		return append(out, fld), store[1:], nil
	}
	for i, n := range f.Names {
		if !n.IsExported() {
			continue
		}
		fld := &store[i]
		*fld = base
		fld.Name = n.Name
		fld.Pos = pf.pos(n.Pos())
		out = append(out, fld)
	}
	return out, store[len(f.Names):], nil
}

// EmbeddedName is the field name an embedded field of type e gets: the
// type's name without package, pointer or type arguments.
func EmbeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return EmbeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return EmbeddedName(x.X)
	case *ast.IndexListExpr:
		return EmbeddedName(x.X)
	}
	return exprString(e)
}

// exprString is types.ExprString(e), without its buffer for the
// expressions most fields have: a name, a qualified name, a pointer to
// or a slice of either, a literal.
func exprString(e ast.Expr) string {
	prefix := ""
	switch x := e.(type) {
	case *ast.StarExpr:
		prefix, e = "*", x.X
	case *ast.ArrayType:
		if x.Len == nil {
			prefix, e = "[]", x.Elt
		}
	}
	switch x := e.(type) {
	case *ast.Ident:
		return prefix + x.Name
	case *ast.BasicLit:
		return prefix + x.Value
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return prefix + id.Name + "." + x.Sel.Name
		}
	}
	if prefix != "" {
		return prefix + types.ExprString(e)
	}
	return types.ExprString(e)
}

func parseJSONTag(v string) model.JSONTag {
	parts := strings.Split(v, ",")
	jt := model.JSONTag{Present: true, Name: parts[0]}
	for _, o := range parts[1:] {
		switch strings.TrimSpace(o) {
		case "omitempty":
			jt.OmitEmpty = true
		case "omitzero":
			jt.OmitZero = true
		case "inline":
			jt.Inline = true
		case "string":
			jt.String = true
		}
	}
	if v == "-" {
		jt.Name = "-"
	}
	return jt
}

// structTombstones collects the comment groups inside the struct's braces
// and hands them to the tombstone parser.
func structTombstones(pf *parsedFile, st *ast.StructType) []*model.Tombstone {
	var groups [][]protobuf.Line
	comments := pf.file.Comments
	first := sort.Search(len(comments), func(i int) bool { return comments[i].Pos() > st.Fields.Opening })
	for _, cg := range comments[first:] {
		if cg.End() > st.Fields.Closing {
			break
		}
		if !slices.ContainsFunc(cg.List, func(c *ast.Comment) bool { return protobuf.MayReserve(c.Text) }) {
			continue
		}
		var lines []protobuf.Line
		for _, c := range cg.List {
			if !strings.HasPrefix(c.Text, "//") {
				// Block comments: each line is a candidate.
				line, col := pf.position(c.Pos())
				body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
				for i, l := range strings.Split(body, "\n") {
					lines = append(lines, protobuf.Line{
						Text: strings.TrimPrefix(strings.TrimSpace(l), "* "),
						Pos:  model.Pos{File: pf.path, Line: line + i, Col: col},
					})
				}
				continue
			}
			lines = append(lines, protobuf.Line{
				Text: strings.TrimPrefix(c.Text[2:], " "),
				Pos:  pf.pos(c.Pos()),
			})
		}
		groups = append(groups, lines)
	}
	if len(groups) == 0 {
		return nil
	}
	return protobuf.ParseTombstones(groups)
}

// typeIdent matches the identifiers of a type expression that are not
// package-qualified ("X", "*X", "[]X", "map[string]X", not "v1.X").
var typeIdent = lazyre.New(`(?:^|[^.\w])([A-Za-z_]\w*)`)

// propagateAlpha marks the types of pkg that only alpha fields use
// (Kubernetes documents a feature's field as alpha, not the structs and
// enums below it): a type is alpha when it is not a root kind, some field
// of the package refers to it, and every such field is alpha or belongs to
// an alpha type.
func propagateAlpha(pkg *model.Package) {
	if !slices.ContainsFunc(pkg.Types, func(t *model.Type) bool {
		return t.Alpha || slices.ContainsFunc(t.Fields, func(f *model.Field) bool { return f.Alpha })
	}) {
		return // nothing alpha: no type to mark
	}
	users := map[string][]*model.Field{}
	owner := map[*model.Field]*model.Type{}
	idents := map[string][][]string{} // typeIdent's matches by type expression: many fields share one
	for _, t := range pkg.Types {
		for _, f := range t.Fields {
			owner[f] = t
			ms, ok := idents[f.Type]
			if !ok {
				ms = typeIdent.FindAllStringSubmatch(f.Type, -1)
				idents[f.Type] = ms
			}
			for _, m := range ms {
				users[m[1]] = append(users[m[1]], f)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, t := range pkg.Types {
			if t.Alpha || t.RootKind || len(users[t.Name]) == 0 {
				continue
			}
			alpha, others := true, 0
			for _, f := range users[t.Name] {
				o := owner[f]
				if o == t {
					continue // a recursive type's own fields do not decide
				}
				others++
				if !f.Alpha && !o.Alpha {
					alpha = false
					break
				}
			}
			alpha = alpha && others > 0
			if alpha {
				t.Alpha, changed = true, true
			}
		}
	}
}

// customJSONTypes are the types outside the repository with both a
// MarshalJSON and an UnmarshalJSON method: a struct embedding one of them
// gets its methods (Go promotes them), so they decide its JSON form.
var customJSONTypes = map[string]bool{
	"time.Time": true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                                             true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                                        true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                                         true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                                         true,
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                                         true,
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":                                       true,
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                                          true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":                         true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON":                    true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":        true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":       true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": true,
}

// promotedJSON reports whether struct t gets both JSON methods from its
// embedded fields: exactly one of them (two at the same depth cancel each
// other out) is of a type that has both, a well-known one or a struct of
// the package that declares both (declared: the package's methods, by
// receiver). Embedded structs are followed one level.
func promotedJSON(pkg *model.Package, t *model.Type, declared map[string]*jsonMethodSet, seen map[string]*model.Type) bool {
	n := 0
	for _, f := range t.Fields {
		if !f.Embedded {
			continue
		}
		typ := strings.TrimPrefix(f.Type, "*")
		if pkgName, name, ok := strings.Cut(typ, "."); ok {
			if path := pkg.Imports[t.Pos.File][pkgName]; path != "" && customJSONTypes[path+"."+name] {
				n++
			}
			continue
		}
		if ms := declared[typ]; ms != nil && ms.custom() && seen[typ] != nil {
			n++
		}
	}
	return n == 1
}

// jsonMethodSet is what a package declares of a type's JSON methods.
type jsonMethodSet struct{ marshal, unmarshal, delegates bool }

func (m *jsonMethodSet) add(method string, delegates bool) {
	m.marshal = m.marshal || method == "MarshalJSON"
	m.unmarshal = m.unmarshal || method == "UnmarshalJSON"
	m.delegates = m.delegates || delegates
}

// custom reports methods that decide the JSON form alone: both
// directions, neither delegating to the default.
func (m *jsonMethodSet) custom() bool { return m.marshal && m.unmarshal && !m.delegates }

// jsonMethod returns the receiver type's name of a MarshalJSON or
// UnmarshalJSON method declaration ("" for any other function), and
// whether the method delegates to encoding/json's default for the type:
// its body declares a local type of the receiver's type (`type alias T`,
// the usual way to add to the default without recursing), so the json
// tags still decide the form.
func jsonMethod(fd *ast.FuncDecl) (recv string, delegates bool) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != "MarshalJSON" && fd.Name.Name != "UnmarshalJSON" {
		return "", false
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return "", false
	}
	if fd.Body != nil {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if x, ok := ts.Type.(*ast.Ident); ok && x.Name == id.Name {
					delegates = true
				}
			}
			return !delegates
		})
	}
	return id.Name, delegates
}

// defaultOptional reports a +kubebuilder:validation:Optional marker in a
// comment of file f outside every struct's braces: controller-gen reads
// it as the package's (every field optional unless marked required),
// above the package clause and on a type's comment alike (Kong's and
// NGINX's ingress controllers put it on their kinds).
func defaultOptional(f *ast.File) bool {
	var found []*ast.CommentGroup
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == "+kubebuilder:validation:Optional" {
				found = append(found, cg)
				break
			}
		}
	}
	if len(found) == 0 {
		return false
	}
	// Inside a struct's braces a marker is a field's, attached or not
	// (CAPA's ROSA spec kept one a blank line above a field's doc, and
	// its CRD still required the other fields).
	var bodies [][2]token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok && st.Fields != nil {
			bodies = append(bodies, [2]token.Pos{st.Fields.Opening, st.Fields.Closing})
		}
		return true
	})
	for _, cg := range found {
		if !slices.ContainsFunc(bodies, func(b [2]token.Pos) bool { return cg.Pos() > b[0] && cg.End() < b[1] }) {
			return true
		}
	}
	return false
}

// conversionGen is the import path a file's +k8s:conversion-gen= marker
// names in a comment above its package clause, where gengo reads package
// markers; "" without one (a type's +k8s:conversion-gen=false is not a
// package's).
func conversionGen(f *ast.File) string {
	for _, cg := range f.Comments {
		if cg.End() > f.Package {
			break
		}
		for _, c := range cg.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if m := conversionGenValue.FindStringSubmatch(text); m != nil && m[1] != "false" && m[1] != "true" {
				return m[1]
			}
		}
	}
	return ""
}
