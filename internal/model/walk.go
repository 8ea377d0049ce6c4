package model

import "iter"

// The walkers below are the pair sets rules judge. They visit pairs in
// diff order (groups by directory, packages internal first, types by
// name, fields in head source order then removed fields), so findings
// come out in a stable order before the report sorts them.

// ExternalPackages yields every package pair of an external version.
func (d *Diff) ExternalPackages() iter.Seq[*PackageDiff] {
	return func(yield func(*PackageDiff) bool) {
		for _, g := range d.Groups {
			for _, pd := range g.Packages {
				if pd.External() && !yield(pd) {
					return
				}
			}
		}
	}
}

// HeadStructs yields every struct type present at head in an external
// version, new ones included.
func (d *Diff) HeadStructs() iter.Seq[*TypeDiff] {
	return func(yield func(*TypeDiff) bool) {
		for pd := range d.ExternalPackages() {
			for _, td := range pd.Types {
				if td.Head != nil && td.Head.Kind == KindStruct && !yield(td) {
					return
				}
			}
		}
	}
}

// ExistingStructs yields the struct types of external versions present
// at both revisions.
func (d *Diff) ExistingStructs() iter.Seq[*TypeDiff] {
	return func(yield func(*TypeDiff) bool) {
		for td := range d.HeadStructs() {
			if td.Base != nil && !yield(td) {
				return
			}
		}
	}
}

// PairedFields yields the field pairs present at both revisions of the
// existing struct types of external versions.
func (d *Diff) PairedFields() iter.Seq[*FieldDiff] {
	return func(yield func(*FieldDiff) bool) {
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Base != nil && fd.Head != nil && !yield(fd) {
					return
				}
			}
		}
	}
}

// AddedFields yields the fields added to existing struct types of
// external versions.
func (d *Diff) AddedFields() iter.Seq[*FieldDiff] {
	return func(yield func(*FieldDiff) bool) {
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Base == nil && !yield(fd) {
					return
				}
			}
		}
	}
}

// RemovedFields yields the named (non-embedded) fields removed from
// existing struct types of external versions.
func (d *Diff) RemovedFields() iter.Seq[*FieldDiff] {
	return func(yield func(*FieldDiff) bool) {
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Head == nil && !fd.Base.Embedded && !yield(fd) {
					return
				}
			}
		}
	}
}
