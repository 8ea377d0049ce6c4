package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/apicheck/apicheck/internal/testutil/sarifcheck"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// The official OASIS SARIF 2.1.0 schema (errata 01), vendored as test
// data; see testdata/README.md.
const sarifSchemaFile = "testdata/sarif-schema-2.1.0.json"

var (
	sarifSchemaOnce sync.Once
	sarifSchema     *jsonschema.Schema
	sarifSchemaErr  error
)

func loadSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sarifSchemaOnce.Do(func() {
		f, err := os.Open(sarifSchemaFile)
		if err != nil {
			sarifSchemaErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			sarifSchemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat() // uri, uri-reference, date-time are checked too
		const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
		if err := c.AddResource(id, doc); err != nil {
			sarifSchemaErr = err
			return
		}
		sarifSchema, sarifSchemaErr = c.Compile(id)
	})
	if sarifSchemaErr != nil {
		t.Fatalf("loading the SARIF schema: %v", sarifSchemaErr)
	}
	return sarifSchema
}

// validateSARIF checks a log against the official schema and returns it
// decoded for further checks.
func validateSARIF(t *testing.T, data []byte) map[string]any {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if err := loadSARIFSchema(t).Validate(inst); err != nil {
		t.Fatalf("SARIF output does not validate against the SARIF 2.1.0 schema:\n%v", err)
	}
	// What the SARIF multitool's GitHub rule kind and GitHub code
	// scanning require beyond the schema.
	if p := sarifcheck.GitHub(data); len(p) > 0 {
		t.Fatalf("SARIF output breaks GitHub code scanning's rules:\n%s", strings.Join(p, "\n"))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sarifOf(t *testing.T, r *finding.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := SARIF(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// get walks a decoded JSON value: keys for objects, ints for arrays.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object", p)
			}
			v, ok = m[k]
			if !ok {
				t.Fatalf("missing key %q", k)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: not an array of that length", p)
			}
			v = a[k]
		}
	}
	return v
}

func TestSARIFSchemaRejectsInvalid(t *testing.T) {
	// Guards the guard: the vendored schema must actually reject a log
	// that breaks it.
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"level":"fatal"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if loadSARIFSchema(t).Validate(inst) == nil {
		t.Fatal("schema accepted an invalid result level")
	}
}

func TestSARIFValidGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, goldenReport(), goldenRules()); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, buf.Bytes())
	// And with the real catalogue.
	validateSARIF(t, sarifOf(t, goldenReport()))
}

func TestSARIFEmptyReport(t *testing.T) {
	r := &finding.Report{Tool: finding.Tool{Name: "apicheck", Version: "dev"}}
	r.Finalize()
	out := sarifOf(t, r)
	m := validateSARIF(t, out)
	if !bytes.Contains(out, []byte(`"results": []`)) {
		t.Errorf("empty report: want \"results\": [] in\n%s", out)
	}
	if res, ok := get(t, m, "runs", 0, "results").([]any); !ok || len(res) != 0 {
		t.Errorf("results = %v, want an empty array", get(t, m, "runs", 0, "results"))
	}
	// A report whose Findings is nil (never finalized) too.
	out = sarifOf(t, &finding.Report{})
	validateSARIF(t, out)
	if !bytes.Contains(out, []byte(`"results": []`)) {
		t.Errorf("nil findings: want \"results\": [] in\n%s", out)
	}
	if got := get(t, m, "runs", 0, "tool", "driver", "semanticVersion"); got != "0.0.0-dev" {
		t.Errorf("semanticVersion for dev = %v, want 0.0.0-dev", got)
	}
}

