package main_test

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
	"github.com/apicheck/apicheck/internal/testutil/sarifcheck"
)

// removalsHistory removes elements in every way that leaves nothing at
// their base position at head: the last field of a struct, a type at the
// end of a file that gets much shorter, a whole file of a version, a
// constant, and a whole version's files but one.
const removalsHistory = `
-- base/go.mod --
module example.com/m

go 1.22
-- base/pkg/apis/core/v1beta1/doc.go --
// +groupName=core.example.cloud
package v1beta1
-- base/pkg/apis/core/v1beta1/generated.proto --
syntax = "proto2";
-- base/pkg/apis/core/v1beta1/types.go --
package v1beta1

// Shoot is a cluster.
type Shoot struct {
	// +optional
	Spec *ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,1,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	// +optional
	Region *string ` + "`json:\"region,omitempty\" protobuf:\"bytes,2,opt,name=region\"`" + `
	// +optional
	Mode *Mode ` + "`json:\"mode,omitempty\" protobuf:\"bytes,3,opt,name=mode\"`" + `
	// Zone is tombstoned to show why 9 is reserved protobuf tag.
	// Zone *string ` + "`json:\"zone,omitempty\" protobuf:\"bytes,9,opt,name=zone\"`" + `
}

// Mode is a mode.
type Mode string

const (
	// ModeA is A.
	ModeA Mode = "a"
	// ModeB is B.
	ModeB Mode = "b"
)

// Padding makes the file longer than it will be at head.
type Padding struct {
	// +optional
	A *string ` + "`json:\"a,omitempty\" protobuf:\"bytes,1,opt,name=a\"`" + `
	// +optional
	B *string ` + "`json:\"b,omitempty\" protobuf:\"bytes,2,opt,name=b\"`" + `
	// +optional
	C *string ` + "`json:\"c,omitempty\" protobuf:\"bytes,3,opt,name=c\"`" + `
	// +optional
	D *string ` + "`json:\"d,omitempty\" protobuf:\"bytes,4,opt,name=d\"`" + `
}
-- base/pkg/apis/core/v1beta1/seed.go --
package v1beta1

// Seed is a seed.
type Seed struct {
	// +optional
	Spec *SeedSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,1,opt,name=spec\"`" + `
}

