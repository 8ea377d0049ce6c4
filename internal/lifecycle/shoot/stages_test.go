package shoot

import (
	"strings"
	"testing"
)

// The styles below are the ones gardener/gardener writes its Shoot
// deprecation stages in (studied with the code search; the snippets here
// are our own, written to the same shapes):
//
// Warnings (pkg/api/core/shoot/warnings.go, GetWarnings; stored version at
// commit 00c0a0027663985984d70228602cd6d903703c3e):
//   W1 a full selector chain under a version comparison, with the JSON path
//      in the message: `versionutils.CompareVersions(shoot.Spec.Kubernetes.Version, "<", "1.33")`
//      `&& shoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete != nil` (maxEmptyBulkDelete);
//   W2 the parent in a local variable: `if kubeControllerManager := shoot.Spec.Kubernetes.KubeControllerManager;`
//      `... kubeControllerManager.PodEvictionTimeout != nil` (podEvictionTimeout);
//   W3 a Constraint object gate: `versionutils.ConstraintK8sGreaterEqual133.Check(kubernetesVersion) &&`
//      `ptr.Deref(shoot.Spec.CloudProfileName, "") != ""` (cloudProfileName);
//   W4 a helper building the path: GetKubeAPIServerWarnings with
//      `fldPath.Child("watchCacheSizes", "default")` and `kubeAPIServer.WatchCacheSizes.Default`;
//   W5 a loop over a list: GetDNSProviderWarnings, `provider.SecretName` and
//      `providerPath.Child("secretName")`.
// Validation (pkg/apis/core/validation/shoot.go; stored version at commit
// 9a3b641c1331b768757f0a1e28cad5054ef81fa4):
//   V1 the gate in a variable, the field in an if-init:
//      `k8sGreaterEqual132, _ := versionutils.CheckVersionMeetsConstraint(version, ">= 1.32")`
//      `if oidc := kubeAPIServer.OIDCConfig; k8sGreaterEqual132 && oidc != nil { field.Invalid(fldPath.Child("oidcConfig"), ...) }`;
//   V2 the gate variable as second conjunct:
//      `if oidc.ClientAuthentication != nil && k8sGreaterEqual131 { field.Invalid(oidcPath.Child("clientAuthentication"), ...) }`;
//   V3 the gate in the if-init, nested in a check of the field:
//      `if kubeletConfig.SystemReserved != nil { if k8sGreaterEqual131, _ := versionutils.CheckVersionMeetsConstraint(version, ">= 1.31"); k8sGreaterEqual131 { field.Invalid(fldPath.Child("systemReserved"), ...) } }`;
//   not a gate: `if ptr.Deref(kubernetes.EnableStaticTokenKubeconfig, false) { field.Invalid(...) }`.
//   The Constraint objects (pkg/utils/version: `ConstraintK8sGreaterEqual133 = MustNewConstraint(">= 1.33-0")`)
//   and CompareVersions(v, ">=", "1.33") are accepted as gates too.
// Maintenance (pkg/controllermanager/controller/shoot/maintenance/reconciler.go):
//   M1 a block with two CheckVersionMeetsConstraint variables ("< 1.33" of the old, ">= 1.33" of the new
//      version), then `maintainedShoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete = nil`
//      (also oidcConfig, podEvictionTimeout);
//   M2 Constraint objects inline, `versionutils.ConstraintK8sLess131.Check(old) && versionutils.ConstraintK8sGreaterEqual131.Check(new)`,
//      and per worker pool `maintainedShoot.Spec.Provider.Workers[i].Kubernetes.Kubelet.SystemReserved = nil`.
// Canonicalize (pkg/apiserver/registry/core/shoot/strategy.go, `func (shootStrategy) Canonicalize`):
//   C1 directly, guarded (commit 029a9a0738a189c16045f44c02e3d9cfbe222f01):
//      `if shoot.Spec.Kubernetes.ClusterAutoscaler != nil && ...MaxEmptyBulkDelete != nil { ...MaxEmptyBulkDelete = nil }`;
//   C2 directly, unguarded: `shoot.Spec.Kubernetes.EnableStaticTokenKubeconfig = nil` (an older version);
//   C3 through a helper: `dropEnableBasicAuthenticationField(shoot)` which sets
//      `shoot.Spec.Kubernetes.KubeAPIServer.EnableBasicAuthentication = nil` (an older version).
// Defaulting (pkg/apis/core/v1beta1/defaults_shoot.go):
//   `func SetDefaults_ClusterAutoscaler(obj *ClusterAutoscaler) { if obj.MaxEmptyBulkDelete == nil { obj.MaxEmptyBulkDelete = ptr.To[int32](10) } }`.
// Supported versions (supported-kubernetes-versions.yaml, commit
// 06cac43d8985998d5a5dd6400b9244b6ab9085b2): a mapping with a "versions"
// list of entries `version: "1.32"`, `addedIn`, `startDate`, `endDate`.
// The process itself: docs/development/changing-the-api.md and PRs #12115
// (deprecate maxEmptyBulkDelete), #12413 (forbid it for >= 1.33) and #13054
// (set it to nil in Canonicalize).