func TestSARIFCatalog(t *testing.T) {
	all := rules.Docs(catalog.All())
	r := goldenReport()
	r.Rules = all
	m := validateSARIF(t, sarifOf(t, r))
	run := get(t, m, "runs", 0)
	driver := get(t, run, "tool", "driver")
	if get(t, driver, "name") != "apicheck" || get(t, driver, "informationUri") != "https://github.com/apicheck/apicheck" {
		t.Errorf("driver = %v", driver)
	}
	for _, k := range []string{"version", "semanticVersion"} {
		if got := get(t, driver, k); got != "1.2.3" {
			t.Errorf("%s = %v, want 1.2.3 (numeric semver)", k, got)
		}
	}
	table := get(t, driver, "rules").([]any)
	// The whole catalogue in catalogue order, then the one unknown rule.
	if len(table) != len(all)+1 {
		t.Fatalf("rule table has %d entries, want %d (catalogue) + 1", len(table), len(all))
	}
	for i, r := range all {
		e := table[i]
		if get(t, e, "id") != r.ID {
			t.Fatalf("rules[%d].id = %v, want %s (catalogue order)", i, get(t, e, "id"), r.ID)
		}
		if get(t, e, "name") != RuleName(r.ID) {
			t.Errorf("%s: name = %v", r.ID, get(t, e, "name"))
		}
		if get(t, e, "shortDescription", "text") != r.Summary {
			t.Errorf("%s: shortDescription = %v", r.ID, get(t, e, "shortDescription"))
		}
		full := get(t, e, "fullDescription", "text").(string)
		if !strings.HasPrefix(full, r.Summary) || !strings.Contains(full, r.Why) {
			t.Errorf("%s: fullDescription %q lacks summary or why", r.ID, full)
		}
		help := get(t, e, "help").(map[string]any)
		for _, part := range []string{r.Why, r.Fix} {
			if !strings.Contains(help["text"].(string), part) || !strings.Contains(help["markdown"].(string), part) {
				t.Errorf("%s: help lacks %q", r.ID, part)
			}
		}
		if r.Before != "" && !strings.Contains(help["markdown"].(string), "go\n"+r.Before) {
			t.Errorf("%s: help.markdown lacks the Before example as a Go block", r.ID)
		}
		if want := sarifLevel(r.Severity); get(t, e, "defaultConfiguration", "level") != want {
			t.Errorf("%s: level = %v, want %s", r.ID, get(t, e, "defaultConfiguration", "level"), want)
		}
		tags := fmt.Sprint(get(t, e, "properties", "tags"))
		if tags != fmt.Sprintf("[%s api-compatibility]", r.Category) {
			t.Errorf("%s: tags = %s", r.ID, tags)
		}
		// security-severity makes code scanning file a result as a
		// security alert: compatibility findings are not.
		if _, ok := get(t, e, "properties").(map[string]any)["security-severity"]; ok {
			t.Errorf("%s: security-severity set on a compatibility rule", r.ID)
		}
		// GitHub: rule ids up to 255 characters, help in Markdown.
		if id := r.ID; len(id) > 255 || !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(id) {
			t.Errorf("rule id %q", id)
		}
		if md, _ := help["markdown"].(string); md == "" {
			t.Errorf("%s: no help.markdown", r.ID)
		}
	}
	// Every result's ruleIndex points at its rule.
	for i, res := range get(t, run, "results").([]any) {
		idx := int(get(t, res, "ruleIndex").(float64))
		if get(t, table[idx], "id") != get(t, res, "ruleId") {
			t.Errorf("results[%d]: ruleIndex %d is %v, ruleId %v", i, idx, get(t, table[idx], "id"), get(t, res, "ruleId"))
		}
	}
	if get(t, run, "automationDetails", "id") != "apicheck/" {
		t.Errorf("automationDetails = %v", get(t, run, "automationDetails"))
	}
	if get(t, run, "invocations", 0, "executionSuccessful") != true {
		t.Errorf("invocations = %v", get(t, run, "invocations"))
	}
}

