package shoot

import (
	"testing"
)

// The gate forms and helper styles below are the ones
// gardener/gardener's Shoot validation used across its history (studied
// with git show at v1.60.0, v1.90.0, v1.120.0 and v1.149.0 of
// pkg/apis/core/validation/shoot.go and, since #13536,
// pkg/api/core/validation/shoot.go; the code is our own):
//
//	G1 versionutils.CheckVersionMeetsConstraint(version, ">= 1.31") in a variable (v1.60 … v1.120);
//	G2 versionutils.ConstraintK8sGreaterEqual135.CheckVersion(kubernetesVersion) inline (v1.149);
//	G3 a "< 1.35" gate that allows the field only below: an else branch, or an
//	   early return (validateKubeMaxPDVols, validateWatchCacheSizes);
//	G4 k8sLess134 = versionutils.ConstraintK8sLess134.CheckVersion(...) in a var block, then !k8sLess134;
//	G5 constraint variables of the package itself (var c = versionutils.MustNewConstraint(">= 1.35"));
//	H1 a helper that gets the field's path, validateAddons(spec.Addons, ..., fldPath.Child("addons")),
//	   forbidding fldPath itself under G2 (gardener #13845);
//	H2 the same two calls deep: validateKubernetes(..., fldPath.Child("kubernetes")) ->
//	   validateKubeScheduler(..., fldPath.Child("kubeScheduler")) -> validateKubeMaxPDVols(..., fldPath.Child("kubeMaxPDVols"));
//	H3 a path in a local variable: path := fldPath.Child("x"); field.Forbidden(path, ...);
//	H4 fldPath.Child("watchCacheSizes", "default") in one call.

var (
	addons        = Field{GoName: "Addons", JSONName: "addons", Path: "spec.addons", Parents: []string{"Spec"}}
	kubeMaxPDVols = Field{GoName: "KubeMaxPDVols", JSONName: "kubeMaxPDVols",
		Path: "spec.kubernetes.kubeScheduler.kubeMaxPDVols", Parents: []string{"KubeScheduler"}}
	anonAuth = Field{GoName: "EnableAnonymousAuthentication", JSONName: "enableAnonymousAuthentication",
		Path: "spec.kubernetes.kubeAPIServer.enableAnonymousAuthentication", Parents: []string{"KubeAPIServer"}}
	imagePull = Field{GoName: "ImagePullCredentialsVerificationPolicy", JSONName: "imagePullCredentialsVerificationPolicy",
		Path: "spec.kubernetes.kubelet.imagePullCredentialsVerificationPolicy", Parents: []string{"Kubelet"}}
	operation        = Field{GoName: "Operation", JSONName: "operation", Path: "spec.operation", Parents: []string{"Spec"}}
	proxyMode        = Field{GoName: "Mode", JSONName: "mode", Path: "spec.kubernetes.kubeProxy.mode", Parents: []string{"KubeProxy"}}
	schedulerProfile = Field{GoName: "Profile", JSONName: "profile",
		Path: "spec.kubernetes.kubeScheduler.profile", Parents: []string{"KubeScheduler"}}
	otherDefault = Field{GoName: "Default", JSONName: "default", Path: "spec.other.default", Parents: []string{"Other"}}
)

