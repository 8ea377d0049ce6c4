package rules

import (
	"github.com/apicheck/apicheck/internal/model"
)

// Where a finding is reported (the head position of a field or type, or
// for a removed one the nearest place head still has) and the JSON paths
// from a root kind that name its subject.

// FieldPos returns where a finding about a field pair is reported.
func (c *Context) FieldPos(fd *model.FieldDiff) model.Pos { return c.fieldPos(fd) }

// FieldAPIPath returns the JSON path of a field from its root kind.
func (c *Context) FieldAPIPath(fd *model.FieldDiff) string { return c.fieldAPIPath(fd) }

// TypeAPIPath returns the JSON path of a type from its root kind (its
// name when no root kind reaches it).
func (c *Context) TypeAPIPath(pd *model.PackageDiff, typ string) string {
	return c.typeAPIPath(pd, typ)
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
	if td := fd.Type; td.Head != nil && td.Base != nil {
		// The deletion point: the next field of base that head still has
		// (GitHub shows annotations only on lines of the diff), else the
		// struct's closing brace.
		after := false
		for _, b := range td.Base.Fields {
			if b == fd.Base {
				after = true
				continue
			}
			if !after {
				continue
			}
			for _, x := range td.Fields {
				if x.Base == b && x.Head != nil {
					return x.Head.Pos
				}
			}
		}
		if !td.Head.End.IsZero() {
			return td.Head.End
		}
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

// typePos is the head position of a type; for a removed type its
// deletion point at head: the line after the previous declaration of its
// old file that head still has, else the next such declaration, else the
// first line of the file or package.
func (c *Context) typePos(td *model.TypeDiff) model.Pos {
	if td.Head != nil {
		return td.Head.Pos
	}
	if pos, ok := deletionPoint(td); ok {
		return pos
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

// deletionPoint finds where a removed type's declaration was at head.
func deletionPoint(td *model.TypeDiff) (model.Pos, bool) {
	pd := td.Pkg
	if pd.Head == nil || pd.Base == nil {
		return model.Pos{}, false
	}
	file, line := td.Base.Pos.File, td.Base.Pos.Line
	var next, prev *model.Type // nearest surviving neighbours in the old file
	for _, bt := range pd.Base.Types {
		if bt.Pos.File != file || bt == td.Base {
			continue
		}
		ht := pd.Head.Type(bt.Name)
		if ht == nil || ht.Pos.File != file {
			continue
		}
		switch {
		case bt.Pos.Line > line && (next == nil || bt.Pos.Line < pd.Base.Type(next.Name).Pos.Line):
			next = ht
		case bt.Pos.Line < line && (prev == nil || bt.Pos.Line > pd.Base.Type(prev.Name).Pos.Line):
			prev = ht
		}
	}
	// Right after the previous surviving declaration is adjacent to the
	// deletion (inside the diff hunk); the next one's name may sit below a
	// long doc comment. The line after the previous declaration exists
	// only if something follows it: after the file's last declaration it
	// may be past the end of the file, so its last line is used.
	switch {
	case prev != nil && !prev.End.IsZero() && next != nil && next.Pos.Line > prev.End.Line:
		return model.Pos{File: file, Line: prev.End.Line + 1, Col: 1}, true
	case prev != nil && !prev.End.IsZero():
		return model.Pos{File: file, Line: prev.End.Line, Col: 1}, true
	case next != nil:
		return model.Pos{File: file, Line: next.Pos.Line, Col: 1}, true
	}
	return model.Pos{}, false
}

// apiPaths are the JSON paths of package p's types from its root kinds
// (model.Package.APIPaths), computed once per package.
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

// fieldAPIPath is the JSON path of a field from its root kind: its
// type's path and its json name (its Go name when it has none, or is
// inlined).
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
