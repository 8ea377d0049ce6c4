package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/gencode"
	"github.com/apicheck/apicheck/internal/model"
)

// GeneratedCodeStale is GENERATED_CODE_STALE.
var GeneratedCodeStale = &Rule{
	ID:       "GENERATED_CODE_STALE",
	Category: CatMeta,
	Severity: finding.Error,
	Requires: []Input{InputGenerated},
	Summary: "A field that the change adds or changes is missing from the generated code that the repository commits beside it: " +
		"the field's protobuf name and number from its struct's message in `generated.proto`; a new pointer, slice or map field " +
		"from its type's `DeepCopyInto` in `zz_generated.deepcopy.go`; a new or renamed field from the `autoConvert` functions " +
		"of its type in `zz_generated.conversion.go` (of the version, and for a field of the internal version of each version " +
		"that converts the type); the field's json name from its type's schema in the committed OpenAPI definitions " +
		"(`zz_generated.openapi.go`, `openapi_generated.go`). A new type that the generators would have covered is reported when " +
		"the message, the function or the definition is missing. What a marker keeps a generator from (`+k8s:conversion-gen=false` on a field, " +
		"`+k8s:deepcopy-gen=false` or `+protobuf=false` on a type) is not judged there. Only files that exist at base as well as at head are judged: a " +
		"repository that does not commit generated code is never reported. The files are read as text; no generator runs. " +
		"Info when head is the working tree (before `make generate`).",
	Why: "The checklist's \"Run the code generation: `make generate`\": merged without it, the protobuf encoding drops the " +
		"field, deep copies share its pointer between objects, conversions lose it, and the OpenAPI schema (and with it " +
		"server-side apply and kubectl explain) does not know it.",
	Fix: "Run `make generate` (protobuf alone: `make generate WHAT=\"protobuf\"`) and commit what it writes.",
	Before: "// types.go: Replicas *int32 `json:\"replicas,omitempty\" protobuf:\"varint,6,opt,name=replicas\"`\n" +
		"// generated.proto: message ShootSpec { optional string purpose = 1; }",
	After: "// generated.proto: message ShootSpec { optional string purpose = 1; optional int32 replicas = 6; }",
	Ahead: func(d *model.Diff, a Analyses) {
		g := a.Generated
		if g == nil {
			return
		}
		head := staleFiles(d, g)
		if len(head) == 0 {
			return
		}
		done := make(chan struct{})
		g.prefetched = done
		go func() {
			defer close(done)
			defer func() { _ = recover() }() // Check reads what is missing, and says why
			g.Head.Prefetch(head)
		}()
	},
	Check: func(c *Context) {
		g := c.Generated()
		if g.prefetched != nil {
			<-g.prefetched
		}
		for _, j := range judgedStructs(c.Diff) {
			staleType(c, g, j.gd, j.pd, j.td)
		}
	},
}

// judgedStruct is a struct whose generated code is judged, with its
// package and group.
type judgedStruct struct {
	gd *model.GroupDiff
	pd *model.PackageDiff
	td *model.TypeDiff
}

// judgedStructs are the structs of packages present at base and head
// whose generated code is judged: the new ones, and those with a field
// that changed in a way generated code shows.
func judgedStructs(d *model.Diff) []judgedStruct {
	var out []judgedStruct
	for _, gd := range d.Groups {
		for _, pd := range gd.Packages {
			if pd.Base == nil || pd.Head == nil {
				continue // a version added or removed as a whole
			}
			for _, td := range pd.Types {
				if td.Head != nil && td.Head.Kind == model.KindStruct && (td.Base == nil || anyJudged(td)) {
					out = append(out, judgedStruct{gd, pd, td})
				}
			}
		}
	}
	return out
}