// SeedSpec is the spec.
type SeedSpec struct {
	// +optional
	Provider *string ` + "`json:\"provider,omitempty\" protobuf:\"bytes,1,opt,name=provider\"`" + `
}
-- head/pkg/apis/core/v1beta1/types.go --
package v1beta1

// Shoot is a cluster.
type Shoot struct {
	// +optional
	Spec *ShootSpec ` + "`json:\"spec,omitempty\" protobuf:\"bytes,1,opt,name=spec\"`" + `
}

// ShootSpec is the spec.
type ShootSpec struct {
	// +optional
	Purpose *string ` + "`json:\"purpose,omitempty\" protobuf:\"bytes,1,opt,name=purpose\"`" + `
	// Zone is tombstoned to show why 9 is reserved protobuf tag.
	// Zone *string ` + "`json:\"zone,omitempty\" protobuf:\"bytes,9,opt,name=zone\"`" + `
	// +optional
	Area *string ` + "`json:\"area,omitempty\" protobuf:\"bytes,9,opt,name=area\"`" + `
}
-- head/pkg/apis/core/v1beta1/seed.go --
(deleted)
`

// TestSARIFRegionsExistAtHead: every result of a check full of removals
// points at a file that exists at head and at a line that file has (the
// deletion points of internal/rules), so code scanning can show it on
// the pull request's diff; so does every related location; and the log
// passes the SARIF schema and GitHub code scanning's rules (sarifcheck).
func TestSARIFRegionsExistAtHead(t *testing.T) {
	t.Parallel()
	fx := gitfixture.FromTxtar(t, []byte(removalsHistory))
	rules, related := checkSARIFAtHead(t, fx, fx.Commits["base"], fx.Commits["head"])
	for _, want := range []string{"FIELD_REMOVED_WITHOUT_TOMBSTONE", "TYPE_REMOVED", "PROTO_NUMBER_REUSED"} {
		if !rules[want] {
			t.Errorf("no %s result; got %v", want, rules)
		}
	}
	if related == 0 {
		t.Error("no related location (the tombstone that the reused number 9 breaks is one, at head)")
	}
}

// The example's findings include a usage at base in a file that head
// deletes: it is named in the message, never a related location that
// code scanning would resolve at head.
func TestSARIFExampleAtHead(t *testing.T) {
	t.Parallel()
	fx := example(t)
	rules, _ := checkSARIFAtHead(t, fx, fx.Commits["base"], fx.Commits["head"])
	if !rules["FIELD_REMOVED_STILL_USED"] {
		t.Errorf("no FIELD_REMOVED_STILL_USED result; got %v", rules)
	}
}

type sarifLocation struct {
	ID               int
	Message          struct{ Text string }
	PhysicalLocation struct {
		ArtifactLocation struct{ URI, URIBaseID string }
		Region           *struct{ StartLine int }
	}
}

// checkSARIFAtHead runs check --format sarif from base to head and checks
// the log (schema, GitHub's rules) and that every location and related
// location is a file at head and a line it has. It returns the rules of
// the results and the number of related locations.
func checkSARIFAtHead(t *testing.T, fx *gitfixture.Fixture, base, head string) (map[string]bool, int) {
	t.Helper()
	r := run(t, fx.Dir, nil, "check", "--base", base, "--head", head, "--format", "sarif")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s", r.code, r.stderr)
	}
	if err := sarifcheck.Schema([]byte(r.stdout), filepath.Join("..", "..", "internal", "report", "testdata", "sarif-schema-2.1.0.json")); err != nil {
		t.Errorf("SARIF does not validate against the schema: %v", err)
	}
	if p := sarifcheck.GitHub([]byte(r.stdout)); len(p) > 0 {
		t.Errorf("SARIF breaks GitHub code scanning's rules:\n%s", strings.Join(p, "\n"))
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID           string `json:"ruleId"`
				Locations        []sarifLocation
				RelatedLocations []sarifLocation
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{} // lines of the files at head; -1: no such file
	for _, f := range strings.Split(strings.TrimSpace(fx.Git("ls-tree", "-r", "--name-only", head)), "\n") {
		lines[f] = 0 // counted when a location needs it
	}
	atHead := func(what string, l sarifLocation) {
		uri, err := url.PathUnescape(l.PhysicalLocation.ArtifactLocation.URI)
		if err != nil {
			t.Errorf("%s: uri %q: %v", what, l.PhysicalLocation.ArtifactLocation.URI, err)
			return
		}
		n, ok := lines[uri]
		switch {
		case !ok:
			n = -1
		case n == 0:
			n = strings.Count(fx.Git("cat-file", "-p", head+":"+uri), "\n") + 1
			lines[uri] = n
		}
		switch {
		case n < 0:
			t.Errorf("%s: %s does not exist at head", what, uri)
		case l.PhysicalLocation.Region == nil || l.PhysicalLocation.Region.StartLine < 1 || l.PhysicalLocation.Region.StartLine > n:
			t.Errorf("%s: %s region %+v outside the %d lines the file has at head", what, uri, l.PhysicalLocation.Region, n)
		}
	}
	rules := map[string]bool{}
	related := 0
	for _, res := range log.Runs[0].Results {
		rules[res.RuleID] = true
		if len(res.Locations) != 1 {
			t.Errorf("%s: %d locations", res.RuleID, len(res.Locations))
		}
		for _, l := range res.Locations {
			atHead(res.RuleID, l)
		}
		for _, l := range res.RelatedLocations {
			atHead(res.RuleID+" related "+l.Message.Text, l)
			related++
		}
	}
	return rules, related
}
