package fix

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
)

// source gives the Go files of a package directory: head's at planning,
// the working tree's when a file changed since.
type source interface {
	dirFiles(dir string) (map[string][]byte, error)
	// parse parses a file of dirFiles to look into (never to edit).
	parse(name string, src []byte) (*parsedFile, *parseError)
	// fieldUses returns the uses of field of struct typ in the files of
	// a package directory (typeCheck, typedPkg.uses).
	fieldUses(files map[string][]byte, pkgName, importPath, typ, field string) ([]fieldRef, *parseError)
	// mayUse reports whether the files may use a field (useSyntax):
	// false saves their type check.
	mayUse(files map[string][]byte, field string) bool
}

// lookups memoises the files a plan parses to look into (where a struct
// moved) and the packages it type-checks (uses of a field): every
// pointer fix of a package looks through the same files.
type lookups struct {
	parsed map[string]*parsedFile
	typed  map[string]*typedPkg // by import path and package name
	syntax *useSyntax           // the last directory's files asked about
	// memo keeps the uses of fields across runs (nil: none); sums are
	// the files' hashes for its keys (fieldUses).
	memo git.Memo
	sums map[string]fileSum
}

func (l *lookups) parse(name string, src []byte) (*parsedFile, *parseError) {
	if pf := l.parsed[name]; pf != nil && bytes.Equal(pf.src, src) {
		return pf, nil
	}
	pf, pe := parseFile(name, src)
	if pe == nil {
		if l.parsed == nil {
			l.parsed = map[string]*parsedFile{}
		}
		l.parsed[name] = pf
	}
	return pf, pe
}

// snapshotSource reads package directories from a snapshot, once.
type snapshotSource struct {
	snap git.Snapshot
	dirs map[string]map[string][]byte
	lookups
}

func (s *snapshotSource) dirFiles(dir string) (map[string][]byte, error) {
	if m, ok := s.dirs[dir]; ok {
		return m, nil
	}
	files, err := git.DirFiles(s.snap, dir)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, f := range files {
		if strings.HasSuffix(f, ".go") {
			want = append(want, f)
		}
	}
	m, err := s.snap.ReadFiles(want)
	if err != nil {
		return nil, err
	}
	s.dirs[dir] = m
	return m, nil
}

// diskSource reads package directories from the working tree, through
// an os.Root (nothing outside the repository is read; only regular
// files are).
type diskSource struct {
	root *os.Root
	dirs map[string]map[string][]byte
	lookups
}

func (s *diskSource) dirFiles(dir string) (map[string][]byte, error) {
	if m, ok := s.dirs[dir]; ok {
		return m, nil
	}
	d, err := s.root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	m := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		p := path.Join(dir, e.Name())
		b, err := readRegular(s.root, p)
		if err != nil {
			return nil, err
		}
		m[p] = b
	}
	s.dirs[dir] = m
	return m, nil
}

// readRegular reads a regular file of the working tree (never a link).
func readRegular(root *os.Root, p string) ([]byte, error) {
	fi, err := root.Lstat(filepath.FromSlash(p))
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("not a regular file")}
	}
	if fi.Size() > git.MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("larger than %d bytes", git.MaxFileSize)}
	}
	return root.ReadFile(filepath.FromSlash(p))
}

// parsedFile is one Go file being fixed.
type parsedFile struct {
	path string
	src  []byte
	fset *token.FileSet
	file *ast.File
	tf   *token.File
}

// parseError is a file that does not parse, with the first error's
// position.
type parseError struct {
	pos string
	msg string
}

func parseFile(name string, src []byte) (*parsedFile, *parseError) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		pe := &parseError{pos: name, msg: err.Error()}
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pe.pos = model.Pos{File: name, Line: list[0].Pos.Line, Col: list[0].Pos.Column}.String()
			pe.msg = list[0].Msg
		}
		return nil, pe
	}
	return &parsedFile{path: name, src: src, fset: fset, file: f, tf: fset.File(f.Pos())}, nil
}

