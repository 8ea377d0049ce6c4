package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootDeprecationNoValidation is SHOOT_DEPRECATION_NO_VALIDATION.
var ShootDeprecationNoValidation = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_VALIDATION",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A release ships a Shoot spec field whose deprecation names a Kubernetes version without validation that forbids it " +
		"from a Kubernetes version on (info on a pull request that newly deprecates it).",
	Why: "The field can only be removed once no supported Kubernetes version allows it; that requires forbidding it " +
		"from the next minor version Gardener will support." + stagesWhy,
	Fix: "Forbid the field (field.Forbidden) for Kubernetes versions from the next supported minor version on, e.g. under versionutils.ConstraintK8sGreaterEqual1XX.Check(v).",
	Check: deprecationStage(stageRule{
		stage:   shoot.StageValidation,
		missing: "no validation forbids it from a Kubernetes version on",
		hint:    "add field.Forbidden for %s under a Kubernetes version gate (e.g. versionutils.ConstraintK8sGreaterEqual1XX.CheckVersion(v))",
	}),
}
