package rules

import "github.com/apicheck/apicheck/internal/model"

// WireShapeKept reports whether a paired field whose Go type changed kept
// its wire shape (or only added optional members): a pointer for a value,
// a named type for its underlying type, a type moved to another package.
// Go clients break, the wire does not; FIELD_TYPE_CHANGED judges such a
// change as a warning. It is false for a field whose type did not change.
func WireShapeKept(d *model.Diff, fd *model.FieldDiff) bool {
	if fd.Base == nil || fd.Head == nil || !fd.Has(model.AttrGoType) {
		return false
	}
	base := typeSide{m: d.Base, pkg: fd.Type.Pkg.Base, id: contractOf(fd.Base).Type}
	head := typeSide{m: d.Head, pkg: fd.Type.Pkg.Head, id: contractOf(fd.Head).Type}
	return compareShapes(base, head, shapeOpts{}) >= shapeSuperset
}
