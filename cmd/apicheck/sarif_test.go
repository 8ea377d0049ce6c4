package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
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
}
-- head/pkg/apis/core/v1beta1/seed.go --
(deleted)
`

// TestSARIFRegionsExistAtHead: every result of a check full of removals
// points at a file that exists at head and at a line that file has (the
// deletion points of internal/rules), so code scanning can show it on
// the pull request's diff.
func TestSARIFRegionsExistAtHead(t *testing.T) {
	t.Parallel()
	fx := gitfixture.FromTxtar(t, []byte(removalsHistory))
	head := fx.Commits["head"]
	r := run(t, fx.Dir, nil, "check", "--base", fx.Commits["base"], "--head", head, "--format", "sarif")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s", r.code, r.stderr)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           *struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, res := range log.Runs[0].Results {
		rules[res.RuleID] = true
		if len(res.Locations) != 1 {
			t.Errorf("%s: %d locations", res.RuleID, len(res.Locations))
			continue
		}
		pl := res.Locations[0].PhysicalLocation
		uri := pl.ArtifactLocation.URI
		content := fx.Git("cat-file", "-p", head+":"+uri)
		lines := strings.Count(content, "\n") + 1
		if pl.Region == nil || pl.Region.StartLine < 1 || pl.Region.StartLine > lines {
			t.Errorf("%s: %s region %+v outside the %d lines the file has at head", res.RuleID, uri, pl.Region, lines)
		}
	}
	for _, want := range []string{"FIELD_REMOVED_WITHOUT_TOMBSTONE", "TYPE_REMOVED"} {
		if !rules[want] {
			t.Errorf("no %s result; got %v", want, rules)
		}
	}
}