// staleFiles are the generated files staleType reads at head of the
// judged structs, for Prefetch: it asks of the same files in the same
// conditions, so that none is read for nothing. (Base's OpenAPI files
// are read only for a schema that lacks a property, definedAtBase: the
// exception, read when it comes.)
func staleFiles(d *model.Diff, g *Generated) (head []string) {
	listed := false // the OpenAPI files, once
	for _, j := range judgedStructs(d) {
		gd, pd, td := j.gd, j.pd, j.td
		if p, ok := protoFile(g, pd); ok {
			head = append(head, p)
		}
		if p, ok := deepCopyFile(g, pd, td); ok {
			head = append(head, p)
		}
		head = append(head, conversionFiles(g, gd, pd)...)
		if pd.External() && !listed {
			head = append(head, openAPIFiles(g)...)
			listed = true
		}
	}
	return head
}

// protoFile is the generated.proto the structs of pd are judged against,
// when the repository commits one for the version.
func protoFile(g *Generated, pd *model.PackageDiff) (string, bool) {
	p := pd.Head.Dir + "/" + gencode.Proto
	return p, pd.External() && committed(g, p)
}

// deepCopyFile is the zz_generated.deepcopy.go struct td is judged
// against, when the repository commits one and td is not marked off.
func deepCopyFile(g *Generated, pd *model.PackageDiff, td *model.TypeDiff) (string, bool) {
	p := pd.Head.Dir + "/" + gencode.DeepCopy
	return p, committed(g, p) && !markedOff(td.Head.Markers, "k8s:deepcopy-gen")
}