var (
	maxEmpty = Field{GoName: "MaxEmptyBulkDelete", JSONName: "maxEmptyBulkDelete",
		Path: "spec.kubernetes.clusterAutoscaler.maxEmptyBulkDelete", Parents: []string{"ClusterAutoscaler"}}
	podEviction = Field{GoName: "PodEvictionTimeout", JSONName: "podEvictionTimeout",
		Path: "spec.kubernetes.kubeControllerManager.podEvictionTimeout", Parents: []string{"KubeControllerManager"}}
	cloudProfileName = Field{GoName: "CloudProfileName", JSONName: "cloudProfileName",
		Path: "spec.cloudProfileName", Parents: []string{"Spec"}}
	watchDefault = Field{GoName: "Default", JSONName: "default",
		Path: "spec.kubernetes.kubeAPIServer.watchCacheSizes.default", Parents: []string{"WatchCacheSizes"}}
	dnsSecretName = Field{GoName: "SecretName", JSONName: "secretName",
		Path: "spec.dns.providers.secretName", Parents: []string{"Providers"}}
	oidcConfig = Field{GoName: "OIDCConfig", JSONName: "oidcConfig",
		Path: "spec.kubernetes.kubeAPIServer.oidcConfig", Parents: []string{"KubeAPIServer"}}
	clientAuth = Field{GoName: "ClientAuthentication", JSONName: "clientAuthentication",
		Path: "spec.kubernetes.kubeAPIServer.oidcConfig.clientAuthentication", Parents: []string{"OIDCConfig"}}
	systemReserved = Field{GoName: "SystemReserved", JSONName: "systemReserved",
		Path: "spec.kubernetes.kubelet.systemReserved", Parents: []string{"Kubelet"}}
	staticToken = Field{GoName: "EnableStaticTokenKubeconfig", JSONName: "enableStaticTokenKubeconfig",
		Path: "spec.kubernetes.enableStaticTokenKubeconfig", Parents: []string{"Kubernetes"}}
	basicAuth = Field{GoName: "EnableBasicAuthentication", JSONName: "enableBasicAuthentication",
		Path: "spec.kubernetes.kubeAPIServer.enableBasicAuthentication", Parents: []string{"KubeAPIServer"}}
	unrelated = Field{GoName: "Purpose", JSONName: "purpose", Path: "spec.purpose", Parents: []string{"Spec"}}
)

