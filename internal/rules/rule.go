// Package rules holds the rule catalogue and the engine that runs it.
//
// A rule is plain data (ID, category, default severity, documentation)
// plus one Check function. Rules never pair elements themselves: the diff
// (model.Compare) hands them matched (base, head) pairs, and the engine
// stamps rule ID, severity and position, applies profiles and sorts.
package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// Category groups rules as rules.md does.
type Category string

const (
	CatNewFields Category = "new-fields"
	CatProtobuf  Category = "protobuf"
	CatRemoval   Category = "removal"
	CatCompat    Category = "compatibility"
	CatVersions  Category = "versions"
	CatLifecycle Category = "lifecycle"
	CatShoot     Category = "shoot-deprecation"
	CatMeta      Category = "meta"
)

// Rule is one entry of the catalogue.
type Rule struct {
	ID       string
	Category Category
	Severity finding.Severity
	// Summary is one line: what fires the rule.
	Summary string
	// Why explains the compatibility risk.
	Why string
	// Fix says how to resolve a finding.
	Fix string
	// Before and After are a short failing and passing Go example.
	Before, After string
	// Check judges the diff and reports findings through the context.
	// Nil for rules whose findings another stage produces (lifecycle).
	Check func(c *Context)
}

// ProfileSeverity is the severity a rule gets in a group of the given
// profile (rules.md "Profiles").
func (r *Rule) ProfileSeverity(p model.Profile, s finding.Severity) finding.Severity {
	if p != model.ProfileComponentConfig {
		return s
	}
	switch r.ID {
	case "FIELD_REMOVED_WITHOUT_TOMBSTONE", "TOMBSTONE_REMOVED", "TOMBSTONE_CHANGED", "TOMBSTONE_MALFORMED",
		"TOMBSTONED_FIELD_RESTORED", "FIELD_RENAMED", "TYPE_RENAMED", "TYPE_REMOVED", "ENUM_VALUE_REMOVED",
		"FIELD_REMOVED_STILL_USED", "FIELD_REMOVAL_NOT_RELEASED", "FIELD_REMOVED_NOT_DEPRECATED",
		"VERSION_SKEW":
		return finding.Info
	case "NEW_FIELD_NOT_POINTER", "NEW_FIELD_NOT_OPTIONAL", "NEW_FIELD_NO_OMITEMPTY",
		"OPTIONAL_WITHOUT_OMITEMPTY", "JSON_NAME_CHANGED":
		if s > finding.Warning {
			return finding.Warning
		}
	}
	return s
}

// Options configure a run of the engine.
type Options struct {
	// Disabled rule IDs are not run.
	Disabled map[string]bool
	// Severity overrides a rule's severity (after profiles).
	Severity map[string]finding.Severity
	// Env carries data of other analyses to the rules that need it (the
	// lifecycle rules read their release history from it).
	Env any
}

// Result is what a run produced.
type Result struct {
	Findings []finding.Finding
	// Notes are statements about the run (e.g. a skipped analysis).
	Notes []string
}

// Context is what a rule's Check sees.
type Context struct {
	Diff *model.Diff
	// Env is Options.Env: data of other analyses (nil when none ran).
	Env any

	rule     *Rule
	findings []finding.Finding
	judged   map[judgeKey]bool
	notes    []unjudged
	paths    map[*model.Package]map[string]string
	runNotes []string
}

type judgeKey struct {
	subject any
	what    string
}

type unjudged struct {
	pkg   *model.PackageDiff
	typ   string
	field *model.FieldDiff
	pos   model.Pos
	msg   string
}

// Judge records that the running rule judged an attribute of a field
// pair (whether or not it reported anything), so that the meta rule does
// not report it as unclassified.
func (c *Context) Judge(fd *model.FieldDiff, attrs ...model.Attr) {
	if len(fd.Attrs) == 0 {
		return // nothing differs: nothing the meta rule could report
	}
	for _, a := range attrs {
		c.judged[judgeKey{fd, string(a)}] = true
	}
}

func (c *Context) isJudged(subject any, what string) bool { return c.judged[judgeKey{subject, what}] }

// CannotJudge records that a rule could not decide something about a
// field (e.g. its type could not be resolved); the meta rule reports it.
func (c *Context) CannotJudge(fd *model.FieldDiff, msg string) {
	c.notes = append(c.notes, unjudged{pkg: fd.Type.Pkg, typ: fd.Type.Name(), field: fd, msg: msg})
}

// Note records a statement about the run itself (shown once in every
// report, not a finding), e.g. that an analysis was skipped.
func (c *Context) Note(msg string) {
	for _, n := range c.runNotes {
		if n == msg {
			return
		}
	}
	c.runNotes = append(c.runNotes, msg)
}

// Report is the details of one finding; the engine fills in the rest.
type Report struct {
	Message string
	Hint    string
	// Severity, when set, replaces the rule's default (before profiles).
	Severity finding.Severity
	Related  []string
}