func (pf *parsedFile) off(p token.Pos) int { return pf.tf.Offset(p) }

func (pf *parsedFile) posString(p token.Pos) string {
	ps := pf.fset.Position(p)
	return model.Pos{File: pf.path, Line: ps.Line, Col: ps.Column}.String()
}

// edit replaces src[start:end] with text.
func (pf *parsedFile) edit(start, end int, text string) finding.Edit {
	s := pf.fset.Position(pf.tf.Pos(start))
	e := pf.fset.Position(pf.tf.Pos(end))
	return finding.Edit{
		Path:      pf.path,
		StartLine: s.Line, StartCol: s.Column,
		EndLine: e.Line, EndCol: e.Column,
		StartOffset: start, EndOffset: end,
		NewText: text,
	}
}

func (pf *parsedFile) lineStart(off int) int { return bytes.LastIndexByte(pf.src[:off], '\n') + 1 }

func (pf *parsedFile) lineEnd(off int) int {
	if i := bytes.IndexByte(pf.src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(pf.src)
}

// indentBefore is the white space from the start of off's line to off,
// and whether there is nothing else.
func (pf *parsedFile) indentBefore(off int) (string, bool) {
	s := string(pf.src[pf.lineStart(off):off])
	return s, strings.TrimLeft(s, " \t") == ""
}

// nextLine is the line after the one off ends ("" at the end).
func (pf *parsedFile) nextLine(off int) string {
	if off >= len(pf.src) || pf.src[off] != '\n' {
		return ""
	}
	return string(pf.src[off+1 : pf.lineEnd(off+1)])
}

// fieldIndent is the indentation of a struct's members.
func (pf *parsedFile) fieldIndent(ts *ast.TypeSpec, st *ast.StructType) string {
	for _, f := range st.Fields.List {
		p := f.Pos()
		if f.Doc != nil {
			p = f.Doc.Pos()
		}
		if in, ok := pf.indentBefore(pf.off(p)); ok {
			return in
		}
	}
	in, _ := pf.indentBefore(pf.off(ts.Pos()))
	if strings.TrimLeft(in, " \t") != "" {
		in = ""
	}
	return in + "\t"
}

// blankLinesBetweenFields reports whether the struct's style is a blank
// line after each field: most of its fields but the last are followed
// by a blank line.
func (pf *parsedFile) blankLinesBetweenFields(st *ast.StructType) bool {
	list := st.Fields.List
	blank := 0
	for _, f := range list[:max(len(list)-1, 0)] {
		end := f.End()
		if f.Comment != nil && f.Comment.End() > end {
			end = f.Comment.End()
		}
		if off := pf.lineEnd(pf.off(end)); off < pf.off(st.Fields.Closing) && strings.TrimSpace(pf.nextLine(off)) == "" {
			blank++
		}
	}
	return blank > 0 && 2*blank > len(list)-1
}

// tombstones parses the tombstones of a struct.
func (pf *parsedFile) tombstones(st *ast.StructType) []*model.Tombstone {
	return protobuf.ParseTombstones(protobuf.StructGroups(pf.fset, pf.path, pf.file, st))
}

// numbers lists the protobuf numbers of a struct's fields and tombstones.
func (pf *parsedFile) numbers(st *ast.StructType) (used, reserved []int) {
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			continue
		}
		tag, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			continue
		}
		if pt, ok, err := protobuf.FromStructTag(tag); ok && err == nil && pt != nil {
			used = append(used, pt.Number)
		}
	}
	return used, protobuf.Reserved(pf.tombstones(st))
}

// tagOf is a field's raw-string tag: its text and the offset of that
// text in the file.
func (pf *parsedFile) tagOf(f *ast.Field) (text string, at int, why string) {
	lit := f.Tag.Value
	if len(lit) < 2 || lit[0] != '`' {
		return "", 0, "its struct tag is an interpreted string literal; write it as a raw string (back quotes) first"
	}
	return lit[1 : len(lit)-1], pf.off(f.Tag.Pos()) + 1, ""
}

