package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// PatchStrategyChanged is PATCH_STRATEGY_CHANGED.
var PatchStrategyChanged = &Rule{
	ID:           "PATCH_STRATEGY_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Relax:        patchInert,
	Category:     CatCompat,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrPatchStrategy, model.AttrPatchMergeKey},
	ReleaseNote:  fixedNote("patch strategy changed"),
	Summary: "`patchStrategy` or `patchMergeKey` (tag or marker) changed on an existing field (info under the crd profile: " +
		"the API server accepts no strategic merge patch of custom resources, and server-side apply reads `+listType`).",
	Why: "Strategic merge patch uses them to merge lists: clients built against the old metadata send " +
		"patches that now replace or merge differently.",
	Fix:    "Keep the patch metadata; to support a new merge key use a recommended merge key that starts with the old one.",
	Before: "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"name\"`",
	After:  "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"port\"` // as at base",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			var what []string
			bc, hc := contractOf(fd.Base), contractOf(fd.Head)
			if fd.Has(model.AttrPatchStrategy) {
				what = append(what, fmt.Sprintf("patchStrategy %q -> %q", bc.PatchStrategy, hc.PatchStrategy))
			}
			if fd.Has(model.AttrPatchMergeKey) {
				what = append(what, fmt.Sprintf("patchMergeKey %q -> %q", bc.PatchMergeKey, hc.PatchMergeKey))
			}
			if len(what) == 0 {
				continue
			}
			if bl, hl := bc.List, hc.List; (bl != nil && bl.From == "patch strategy" || hl != nil && hl.From == "patch strategy") &&
				listDesc(bl) != listDesc(hl) {
				what = append(what, "server-side apply follows: "+listKind(bl)+" -> "+listKind(hl))
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("patch metadata of %s.%s changed: %s", fd.Type.Name(), fd.Name(), strings.Join(what, ", ")),
				Hint:    "restore the patch strategy and merge key; they are part of the wire contract",
			})
		}
	},
}
