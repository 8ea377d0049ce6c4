package model

import (
	"iter"
	"slices"
)

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

// ExistingStructs yields the struct types of external versions present,
// as structs, at both revisions: a type that became a struct (a string
// type that now has members) changed its declaration, which
// TYPE_UNDERLYING_CHANGED judges; its members were not added to a
// struct.
func (d *Diff) ExistingStructs() iter.Seq[*TypeDiff] {
	return func(yield func(*TypeDiff) bool) {
		for td := range d.HeadStructs() {
			if td.Base != nil && td.Base.Kind == KindStruct && !yield(td) {
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
// existing struct types of external versions, on the wire too: not the
// ones head's struct still promotes, or may promote, through an inline
// embedded struct (StillPromoted).
func (d *Diff) RemovedFields() iter.Seq[*FieldDiff] {
	return func(yield func(*FieldDiff) bool) {
		for td, fd := range d.removedNamed() {
			if yes, maybe := td.StillPromoted(fd.Base.WireName()); !yes && maybe == "" && !yield(fd) {
				return
			}
		}
	}
}

// MaybeMovedFields yields the fields removed from existing struct types
// of external versions that head's struct may still promote through an
// inline embedded struct whose members were not resolved, with that
// struct's type: whether they left the wire is unknown.
func (d *Diff) MaybeMovedFields() iter.Seq2[*FieldDiff, string] {
	return func(yield func(*FieldDiff, string) bool) {
		for td, fd := range d.removedNamed() {
			if _, maybe := td.StillPromoted(fd.Base.WireName()); maybe != "" && !yield(fd, maybe) {
				return
			}
		}
	}
}

// removedNamed yields the named (non-embedded) fields removed from
// existing struct types of external versions, with their type.
func (d *Diff) removedNamed() iter.Seq2[*TypeDiff, *FieldDiff] {
	return func(yield func(*TypeDiff, *FieldDiff) bool) {
		for td := range d.ExistingStructs() {
			for _, fd := range td.Fields {
				if fd.Head == nil && !fd.Base.Embedded && !yield(td, fd) {
					return
				}
			}
		}
	}
}

// StillPromoted reports whether head's struct puts json name wire at its
// level through an inline embedded struct whose members the scanner
// resolved (a member moved into a struct of another package that head
// embeds inline is still there on the wire: Flux moved
// HelmReleaseStatus.LastHandledForceAt into meta.ForceRequestStatus).
// Otherwise maybe is the type of an inline embedded field that head added
// and whose members were not resolved (a module not in the module cache):
// the member may be one of them. A struct of the same package that head
// embeds inline is in the model: the diff pairs the member with it.
func (td *TypeDiff) StillPromoted(wire string) (yes bool, maybe string) {
	if td.Head == nil || wire == "" || wire == "-" {
		return false, ""
	}
	for _, hf := range td.Head.Fields {
		if !hf.Embedded || !hf.Inline() {
			continue
		}
		if slices.Contains(hf.Promoted, wire) {
			return true, ""
		}
		if hf.Promoted == nil && maybe == "" && (td.Base == nil || td.Base.Field(hf.Name) == nil) {
			maybe = hf.Type
		}
	}
	return false, maybe
}