// planFile computes the outcome of each item on one content of a file.
// Items of structs or fields that are not (or no longer) there are
// skipped with the reason; items already done are no-ops.
func planFile(name string, src []byte, items []*item, pkg source) {
	for _, it := range items {
		it.out = outcome{}
	}
	skipAll := func(at, why string) {
		for _, it := range items {
			if it.out == (outcome{}) {
				it.out = outcome{skip: why, at: at}
			}
		}
	}
	for _, it := range items {
		if it.blocked != "" {
			it.out = outcome{skip: it.blocked, at: it.pos.String()}
		}
	}
	if bytes.Contains(src, []byte("\r\n")) {
		skipAll(name, "the file has CRLF line endings; gofmt would rewrite every line")
		return
	}
	pf, perr := parseFile(name, src)
	if perr != nil {
		skipAll(perr.pos, "the file does not parse: "+perr.msg)
		return
	}
	byType := map[string][]*item{}
	var typeNames []string
	for _, it := range items {
		if _, ok := byType[it.typ]; !ok {
			typeNames = append(typeNames, it.typ)
		}
		byType[it.typ] = append(byType[it.typ], it)
	}
	for _, typ := range typeNames {
		planStruct(pf, typ, byType[typ], pkg)
	}
}

func planStruct(pf *parsedFile, typ string, items []*item, pkg source) {
	ts, st := findStruct(pf.file, typ)
	if st == nil {
		why, at := missingStruct(pf, typ, items[0].dir, pkg)
		for _, it := range items {
			if it.out == (outcome{}) {
				it.out = outcome{skip: why, at: at}
			}
		}
		return
	}
	// Allocate numbers in field order, above every number the model,
	// history and the struct as it is now use.
	used, reserved := pf.numbers(st)
	next := protobuf.NextSafe(used, reserved)
	type numbered struct {
		it  *item
		idx int
	}
	var toNumber []numbered
	for _, it := range items {
		if (it.kind == kindNumber && it.restore == "" || it.kind == kindTag && it.newTag != "") && it.out == (outcome{}) {
			next = max(next, it.floor)
			_, idx := findField(st, it.field)
			toNumber = append(toNumber, numbered{it, idx})
		}
	}
	if next > 0 {
		next = protobuf.NextSafe([]int{next - 1}, nil) // never inside 19000-19999
	}
	sort.SliceStable(toNumber, func(i, j int) bool { return toNumber[i].idx < toNumber[j].idx })
	numbers := map[*item]int{}
	for _, n := range toNumber {
		numbers[n.it] = next
		next = protobuf.NextSafe([]int{next}, nil)
	}
	for _, it := range items {
		if it.out != (outcome{}) {
			continue
		}
		it.out = planItem(pf, ts, st, it, numbers[it], pkg)
	}
}

// missingStruct says where a struct went that is not in the file.
func missingStruct(pf *parsedFile, typ, dir string, pkg source) (why, at string) {
	files, err := pkg.dirFiles(dir)
	if err == nil {
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if n == pf.path || !bytes.Contains(files[n], []byte(typ)) {
				continue
			}
			other, perr := pkg.parse(n, files[n])
			if perr != nil {
				continue
			}
			if ts, _ := findStruct(other.file, typ); ts != nil {
				return fmt.Sprintf("struct %s moved to %s since it was checked; run apicheck fix again", typ, n), other.posString(ts.Name.Pos())
			}
		}
	}
	return fmt.Sprintf("struct %s is no longer in %s", typ, pf.path), pf.path
}