// FieldPos returns where a finding about a field pair is reported.
func (c *Context) FieldPos(fd *model.FieldDiff) model.Pos { return c.fieldPos(fd) }

// FieldAPIPath returns the JSON path of a field from its root kind.
func (c *Context) FieldAPIPath(fd *model.FieldDiff) string { return c.fieldAPIPath(fd) }

// TypeAPIPath returns the JSON path of a type from its root kind (its
// name when no root kind reaches it).
func (c *Context) TypeAPIPath(pd *model.PackageDiff, typ string) string {
	return c.typeAPIPath(pd, typ)
}

// Field reports on a field pair at its head position (for a removed field,
// its tombstone at head or its struct).
func (c *Context) Field(fd *model.FieldDiff, r Report) {
	td := fd.Type
	pos := c.fieldPos(fd)
	c.emit(td.Pkg, td.Name(), fd.Name(), c.fieldAPIPath(fd), pos, r)
}

// FieldAt reports on a field at an explicit position.
func (c *Context) FieldAt(fd *model.FieldDiff, pos model.Pos, r Report) {
	c.emit(fd.Type.Pkg, fd.Type.Name(), fd.Name(), c.fieldAPIPath(fd), pos, r)
}

// Type reports on a type pair at its head position (for a removed type,
// the nearest place that exists at head).
func (c *Context) Type(td *model.TypeDiff, r Report) {
	c.emit(td.Pkg, td.Name(), "", c.typeAPIPath(td.Pkg, td.Name()), c.typePos(td), r)
}

// Tombstone reports on a tombstone pair.
func (c *Context) Tombstone(tb *model.TombstoneDiff, r Report) {
	td := tb.Type
	var pos model.Pos
	name := ""
	switch {
	case tb.Head != nil:
		pos, name = tb.Head.Pos, tb.Head.FieldName
	default:
		pos, name = c.typePos(td), tb.Base.FieldName
	}
	path := c.typeAPIPath(td.Pkg, td.Name())
	if j := tombstoneJSON(tb); j != "" && path != "" {
		path += "." + j
	}
	c.emit(td.Pkg, td.Name(), name, path, pos, r)
}

// Const reports on a constant pair.
func (c *Context) Const(cd *model.ConstDiff, pos model.Pos, r Report) {
	typ := ""
	if cd.Base != nil {
		typ = cd.Base.Type
	} else {
		typ = cd.Head.Type
	}
	c.emit(cd.Pkg, typ, "", "", pos, r)
}

func tombstoneJSON(tb *model.TombstoneDiff) string {
	if tb.Head != nil {
		return tb.Head.JSONName
	}
	return tb.Base.JSONName
}

func (c *Context) emit(pd *model.PackageDiff, typ, field, apiPath string, pos model.Pos, r Report) {
	sev := c.rule.Severity
	if r.Severity != 0 {
		sev = r.Severity
	}
	sev = c.rule.ProfileSeverity(pd.Group.Profile(), sev)
	pkg := pd.Pkg()
	c.findings = append(c.findings, finding.Finding{
		Rule:     c.rule.ID,
		Severity: sev,
		Path:     pos.File,
		Line:     pos.Line,
		Column:   pos.Col,
		Package:  pkg.ImportPath,
		Group:    pd.Group.Dir,
		Version:  pd.Version,
		Type:     typ,
		Field:    field,
		APIPath:  apiPath,
		Message:  r.Message,
		Hint:     r.Hint,
		Related:  r.Related,
	})
}

// fieldPos is the head position of a field, or for a removed field the
// tombstone that reserves its number, or its struct at head.
func (c *Context) fieldPos(fd *model.FieldDiff) model.Pos {
	if fd.Head != nil {
		return fd.Head.Pos
	}
	if t := TombstoneFor(fd.Type.Head, fd.Base); t != nil {
		return t.Pos
	}
	return c.typePos(fd.Type)
}

// TombstoneFor returns the head tombstone that covers a removed field: the
// same protobuf number, or (without protobuf) the same Go name.
func TombstoneFor(head *model.Type, removed *model.Field) *model.Tombstone {
	if head == nil {
		return nil
	}
	for _, t := range head.Tombstones {
		if removed.Proto != nil && t.Proto != nil && t.Proto.Number == removed.Proto.Number {
			return t
		}
	}
	for _, t := range head.Tombstones {
		if removed.Proto == nil && t.FieldName == removed.Name {
			return t
		}
	}
	return nil
}

