// Package fix plans and applies the safe fixes of findings: edits to the
// Go files of head that resolve a finding mechanically and change
// nothing else (docs/fix.md).
//
// Planning (New) runs at the end of every check: it maps each finding of
// a fixable rule to an intent — "leave a tombstone for field X of struct
// T", "make field F of T a pointer", "give F the next safe protobuf
// number" — located by package directory, struct name and field name,
// never by line. It then parses the head files of those structs and turns
// every intent into edits (finding.Fix) on exactly that content, which
// the report carries (JSON, SARIF). The model has positions but no byte
// offsets and no syntax, so the edits are computed here, from the
// files, rather than by the rules: the rules stay syntax-free, and the
// same intents can be located again in a file that changed since.
//
// Applying (Plan.Apply) is `apicheck fix`: it reads each file from the
// working tree, uncommitted changes and all. When the check's head was
// the working tree, a file must still be what the check read (else it is
// refused); when it was a revision, the intents are computed again on
// the file as it is on disk. It rejects overlapping edits, applies the
// rest, formats the result with go/format and writes it atomically.
package fix

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/protobuf"
	"github.com/apicheck/apicheck/internal/rules"
)

// Rules lists the rules whose findings can have a fix: the rules of the
// catalogue marked Fixable, in catalogue order. Planning (builder.add)
// knows the edits of each.
func Rules() []string {
	var ids []string
	for _, r := range catalog.All() {
		if r.Fixable {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Input is what planning needs from a check run.
type Input struct {
	// Findings are the report's findings, finalized; New sets the Fixes
	// of those it can fix (never of suppressed ones).
	Findings []finding.Finding
	Diff     *model.Diff
	// Head is the revision the findings are about; edits are computed on
	// its files.
	Head git.Snapshot
	// History gives protobuf numbers of earlier releases and the
	// declarations a tombstone needs (nil: no history). It is the check's
	// own, so what the rules read is not read again; New does not close it.
	History *lifecycle.History
	// Styles are the tombstone styles of the whole head revision when
	// Diff covers a part of it (nil: HouseStyles of Diff.Head).
	Styles *Styles
}

// Skip is a finding of a fixable rule that is left unfixed, and why.
type Skip struct {
	// Pos is the place the reason is about, "path:line:col".
	Pos string
	// Findings name the findings left unfixed: "RULE_ID Type.Field".
	Findings []string
	Reason   string
}

func (s Skip) String() string {
	return fmt.Sprintf("%s: %s not fixed: %s", s.Pos, strings.Join(s.Findings, ", "), s.Reason)
}

// Plan is the fixes of one check run.
type Plan struct {
	items   []*item
	skipped []Skip
	// planned is the content of each file the edits were computed on.
	planned map[string][]byte
	// apiFiles are the Go files of the analysed API packages at head:
	// the only files a fix may touch.
	apiFiles map[string]bool
	// worktree is set when head is the working tree: planned is then
	// what the check read from disk, and a file that is no longer that
	// is not fixed.
	worktree bool
}

type kind int

const (
	kindTombstone kind = iota
	kindPointer
	kindOptional
	kindOmitEmpty
	kindNumber
	// kindTag gives a field without any struct tag one: its json tag
	// with omitempty and/or its protobuf tag, as one edit, so that the
	// fixes of both findings compose.
	kindTag
)

// item is one intent: a change to one field (or the place of a removed
// field) of one struct, with the findings it resolves.
type item struct {
	kind kind
	file string // the struct's file at head
	dir  string // package directory
	// importPath is the package's, as its external test imports it.
	importPath string
	typ        string // struct name at head
	field      string // the field (for a tombstone, the removed field)
	pos        model.Pos
	order      int

	tomb    *tombSpec // kindTombstone; for kindNumber the tombstone of a number history freed
	anchors []anchor  // kindTombstone: where the field was, nearest first

	jsonName string // kindOmitEmpty, kindTag: the json name when the field has no json tag

	// kindNumber
	oldNumber int    // the number at head, 0 when the field has no protobuf tag
	restore   string // base's protobuf tag value, restored as it was
	newTag    string // for a field without tag: the tag value with %d for the number
	floor     int    // the lowest number safe by the model and history
	note      string // appended to the description

	findings []*finding.Finding
	// blocked is set when planning already knows the item cannot be
	// fixed, whatever the file holds.
	blocked string
	out     outcome
}

// tombSpec is a tombstone to write.
type tombSpec struct {
	name        string
	number      int
	explanation string
	decl        string
}

// anchor is an element of the struct at base before a removed field that
// head still has: a live field (by name) or a tombstone (by number).
type anchor struct {
	field string
	tomb  int
}

// outcome is what planning an item on one file content gave.
type outcome struct {
	fix  *finding.Fix
	noop bool   // nothing to do: the content already has it
	skip string // why it cannot be fixed
	at   string // the position the reason is about
}

func (it *item) subjects() []string {
	var out []string
	for _, f := range it.findings {
		s := f.Rule + " " + f.Type
		if f.Field != "" {
			s += "." + f.Field
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (it *item) key() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d", it.file, it.typ, it.field, it.kind)
}

// New plans the fixes of a check run's findings and sets them on the
// findings. It never fails: what cannot be planned is a Skip.
func New(in Input) *Plan {
	p := &Plan{planned: map[string][]byte{}, apiFiles: map[string]bool{}}
	if in.Diff == nil || in.Head == nil {
		return p
	}
	p.worktree = in.Head.Ref() == git.WorktreeRef
	st := in.Styles
	if st == nil {
		st = HouseStyles(in.Diff.Head)
	}
	b := &builder{in: in, plan: p, byKey: map[string]*item{}, styles: st}
	b.index()
	for i := range in.Findings {
		f := &in.Findings[i]
		if f.Suppressed != "" {
			continue
		}
		b.add(f)
	}
	b.numbers()
	p.sortItems()
	src := &snapshotSource{snap: in.Head, dirs: map[string]map[string][]byte{}}
	if in.History != nil {
		src.memo = in.History.Memo()
	}
	for _, file := range p.files() {
		items := p.itemsOf(file)
		dir := items[0].dir
		contents, err := src.dirFiles(dir)
		content, ok := contents[file]
		if err != nil || !ok {
			why := fmt.Sprintf("cannot read %s at head", file)
			if err != nil {
				why += ": " + err.Error()
			}
			for _, it := range items {
				it.out = outcome{skip: why, at: it.pos.String()}
			}
			continue
		}
		p.planned[file] = content
		planFile(file, content, items, src)
	}
	for _, it := range p.items {
		if it.out.fix != nil {
			it.out.fix.Suggestions = src.suggestions(*it.out.fix, p.planned)
			for _, f := range it.findings {
				f.Fixes = append(f.Fixes, *it.out.fix)
			}
		}
	}
	return p
}

// sortItems orders the items by file, struct and place.
func (p *Plan) sortItems() {
	slices.SortStableFunc(p.items, func(a, c *item) int {
		return cmp.Or(strings.Compare(a.file, c.file), strings.Compare(a.typ, c.typ), cmp.Compare(a.order, c.order), cmp.Compare(a.kind, c.kind))
	})
}

// Merge adds the plan of another part of the same head revision (Input
// of disjoint groups) to p.
func (p *Plan) Merge(q *Plan) {
	p.items = append(p.items, q.items...)
	p.skipped = append(p.skipped, q.skipped...)
	maps.Copy(p.planned, q.planned)
	maps.Copy(p.apiFiles, q.apiFiles)
	p.worktree = p.worktree || q.worktree
	p.sortItems()
}

// files are the files the items are in, sorted.
func (p *Plan) files() []string {
	var out []string
	for _, it := range p.items {
		if !slices.Contains(out, it.file) {
			out = append(out, it.file)
		}
	}
	sort.Strings(out)
	return out
}

func (p *Plan) itemsOf(file string) []*item {
	var out []*item
	for _, it := range p.items {
		if it.file == file {
			out = append(out, it)
		}
	}
	return out
}

// Fixable counts the findings that have a fix.
func (p *Plan) Fixable() int {
	n := 0
	for _, it := range p.items {
		if it.out.fix != nil {
			n += len(it.findings)
		}
	}
	return n
}

// builder maps findings to items.
type builder struct {
	in     Input
	plan   *Plan
	byKey  map[string]*item
	styles *Styles
	types  map[string]map[string]*model.TypeDiff // import path -> type name -> pair
}

func (b *builder) index() {
	b.types = map[string]map[string]*model.TypeDiff{}
	for _, g := range b.in.Diff.Groups {
		for _, pd := range g.Packages {
			if pd.Head == nil {
				continue
			}
			for _, f := range pd.Head.Files {
				b.plan.apiFiles[f] = true
			}
			m := b.types[pd.Head.ImportPath]
			if m == nil {
				m = map[string]*model.TypeDiff{}
				b.types[pd.Head.ImportPath] = m
			}
			for _, td := range pd.Types {
				if td.Head != nil && td.Head.Kind == model.KindStruct {
					m[td.Head.Name] = td
				}
			}
		}
	}
}

func subject(f *finding.Finding) string {
	s := f.Rule + " " + f.Type
	if f.Field != "" {
		s += "." + f.Field
	}
	return s
}

func (b *builder) skip(f *finding.Finding, why string) {
	b.plan.skipped = append(b.plan.skipped, Skip{
		Pos:      model.Pos{File: f.Path, Line: f.Line, Col: f.Column}.String(),
		Findings: []string{subject(f)},
		Reason:   why,
	})
}

// add maps a finding of a fixable rule to its item.
func (b *builder) add(f *finding.Finding) {
	if !slices.Contains(Rules(), f.Rule) {
		return
	}
	td := b.types[f.Package][f.Type]
	if td == nil {
		b.skip(f, fmt.Sprintf("struct %s is not in the head model of %s", f.Type, f.Package))
		return
	}
	var fd *model.FieldDiff
	for _, x := range td.Fields {
		if x.Name() == f.Field && (x.Head != nil) == (f.Rule != rules.FieldRemovedWithoutTombstone.ID) {
			fd = x
			break
		}
	}
	if fd == nil {
		b.skip(f, fmt.Sprintf("field %s.%s is not in the diff", f.Type, f.Field))
		return
	}
	it := &item{
		file: td.Head.Pos.File, dir: td.Pkg.Head.Dir, importPath: td.Pkg.Head.ImportPath, typ: td.Head.Name, field: fd.Name(),
		pos: model.Pos{File: f.Path, Line: f.Line, Col: f.Column},
	}
	if fd.Head != nil {
		it.order = 1<<20 + headIndex(td, fd.Head)
	}
	switch f.Rule {
	case rules.FieldRemovedWithoutTombstone.ID:
		if fd.Base.Proto == nil {
			b.skip(f, "the removed field has no protobuf number to reserve")
			return
		}
		it.kind = kindTombstone
		it.order = 2 * baseIndex(td, fd.Base)
		sentence := rules.PolicyOf(td.Pkg.Group.Profile()).TombstoneSentence
		it.tomb = &tombSpec{
			name:        fd.Base.Name,
			number:      fd.Base.Proto.Number,
			explanation: b.styles.explanation(fd.Base.Name, fd.Base.Proto.Number, sentence),
			decl:        tombstoneDecl(fd.Base.Name, fd.Base.Type, fd.Base.Tag),
		}
		it.anchors = anchors(td, fd.Base)
	case rules.NewFieldNotPointer.ID:
		it.kind = kindPointer
	case rules.NewFieldNotOptional.ID:
		it.kind = kindOptional
	case rules.NewFieldNoOmitempty.ID, rules.OptionalWithoutOmitempty.ID:
		it.kind = kindOmitEmpty
		if fd.Head.Tag == "" {
			it.kind = kindTag
		}
		it.jsonName = model.JSONNameFor(fd.Head.Name)
	case rules.ProtoNumberReused.ID, rules.ProtoNumberPreviouslyUsed.ID, rules.ProtoNumberDuplicate.ID:
		h := fd.Head
		if h.Proto == nil {
			b.skip(f, "the field has no protobuf number")
			return
		}
		if fd.Base != nil && fd.Base.Proto != nil {
			b.skip(f, fmt.Sprintf("%s.%s existed at base with protobuf number %d: restore that number by hand (a new number would break the wire again)",
				td.Name(), h.Name, fd.Base.Proto.Number))
			return
		}
		it.kind = kindNumber
		it.oldNumber = h.Proto.Number
	case rules.ProtoTagMissing.ID:
		it.kind = kindNumber
		if fd.Base != nil && fd.Base.Proto != nil {
			it.restore = fd.Base.Proto.Raw
			break
		}
		tmpl, why := newProtoTag(fd.Head, td.Pkg.Head)
		if why != "" {
			b.skip(f, why+"; run make generate WHAT=protobuf")
			return
		}
		it.newTag = tmpl
		if fd.Head.Tag == "" {
			it.kind = kindTag
		}
	default:
		// Fixable, but planning knows no edit for it.
		b.skip(f, "apicheck plans no fix for "+f.Rule+" findings")
		return
	}
	if f.Rule == rules.ProtoNumberPreviouslyUsed.ID {
		it.tomb = &tombSpec{number: it.oldNumber} // completed from history in numbers()
	}
	if old := b.byKey[it.key()]; old != nil {
		old.findings = append(old.findings, f)
		if old.tomb == nil {
			old.tomb = it.tomb
		}
		if old.kind == kindTag {
			old.jsonName = cmp.Or(old.jsonName, it.jsonName)
			old.newTag = cmp.Or(old.newTag, it.newTag)
		}
		return
	}
	it.findings = []*finding.Finding{f}
	b.byKey[it.key()] = it
	b.plan.items = append(b.plan.items, it)
}

func headIndex(td *model.TypeDiff, f *model.Field) int {
	for i, x := range td.Head.Fields {
		if x == f {
			return i
		}
	}
	return 0
}

func baseIndex(td *model.TypeDiff, f *model.Field) int {
	for i, x := range td.Base.Fields {
		if x == f {
			return i
		}
	}
	return 0
}

// anchors lists what precedes a removed field in its struct at base and
// still exists at head, nearest first.
func anchors(td *model.TypeDiff, removed *model.Field) []anchor {
	type elem struct {
		line int
		a    anchor
	}
	var els []elem
	for _, fd := range td.Fields {
		if fd.Base != nil && fd.Head != nil && !fd.Base.Embedded && fd.Base.Pos.Line < removed.Pos.Line {
			els = append(els, elem{fd.Base.Pos.Line, anchor{field: fd.Head.Name}})
		}
	}
	for _, tb := range td.Tombstones {
		if tb.Base != nil && tb.Head != nil && tb.Head.Proto != nil && tb.Base.Pos.Line < removed.Pos.Line {
			els = append(els, elem{tb.Base.Pos.Line, anchor{tomb: tb.Head.Proto.Number}})
		}
	}
	sort.SliceStable(els, func(i, j int) bool { return els[i].line > els[j].line })
	out := make([]anchor, len(els))
	for i, e := range els {
		out[i] = e.a
	}
	return out
}

// numbers computes the lowest safe protobuf number of every struct that
// an item renumbers (every number used by a field at base or head, a
// tombstone, or a field at an earlier release) and completes the
// tombstones history asks for.
func (b *builder) numbers() {
	var need []*item
	structs := map[string][]string{}
	for _, it := range b.plan.items {
		if it.kind == kindNumber || it.kind == kindTag {
			need = append(need, it)
			if !slices.Contains(structs[it.dir], it.typ) {
				structs[it.dir] = append(structs[it.dir], it.typ)
			}
		}
	}
	if len(need) == 0 {
		return
	}
	var hist *lifecycle.ProtoNumbers
	var histWhy string
	h := b.in.History
	if h != nil && h.Input().Repo != nil && h.Input().Base != nil {
		if _, prob := h.Release(); prob != "" {
			histWhy = prob
		} else if pn, err := h.ProtoHistory(structs); err != nil {
			histWhy = err.Error()
		} else {
			hist = pn
		}
	} else {
		histWhy = "no release history"
	}
	for _, it := range need {
		f := it.findings[0]
		td := b.types[f.Package][f.Type]
		var used, reserved []int
		for _, t := range []*model.Type{td.Base, td.Head} {
			if t == nil {
				continue
			}
			for _, x := range t.Fields {
				if x.Proto != nil {
					used = append(used, x.Proto.Number)
				}
			}
			reserved = append(reserved, protobuf.Reserved(t.Tombstones)...)
		}
		if hist != nil {
			used = append(used, hist.Numbers(it.dir, it.typ)...)
		}
		it.floor = protobuf.NextSafe(used, reserved)
		if it.tomb == nil {
			continue
		}
		// PROTO_NUMBER_PREVIOUSLY_USED: tombstone the field history
		// shows held the number.
		if hist == nil {
			it.blocked = "the release history is not available (" + histWhy + "), so the tombstone of the number cannot be written"
			continue
		}
		wire := ""
		if td.Head != nil {
			if hf := td.Head.Field(it.field); hf != nil {
				wire = hf.WireName()
			}
		}
		var holder *lifecycle.Holder
		for _, ho := range hist.Holders(it.dir, it.typ, it.tomb.number) {
			if !ho.Same(it.field, wire) {
				holder = &ho
				break
			}
		}
		if holder == nil {
			it.blocked = fmt.Sprintf("no earlier release shows which field held protobuf number %d", it.tomb.number)
			continue
		}
		typ, tag, err := h.FieldDecl(holder.Tag, it.dir, it.typ, holder.Field)
		if err != nil {
			it.blocked = fmt.Sprintf("cannot read %s.%s at release %s: %v", it.typ, holder.Field, holder.Tag, err)
			continue
		}
		sentence := rules.PolicyOf(td.Pkg.Group.Profile()).TombstoneSentence
		it.tomb.name = holder.Field
		it.tomb.explanation = b.styles.explanation(holder.Field, it.tomb.number, sentence)
		it.tomb.decl = tombstoneDecl(holder.Field, typ, tag)
		it.note = fmt.Sprintf(", and tombstone %s, which held %d at release %s", holder.Field, it.tomb.number, holder.Tag)
	}
}

// newProtoTag is the protobuf tag value (with %d for the number) that
// go-to-protobuf would give a field, as far as its Go type tells; why
// says what is missing when it does not.
func newProtoTag(f *model.Field, pkg *model.Package) (tmpl, why string) {
	wire, label, cast, why := protoWire(f, pkg)
	if why != "" {
		return "", why
	}
	name := f.WireName()
	if !f.JSON.Present || name == "" || name == "-" {
		name = model.JSONNameFor(f.Name)
	}
	tmpl = wire + ",%d," + label + ",name=" + name
	if cast != "" {
		tmpl += ",casttype=" + cast
	}
	return tmpl, ""
}

// protoWire is the wire type and label of a field for the usual Go types
// of API structs.
func protoWire(f *model.Field, pkg *model.Package) (wire, label, cast, why string) {
	expr := f.Type
	label = protobuf.LabelOptional
	if strings.HasPrefix(expr, "map[") {
		return "bytes", protobuf.LabelRepeated, "", ""
	}
	if strings.HasPrefix(expr, "[]") && expr != "[]byte" {
		label = protobuf.LabelRepeated
		expr = strings.TrimPrefix(expr[2:], "*")
	}
	pointer := strings.HasPrefix(expr, "*")
	expr = strings.TrimPrefix(expr, "*")
	if wire, ok := builtinWire(expr); ok {
		return wire, label, "", ""
	}
	if model.IsBuiltin(expr) {
		return "", "", "", fmt.Sprintf("go-to-protobuf has no wire type for Go type %s", expr)
	}
	if strings.Contains(expr, ".") {
		if !pointer && label == protobuf.LabelOptional && (f.ValueKind == model.KindNumber || f.ValueKind == model.KindBool) {
			return "", "", "", fmt.Sprintf("cannot tell the wire type of %s", expr)
		}
		return "bytes", label, "", "" // a message, or a string type
	}
	t := pkg.Type(expr)
	if t == nil || strings.ContainsAny(expr, "[]{}() ") {
		return "", "", "", fmt.Sprintf("cannot tell the wire type of %s", expr)
	}
	if t.Kind == model.KindStruct {
		return "bytes", label, "", ""
	}
	if wire, ok := builtinWire(t.Underlying); ok {
		return wire, label, expr, ""
	}
	return "", "", "", fmt.Sprintf("cannot tell the wire type of %s (%s)", expr, t.Underlying)
}

func builtinWire(name string) (string, bool) {
	switch name {
	case "string", "[]byte":
		return "bytes", true
	case "bool", "int32", "int64", "uint32", "uint64":
		return "varint", true
	case "float64":
		return "fixed64", true
	case "float32":
		return "fixed32", true
	}
	return "", false
}

// findStruct finds the declaration of struct type name in a file.
func findStruct(f *ast.File, name string) (*ast.TypeSpec, *ast.StructType) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			if ts.Name.Name != name {
				continue
			}
			if st, ok := ts.Type.(*ast.StructType); ok && !ts.Assign.IsValid() {
				return ts, st
			}
		}
	}
	return nil, nil
}

// findField finds a named field of a struct.
func findField(st *ast.StructType, name string) (*ast.Field, int) {
	for i, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return f, i
			}
		}
	}
	return nil, -1
}