const helperSrc = `package validation

import (
	"example.com/api/pkg/apis/core"
	"example.com/api/pkg/utils/field"
	versionutils "example.com/api/pkg/utils/version"
)

var constraintK8sGreaterEqual136 = versionutils.MustNewConstraint(">= 1.36")

func ValidateShootSpec(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, validateAddons(spec.Addons, spec.Kubernetes.Version, fldPath.Child("addons"))...)
	allErrs = append(allErrs, validateKubernetes(spec.Kubernetes, fldPath.Child("kubernetes"))...)
	allErrs = append(allErrs, validateOperation(spec.Operation, spec.Kubernetes.Version, fldPath.Child("operation"))...)
	return allErrs
}

func validateAddons(addons *core.Addons, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if addons == nil {
		return allErrs
	}
	if versionutils.ConstraintK8sGreaterEqual135.CheckVersion(kubernetesVersion) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "for Kubernetes versions >= 1.35, addons field is no longer supported"))
		return allErrs
	}
	return allErrs
}

func validateKubernetes(kubernetes core.Kubernetes, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if ks := kubernetes.KubeScheduler; ks != nil {
		allErrs = append(allErrs, validateKubeScheduler(ks, kubernetes.Version, fldPath.Child("kubeScheduler"))...)
	}
	if kubeAPIServer := kubernetes.KubeAPIServer; kubeAPIServer != nil {
		allErrs = append(allErrs, ValidateKubeAPIServer(kubeAPIServer, kubernetes.Version, fldPath.Child("kubeAPIServer"))...)
	}
	if kubelet := kubernetes.Kubelet; kubelet != nil {
		allErrs = append(allErrs, validateKubelet(*kubelet, kubernetes.Version, fldPath.Child("kubelet"))...)
	}
	if kubeProxy := kubernetes.KubeProxy; kubeProxy != nil {
		allErrs = append(allErrs, validateKubeProxy(kubeProxy, kubernetes.Version, fldPath.Child("kubeProxy"))...)
	}
	return allErrs
}

func validateKubeScheduler(ks *core.KubeSchedulerConfig, version string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if ks.KubeMaxPDVols != nil {
		allErrs = append(allErrs, validateKubeMaxPDVols(*ks.KubeMaxPDVols, version, fldPath.Child("kubeMaxPDVols"))...)
	}
	if ks.Profile != nil {
		allErrs = append(allErrs, validateProfile(*ks.Profile, fldPath.Child("profile"))...)
	}
	return allErrs
}

func validateKubeMaxPDVols(kubeMaxPDVols string, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if versionutils.ConstraintK8sGreaterEqual135.CheckVersion(kubernetesVersion) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "for Kubernetes version >= 1.35, kubeMaxPDVols field is no longer supported"))
	} else if num, err := strconv.Atoi(kubeMaxPDVols); err != nil || num < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath, kubeMaxPDVols, "must be a positive number"))
	}
	return allErrs
}

// validateProfile is not gated: the profile is not deprecated.
func validateProfile(profile string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if profile == "" {
		allErrs = append(allErrs, field.NotSupported(fldPath, profile, []string{"balanced", "bin-packing"}))
	}
	return allErrs
}

func ValidateKubeAPIServer(kubeAPIServer *core.KubeAPIServerConfig, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if versionutils.ConstraintK8sLess135.CheckVersion(kubernetesVersion) {
		return allErrs
	}
	if kubeAPIServer.EnableAnonymousAuthentication != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("enableAnonymousAuthentication"), "for Kubernetes versions >= 1.35, enableAnonymousAuthentication field is no longer supported"))
	}
	if kubeAPIServer.WatchCacheSizes != nil && kubeAPIServer.WatchCacheSizes.Default != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("watchCacheSizes", "default"), "no longer supported"))
	}
	return allErrs
}

func validateKubelet(kubelet core.KubeletConfig, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if v := kubelet.ImagePullCredentialsVerificationPolicy; v != nil {
		path := fldPath.Child("imagePullCredentialsVerificationPolicy")
		// A field new in 1.35: forbidden *below* 1.35, not from a version on.
		if versionutils.ConstraintK8sLess135.CheckVersion(kubernetesVersion) {
			allErrs = append(allErrs, field.Forbidden(path, "only available for Kubernetes versions >= 1.35"))
		}
	}
	return allErrs
}

func validateKubeProxy(kubeProxy *core.KubeProxyConfig, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if constraintK8sGreaterEqual136.Check(semver.MustParse(kubernetesVersion)) && kubeProxy.Mode != nil {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("mode"), *kubeProxy.Mode, []string{"iptables", "nftables"}))
	}
	return allErrs
}

func validateOperation(operation *string, kubernetesVersion string, fldPath *field.Path) field.ErrorList {
	var (
		allErrs    = field.ErrorList{}
		k8sLess134 = versionutils.ConstraintK8sLess134.CheckVersion(kubernetesVersion)
	)
	if operation != nil && !k8sLess134 {
		allErrs = append(allErrs, field.Forbidden(fldPath, "for Kubernetes versions >= 1.34, the operation is no longer supported"))
	}
	return allErrs
}
`