func parse(t *testing.T, src string) []*File {
	t.Helper()
	files, err := Parse(map[string][]byte{"x.go": []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

const warningsSrc = `package shoot

func GetWarnings(shoot, oldShoot *core.Shoot) []string {
	var warnings []string
	if kubeControllerManager := shoot.Spec.Kubernetes.KubeControllerManager; kubeControllerManager != nil && kubeControllerManager.PodEvictionTimeout != nil {
		warnings = append(warnings, "you are setting the spec.kubernetes.kubeControllerManager.podEvictionTimeout field.")
	}
	if supportedVersion, _ := versionutils.CompareVersions(shoot.Spec.Kubernetes.Version, "<", "1.33"); supportedVersion && shoot.Spec.Kubernetes.ClusterAutoscaler != nil && shoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete != nil {
		warnings = append(warnings, "you are setting the spec.kubernetes.clusterAutoscaler.maxEmptyBulkDelete field.")
	}
	kubernetesVersion, err := semver.NewVersion(shoot.Spec.Kubernetes.Version)
	if err == nil && versionutils.ConstraintK8sGreaterEqual133.Check(kubernetesVersion) && ptr.Deref(shoot.Spec.CloudProfileName, "") != "" {
		warnings = append(warnings, "the field is deprecated")
	}
	if shoot.Spec.DNS != nil {
		warnings = append(warnings, GetDNSProviderWarnings(shoot.Spec.DNS, field.NewPath("spec", "dns"))...)
	}
	return warnings
}

func GetDNSProviderWarnings(dns *core.DNS, fldPath *field.Path) []string {
	var warnings []string
	for i, provider := range dns.Providers {
		if provider.SecretName != nil {
			warnings = append(warnings, fldPath.Child("providers").Index(i).Child("secretName").String())
		}
	}
	return warnings
}

func GetKubeAPIServerWarnings(kubeAPIServer *core.KubeAPIServerConfig, fldPath *field.Path) []string {
	var warnings []string
	if kubeAPIServer.WatchCacheSizes != nil && kubeAPIServer.WatchCacheSizes.Default != nil {
		warnings = append(warnings, fmt.Sprintf("you are setting the %s field.", fldPath.Child("watchCacheSizes", "default").String()))
	}
	if kubeAPIServer.Other.Default != nil {
	}
	return warnings
}
`

func TestWarnings(t *testing.T) {
	files := parse(t, warningsSrc)
	for _, f := range []Field{podEviction, maxEmpty, cloudProfileName, dnsSecretName, watchDefault} {
		if hits := Warnings(files, f); len(hits) == 0 {
			t.Errorf("%s: no warning found", f.GoName)
		}
	}
	if hits := Warnings(files, unrelated); len(hits) != 0 {
		t.Errorf("Purpose: unexpected warnings %v", hits)
	}
	// Only a path segment or a named parent counts: Other.Default is not
	// WatchCacheSizes.Default, and a message must name the path.
	onlyMessage := parse(t, `package shoot
func W(s *core.Shoot) []string {
	if s.Other.Default != nil { return []string{"defaulted"} }
	return []string{"see .spec.kubernetes.kubeAPIServer.watchCacheSizes.defaults"}
}`)
	if hits := Warnings(onlyMessage, watchDefault); len(hits) != 0 {
		t.Errorf("watchCacheSizes.default: unexpected warnings %v", hits)
	}
	byMessage := parse(t, `package shoot
func W() []string { return []string{"spec.kubernetes.kubeAPIServer.watchCacheSizes.default is deprecated"} }`)
	if hits := Warnings(byMessage, watchDefault); len(hits) != 1 {
		t.Errorf("watchCacheSizes.default by message: got %v", hits)
	}
}

const validationSrc = `package validation

func ValidateKubeAPIServer(kubeAPIServer *core.KubeAPIServerConfig, version string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	k8sGreaterEqual132, _ := versionutils.CheckVersionMeetsConstraint(version, ">= 1.32")
	if oidc := kubeAPIServer.OIDCConfig; k8sGreaterEqual132 && oidc != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("oidcConfig"), *oidc, "for Kubernetes versions >= 1.32, oidcConfig field is no longer supported"))
	} else if oidc != nil {
		oidcPath := fldPath.Child("oidcConfig")
		k8sGreaterEqual131, _ := versionutils.CheckVersionMeetsConstraint(version, ">= 1.31")
		if oidc.ClientAuthentication != nil && k8sGreaterEqual131 {
			allErrs = append(allErrs, field.Invalid(oidcPath.Child("clientAuthentication"), *oidc.ClientAuthentication, "no longer supported"))
		}
	}
	return allErrs
}

func validateKubelet(kubeletConfig core.KubeletConfig, version string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if kubeletConfig.SystemReserved != nil {
		if k8sGreaterEqual131, _ := versionutils.CheckVersionMeetsConstraint(version, ">= 1.31"); k8sGreaterEqual131 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("systemReserved"), kubeletConfig.SystemReserved, "no longer supported"))
		}
	}
	return allErrs
}

func validateKubernetes(kubernetes core.Kubernetes, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if ptr.Deref(kubernetes.EnableStaticTokenKubeconfig, false) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("enableStaticTokenKubeconfig"), *kubernetes.EnableStaticTokenKubeconfig, "not supported"))
	}
	return allErrs
}

func validateClusterAutoscaler(ca core.ClusterAutoscaler, v *semver.Version, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if versionutils.ConstraintK8sLess134.Check(v) {
		// allowed
	} else if ca.MaxEmptyBulkDelete != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("maxEmptyBulkDelete"), "forbidden"))
	}
	if ok, _ := versionutils.CompareVersions(v.String(), ">=", "1.33"); ok && ca.MaxEmptyBulkDelete != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("maxEmptyBulkDelete"), "forbidden"))
	}
	if !versionutils.ConstraintK8sLess135.Check(v) && ca.Purpose != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("purpose"), "forbidden"))
	}
	return allErrs
}
`

func TestValidation(t *testing.T) {
	files := parse(t, validationSrc)
	cases := []struct {
		f    Field
		want string // "" = not forbidden from a version on
	}{
		{oidcConfig, "1.32"},
		{clientAuth, "1.31"},
		{systemReserved, "1.31"},
		{staticToken, ""},
		{maxEmpty, "1.33"}, // min of the else branch (1.34) and CompareVersions (1.33)
		{unrelated, "1.35"},
		{podEviction, ""},
	}
	for _, c := range cases {
		hits := Validation(files, c.f)
		if c.want == "" {
			if len(hits) != 0 {
				t.Errorf("%s: unexpected gated validation %v", c.f.GoName, hits)
			}
			continue
		}
		if len(hits) == 0 {
			t.Errorf("%s: no gated validation found", c.f.GoName)
			continue
		}
		min := hits[0].From
		for _, h := range hits[1:] {
			if h.From.Less(min) {
				min = h.From
			}
		}
		if min.String() != c.want {
			t.Errorf("%s: forbidden from %s, want %s", c.f.GoName, min, c.want)
		}
	}
}

const maintenanceSrc = `package maintenance

func (r *Reconciler) reconcile(maintainedShoot *gardencorev1beta1.Shoot, oldShootKubernetesVersion, shootKubernetesVersion *semver.Version) {
	{
		oldK8sLess133, _ := versionutils.CheckVersionMeetsConstraint(oldShootKubernetesVersion.String(), "< 1.33")
		newK8sGreaterEqual133, _ := versionutils.CheckVersionMeetsConstraint(shootKubernetesVersion.String(), ">= 1.33")
		if oldK8sLess133 && newK8sGreaterEqual133 {
			if maintainedShoot.Spec.Kubernetes.ClusterAutoscaler != nil && maintainedShoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete != nil {
				maintainedShoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete = nil
			}
		}
	}
	if versionutils.ConstraintK8sLess131.Check(oldShootKubernetesVersion) && versionutils.ConstraintK8sGreaterEqual131.Check(shootKubernetesVersion) {
		for i := range maintainedShoot.Spec.Provider.Workers {
			maintainedShoot.Spec.Provider.Workers[i].Kubernetes.Kubelet.SystemReserved = nil
		}
	}
	maintainedShoot.Spec.Kubernetes.KubeControllerManager.PodEvictionTimeout = ptr.To("2m")
}
`

func TestMaintenance(t *testing.T) {
	files := parse(t, maintenanceSrc)
	if hits := Maintenance(files, maxEmpty); len(hits) != 1 {
		t.Errorf("maxEmptyBulkDelete: got %v", hits)
	}
	// KubeletConfig.SystemReserved is one field reachable through the
	// Shoot's and every worker pool's kubelet: resetting it per worker counts.
	if hits := Maintenance(files, systemReserved); len(hits) != 1 {
		t.Errorf("systemReserved: got %v", hits)
	}
	if hits := Maintenance(files, podEviction); len(hits) != 0 {
		t.Errorf("podEvictionTimeout is set to a value, not nil: got %v", hits)
	}
}

const strategySrc = `package shoot

func (shootStrategy) Canonicalize(obj runtime.Object) {
	shoot := obj.(*core.Shoot)
	if versionutils.ConstraintK8sGreaterEqual125.Check(semver.MustParse(shoot.Spec.Kubernetes.Version)) {
		cleanupAdmissionPlugins(shoot)
	}
	dropEnableBasicAuthenticationField(shoot)
	shoot.Spec.Kubernetes.EnableStaticTokenKubeconfig = nil
	if shoot.Spec.Kubernetes.ClusterAutoscaler != nil && shoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete != nil {
		shoot.Spec.Kubernetes.ClusterAutoscaler.MaxEmptyBulkDelete = nil
	}
}

func cleanupAdmissionPlugins(shoot *core.Shoot) {}

// dropEnableBasicAuthenticationField sets the enableBasicAuthentication to nil.
func dropEnableBasicAuthenticationField(shoot *core.Shoot) {
	if shoot.Spec.Kubernetes.KubeAPIServer != nil {
		shoot.Spec.Kubernetes.KubeAPIServer.EnableBasicAuthentication = nil
	}
}

func (shootStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	newShoot := obj.(*core.Shoot)
	newShoot.Spec.Kubernetes.KubeControllerManager.PodEvictionTimeout = nil
}
`

func TestCanonicalize(t *testing.T) {
	files := parse(t, strategySrc)
	for _, f := range []Field{maxEmpty, staticToken, basicAuth} {
		if hits := Canonicalize(files, f); len(hits) != 1 {
			t.Errorf("%s: got %v, want one hit", f.GoName, hits)
		}
	}
	if hits := Canonicalize(files, podEviction); len(hits) != 0 {
		t.Errorf("PrepareForUpdate is not Canonicalize: got %v", hits)
	}
}

func TestDefaulting(t *testing.T) {
	files := parse(t, `package v1beta1

// SetDefaults_ClusterAutoscaler sets default values for ClusterAutoscaler objects.
func SetDefaults_ClusterAutoscaler(obj *ClusterAutoscaler) {
	if obj.MaxEmptyBulkDelete == nil {
		obj.MaxEmptyBulkDelete = ptr.To[int32](10)
	}
	obj.PodEvictionTimeout = nil
}

func helper(obj *KubeletConfig) { obj.SystemReserved = ptr.To("x") }
`)
	if hits := Defaulting(files, maxEmpty); len(hits) != 1 {
		t.Errorf("maxEmptyBulkDelete: got %v", hits)
	}
	if hits := Defaulting(files, podEviction); len(hits) != 0 {
		t.Errorf("setting nil is not defaulting: got %v", hits)
	}
	if hits := Defaulting(files, systemReserved); len(hits) != 0 {
		t.Errorf("only SetDefaults_* functions default: got %v", hits)
	}
}

func TestSupportedVersions(t *testing.T) {
	gardener := `versions:
- version: "1.32"
  addedIn: "1.113.0"
  startDate: 2025-02-24
  endDate: 2026-04-24
- version: "1.33"
  addedIn: "1.122.0"
`
	cases := []struct {
		name, in, want, err string
	}{
		{"gardener", gardener, "1.32 1.33", ""},
		{"list of entries", "- version: 1.30\n- version: v1.31.2\n", "1.30 1.31", ""},
		{"plain list", "- \"1.29\"\n- 1.30\n", "1.29 1.30", ""},
		{"empty", "", "", "empty"},
		{"no versions key", "foo: bar\n", "", `no "versions" list`},
		{"entry without version", "versions:\n- addedIn: x\n", "", `no "version" key`},
		{"not a version", "versions:\n- version: latest\n", "", "not a Kubernetes version"},
		{"broken yaml", "versions: [\n", "", "yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs, err := SupportedVersions([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.String())
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("got %v, want %s", got, c.want)
			}
		})
	}
}