func TestSARIFResults(t *testing.T) {
	r := goldenReport()
	m := validateSARIF(t, sarifOf(t, r))
	results := get(t, m, "runs", 0, "results").([]any)
	if len(results) != len(r.Findings) {
		t.Fatalf("%d results for %d findings", len(results), len(r.Findings))
	}
	for i, f := range r.Findings {
		res := results[i]
		if got := get(t, res, "partialFingerprints", SARIFFingerprintKey); got != f.Fingerprint || f.Fingerprint == "" {
			t.Errorf("%s: fingerprint %v, want %q", f.Rule, got, f.Fingerprint)
		}
		msg := get(t, res, "message", "text").(string)
		want := sarifEscape(strings.TrimSuffix(f.Message+"\n"+f.Hint, "\n"))
		if len(f.Related) > 0 {
			want += "\nSee " // and the links (TestSARIFRelatedLocations)
		}
		if msg != want && !(len(f.Related) > 0 && strings.HasPrefix(msg, want)) {
			t.Errorf("%s: message %q, want %q", f.Rule, msg, want)
		}
		pl := get(t, res, "locations", 0, "physicalLocation").(map[string]any)
		if get(t, pl, "artifactLocation", "uriBaseId") != "%SRCROOT%" {
			t.Errorf("%s: uriBaseId = %v", f.Rule, pl["artifactLocation"])
		}
		region, hasRegion := pl["region"].(map[string]any)
		switch {
		case f.Line == 0 && (!hasRegion || region["startLine"] != float64(1) || region["startColumn"] != nil):
			// Code scanning needs a start line: a whole file is shown at line 1.
			t.Errorf("%s: region %v for a finding without line, want startLine 1", f.Rule, region)
		case f.Line > 0 && region["startLine"] != float64(f.Line):
			t.Errorf("%s: region %v, want startLine %d", f.Rule, region, f.Line)
		case f.Line > 0 && f.Column == 0 && region["startColumn"] != nil:
			t.Errorf("%s: startColumn present for column 0", f.Rule)
		}
		sup, _ := res.(map[string]any)["suppressions"].([]any)
		switch {
		case f.Suppressed == "" && sup != nil:
			t.Errorf("%s: unexpected suppressions %v", f.Rule, sup)
		case f.Suppressed != "":
			want := "external"
			if strings.HasPrefix(f.Suppressed, "inline: ") {
				want = "inSource"
			}
			if get(t, sup, 0, "kind") != want || get(t, sup, 0, "justification") != f.Suppressed {
				t.Errorf("%s: suppressions %v, want kind %s", f.Rule, sup, want)
			}
		}
	}
}

func TestSARIFDeterministic(t *testing.T) {
	a, b := sarifOf(t, goldenReport()), sarifOf(t, goldenReport())
	if !bytes.Equal(a, b) {
		t.Fatal("SARIF output differs between identical runs")
	}
}

func TestSARIFManyFindingsValid(t *testing.T) {
	validateSARIF(t, sarifOf(t, manyFindings(500)))
}

