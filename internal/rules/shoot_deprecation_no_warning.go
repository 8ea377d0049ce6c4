package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootDeprecationNoWarning is SHOOT_DEPRECATION_NO_WARNING.
var ShootDeprecationNoWarning = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_WARNING",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Error,
	Summary: "A release ships a Shoot spec field deprecated for a Kubernetes version without a warning referring to it " +
		"(info on a pull request that newly deprecates it).",
	Why: "Users only learn that a field they set is deprecated, and from which Kubernetes version it is forbidden, from the API server's warnings." +
		stagesWhy,
	Fix: "Return a warning from GetWarnings (WarningsOnCreate/WarningsOnUpdate) when the field is set, naming the Kubernetes version from which it is forbidden.",
	Check: deprecationStage(stageRule{
		stage:   shoot.StageWarnings,
		missing: "no warning mentions it",
		hint:    "warn when %s is set (WarningsOnCreate/WarningsOnUpdate), saying from which Kubernetes version it is forbidden",
	}),
}
