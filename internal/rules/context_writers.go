package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// Which fields no client sends, at head (server_written.go): those of a
// kind whose generated client is read-only, and of the structs only such
// kinds and webhook reviews' requests reach.

// serverWritten returns why only the server writes field fd at head: it
// belongs to a root kind whose generated client is read-only
// (readOnlyClient), or to a struct that only such kinds and the requests
// of webhook reviews reach (typeRefs.serverWritten). "" when a client may
// send it.
func (c *Context) serverWritten(fd *model.FieldDiff) string {
	pkg, t := fd.Type.Pkg.Head, fd.Type.Head
	if pkg == nil || t == nil || fd.Head == nil {
		return ""
	}
	r, id := c.refs(1), pkg.ImportPath+"."+t.Name
	if t.RootKind {
		if readOnlyClient(t) == "" {
			return ""
		}
		return r.serverWrittenWhy([]string{id})
	}
	if c.serverTypes == nil {
		c.serverTypes = r.serverWritten()
	}
	if !c.serverTypes[id] {
		return ""
	}
	return r.serverWrittenWhy(r.writtenBy(id, c.serverTypes))
}

// relaxServerWritten makes finding r about field fd at most a warning
// when only the server writes the field (serverWritten), which says why
// after the message: no client sends it, so none omits it or sends its
// zero value; what clients read of it is still the convention's.
func (c *Context) relaxServerWritten(fd *model.FieldDiff, r Report) Report {
	return c.relaxTo(r, finding.Warning, func() (string, error) { return c.serverWritten(fd), nil })
}
