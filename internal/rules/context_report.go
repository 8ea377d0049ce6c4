package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// How a rule reports a finding: Report, and the Context's methods that
// record it about a field, a type, a tombstone, a package, a constant or
// another place. What the rules recorded goes to the severity policy
// (policy.go) once every rule ran.

// Report is what a rule says about one finding: the engine fills in the
// rest (rule ID, position, subject), and the severity policy (policy.go)
// decides, after every rule ran, how much it matters.
type Report struct {
	Message string
	Hint    string
	// Severity, when set, replaces the rule's default severity: the
	// severity the rule gives what it found, before the severity policy.
	Severity finding.Severity
	Related  []finding.Related
	// releases are the questions about the release before base that the
	// severity policy asks of the finding (see Report.IfFieldUnreleased).
	releases []releaseQuestion
}

// related is a position worth showing with a finding, labelled.
func related(label string, p model.Pos) finding.Related {
	return finding.Related{Path: p.File, Line: p.Line, Column: p.Col, Label: label}
}

// Field reports on a field pair at its head position (for a removed field,
// its tombstone at head or its struct).
func (c *Context) Field(fd *model.FieldDiff, r Report) {
	c.FieldAt(fd, c.fieldPos(fd), r)
}

// FieldAt reports on a field at an explicit position.
func (c *Context) FieldAt(fd *model.FieldDiff, pos model.Pos, r Report) {
	td := fd.Type
	c.emitField(td.Pkg, td.Name(), fd.Name(), c.fieldAPIPath(fd), pos, r, fieldAlpha(fd), fd)
}

// Type reports on a type pair at its head position (for a removed type,
// the nearest place that exists at head).
func (c *Context) Type(td *model.TypeDiff, r Report) {
	c.emit(td.Pkg, td.Name(), "", c.typeAPIPath(td.Pkg, td.Name()), c.typePos(td), r, typeAlpha(td))
}

// TypeAt reports on a type at an explicit position.
func (c *Context) TypeAt(td *model.TypeDiff, pos model.Pos, r Report) {
	c.emit(td.Pkg, td.Name(), "", c.typeAPIPath(td.Pkg, td.Name()), pos, r, typeAlpha(td))
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
	c.emit(td.Pkg, td.Name(), name, path, pos, r, false)
}

// Package reports on a package pair (a version) at an explicit position.
func (c *Context) Package(pd *model.PackageDiff, pos model.Pos, r Report) {
	c.emit(pd, "", "", "", pos, r, false)
}

// Const reports on a constant pair.
func (c *Context) Const(cd *model.ConstDiff, pos model.Pos, r Report) {
	typ := ""
	if cd.Base != nil {
		typ = cd.Base.Type
	} else {
		typ = cd.Head.Type
	}
	alpha := false
	if cd.Pkg.Base != nil {
		if t := cd.Pkg.Base.Type(typ); t != nil {
			alpha = t.Alpha
		}
	}
	c.emit(cd.Pkg, typ, "", "", pos, r, alpha)
}

// At reports a finding about something that is not an API element (a
// line of the configuration, a marker), with the position and subject the
// rule fills in; key identifies it for the fingerprint. Such a finding
// belongs to no API group: the severity policy leaves it as the rule
// reported it (only the configuration's severity overrides apply).
func (c *Context) At(f finding.Finding, key string, r Report) {
	sev := c.rule.Severity
	if r.Severity != 0 {
		sev = r.Severity
	}
	f.Rule, f.Severity, f.Message, f.Hint, f.Related = c.rule.ID, sev, r.Message, r.Hint, r.Related
	f.Fingerprint = finding.FingerprintOf(f.Rule, f.Package, f.Type, f.Field, key)
	c.findings = append(c.findings, reported{Finding: f, rule: c.rule})
}

// sharedReach says, for a finding in a shared types package, which
// versions' wire contracts the change reaches.
func sharedReach(pd *model.PackageDiff) string {
	return fmt.Sprintf(" (shared types package %s: on the wire of %s)", pd.Pkg().Dir, strings.Join(pd.SharedBy, ", "))
}

// tombstoneJSON is the json name a tombstone pair records.
func tombstoneJSON(tb *model.TombstoneDiff) string {
	if tb.Head != nil {
		return tb.Head.JSONName
	}
	return tb.Base.JSONName
}

// emit records a finding about an API element of package pair pd for the
// severity policy: alpha says the element is alpha (an alpha field, or a
// type only alpha fields use), fd is the field pair of a finding about a
// field (nil for other findings).
func (c *Context) emit(pd *model.PackageDiff, typ, field, apiPath string, pos model.Pos, r Report, alpha bool) {
	c.emitField(pd, typ, field, apiPath, pos, r, alpha, nil)
}

// emitField is emit for a finding about field pair fd (nil for other
// findings).
func (c *Context) emitField(pd *model.PackageDiff, typ, field, apiPath string, pos model.Pos, r Report, alpha bool, fd *model.FieldDiff) {
	sev := c.rule.Severity
	if r.Severity != 0 {
		sev = r.Severity
	}
	pkg := pd.Pkg()
	if pd.IsShared() {
		r.Message += sharedReach(pd)
	}
	c.findings = append(c.findings, reported{
		Finding: finding.Finding{
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
		},
		rule: c.rule, pd: pd, fd: fd, alpha: alpha, releases: r.releases,
	})
}
