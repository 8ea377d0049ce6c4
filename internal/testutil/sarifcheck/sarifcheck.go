// Package sarifcheck validates SARIF logs in tests the way GitHub code
// scanning and the SARIF multitool (`sarif validate --rule-kinds
// Sarif;Ghas`, microsoft/sarif-sdk, a .NET tool that cannot run in these
// tests) judge them: Schema against the official OASIS SARIF 2.1.0 schema,
// GitHub against the multitool's GitHub rules (GH1001–GH1018, GH2012) and
// those of its default rules that apply to what apicheck writes
// (SARIF1009/1010/1011, SARIF2005, SARIF2008), plus GitHub's rule that a
// related location is shown only where the result's message links it
// ("[text](id)", SARIF §3.11.6).
package sarifcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of the vendored schema (errata 01).
const SchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonschema.Schema{}
)

// Schema validates data against the SARIF 2.1.0 JSON schema in the file
// schemaPath (formats such as uri and date-time asserted).
func Schema(data []byte, schemaPath string) error {
	schemaMu.Lock()
	s, ok := schemaCache[schemaPath]
	if !ok {
		f, err := os.Open(schemaPath)
		if err != nil {
			schemaMu.Unlock()
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			schemaMu.Unlock()
			return fmt.Errorf("%s: %w", schemaPath, err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(SchemaID, doc); err != nil {
			schemaMu.Unlock()
			return err
		}
		if s, err = c.Compile(SchemaID); err != nil {
			schemaMu.Unlock()
			return err
		}
		schemaCache[schemaPath] = s
	}
	schemaMu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}

// The part of SARIF the checks read.
type (
	log struct {
		Schema  *string `json:"$schema"`
		Version string  `json:"version"`
		Runs    []run   `json:"runs"`
	}
	run struct {
		Tool *struct {
			Driver *driver `json:"driver"`
		} `json:"tool"`
		Results *[]result `json:"results"`
	}
	driver struct {
		Name            string  `json:"name"`
		Version         string  `json:"version"`
		SemanticVersion string  `json:"semanticVersion"`
		InformationURI  string  `json:"informationUri"`
		Rules           *[]rule `json:"rules"`
	}
	rule struct {
		ID               string `json:"id"`
		Name             string `json:"name"`
		ShortDescription *text  `json:"shortDescription"`
		FullDescription  *text  `json:"fullDescription"`
		Help             *text  `json:"help"`
		HelpURI          string `json:"helpUri"`
	}
	text struct {
		Text string `json:"text"`
	}
	result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           *int              `json:"ruleIndex"`
		Message             *text             `json:"message"`
		Locations           *[]location       `json:"locations"`
		RelatedLocations    []location        `json:"relatedLocations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
	}
	location struct {
		ID               *int  `json:"id"`
		Message          *text `json:"message"`
		PhysicalLocation *struct {
			ArtifactLocation *struct {
				URI       *string `json:"uri"`
				URIBaseID string  `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
	}
)

// The multitool's GH1004 defaults: what code scanning shows at most.
const (
	maxRuns               = 5
	maxRulesPerRun        = 1000
	maxResultsPerRun      = 1000
	maxLocationsPerResult = 10
)

var (
	numericVersion = regexp.MustCompile(`^\d+\.\d+`) // SARIF2005
	// An embedded link to a location id: "[text](3)"; text may hold
	// escaped brackets.
	embeddedLink = regexp.MustCompile(`\[((?:[^\]\\]|\\.)*)\]\((\d+)\)`)
)

// GitHub returns every problem the checks find, each prefixed with the
// rule it breaks and the JSON path of the object; none for a good log.
func GitHub(data []byte) []string {
	var l log
	if err := json.Unmarshal(data, &l); err != nil {
		return []string{"not a SARIF log: " + err.Error()}
	}
	var p []string
	add := func(rule, at, format string, a ...any) {
		p = append(p, fmt.Sprintf("%s %s: %s", rule, at, fmt.Sprintf(format, a...)))
	}
	if l.Schema == nil {
		add("SARIF2008", "$", "no $schema")
	} else if !strings.HasSuffix(*l.Schema, "2.1.0.json") && !strings.HasSuffix(*l.Schema, "2.1.0") {
		add("GH1011", "$.$schema", "%q is not the final SARIF 2.1.0 schema", *l.Schema)
	}
	if l.Version != "2.1.0" {
		add("GH1013", "$.version", "%q, want 2.1.0", l.Version)
	}
	if len(l.Runs) == 0 || len(l.Runs) > maxRuns {
		add("GH1004", "$.runs", "%d runs, want 1 to %d", len(l.Runs), maxRuns)
	}
	for ri, r := range l.Runs {
		at := fmt.Sprintf("$.runs[%d]", ri)
		if r.Tool == nil || r.Tool.Driver == nil {
			add("GH1018", at+".tool", "no tool.driver")
			continue
		}
		d := r.Tool.Driver
		if strings.TrimSpace(d.Name) == "" {
			add("GH1018", at+".tool.driver", "no name")
		}
		if len(strings.Split(d.Name, " ")) > 3 {
			add("SARIF2005", at+".tool.driver.name", "%q is more than three words", d.Name)
		}
		v := d.Version
		if v == "" {
			v = d.SemanticVersion
		}
		if v == "" {
			add("SARIF2005", at+".tool.driver", "neither version nor semanticVersion")
		} else if !numericVersion.MatchString(v) {
			add("SARIF2005", at+".tool.driver.version", "%q is not numeric", v)
		}
		if d.InformationURI == "" {
			add("SARIF2005", at+".tool.driver", "no informationUri")
		}
		if d.Rules == nil {
			add("GH1018", at+".tool.driver", "no rules array")
			continue
		}
		rules := *d.Rules
		if len(rules) > maxRulesPerRun {
			add("GH1004", at+".tool.driver.rules", "%d rules, code scanning shows %d", len(rules), maxRulesPerRun)
		}
		for i, ru := range rules {
			rat := fmt.Sprintf("%s.tool.driver.rules[%d]", at, i)
			if ru.ID == "" {
				add("SARIF1001", rat, "no id")
			}
			if ru.Name != "" && strings.EqualFold(ru.Name, ru.ID) {
				add("SARIF1001", rat, "name %q equals the id", ru.Name)
			}
			if ru.ShortDescription == nil || strings.TrimSpace(ru.ShortDescription.Text) == "" {
				add("GH2012", rat, "no shortDescription")
			}
			if ru.FullDescription == nil || strings.TrimSpace(ru.FullDescription.Text) == "" {
				add("GH2012", rat, "no fullDescription")
			}
			if ru.Help == nil || strings.TrimSpace(ru.Help.Text) == "" {
				add("GH2012", rat, "no help text")
			}
			if ru.HelpURI != "" {
				if u, err := url.Parse(ru.HelpURI); err != nil || !u.IsAbs() {
					add("SARIF1005", rat+".helpUri", "%q is not an absolute URI", ru.HelpURI)
				}
			}
		}
		if r.Results == nil {
			add("GH1014", at, "no results array")
			continue
		}
		results := *r.Results
		if len(results) > maxResultsPerRun {
			add("GH1004", at+".results", "%d results, code scanning shows %d", len(results), maxResultsPerRun)
		}
		for i, res := range results {
			checkResult(add, fmt.Sprintf("%s.results[%d]", at, i), res, rules)
		}
	}
	return p
}

func checkResult(add func(rule, at, format string, a ...any), at string, res result, rules []rule) {
	switch {
	case res.RuleIndex != nil && (*res.RuleIndex < 0 || *res.RuleIndex >= len(rules)):
		add("SARIF1009", at+".ruleIndex", "%d is not an index of the %d rules", *res.RuleIndex, len(rules))
	case res.RuleIndex != nil && rules[*res.RuleIndex].ID != res.RuleID:
		add("SARIF1010", at+".ruleId", "%q, but rules[%d] is %q", res.RuleID, *res.RuleIndex, rules[*res.RuleIndex].ID)
	case res.RuleIndex == nil:
		found := false
		for _, ru := range rules {
			found = found || ru.ID == res.RuleID
		}
		if !found {
			add("GH1015", at+".ruleId", "%q is not in tool.driver.rules", res.RuleID)
		}
	}
	msg := ""
	if res.Message == nil || strings.TrimSpace(res.Message.Text) == "" {
		add("GH1015", at+".message", "no message text")
	} else {
		msg = res.Message.Text
	}
	if len(res.PartialFingerprints) == 0 {
		add("GH1015", at, "no partialFingerprints")
	}
	if res.Locations == nil || len(*res.Locations) == 0 {
		add("GH1015", at, "no locations")
	} else {
		if len(*res.Locations) > maxLocationsPerResult {
			add("GH1004", at+".locations", "%d locations, code scanning shows %d", len(*res.Locations), maxLocationsPerResult)
		}
		for i, loc := range *res.Locations {
			checkLocation(add, fmt.Sprintf("%s.locations[%d]", at, i), loc)
		}
	}
	ids := map[int]bool{}
	for i, loc := range res.RelatedLocations {
		lat := fmt.Sprintf("%s.relatedLocations[%d]", at, i)
		checkLocation(add, lat, loc)
		if loc.Message == nil {
			add("GH1007", lat, "no message")
		}
		switch {
		case loc.ID == nil:
			add("GitHub", lat, "no id: the message cannot link it, so code scanning does not show it")
		case ids[*loc.ID]:
			add("SARIF", lat+".id", "%d is not unique", *loc.ID)
		default:
			ids[*loc.ID] = true
		}
	}
	linked := map[int]bool{}
	for _, m := range embeddedLink.FindAllStringSubmatch(msg, -1) {
		var id int
		fmt.Sscan(m[2], &id)
		linked[id] = true
		if !ids[id] {
			add("SARIF", at+".message", "links %q to location %d, which no related location has", m[0], id)
		}
	}
	for id := range ids {
		if !linked[id] {
			add("GitHub", at+".message", "does not link related location %d, so code scanning does not show it", id)
		}
	}
}

func checkLocation(add func(rule, at, format string, a ...any), at string, loc location) {
	pl := loc.PhysicalLocation
	if pl == nil {
		add("GH1016", at, "no physicalLocation")
		return
	}
	if pl.ArtifactLocation == nil || pl.ArtifactLocation.URI == nil || *pl.ArtifactLocation.URI == "" {
		add("GH1001", at+".physicalLocation", "no artifactLocation.uri")
	} else {
		uri := *pl.ArtifactLocation.URI
		u, err := url.Parse(uri)
		switch {
		case err != nil:
			add("SARIF1002", at+".physicalLocation.artifactLocation.uri", "%q: %v", uri, err)
		case u.IsAbs() && u.Scheme != "file":
			add("GH1005", at+".physicalLocation.artifactLocation.uri", "%q is not a file path", uri)
		case u.IsAbs() || strings.HasPrefix(uri, "/"):
			add("GH1006", at+".physicalLocation.artifactLocation.uri", "%q is absolute: code scanning needs a path relative to the checkout", uri)
		case strings.HasPrefix(uri, "../") || uri == "..":
			add("GH1006", at+".physicalLocation.artifactLocation.uri", "%q leaves the checkout", uri)
		}
	}
	if pl.Region == nil {
		add("GH1003", at+".physicalLocation", "no region")
	} else if pl.Region.StartLine < 1 {
		add("GH1003", at+".physicalLocation.region", "startLine %d, want 1 or more", pl.Region.StartLine)
	}
}