// typePos is the head position of a type; for a removed type the first
// line of its old file if that file still exists at head, else the first
// file of the package at head, else its old position.
func (c *Context) typePos(td *model.TypeDiff) model.Pos {
	if td.Head != nil {
		return td.Head.Pos
	}
	if h := td.Pkg.Head; h != nil {
		for _, f := range h.Files {
			if f == td.Base.Pos.File {
				return model.Pos{File: f, Line: 1, Col: 1}
			}
		}
		if len(h.Files) > 0 {
			return model.Pos{File: h.Files[0], Line: 1, Col: 1}
		}
	}
	return td.Base.Pos
}

func (c *Context) apiPaths(p *model.Package) map[string]string {
	if c.paths == nil {
		c.paths = map[*model.Package]map[string]string{}
	}
	m, ok := c.paths[p]
	if !ok {
		m = p.APIPaths()
		c.paths[p] = m
	}
	return m
}

// typeAPIPath is the JSON path of a type from its root kind, or its name
// when no root kind reaches it.
func (c *Context) typeAPIPath(pd *model.PackageDiff, typ string) string {
	for _, p := range []*model.Package{pd.Head, pd.Base} {
		if p == nil || p.Type(typ) == nil {
			continue
		}
		if path, ok := c.apiPaths(p)[typ]; ok {
			return path
		}
	}
	return typ
}

func (c *Context) fieldAPIPath(fd *model.FieldDiff) string {
	path := c.typeAPIPath(fd.Type.Pkg, fd.Type.Name())
	f := fd.Head
	if f == nil {
		f = fd.Base
	}
	if w := f.WireName(); w != "" && w != "-" && !f.Inline() {
		return path + "." + w
	}
	return path + "." + f.Name
}

// Run executes the rules over a diff and returns their findings (not yet
// sorted; the report finalizes them). The meta rule UNCLASSIFIED_CHANGE
// always runs last so it sees every judgement.
func Run(d *model.Diff, rs []*Rule, opts Options) (*Result, error) {
	c := &Context{Diff: d, Env: opts.Env, judged: map[judgeKey]bool{}}
	var meta *Rule
	for _, r := range rs {
		if opts.Disabled[r.ID] || r.Check == nil {
			continue
		}
		if r.ID == UnclassifiedID {
			meta = r
			continue
		}
		c.rule = r
		if err := safeCheck(r, c); err != nil {
			return nil, err
		}
	}
	if meta != nil {
		c.rule = meta
		if err := safeCheck(meta, c); err != nil {
			return nil, err
		}
	}
	out := c.findings
	for i := range out {
		if s, ok := opts.Severity[out[i].Rule]; ok {
			out[i].Severity = s
		}
	}
	return &Result{Findings: out, Notes: c.runNotes}, nil
}

// safeCheck turns a panicking rule into an internal error naming it, so a
// bug in one rule never crashes the tool or yields a partial report
// presented as complete.
func safeCheck(r *Rule, c *Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in rule %s: %v", r.ID, p)
		}
	}()
	r.Check(c)
	return nil
}

// Lookup finds a rule by ID in a list.
func Lookup(rs []*Rule, id string) *Rule {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// --- iteration helpers shared by rules -------------------------------

// externalPackages yields every package pair of an external version.
func (c *Context) externalPackages(fn func(pd *model.PackageDiff)) {
	for _, g := range c.Diff.Groups {
		for _, pd := range g.Packages {
			if pd.External() {
				fn(pd)
			}
		}
	}
}

// existingStructs yields struct pairs present at both revisions in
// external versions.
func (c *Context) existingStructs(fn func(td *model.TypeDiff)) {
	c.externalPackages(func(pd *model.PackageDiff) {
		for _, td := range pd.Types {
			if td.Base != nil && td.Head != nil && td.Head.Kind == model.KindStruct {
				fn(td)
			}
		}
	})
}

// headStructs yields every struct present at head in external versions
// (new ones included).
func (c *Context) headStructs(fn func(td *model.TypeDiff)) {
	c.externalPackages(func(pd *model.PackageDiff) {
		for _, td := range pd.Types {
			if td.Head != nil && td.Head.Kind == model.KindStruct {
				fn(td)
			}
		}
	})
}

// newFieldsInScope yields fields added to struct types that existed at
// base, excluding embedded/inline fields and the value-typed Spec/Status
// fields of a root kind (the scope of the NEW_FIELD_* rules).
func (c *Context) newFieldsInScope(fn func(fd *model.FieldDiff)) {
	c.existingStructs(func(td *model.TypeDiff) {
		for _, fd := range td.Fields {
			if fd.Base == nil && InNewFieldScope(td, fd.Head) {
				fn(fd)
			}
		}
	})
}

// InNewFieldScope reports whether an added field of an existing struct is
// judged by the new-field rules.
func InNewFieldScope(td *model.TypeDiff, f *model.Field) bool {
	if f.Embedded || f.Inline() || f.JSON.Name == "-" {
		return false
	}
	if td.Head.RootKind && (f.Name == "Spec" || f.Name == "Status") && !strings.HasPrefix(f.Type, "*") {
		return false
	}
	return true
}