func TestValidationForms(t *testing.T) {
	files := parse(t, helperSrc)
	cases := []struct {
		f    Field
		want string // lowest version from which it is forbidden; "" for none
		at   string // file:line:col of the first hit
	}{
		{addons, "1.35", "x.go:13:81"},        // H1: the caller's fldPath.Child("addons")
		{kubeMaxPDVols, "1.35", "x.go:51:79"}, // H2: the call naming the field, two calls below ValidateShootSpec
		{anonAuth, "1.35", ""},                // G3: after an early "< 1.35" return
		{watchDefault, "1.35", ""},            // H4
		{otherDefault, "", ""},                // a "default" segment under another parent
		{imagePull, "", ""},                   // forbidden below 1.35 only
		{proxyMode, "1.36", ""},               // G5 and field.NotSupported
		{operation, "1.34", ""},               // G4
		{schedulerProfile, "", ""},            // NotSupported without a gate
	}
	for _, c := range cases {
		hits := Validation(files, c.f)
		if c.want == "" {
			if len(hits) != 0 {
				t.Errorf("%s: unexpected gated validation %v", c.f.Path, hits)
			}
			continue
		}
		if len(hits) == 0 {
			t.Errorf("%s: no gated validation found", c.f.Path)
			continue
		}
		min := hits[0].From
		for _, h := range hits[1:] {
			if h.From.Less(min) {
				min = h.From
			}
		}
		if min.String() != c.want {
			t.Errorf("%s: forbidden from %s, want %s", c.f.Path, min, c.want)
		}
		if c.at != "" && hits[0].Pos.String() != c.at {
			t.Errorf("%s: first hit at %s, want %s", c.f.Path, hits[0].Pos, c.at)
		}
	}
}

// A gate at the call site counts for a helper without one; nested gates
// are a conjunction, so the higher version wins.
func TestValidationGateAtCallSite(t *testing.T) {
	files := parse(t, `package validation

func ValidateShootSpec(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if versionutils.ConstraintK8sGreaterEqual135.CheckVersion(spec.Kubernetes.Version) {
		allErrs = append(allErrs, forbidIfSet(spec.Addons != nil, fldPath.Child("addons"))...)
	}
	k8sGreaterEqual131, _ := versionutils.CheckVersionMeetsConstraint(spec.Kubernetes.Version, ">= 1.31")
	if k8sGreaterEqual131 {
		if versionutils.ConstraintK8sGreaterEqual133.Check(v) && spec.Kubernetes.KubeScheduler.KubeMaxPDVols != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("kubernetes", "kubeScheduler", "kubeMaxPDVols"), "forbidden"))
		}
	}
	return allErrs
}

func forbidIfSet(set bool, fldPath *field.Path) field.ErrorList {
	if set {
		return field.ErrorList{field.Forbidden(fldPath, "forbidden")}
	}
	return nil
}
`)
	if hits := Validation(files, addons); len(hits) != 1 || hits[0].From.String() != "1.35" {
		t.Errorf("addons: got %v, want one hit from 1.35", hits)
	}
	if hits := Validation(files, kubeMaxPDVols); len(hits) != 1 || hits[0].From.String() != "1.33" {
		t.Errorf("kubeMaxPDVols: got %v, want one hit from 1.33", hits)
	}
}

// Following a path parameter stops after two calls and ignores recursion.
func TestValidationFollowDepth(t *testing.T) {
	files := parse(t, `package validation

func ValidateShootSpec(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList {
	return a(spec, fldPath.Child("addons"))
}

func a(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList { return b(spec, fldPath) }

func b(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList { return c(spec, fldPath) }

func c(spec *core.ShootSpec, fldPath *field.Path) field.ErrorList {
	if versionutils.ConstraintK8sGreaterEqual135.CheckVersion(spec.Kubernetes.Version) {
		return field.ErrorList{field.Forbidden(fldPath, "forbidden")}
	}
	return c(spec, fldPath)
}
`)
	if hits := Validation(files, addons); len(hits) != 0 {
		t.Errorf("three calls deep: got %v, want none", hits)
	}
}