func planItem(pf *parsedFile, ts *ast.TypeSpec, st *ast.StructType, it *item, number int, pkg source) outcome {
	if it.kind == kindTombstone {
		return planTombstone(pf, ts, st, it)
	}
	fld, _ := findField(st, it.field)
	if fld == nil {
		return outcome{skip: fmt.Sprintf("struct %s has no field %s any more", it.typ, it.field), at: pf.posString(ts.Name.Pos())}
	}
	at := pf.posString(fld.Pos())
	if len(fld.Names) > 1 {
		var others []string
		for _, n := range fld.Names {
			if n.Name != it.field {
				others = append(others, n.Name)
			}
		}
		return outcome{skip: fmt.Sprintf("%s is declared together with %s; give it a declaration of its own first", it.field, strings.Join(others, ", ")), at: at}
	}
	switch it.kind {
	case kindPointer:
		return planPointer(pf, st, fld, it, pkg)
	case kindOptional:
		return planOptional(pf, fld, it)
	case kindOmitEmpty:
		return planOmitEmpty(pf, fld, it)
	case kindNumber:
		return planNumber(pf, ts, st, fld, it, number)
	case kindTag:
		return planTag(pf, fld, it, number)
	}
	return outcome{skip: "unknown fix", at: at}
}

func fixOf(desc string, edits ...finding.Edit) outcome {
	return outcome{fix: &finding.Fix{Description: desc, Edits: edits}}
}

func planTombstone(pf *parsedFile, ts *ast.TypeSpec, st *ast.StructType, it *item) outcome {
	tbs := pf.tombstones(st)
	for _, tb := range tbs {
		if tb.Proto != nil && tb.Proto.Number == it.tomb.number {
			return outcome{noop: true}
		}
	}
	off := -1
	for _, a := range it.anchors {
		if a.field != "" {
			if f, _ := findField(st, a.field); f != nil {
				end := f.End()
				if f.Comment != nil && f.Comment.End() > end {
					end = f.Comment.End()
				}
				off = pf.lineEnd(pf.off(end))
				break
			}
			continue
		}
		for _, tb := range tbs {
			if tb.Proto != nil && tb.Proto.Number == a.tomb && tb.Pos.Line > 0 {
				off = pf.lineEnd(pf.off(pf.tf.LineStart(tb.Pos.Line)))
				break
			}
		}
		if off >= 0 {
			break
		}
	}
	text := "\n"
	if off < 0 {
		off = pf.off(st.Fields.Opening) + 1
	} else if pf.blankLinesBetweenFields(st) {
		text += "\n" // apart from what precedes it, as the struct's fields are
	}
	indent := pf.fieldIndent(ts, st)
	text += indent + "// " + it.tomb.explanation + "\n" + indent + "// " + it.tomb.decl
	next := strings.TrimSpace(pf.nextLine(off))
	if off >= len(pf.src) || pf.src[off] != '\n' || (next != "" && !strings.HasPrefix(next, "}")) {
		text += "\n" // keep it apart from the next field's doc comment
	}
	return fixOf(fmt.Sprintf("leave a tombstone reserving protobuf number %d where %s was", it.tomb.number, it.tomb.name),
		pf.edit(off, off, text))
}

func planPointer(pf *parsedFile, st *ast.StructType, fld *ast.Field, it *item, pkg source) outcome {
	at := pf.posString(fld.Pos())
	switch t := fld.Type.(type) {
	case *ast.StarExpr, *ast.MapType, *ast.InterfaceType, *ast.FuncType, *ast.ChanType:
		return outcome{noop: true}
	case *ast.ArrayType:
		if t.Len == nil {
			return outcome{noop: true}
		}
	}
	dir, err := pkg.dirFiles(it.dir)
	if err != nil {
		return outcome{skip: "cannot read the package to look for uses of the field: " + err.Error(), at: at}
	}
	// The package as it is with the file being fixed as planned on.
	files := maps.Clone(dir)
	if files == nil {
		files = map[string][]byte{}
	}
	files[pf.path] = pf.src
	typ := types.ExprString(fld.Type)
	p := pf.off(fld.Type.Pos())
	if !pkg.mayUse(files, it.field) {
		return fixOf(fmt.Sprintf("make %s a pointer: *%s", it.field, typ), pf.edit(p, p, "*"))
	}
	refs, perr := pkg.fieldUses(files, pf.file.Name.Name, it.importPath, it.typ, it.field)
	if perr != nil {
		return outcome{skip: fmt.Sprintf("cannot look for uses of %s in %s: it does not parse: %s", it.field, perr.pos, perr.msg), at: at}
	}
	if len(refs) > 0 {
		return outcome{skip: describeUses(it.field, refs), at: at}
	}
	return fixOf(fmt.Sprintf("make %s a pointer: *%s", it.field, typ), pf.edit(p, p, "*"))
}