func TestSARIFSemver(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                             "1.2.3",
		"1.2.3":                              "1.2.3",
		"v0.0.0-20260101120000-0123456789ab": "0.0.0-20260101120000-0123456789ab",
		"v1.2.3+dirty":                       "1.2.3+dirty",
		"v0.0.0-0123456789ab":                "0.0.0-0123456789ab",
		"dev":                                "0.0.0-dev",
		"":                                   "0.0.0-dev",
		"(devel)":                            "0.0.0-dev",
		"v1.2":                               "0.0.0-dev+v1.2",
		"1.02.3":                             "0.0.0-dev+1.02.3",
		"main":                               "0.0.0-dev+main",
		"2e57c9e-dirty":                      "0.0.0-dev+2e57c9e-dirty",
		"feature/x_y..z":                     "0.0.0-dev+feature-x-y.z",
		"...":                                "0.0.0-dev",
	} {
		if got := sarifSemver(in); got != want {
			t.Errorf("sarifSemver(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSARIFURI(t *testing.T) {
	for in, want := range map[string]string{
		"pkg/apis/core/v1/types.go": "pkg/apis/core/v1/types.go",
		"a dir/x#y?.go":             "a%20dir/x%23y%3F.go",
		"./pkg/x.go":                "pkg/x.go",
		`pkg\win\x.go`:              "pkg/win/x.go",
		"c:x/y.go":                  "./c:x/y.go",
		"100%/x.go":                 "100%25/x.go",
	} {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRuleName(t *testing.T) {
	for in, want := range map[string]string{
		"NEW_FIELD_NOT_POINTER": "NewFieldNotPointer",
		"VERSION_SKEW":          "VersionSkew",
		"X":                     "X",
		"A__B_":                 "AB",
	} {
		if got := RuleName(in); got != want {
			t.Errorf("RuleName(%q) = %q, want %q", in, got, want)
		}
	}
}

// manyFindings builds a finalized report with n findings of mixed
// severity, some suppressed, with long messages and hints.
func manyFindings(n int) *finding.Report {
	r := &finding.Report{Tool: finding.Tool{Name: "apicheck", Version: "v1.0.0"}, Base: finding.Rev{Ref: "main"}, Head: finding.Rev{Ref: "WORKTREE"}}
	sevs := []finding.Severity{finding.Info, finding.Warning, finding.Error}
	ids := []string{"NEW_FIELD_NOT_POINTER", "PROTO_NUMBER_CHANGED", "FIELD_RENAMED", "VERSION_SKEW"}
	for i := 0; i < n; i++ {
		f := finding.Finding{
			Rule:     ids[i%len(ids)],
			Severity: sevs[i%len(sevs)],
			Path:     fmt.Sprintf("pkg/apis/group%03d/v1/types.go", i/50),
			Line:     i%50*10 + 1,
			Column:   2,
			Package:  fmt.Sprintf("example.com/m/pkg/apis/group%03d/v1", i/50),
			Type:     fmt.Sprintf("Type%d", i),
			Field:    fmt.Sprintf("Field%d", i),
			APIPath:  fmt.Sprintf("Kind%d.spec.field%d", i/50, i),
			Message:  fmt.Sprintf("finding %d: field Type%d.Field%d changed | in a way that breaks clients %s", i, i, i, strings.Repeat("x", i%40)),
			Hint:     fmt.Sprintf("fix finding %d\nsecond line of the hint", i),
		}
		if i%7 == 0 {
			f.Suppressed = fmt.Sprintf("config: accepted for finding %d", i)
		}
		r.Findings = append(r.Findings, f)
	}
	r.Finalize()
	return r
}

// A finding's fixes become SARIF fixes: one artifactChange per file, a
// replacement per edit (an insertion is an empty deleted region), and
// the log still validates.
func TestSARIFFixes(t *testing.T) {
	r := goldenReport()
	r.Findings[0].Fixes = []finding.Fix{{
		Description: "give Purpose the next safe protobuf number 9 instead of 7",
		Edits: []finding.Edit{
			{Path: "pkg/apis/core/v1beta1/types_shoot.go", StartLine: 120, StartCol: 70, EndLine: 120, EndCol: 71,
				StartOffset: 4000, EndOffset: 4001, NewText: "9"},
			{Path: "pkg/apis/core/v1beta1/types_shoot.go", StartLine: 130, StartCol: 1, EndLine: 130, EndCol: 1,
				StartOffset: 4200, EndOffset: 4200, NewText: "\t// Old is tombstoned to show why 7 is reserved protobuf tag.\n"},
		},
	}}
	m := validateSARIF(t, sarifOf(t, r))
	var res any
	idx := -1
	for i, x := range get(t, m, "runs", 0, "results").([]any) {
		if get(t, x, "ruleId") == r.Findings[0].Rule {
			res, idx = x, i
		}
	}
	if get(t, res, "fixes", 0, "description", "text") != r.Findings[0].Fixes[0].Description {
		t.Errorf("description: %v", get(t, res, "fixes", 0, "description"))
	}
	changes := get(t, res, "fixes", 0, "artifactChanges").([]any)
	if len(changes) != 1 || get(t, changes, 0, "artifactLocation", "uri") != "pkg/apis/core/v1beta1/types_shoot.go" {
		t.Fatalf("artifactChanges = %v", changes)
	}
	reps := get(t, changes, 0, "replacements").([]any)
	if len(reps) != 2 {
		t.Fatalf("replacements = %v", reps)
	}
	if got := get(t, reps, 0, "deletedRegion"); fmt.Sprint(got) != "map[endColumn:71 endLine:120 startColumn:70 startLine:120]" {
		t.Errorf("deletedRegion = %v", got)
	}
	if get(t, reps, 0, "insertedContent", "text") != "9" {
		t.Errorf("insertedContent = %v", get(t, reps, 0, "insertedContent"))
	}
	if got := get(t, reps, 1, "deletedRegion"); fmt.Sprint(got) != "map[endColumn:1 endLine:130 startColumn:1 startLine:130]" {
		t.Errorf("insertion region = %v", got)
	}
	// Findings without fixes have no "fixes" key.
	for i, x := range get(t, m, "runs", 0, "results").([]any) {
		if i != idx {
			if _, ok := x.(map[string]any)["fixes"]; ok {
				t.Errorf("%v has fixes", get(t, x, "ruleId"))
			}
		}
	}
}

// Related positions at head become related locations that code scanning
// can show: a clean repository-relative URI, a region, an id, the label as
// message, and an embedded link from the result's message to each. Code
// scanning resolves every location in the analysed commit (head), so
// positions at base or at a release, and positions without a line, are
// named in the message as text.
func TestSARIFRelatedLocations(t *testing.T) {
	r := &finding.Report{Tool: finding.Tool{Name: "apicheck", Version: "v1.0.0"}, Findings: []finding.Finding{{
		Rule: "FIELD_REMOVED_STILL_USED", Severity: finding.Error,
		Path: "pkg/apis/core/v1/types.go", Line: 18, Column: 2,
		Message: "Spec.Old was removed, but base still uses it (see [docs](https://x)); type []string",
		Related: []finding.Related{
			{Path: "pkg/controller/a b.go", Line: 7, Column: 13, Label: "usage at base"},
			{Path: "pkg/apis/core/v1/types.go", Line: 20, Column: 2, Label: "tombstone"},
			{Path: "pkg/apis/core/v1/types.go", Line: 9, Label: "possible usage (matched by path) at release v1.1.0"},
			{Label: "release v1.0.0: Spec.Old = 5"},
			{Path: "pkg/apis/core/v1/types.go", Line: 30, Column: 1},
			{Path: "hack/stage.go", Label: "also removed from v1beta1"},
			{Path: "pkg/x y/b.go", Line: 8, Label: "used by Spec.New"},
		},
	}}}
	r.Finalize()
	m := validateSARIF(t, sarifOf(t, r))
	res := get(t, m, "runs", 0, "results", 0)
	rel := get(t, res, "relatedLocations").([]any)
	want := []struct {
		uri         string
		line, col   float64
		label, link string
	}{
		{"pkg/apis/core/v1/types.go", 20, 2, "tombstone", "[tombstone pkg/apis/core/v1/types.go:20:2](1)"},
		{"pkg/apis/core/v1/types.go", 30, 1, "related", "[pkg/apis/core/v1/types.go:30:1](2)"},
		{"pkg/x%20y/b.go", 8, 0, "used by Spec.New", "[used by Spec.New pkg/x y/b.go:8](3)"},
	}
	if len(rel) != len(want) {
		t.Fatalf("%d related locations, want %d: %v", len(rel), len(want), rel)
	}
	msg := get(t, res, "message", "text").(string)
	for i, w := range want {
		l := rel[i]
		if get(t, l, "id") != float64(i+1) {
			t.Errorf("related %d: id %v, want %d", i, get(t, l, "id"), i+1)
		}
		if get(t, l, "physicalLocation", "artifactLocation", "uri") != w.uri ||
			get(t, l, "physicalLocation", "artifactLocation", "uriBaseId") != "%SRCROOT%" {
			t.Errorf("related %d: artifactLocation %v, want uri %s", i, get(t, l, "physicalLocation", "artifactLocation"), w.uri)
		}
		region := get(t, l, "physicalLocation", "region").(map[string]any)
		if region["startLine"] != w.line || w.col > 0 && region["startColumn"] != w.col || w.col == 0 && region["startColumn"] != nil {
			t.Errorf("related %d: region %v, want line %v column %v", i, region, w.line, w.col)
		}
		if get(t, l, "message", "text") != w.label {
			t.Errorf("related %d: message %v, want %q", i, get(t, l, "message"), w.label)
		}
		if !strings.Contains(msg, w.link) {
			t.Errorf("message %q lacks the link %s", msg, w.link)
		}
	}
	// Positions not at head, or without a line, are text, in order.
	if !strings.Contains(msg, "\nSee usage at base pkg/controller/a b.go:7:13, [tombstone") ||
		!strings.Contains(msg, "(1), possible usage (matched by path) at release v1.1.0 pkg/apis/core/v1/types.go:9, release v1.0.0: Spec.Old = 5, [") ||
		!strings.Contains(msg, "(2), also removed from v1beta1 hack/stage.go, [used by") {
		t.Errorf("message %q: want the positions not at head as text, in order", msg)
	}
	// The finding's own text cannot form a link; other brackets stay.
	if !strings.Contains(msg, `(see [docs\](https://x)); type []string`) {
		t.Errorf("message %q: want the accidental link escaped and []string kept", msg)
	}
}
