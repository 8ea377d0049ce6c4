package sarifcheck

import (
	"strings"
	"testing"
)

const good = `{
  "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {"name": "apicheck", "version": "1.2.3", "informationUri": "https://example.com",
      "rules": [{"id": "A_RULE", "name": "ARule", "shortDescription": {"text": "s"}, "fullDescription": {"text": "f"},
        "help": {"text": "h"}, "helpUri": "https://example.com/rules#a_rule"}]}},
    "results": [{
      "ruleId": "A_RULE", "ruleIndex": 0, "message": {"text": "m\nSee [usage a.go:3](1)."},
      "locations": [{"physicalLocation": {"artifactLocation": {"uri": "pkg/t.go", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 4}}}],
      "relatedLocations": [{"id": 1, "message": {"text": "usage"},
        "physicalLocation": {"artifactLocation": {"uri": "a.go", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3}}}],
      "partialFingerprints": {"k/v1": "x"}
    }]
  }]
}`

const schema = "../../report/testdata/sarif-schema-2.1.0.json"

func TestGood(t *testing.T) {
	if p := GitHub([]byte(good)); len(p) > 0 {
		t.Fatalf("problems in a good log:\n%s", strings.Join(p, "\n"))
	}
	if err := Schema([]byte(good), schema); err != nil {
		t.Fatal(err)
	}
}

// Each mutation of the good log breaks one rule, which must be reported.
func TestBad(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`"version": "1.2.3"`, `"version": "main"`, "SARIF2005 $.runs[0].tool.driver.version"},
		{`"informationUri": "https://example.com",`, ``, "SARIF2005 $.runs[0].tool.driver: no informationUri"},
		{`"shortDescription": {"text": "s"}, `, ``, "GH2012 $.runs[0].tool.driver.rules[0]: no shortDescription"},
		{`"help": {"text": "h"}, `, ``, "GH2012 $.runs[0].tool.driver.rules[0]: no help text"},
		{`"fullDescription": {"text": "f"}`, `"fullDescription": {"text": " "}`, "GH2012 $.runs[0].tool.driver.rules[0]: no fullDescription"},
		{`"ruleIndex": 0`, `"ruleIndex": 1`, "SARIF1009"},
		{`"ruleId": "A_RULE"`, `"ruleId": "B_RULE"`, "SARIF1010"},
		{`"ruleId": "A_RULE", "ruleIndex": 0`, `"ruleId": "B_RULE"`, "GH1015 $.runs[0].results[0].ruleId"},
		{`"partialFingerprints": {"k/v1": "x"}`, `"partialFingerprints": {}`, "GH1015 $.runs[0].results[0]: no partialFingerprints"},
		{`"text": "m\nSee [usage a.go:3](1)."`, `"text": ""`, "GH1015 $.runs[0].results[0].message"},
		{`"uri": "pkg/t.go"`, `"uri": "https://example.com/pkg/t.go"`, "GH1005"},
		{`"uri": "pkg/t.go"`, `"uri": "file:///work/pkg/t.go"`, "GH1006"},
		{`"uri": "a.go"`, `"uri": "/work/a.go"`, "GH1006 $.runs[0].results[0].relatedLocations[0]"},
		{`"region": {"startLine": 4}`, `"region": {"startColumn": 4}`, "GH1003 $.runs[0].results[0].locations[0].physicalLocation.region"},
		{`, "region": {"startLine": 3}`, ``, "GH1003 $.runs[0].results[0].relatedLocations[0].physicalLocation: no region"},
		{`"message": {"text": "usage"},`, ``, "GH1007"},
		{`See [usage a.go:3](1).`, `See usage a.go:3.`, "does not link related location 1"},
		{`See [usage a.go:3](1).`, `See [usage a.go:3](2).`, "which no related location has"},
		{`"locations": [{"physicalLocation": {"artifactLocation": {"uri": "pkg/t.go", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 4}}}],`, ``, "GH1015 $.runs[0].results[0]: no locations"},
		{`"version": "2.1.0"`, `"version": "2.0.0"`, "GH1013"},
		{`sarif-schema-2.1.0.json`, `sarif-schema-2.1.0-rtm.4.json`, "GH1011"},
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("the good log has no %q", c.old)
		}
		bad := strings.Replace(good, c.old, c.new, 1)
		p := strings.Join(GitHub([]byte(bad)), "\n")
		if !strings.Contains(p, c.want) {
			t.Errorf("%q → %q: want a problem %q, got:\n%s", c.old, c.new, c.want, p)
		}
	}
	if Schema([]byte(strings.Replace(good, `"startLine": 4`, `"startLine": 0`, 1)), schema) == nil {
		t.Error("the schema accepts startLine 0")
	}
}