var (
	optionalMarkers = []string{"+optional", "+k8s:optional", "+kubebuilder:validation:Optional"}
	requiredMarkers = []string{"+required", "+k8s:required", "+kubebuilder:validation:Required"}
)

func markerLine(c *ast.Comment) string {
	return strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
}

func planOptional(pf *parsedFile, fld *ast.Field, it *item) outcome {
	if fld.Doc != nil {
		for _, c := range fld.Doc.List {
			if slicesContains(optionalMarkers, markerLine(c)) {
				return outcome{noop: true}
			}
		}
		for _, c := range fld.Doc.List {
			if m := markerLine(c); slicesContains(requiredMarkers, m) && strings.HasPrefix(c.Text, "//") {
				return fixOf(fmt.Sprintf("replace // %s by // +optional on %s", m, it.field),
					pf.edit(pf.off(c.Pos()), pf.off(c.End()), "// +optional"))
			}
		}
	}
	start := pf.off(fld.Pos())
	indent, alone := pf.indentBefore(start)
	if !alone {
		return outcome{skip: fmt.Sprintf("%s shares its line with other code; put it on a line of its own first", it.field), at: pf.posString(fld.Pos())}
	}
	ls := pf.lineStart(start)
	return fixOf(fmt.Sprintf("add // +optional to %s", it.field), pf.edit(ls, ls, indent+"// +optional\n"))
}

func planOmitEmpty(pf *parsedFile, fld *ast.Field, it *item) outcome {
	at := pf.posString(fld.Pos())
	if fld.Tag == nil {
		p := pf.off(fld.Type.End())
		tag := fmt.Sprintf("json:\"%s,omitempty\"", it.jsonName)
		return fixOf(fmt.Sprintf("give %s the json tag `%s`", it.field, tag), pf.edit(p, p, " `"+tag+"`"))
	}
	text, base, why := pf.tagOf(fld)
	if why != "" {
		return outcome{skip: why, at: at}
	}
	tt, ok := parseTag(text)
	if !ok {
		return outcome{skip: "its struct tag is not in the conventional key:\"value\" form", at: at}
	}
	k, ok := tt.get("json")
	if !ok {
		tag := fmt.Sprintf("json:\"%s,omitempty\"", it.jsonName)
		ins := tag
		if strings.TrimSpace(text) != "" {
			ins += " "
		}
		return fixOf(fmt.Sprintf("add `%s` to the struct tag of %s", tag, it.field), pf.edit(base, base, ins))
	}
	if jsonOmits(k.value) {
		return outcome{noop: true}
	}
	if k.escaped || k.value == "-" {
		return outcome{skip: fmt.Sprintf("its json tag %q cannot take omitempty mechanically", k.value), at: at}
	}
	p := base + k.end
	return fixOf(fmt.Sprintf("add omitempty to the json tag of %s: `json:\"%s,omitempty\"`", it.field, k.value),
		pf.edit(p, p, ",omitempty"))
}

func planTag(pf *parsedFile, fld *ast.Field, it *item, number int) outcome {
	if fld.Tag != nil {
		return outcome{skip: fmt.Sprintf("%s has a struct tag now; run apicheck fix again", it.field), at: pf.posString(fld.Pos())}
	}
	var parts []string
	if it.jsonName != "" {
		parts = append(parts, fmt.Sprintf("json:\"%s,omitempty\"", it.jsonName))
	}
	if it.newTag != "" {
		if number == 0 {
			return outcome{skip: "no protobuf number is left", at: pf.posString(fld.Pos())}
		}
		parts = append(parts, fmt.Sprintf("protobuf:\"%s\"", fmt.Sprintf(it.newTag, number)))
	}
	tag := strings.Join(parts, " ")
	p := pf.off(fld.Type.End())
	return fixOf(fmt.Sprintf("give %s the struct tag `%s`", it.field, tag), pf.edit(p, p, " `"+tag+"`"))
}

