package shoot

import "testing"

// Deprecation texts as gardener/gardener writes them on Shoot fields
// (pkg/apis/core/v1beta1/types_shoot.go at v1.100.0 … v1.149.0; quoted
// because the classification is about exactly this prose).
func TestForbiddenFrom(t *testing.T) {
	cases := []struct {
		doc, want string // want "" = not tied to a Kubernetes version
	}{
		{"Deprecated: This field is deprecated and will be forbidden starting from Kubernetes 1.35. Please use `CredentialsRef` instead.", "1.35"},
		{"Deprecated: This field is deprecated. Setting this field will be forbidden starting from Kubernetes 1.33 and will be removed once gardener drops support for kubernetes v1.32.", "1.33"},
		{"MaxEmptyBulkDelete specifies ...\n\nDeprecated: This field is deprecated and will be removed once gardener drops support for Kubernetes v1.32.", "1.33"},
		{"Deprecated: This field is deprecated and will be removed after support for Kubernetes v1.34 is dropped.", "1.35"},
		{"Deprecated: Separately configuring resource reservations for system processes is deprecated in Gardener and will be forbidden starting from Kubernetes 1.31.\nPlease merge existing resource reservations into the kubeReserved field.\nTODO(someone): Drop this field after support for Kubernetes 1.30 is dropped.", "1.31"},
		{"CloudProfileName is a name of a CloudProfile object.\nDeprecated: This field will be removed in a future version of Gardener. Use `CloudProfile` instead.\nStarting with Kubernetes v1.34, this field is set to empty string and must not be provided anymore.", "1.34"},
		{"Default is not respected anymore by kube-apiserver.\nThis field is forbidden for clusters with Kubernetes version >= 1.35.", "1.35"},
		{"Deprecated: This field is deprecated and will be forbidden for Kubernetes > 1.33.", "1.34"},
		// Not tied to a Kubernetes version:
		{"Deprecated: This field is deprecated and will be removed in gardener v1.120", ""},
		{"Deprecated: This field is deprecated and will be removed with release v1.138.", ""},
		{"Deprecated: Ignore taints are deprecated as of K8S 1.29 and treated as startup taints", ""},
		{"Deprecated: This field is deprecated and will be removed in a future release.\nPlease use anonymous authentication configuration instead.\nTODO(someone): Forbid this field when the feature gate AnonymousAuthConfigurableEndpoints has graduated.", ""},
		{"Until Kubernetes v1.33, this field is synced with the `CloudProfile` field.", ""},
		{"Deprecated: The corresponding kube-controller-manager flag is deprecated. The taint based eviction is beta since Kubernetes 1.13 and GA since Kubernetes 1.18.", ""},
	}
	for _, c := range cases {
		v, ok := ForbiddenFrom(c.doc)
		got := ""
		if ok {
			got = v.String()
		}
		if got != c.want {
			t.Errorf("ForbiddenFrom(%q) = %q, want %q", c.doc, got, c.want)
		}
	}
}
