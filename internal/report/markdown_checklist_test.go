package report

import (
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// checklistReport is prReport judged with the whole catalogue, its
// release note lacking the breaking block the change needs.
func checklistReport() *finding.Report {
	r := prReport()
	r.Rules = rules.Docs(catalog.All())
	r.ReleaseNote = &finding.ReleaseNote{Blocks: []string{"feature user"}}
	r.Findings = append(r.Findings, finding.Finding{
		Rule: rules.ReleaseNoteMissing.ID, Severity: finding.Error, Path: "pkg/apis/core/v1beta1/types_shoot.go", Line: 30, Column: 2,
		Package: "example.com/api/pkg/apis/core/v1beta1", Group: "pkg/apis/core", Version: "v1beta1",
		Message: "the release note has no `breaking` block, but the change to core.gardener.cloud (pkg/apis/core) is breaking",
		Hint: "add to the pull request's description, and edit, the stub `apicheck release-notes` drafts:\n" +
			"```breaking user\n`Shoot`: field `.spec.seedTemplate` was removed.\n```",
	})
	r.Finalize()
	return r
}

// checklistRows maps each checklist item's title to its rating and
// findings cell.
func checklistRows(t *testing.T, md string) map[string][2]string {
	t.Helper()
	_, sec, ok := strings.Cut(md, "#### Checklist\n")
	if !ok {
		t.Fatalf("no Checklist section:\n%s", md)
	}
	sec, _, _ = strings.Cut(sec, mdChecklistLegend)
	out := map[string][2]string{}
	for _, row := range gfmTableRows(sec) {
		c := gfmCells(row)
		if len(c) != 3 || c[1] == "Item" || strings.HasPrefix(c[0], "---") {
			continue
		}
		out[c[1]] = [2]string{c[0], c[2]}
	}
	if len(out) != len(finding.Checklist) {
		t.Errorf("%d rows, want one per checklist item (%d)", len(out), len(finding.Checklist))
	}
	return out
}

func title(key string) string {
	it, _ := finding.LookupChecklist(key)
	return it.Title
}

func TestChecklistRatings(t *testing.T) {
	rows := checklistRows(t, markdownWith(t, checklistReport(), Options{}))
	for key, want := range map[string]struct{ rating, cell string }{
		finding.CheckOptional:     {mdCheckError, "NEW_FIELD_NOT_POINTER`](https://github.com/apicheck/apicheck/blob/main/docs/rules.md#new_field_not_pointer): 1 error"},
		finding.CheckProtoTags:    {mdCheckWarning, "#proto_tag_missing): 1 warning"},
		finding.CheckDeprecation:  {mdCheckWarning, "#field_removed_not_deprecated): skipped (see the notes)"},
		finding.CheckTwoStep:      {mdCheckError, "#field_removed_still_used): 1 error"},
		finding.CheckReleaseNote:  {mdCheckError, "release note: `feature user`"},
		finding.CheckGenerate:     {mdCheckOK, "no findings"},
		finding.CheckExamples:     {mdCheckNotChecked, "not checked by apicheck"},
		finding.CheckDocs:         {mdCheckNotChecked, "not checked by apicheck"},
		finding.CheckConversion:   {mdCheckNotChecked, "does not read hand-written conversions"},
		finding.CheckProtoNumbers: {mdCheckOK, "no findings"},
	} {
		got := rows[title(key)]
		if got[0] != want.rating || !strings.Contains(got[1], want.cell) {
			t.Errorf("%s: %q %q, want %q and a cell with %q", key, got[0], got[1], want.rating, want.cell)
		}
	}
}

func TestChecklistProfiles(t *testing.T) {
	r := checklistReport()
	r.ReleaseNote = nil
	r.Notes = []string{"profile crd (detected; CRD manifests in config/crd/bases serve the kinds; set profile in .apicheck.yaml to choose another)"}
	rows := checklistRows(t, markdownWith(t, r, Options{}))
	for _, key := range []string{finding.CheckProtoNumbers, finding.CheckProtoTags, finding.CheckReleaseNote, finding.CheckTombstone, finding.CheckShootStages} {
		if got := rows[title(key)]; got[0] != mdCheckNA || !strings.Contains(got[1], "`crd` profile's conventions") {
			t.Errorf("%s under crd: %q %q, want n.a.", key, got[0], got[1])
		}
	}
	if got := rows[title(finding.CheckOptional)]; got[0] != mdCheckError {
		t.Errorf("new fields under crd: %q, want the errors", got[0])
	}

	// A group of its own profile brings its items.
	r.Notes = []string{"profile crd (configured); groups with their own profile: pkg/apis/core: gardener, pkg/apis/config: componentconfig"}
	rows = checklistRows(t, markdownWith(t, r, Options{}))
	if got := rows[title(finding.CheckShootStages)]; got[0] == mdCheckNA {
		t.Errorf("Shoot stages with a gardener group: n.a.")
	}
	if got := rows[title(finding.CheckReleaseNote)]; got[0] != mdCheckError || !strings.Contains(got[1], "no release note given") {
		t.Errorf("release note without a note: %q %q", got[0], got[1])
	}
	if got := profileNames([]string{"crd", "gardener", "componentconfig"}); got != "`crd`, `gardener` and `componentconfig` profiles'" {
		t.Errorf("profileNames = %q", got)
	}
}

// Without the release note the item is not checked, unless its rule
// found something anyway (a component configuration's removal).
func TestChecklistReleaseNoteUnknown(t *testing.T) {
	r := prReport()
	r.Rules = rules.Docs(catalog.All())
	rows := checklistRows(t, markdownWith(t, r, Options{}))
	if got := rows[title(finding.CheckReleaseNote)]; got[0] != mdCheckNotChecked || !strings.Contains(got[1], "--release-note") {
		t.Errorf("release note: %q %q, want not checked", got[0], got[1])
	}
	r.ReleaseNote = &finding.ReleaseNote{}
	rows = checklistRows(t, markdownWith(t, r, Options{}))
	if got := rows[title(finding.CheckReleaseNote)]; got[0] != mdCheckOK || !strings.Contains(got[1], "no release-note block") {
		t.Errorf("release note without blocks: %q %q", got[0], got[1])
	}
}

// A report that does not know the catalogue it was judged by has no
// checklist (it cannot tell which rules ran), nor has one that judged
// nothing.
func TestChecklistNeedsTheCatalogue(t *testing.T) {
	if md := markdownWith(t, prReport(), Options{}); strings.Contains(md, "Checklist") {
		t.Errorf("a checklist without the catalogue:\n%s", md)
	}
	same := &finding.Report{Base: finding.Rev{Ref: "main", Commit: testHeadSHA}, Head: finding.Rev{Ref: "HEAD", Commit: testHeadSHA},
		Rules: rules.Docs(catalog.All())}
	none := &finding.Report{Base: finding.Rev{Ref: "main", Commit: testBaseSHA}, Head: finding.Rev{Ref: "HEAD", Commit: testHeadSHA},
		Rules: rules.Docs(catalog.All()), Notes: []string{noGroupsNote + " (a directory with version sub-packages such as v1beta1 ...)"}}
	for name, r := range map[string]*finding.Report{"same commit": same, "no groups": none} {
		r.Finalize()
		if md := markdownWith(t, r, Options{}); strings.Contains(md, "Checklist") {
			t.Errorf("%s: a checklist:\n%s", name, md)
		}
	}
}

// The checklist is kept when findings are left out for the size limit.
func TestChecklistWithinLimit(t *testing.T) {
	r := mdManyFindings(400)
	r.Rules = rules.Docs(catalog.All())
	md := markdownReport(r, Options{LinkBase: testLinkBase}, 12000)
	if len(md) > 12000 {
		t.Errorf("%d bytes, more than the limit", len(md))
	}
	if !strings.Contains(md, "more findings not shown") {
		t.Fatalf("the findings fit: the test needs more")
	}
	if got := checklistRows(t, md)[title(finding.CheckOptional)]; got[0] != mdCheckError {
		t.Errorf("new fields: %q, want the errors of every finding, shown or not", got[0])
	}
}

func TestHintNoteBlocks(t *testing.T) {
	rest, blocks := hintNoteBlocks("add this:\n```breaking user\na\nb\n```\n```feature operator\nc\n```\nthen more\n```unclosed x\nd")
	if rest != "add this:\nthen more" {
		t.Errorf("rest = %q", rest)
	}
	want := []string{"```breaking user\na\nb\n```", "```feature operator\nc\n```", "```unclosed x\nd"}
	if strings.Join(blocks, "|") != strings.Join(want, "|") {
		t.Errorf("blocks = %q, want %q", blocks, want)
	}
	if rest, blocks := hintNoteBlocks("use `json:\"x\"`\nField *string"); len(blocks) != 0 || rest != "use `json:\"x\"`\nField *string" {
		t.Errorf("a hint without blocks: %q %q", rest, blocks)
	}
}