func planNumber(pf *parsedFile, ts *ast.TypeSpec, st *ast.StructType, fld *ast.Field, it *item, number int) outcome {
	at := pf.posString(fld.Pos())
	if fld.Tag == nil {
		if it.restore != "" || it.newTag != "" {
			return outcome{skip: fmt.Sprintf("%s has no struct tag at all; give it its json tag first (NEW_FIELD_NO_OMITEMPTY's fix), then run apicheck fix again", it.field), at: at}
		}
		return outcome{noop: true}
	}
	text, base, why := pf.tagOf(fld)
	if why != "" {
		return outcome{skip: why, at: at}
	}
	tt, ok := parseTag(text)
	if !ok {
		return outcome{skip: "its struct tag is not in the conventional key:\"value\" form", at: at}
	}
	k, has := tt.get("protobuf")
	if it.restore != "" || it.newTag != "" {
		if has {
			return outcome{noop: true}
		}
		value, desc := it.restore, ""
		if value != "" {
			desc = fmt.Sprintf("restore the protobuf tag of %s as it was at base: `protobuf:%q`", it.field, value)
		} else {
			if number == 0 {
				return outcome{skip: "no protobuf number is left", at: at}
			}
			value = fmt.Sprintf(it.newTag, number)
			desc = fmt.Sprintf("give %s the next safe protobuf number %d: `protobuf:%q` (make generate WHAT=protobuf completes the tag)", it.field, number, value)
		}
		ins := "protobuf:\"" + value + "\""
		p := base + tt.end
		if strings.TrimSpace(text[:tt.end]) != "" {
			ins = " " + ins
		}
		return fixOf(desc, pf.edit(p, p, ins))
	}
	if !has {
		return outcome{noop: true}
	}
	if k.escaped {
		return outcome{skip: "its protobuf tag holds escapes", at: at}
	}
	s, e, ok := protoNumberSpan(k.value)
	if !ok {
		return outcome{skip: fmt.Sprintf("its protobuf tag %q has no number where go-to-protobuf puts it", k.value), at: at}
	}
	if cur, _ := strconv.Atoi(k.value[s:e]); cur != it.oldNumber {
		return outcome{noop: true} // renumbered since the check
	}
	if number == 0 {
		return outcome{skip: "no protobuf number is left", at: at}
	}
	edits := []finding.Edit{pf.edit(base+k.start+s, base+k.start+e, strconv.Itoa(number))}
	desc := fmt.Sprintf("give %s the next safe protobuf number %d instead of %d", it.field, number, it.oldNumber)
	if it.tomb != nil && it.tomb.decl != "" {
		done := false
		for _, tb := range pf.tombstones(st) {
			if tb.Proto != nil && tb.Proto.Number == it.tomb.number {
				done = true
			}
		}
		if !done {
			indent := pf.fieldIndent(ts, st)
			lines := indent + "// " + it.tomb.explanation + "\n" + indent + "// " + it.tomb.decl + "\n"
			cl := pf.off(st.Fields.Closing)
			p, ins := cl, "\n"+lines
			if _, alone := pf.indentBefore(cl); alone {
				p, ins = pf.lineStart(cl), lines
			}
			if len(st.Fields.List) > 0 && pf.blankLinesBetweenFields(st) {
				ins = "\n" + ins
			}
			edits = append(edits, pf.edit(p, p, ins))
			desc += it.note
		}
	}
	return fixOf(desc, edits...)
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// litOf is the type name of a composite literal's type, if a name.
func litOf(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}
