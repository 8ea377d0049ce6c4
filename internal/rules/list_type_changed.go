package rules

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ListTypeChanged is LIST_TYPE_CHANGED.
var ListTypeChanged = &Rule{
	ID:           "LIST_TYPE_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrListType},
	ReleaseNote:  fixedNote("list type changed"),
	Summary: "The list semantics server-side apply uses for an existing field changed: atomic, set, or map and its keys " +
		"(from `+listType`/`+listMapKey`, else from `patchStrategy:\"merge\"` and `patchMergeKey`, else atomic). A warning from " +
		"atomic to set or map (appliers keep working; existing items must be unique). Info when a list map only adds keys that are " +
		"optional members new in its items, where items may leave a key out (not custom resources, whose keys must be required or defaulted). " +
		"A field whose new type is no list, or was none, is FIELD_TYPE_CHANGED's.",
	Why: "Server-side apply merges lists by these semantics; changing them changes field ownership and merge results. " +
		"A marker that states what was already in effect (`+listType=atomic` on an unmarked list, `+listType=map` keyed by the " +
		"existing patchMergeKey) changes nothing and is not reported.",
	Fix: "Keep the list semantics as they were.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrListType) {
				continue
			}
			bl, hl := contractOf(fd.Base).List, contractOf(fd.Head).List
			if (fd.Has(model.AttrPatchStrategy) || fd.Has(model.AttrPatchMergeKey)) &&
				(bl != nil && bl.From == "patch strategy" || hl != nil && hl.From == "patch strategy") {
				continue // follows from the patch metadata: PATCH_STRATEGY_CHANGED reports it
			}
			if (bl == nil) != (hl == nil) && fd.Has(model.AttrGoType) {
				continue // a list no more, or now: FIELD_TYPE_CHANGED reports the type
			}
			r := Report{
				Message: fmt.Sprintf("list semantics of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), listDesc(bl), listDesc(hl)),
				Hint:    "restore the list semantics of base (" + listDesc(bl) + ")",
			}
			if bl != nil && hl != nil && bl.Type == "atomic" && (hl.Type == "set" || hl.Type == "map" && len(hl.Keys) > 0) {
				// Kubernetes' server-side apply documentation: from
				// atomic to granular the server cannot infer who owns
				// the existing items, so no conflict arises (the other
				// way every later change conflicts). What remains is the
				// new uniqueness of items, a tightening.
				r.Severity = finding.Warning
				r.Message += "; from atomic to granular, appliers keep working (ownership of existing items is not inferred, so no conflict arises), " +
					"but existing objects must hold unique items" + map[bool]string{true: " with their keys set", false: ""}[hl.Type == "map"]
				r.Hint = "confirm that existing objects hold no duplicate items; keep atomic otherwise"
			} else if added := newOptionalKeys(fd, bl, hl); added != nil && c.Policy(fd.Type.Pkg).OptionalMapKeys {
				// kubernetes/api's ResourceClaimStatus.Devices gained the
				// key shareID, a member new in its items: no existing item
				// has it, and an absent key is no part of an item's
				// identity, so every item keeps its key and the
				// managed-fields paths recorded for it.
				r.Severity = finding.Info
				r.Message += fmt.Sprintf("; the added key %s is a new optional member of the items: no existing item has it, "+
					"so each keeps its identity, and only items that set it may share the other keys", strings.Join(added, ", "))
				r.Hint = ""
			}
			c.Field(fd, r)
		}
	},
}

// newOptionalKeys returns the keys head's list map adds to base's, when
// base's keys are all kept and each added key is an optional member of
// the items' struct (of the package) that base's struct did not have;
// nil otherwise.
func newOptionalKeys(fd *model.FieldDiff, bl, hl *model.ListSemantics) []string {
	if bl == nil || hl == nil || bl.Type != "map" || hl.Type != "map" || len(bl.Keys) == 0 || len(hl.Keys) <= len(bl.Keys) {
		return nil
	}
	for _, k := range bl.Keys {
		if !slices.Contains(hl.Keys, k) {
			return nil
		}
	}
	pd := fd.Type.Pkg
	be, he := localElem(pd.Base, fd.Base.TypeID), localElem(pd.Head, fd.Head.TypeID)
	if be == nil || he == nil {
		return nil
	}
	var added []string
	for _, k := range hl.Keys {
		if slices.Contains(bl.Keys, k) {
			continue
		}
		if slices.ContainsFunc(be.Fields, func(f *model.Field) bool { return f.WireName() == k }) {
			return nil // a member items may already set: their identity changes
		}
		i := slices.IndexFunc(he.Fields, func(f *model.Field) bool { return f.WireName() == k })
		if i < 0 || contractOf(he.Fields[i]).Presence != model.Optional {
			return nil
		}
		added = append(added, k)
	}
	return added
}

// localElem returns the struct of package p that a list's type names
// ("[]Item", "[]*Item"), nil for any other type.
func localElem(p *model.Package, typeID string) *model.Type {
	name, ok := strings.CutPrefix(typeID, "[]")
	if !ok || p == nil {
		return nil
	}
	name = strings.TrimPrefix(name, "*")
	if !token.IsIdentifier(name) {
		return nil
	}
	if t := p.Type(name); t != nil && t.Kind == model.KindStruct {
		return t
	}
	return nil
}