// openAPIFiles are head's OpenAPI definition files that base has too:
// the only ones judged.
func openAPIFiles(g *Generated) []string {
	var out []string
	for _, p := range g.Head.OpenAPIFiles() {
		if g.Base.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// staleness is what generated code misses of one field or type: the
// artifacts (file name and what it lacks) and where they are.
type staleness struct {
	what    []string
	files   []string
	related []finding.Related
}

func (s *staleness) add(file, lacks string, line int) {
	s.what = append(s.what, fmt.Sprintf("%s (%s)", path.Base(file), lacks))
	if !slices.Contains(s.files, file) {
		s.files = append(s.files, file)
	}
	s.related = append(s.related, finding.Related{Path: file, Line: line, Label: "generated code"})
}

// judged says which generated code a field pair must be found in: a new
// field in all of it, a changed one where what changed shows.
type judged struct{ proto, deepcopy, conversion, openapi bool }

func judgedOf(fd *model.FieldDiff) judged {
	if fd.Head == nil {
		return judged{}
	}
	if fd.Base == nil {
		return judged{true, true, true, true}
	}
	protoName := func(f *model.Field) string {
		if f.Proto == nil {
			return ""
		}
		return f.Proto.Name
	}
	return judged{
		proto:      fd.Has(model.AttrProtoNumber) || fd.Has(model.AttrProtoPresence) || protoName(fd.Base) != protoName(fd.Head),
		deepcopy:   fd.Has(model.AttrGoType) || fd.Renamed,
		conversion: fd.Renamed,
		openapi:    fd.Has(model.AttrJSONName),
	}
}

// anyJudged reports whether a field of an existing struct changed in a
// way generated code shows (judgedOf): only then is its generated code
// read.
func anyJudged(td *model.TypeDiff) bool {
	for _, fd := range td.Fields {
		if judgedOf(fd) != (judged{}) {
			return true
		}
	}
	return false
}

// staleType judges the fields of one struct, and the struct itself when
// it is new, against the generated code of its package (and, for the
// internal version, the conversions of the group's versions).
func staleType(c *Context, g *Generated, gd *model.GroupDiff, pd *model.PackageDiff, td *model.TypeDiff) {
	name := td.Head.Name
	fields := map[*model.FieldDiff]*staleness{}
	var order []*model.FieldDiff
	miss := func(fd *model.FieldDiff, file, lacks string, line int) {
		s := fields[fd]
		if s == nil {
			s = &staleness{}
			fields[fd] = s
			order = append(order, fd)
		}
		s.add(file, lacks, line)
	}
	var whole staleness // what a new type misses as a whole
	newType := td.Base == nil

	if p, ok := protoFile(g, pd); ok {
		if readGenerated(c, g, p) {
			msg, found, _ := g.Head.ProtoMessage(p, name) // readGenerated read it
			for _, fd := range td.Fields {
				f := fd.Head
				if !judgedOf(fd).proto || f.Proto == nil || f.ProtoErr != "" || f.Proto.Name == "" {
					continue
				}
				if !found {
					// Only a new struct's message is missing for sure: go-to-protobuf
					// may leave an existing one out on purpose.
					if newType && !markedOff(td.Head.Markers, "protobuf") {
						whole.add(p, "no message "+name, 0)
					}
					break
				}
				if !gencode.ProtoField(msg, f.Proto.Name, f.Proto.Number) {
					miss(fd, p, fmt.Sprintf("message %s has no field %s = %d", name, f.Proto.Name, f.Proto.Number), msg.Line)
				}
			}
		}
	}

	if p, ok := deepCopyFile(g, pd, td); ok {
		if readGenerated(c, g, p) {
			fn, found, _ := g.Head.DeepCopyInto(p, name) // readGenerated read it
			switch {
			case found:
				for _, fd := range td.Fields {
					if judgedOf(fd).deepcopy && holdsReference(fd.Head) && !gencode.Mentions(fn, fd.Head.Name) {
						miss(fd, p, fmt.Sprintf("%s's DeepCopyInto does not copy %s", name, fd.Head.Name), fn.Line)
					}
				}
			case newType:
				whole.add(p, "no DeepCopyInto for "+name, 0)
			}
		}
	}

	for _, cv := range conversionFiles(g, gd, pd) {
		if !readGenerated(c, g, cv) {
			continue
		}
		fns, err := g.Head.AutoConverts(cv, pd.Head.Name, name)
		if err != nil {
			continue // readGenerated read it
		}
		if len(fns) == 0 {
			continue // the type is not converted there (or hand-converted)
		}
		for _, fd := range td.Fields {
			if !judgedOf(fd).conversion || markedOff(fd.Head.Markers, "k8s:conversion-gen") || convertedIn(fns, fd.Head.Name) {
				continue
			}
			miss(fd, cv, fmt.Sprintf("the autoConvert functions of %s do not convert %s", name, fd.Head.Name), fns[0].Line)
		}
	}

	if pd.External() {
		// One package's definitions may be spread over several files
		// (a generator run over many packages writes them all into
		// one): a new type is missing only when no file defines it, and
		// a file judges a type's fields only when it defined the type at
		// base too.
		defined, first := false, ""
		for _, p := range openAPIFiles(g) {
			defines, err := g.Head.OpenAPIDefines(p, pd.Head.ImportPath)
			if c.failed(err) {
				c.Note(fmt.Sprintf("%s did not read %s: %v", c.Rule().ID, p, err))
				continue
			}
			if !defines {
				continue
			}
			if first == "" {
				first = p
			}
			schema, found, _ := g.Head.OpenAPISchema(p, pd.Head.ImportPath, name) // OpenAPIDefines read it
			if !found {
				continue
			}
			defined = true
			if newType {
				continue
			}
			var lacks []*model.FieldDiff // properties the schema lacks
			for _, fd := range td.Fields {
				f := fd.Head
				if !judgedOf(fd).openapi || f.Inline() {
					continue
				}
				if j := f.WireName(); j != "" && j != "-" && !gencode.OpenAPIProperty(schema, j) {
					lacks = append(lacks, fd)
				}
			}
			if len(lacks) == 0 || !definedAtBase(c, g, p, pd, name) {
				continue
			}
			for _, fd := range lacks {
				miss(fd, p, fmt.Sprintf("the schema of %s has no property %q", name, fd.Head.WireName()), schema.Line)
			}
		}
		if newType && !defined && first != "" {
			whole.add(first, "no definition of "+pd.Head.ImportPath+"."+name, 0)
		}
	}

	sev, suffix := staleSeverity(g)
	if len(whole.what) > 0 {
		c.Type(td, Report{
			Message:  fmt.Sprintf("generated code does not follow new type %s: %s%s", name, strings.Join(whole.what, "; "), suffix),
			Hint:     regenerateHint(whole.files),
			Severity: sev,
			Related:  whole.related,
		})
	}
	for _, fd := range order {
		s := fields[fd]
		what := "changed"
		if fd.Base == nil {
			what = "new"
		}
		c.Field(fd, Report{
			Message:  fmt.Sprintf("generated code does not follow %s field %s.%s: %s%s", what, name, fd.Head.Name, strings.Join(s.what, "; "), suffix),
			Hint:     regenerateHint(s.files),
			Severity: sev,
			Related:  s.related,
		})
	}
}

// definedAtBase reports whether generated OpenAPI file p defined the
// type at base (under base's import path of the package).
func definedAtBase(c *Context, g *Generated, p string, pd *model.PackageDiff, name string) bool {
	if pd.Base == nil {
		return false
	}
	_, found, err := g.Base.OpenAPISchema(p, pd.Base.ImportPath, name)
	return !c.failed(err) && found
}

// committed reports whether the repository commits generated file p at
// both revisions.
func committed(g *Generated, p string) bool { return g.Base.Has(p) && g.Head.Has(p) }

// readGenerated reads generated file p at head; a file that cannot be
// read (too large) is a note, and judged no further.
func readGenerated(c *Context, g *Generated, p string) bool {
	if err := g.Head.Readable(p); c.failed(err) {
		c.Note(fmt.Sprintf("%s did not read %s: %v", c.Rule().ID, p, err))
		return false
	}
	return true
}

// markedOff reports a marker that turns a generator off for a type or a
// field (+k8s:deepcopy-gen=false, +protobuf=false,
// +k8s:conversion-gen=false).
func markedOff(m model.Markers, key string) bool {
	v, ok := m.Get(key)
	return ok && v == "false"
}

// holdsReference reports whether deepcopy-gen copies a field by name:
// pointers, slices and maps (a struct value is copied by the assignment
// of the whole struct, or by its own DeepCopyInto when it holds
// references, which this rule does not follow).
func holdsReference(f *model.Field) bool {
	switch f.ValueKind {
	case model.KindPointer, model.KindSlice, model.KindMap:
		return true
	}
	return false
}

// conversionFiles are the conversion files to judge a struct of pd
// against, committed at both revisions: a version's own, and for the
// internal version every version's of the group.
func conversionFiles(g *Generated, gd *model.GroupDiff, pd *model.PackageDiff) []string {
	var out []string
	for _, v := range gd.Packages {
		if !v.External() || v.Base == nil || v.Head == nil || pd.External() && v != pd {
			continue
		}
		if p := v.Head.Dir + "/" + gencode.Conversion; committed(g, p) {
			out = append(out, p)
		}
	}
	return out
}

// convertedIn reports whether some autoConvert function names the field.
func convertedIn(fns []gencode.Block, field string) bool {
	for _, fn := range fns {
		if gencode.Mentions(fn, field) {
			return true
		}
	}
	return false
}

// staleSeverity is an error for a committed change, info for the working
// tree, where the generators may not have run yet.
func staleSeverity(g *Generated) (finding.Severity, string) {
	if g.Worktree {
		return finding.Info, " (the working tree: expected before `make generate`)"
	}
	return 0, ""
}

// regenerateHint names the command and the files it rewrites.
func regenerateHint(files []string) string {
	cmd := "run `make generate`"
	if len(files) == 1 && path.Base(files[0]) == gencode.Proto {
		cmd = "run `make generate` (or `make generate WHAT=\"protobuf\"`)"
	}
	return cmd + " and commit what it writes: " + strings.Join(files, ", ")
}
