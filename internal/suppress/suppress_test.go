package suppress

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// memSource is an in-memory scan.Source.
type memSource map[string]string

func (m memSource) Files() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (m memSource) ReadFiles(paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range paths {
		s, ok := m[p]
		if !ok {
			return nil, fmt.Errorf("%s: no such file", p)
		}
		out[p] = []byte(s)
	}
	return out, nil
}

const types = `package v1

// Shoot is a cluster.
// +apicheck:ignore=TYPE_RENAMED renamed on purpose
type Shoot struct {
	// Spec is the spec.
	// +optional
	// +apicheck:ignore=NEW_FIELD_NOT_POINTER,NEW_FIELD_NO_OMITEMPTY value type is intended // comment
	Spec string ` + "`json:\"spec\"`" + `
	// Other has no marker.
	Other *string ` + "`json:\"other,omitempty\"`" + `
}
`

func scanHead(t *testing.T, src string) *model.Model {
	t.Helper()
	m, err := scan.Scan(memSource{
		"go.mod":                  "module example.com/api\n",
		"pkg/apis/a/v1/doc.go":    "// +groupName=a.example.cloud\npackage v1\n",
		"pkg/apis/a/v1/types.go":  src,
		"pkg/apis/a/v1/other.txt": "",
	}, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestScannerMarkers pins what the scanner hands this package: markers
// keyed "apicheck:ignore" with the value "RULE_ID reason".
func TestScannerMarkers(t *testing.T) {
	m := scanHead(t, types)
	typ := m.Groups[0].Versions[0].Type("Shoot")
	if got, _ := typ.Markers.Get(MarkerKey); got != "TYPE_RENAMED renamed on purpose" {
		t.Errorf("type marker = %q", got)
	}
	if got, _ := typ.Field("Spec").Markers.Get(MarkerKey); got != "NEW_FIELD_NOT_POINTER,NEW_FIELD_NO_OMITEMPTY value type is intended" {
		t.Errorf("field marker = %q", got)
	}
}

func TestApply(t *testing.T) {
	head := scanHead(t, types)
	pkg := "example.com/api/pkg/apis/a/v1"
	mk := func(rule, typ, field string) finding.Finding {
		return finding.Finding{Rule: rule, Severity: finding.Error, Package: pkg, Group: "pkg/apis/a", Version: "v1",
			Type: typ, Field: field, APIPath: "Shoot." + strings.ToLower(field)}
	}
	fs := []finding.Finding{
		mk("NEW_FIELD_NOT_POINTER", "Shoot", "Spec"),  // 0: inline field marker
		mk("NEW_FIELD_NO_OMITEMPTY", "Shoot", "Spec"), // 1: second ID of the same marker
		mk("NEW_FIELD_NOT_POINTER", "Shoot", "Other"), // 2: no marker, no entry
		mk("TYPE_RENAMED", "Shoot", ""),               // 3: inline type marker
		mk("TYPE_RENAMED", "Shoot", "Other"),          // 4: type marker covers fields
		mk("JSON_NAME_CHANGED", "Shoot", "Other"),     // 5: config entry by apiPath + package dir
		mk("FIELD_TYPE_CHANGED", "Shoot", "Spec"),     // 6: config entry by type and group
		mk("NEW_FIELD_NOT_POINTER", "Shoot", "Spec"),  // 7: same as 0
		mk("FIELD_RENAMED", "Shoot", "Other"),         // 8: already suppressed
	}
	fs[8].Suppressed = "earlier"
	cfg := config.Default()
	cfg.Ignore = []config.Ignore{
		{Rule: "JSON_NAME_CHANGED", APIPath: "Shoot.other", Package: "pkg/apis/a/v1", Reason: "by path", Pos: config.Pos{File: "c", Line: 1}},
		{Rule: "FIELD_TYPE_CHANGED", Type: "Shoot", Group: "pkg/apis/a", Reason: "by type", Pos: config.Pos{File: "c", Line: 2}},
		{Rule: "FIELD_TYPE_CHANGED", Type: "Shoot", Group: "pkg/apis/b", Reason: "other group", Pos: config.Pos{File: "c", Line: 3}},
		{Rule: "FIELD_RENAMED", Type: "Shoot", Reason: "never used: already suppressed", Pos: config.Pos{File: "c", Line: 4}},
	}
	// Findings 0 and 7 match both this entry and a marker: config entries
	// are tried first.
	cfg.Ignore = append(cfg.Ignore, config.Ignore{Rule: "NEW_FIELD_NOT_POINTER", Type: "Shoot", Field: "Spec", Package: pkg, Reason: "config first", Pos: config.Pos{File: "c", Line: 5}})
	res, err := Apply(fs, Options{Config: cfg, Head: head})
	if err != nil {
		t.Fatal(err)
	}
	notes := res.Notes
	want := []string{
		"config first",
		"inline: value type is intended",
		"",
		"inline: renamed on purpose",
		"inline: renamed on purpose",
		"by path",
		"by type",
		"config first",
		"earlier",
	}
	for i, w := range want {
		if fs[i].Suppressed != w {
			t.Errorf("finding %d (%s %s.%s): suppressed = %q, want %q", i, fs[i].Rule, fs[i].Type, fs[i].Field, fs[i].Suppressed, w)
		}
	}
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "ignore entry at c:3 (rule FIELD_TYPE_CHANGED, type Shoot, group pkg/apis/b) matched no finding") ||
		!strings.HasPrefix(notes[1], "ignore entry at c:4 ") {
		t.Errorf("notes = %q", notes)
	}
	s := finding.Summarize(fs)
	if s.Errors != 1 || s.Suppressed != 8 {
		t.Errorf("summary = %+v", s)
	}
}

func TestMarkerErrors(t *testing.T) {
	for _, tc := range []struct{ marker, want string }{
		{"+apicheck:ignore=NEW_FIELD_NOT_POINTER", `pkg/apis/a/v1/types.go:9:2: +apicheck:ignore: on Shoot.Spec: +apicheck:ignore=NEW_FIELD_NOT_POINTER has no reason`},
		{"+apicheck:ignore", `pkg/apis/a/v1/types.go:9:2: +apicheck:ignore: on Shoot.Spec: no rule ID`},
		{"+apicheck:ignore=NOPE because", `pkg/apis/a/v1/types.go:9:2: +apicheck:ignore: on Shoot.Spec: unknown rule ID "NOPE"`},
	} {
		src := strings.Replace(types, "+apicheck:ignore=NEW_FIELD_NOT_POINTER,NEW_FIELD_NO_OMITEMPTY value type is intended // comment", tc.marker, 1)
		head := scanHead(t, src)
		_, err := Apply(nil, Options{Head: head, RuleIDs: []string{"NEW_FIELD_NOT_POINTER", "TYPE_RENAMED"}})
		var errs config.Errors
		if !errors.As(err, &errs) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error = %v\nwant prefix %s", tc.marker, err, tc.want)
		}
	}
}

