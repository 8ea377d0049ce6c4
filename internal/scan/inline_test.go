package scan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// An inline embedded struct whose own inline member cannot be resolved
// (corev1.ResourceRequirements, k8s.io/api not in the module cache) is
// known in part: the members resolved, the inline types below it, and
// the ones whose members are unknown. A struct inlined twice, on two
// branches, is resolved on both.
func TestInlineMembersKnownInPart(t *testing.T) {
	src := mapSource{
		"go.mod": "module example.com/op\n\ngo 1.22\n",
		"api/shared/shared.go": "package shared\n\nimport corev1 \"k8s.io/api/core/v1\"\n\n// Common is shared.\ntype Common struct {\n\t// +optional\n\tReplicas *int32 `json:\"replicas,omitempty\"`\n\n\tcorev1.ResourceRequirements `json:\",inline\"`\n\tLabels `json:\",inline\"`\n}\n\n" +
			"// Labels are labels.\ntype Labels struct {\n\t// +optional\n\tTier *string `json:\"tier,omitempty\"`\n}\n\n// Both inlines Labels twice.\ntype Both struct {\n\tLabels `json:\",inline\"`\n\tMore   `json:\",inline\"`\n}\n\n// More inlines Labels.\ntype More struct {\n\tLabels `json:\",inline\"`\n}\n",
		"api/v1/types.go": "// +groupName=op.example.io\npackage v1\n\nimport \"example.com/op/api/shared\"\n\n// Spec is a spec.\ntype Spec struct {\n\tshared.Common `json:\",inline\"`\n\t*shared.Both  `json:\",inline\"`\n}\n",
	}
	m, err := scan.Scan(src, scan.Options{Profile: model.ProfileCRD})
	if err != nil {
		t.Fatal(err)
	}
	spec := m.Groups[0].Versions[0].Type("Spec")
	common, both := spec.Field("Common"), spec.Field("Both")
	type inline struct{ Promoted, Known, Unknown, Inlined []string }
	got := []inline{
		{common.Promoted, common.PromotedKnown, common.PromotedUnknown, common.InlinedTypes},
		{both.Promoted, both.PromotedKnown, both.PromotedUnknown, both.InlinedTypes},
	}
	want := []inline{
		{nil, []string{"replicas", "tier"}, []string{"k8s.io/api/core/v1.ResourceRequirements"},
			[]string{"k8s.io/api/core/v1.ResourceRequirements", "example.com/op/api/shared.Labels"}},
		{[]string{"tier", "tier"}, nil, nil,
			[]string{"example.com/op/api/shared.Labels", "example.com/op/api/shared.More", "example.com/op/api/shared.Labels"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("inline members of Common, Both (-want +got):\n%s", d)
	}
}