func TestParseMarker(t *testing.T) {
	ids, reason, err := ParseMarker("A,B\tsome reason ")
	if err != nil || strings.Join(ids, "|") != "A|B" || reason != "some reason" {
		t.Errorf("ParseMarker = %v %q %v", ids, reason, err)
	}
}

func TestMatchesPackage(t *testing.T) {
	f := &finding.Finding{Rule: "R", Type: "T", Package: "example.com/m/pkg/apis/a", Group: "pkg/apis/a"}
	for pkg, want := range map[string]bool{
		"pkg/apis/a":               true, // internal package: the group directory
		"example.com/m/pkg/apis/a": true,
		"pkg/apis/a/v1":            false,
		"apis/a":                   false,
	} {
		if got := Matches(&config.Ignore{Rule: "R", Type: "T", Package: pkg}, f); got != want {
			t.Errorf("package %q: Matches = %v, want %v", pkg, got, want)
		}
	}
}

// TestMarkerPositions: a marker is placed at its comment line, also in a
// block comment and in the comment group above a type's doc comment.
func TestMarkerPositions(t *testing.T) {
	src := `package v1

// +apicheck:ignore=TYPE_RENAMED renamed on purpose

// Shoot is a cluster.
type Shoot struct {
	/* Spec is the spec.
	   +apicheck:ignore=NEW_FIELD_NOT_POINTER value type is intended */
	Spec string ` + "`json:\"spec\"`" + `
}
`
	res, err := Apply(nil, Options{Head: scanHead(t, src)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Head {
		got = append(got, fmt.Sprintf("%s %s %s", m.Rule, m.Subject(), m.Pos))
	}
	want := "TYPE_RENAMED Shoot pkg/apis/a/v1/types.go:3:1\nNEW_FIELD_NOT_POINTER Shoot.Spec pkg/apis/a/v1/types.go:8:2"
	if strings.Join(got, "\n") != want {
		t.Errorf("markers:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestBaseMarkersOnly: with a trusted configuration a marker suppresses
// only when base had it (or a wider one).
func TestBaseMarkersOnly(t *testing.T) {
	head := scanHead(t, types)
	base := scanHead(t, strings.Replace(types, "+apicheck:ignore=TYPE_RENAMED renamed on purpose", "", 1))
	pkg := "example.com/api/pkg/apis/a/v1"
	fs := []finding.Finding{
		{Rule: "TYPE_RENAMED", Package: pkg, Type: "Shoot"},
		{Rule: "NEW_FIELD_NOT_POINTER", Package: pkg, Type: "Shoot", Field: "Spec"},
	}
	if _, err := Apply(fs, Options{Head: head, Base: base, BaseMarkersOnly: true}); err != nil {
		t.Fatal(err)
	}
	if fs[0].Suppressed != "" || fs[1].Suppressed != "inline: value type is intended" {
		t.Errorf("suppressed = %q, %q; want only the marker base had", fs[0].Suppressed, fs[1].Suppressed)
	}
}

// TestAddedIgnoreEntries: an entry is added unless a base entry covers it
// (same rule, every criterion of base's set the same); a wider one says
// what it widens; a finding an entry of base matches is not hidden by the
// new one.
func TestAddedIgnoreEntries(t *testing.T) {
	entry := func(line int, rule, typ, field, group string) config.Ignore {
		return config.Ignore{Rule: rule, Type: typ, Field: field, Group: group, Reason: "r", Pos: config.Pos{File: "c", Line: line, Col: 5}}
	}
	base, head := config.Default(), config.Default()
	base.Ignore = []config.Ignore{
		entry(1, "A", "T", "F", ""),
		entry(2, "B", "T", "", ""),
	}
	head.Ignore = []config.Ignore{
		entry(1, "A", "T", "F", "g"), // narrower: covered by base
		entry(2, "A", "T", "", ""),   // widens base's first
		entry(3, "B", "T", "G", ""),  // covered by base's second
		entry(4, "C", "T", "", ""),   // new
	}
	fs := []finding.Finding{
		{Rule: "A", Type: "T", Field: "F", Group: "g"}, // base's entry already hides it
		{Rule: "A", Type: "T", Field: "H", Version: "v1"},
	}
	got := Added(Comparison{Base: base, Head: head, HeadInEffect: true, Findings: fs})
	var lines []string
	for _, a := range got {
		var hides []string
		for i := range a.Hides {
			hides = append(hides, FindingLabel(&a.Hides[i]))
		}
		lines = append(lines, fmt.Sprintf("%d %s widens=%q hides=%q", a.Pos.Line, Describe(a.Ignore), a.Widens, hides))
	}
	want := []string{
		`2 type T widens="field T.F" hides=["A T.H (v1)"]`,
		`4 type T widens="" hides=[]`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("added:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
