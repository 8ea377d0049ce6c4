package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
)

// ShootDeprecationNoMaintenance is SHOOT_DEPRECATION_NO_MAINTENANCE.
var ShootDeprecationNoMaintenance = &Rule{
	ID:       "SHOOT_DEPRECATION_NO_MAINTENANCE",
	Relax:    offIn(nil, model.ProfileKubernetes, model.ProfileCRD, model.ProfileComponentConfig),
	Requires: []Input{InputShootStages},
	Category: CatShoot,
	Severity: finding.Warning,
	Summary: "A release ships a Shoot spec field deprecated for a Kubernetes version that the maintenance reconciler does not set " +
		"to nil on forced Kubernetes upgrades (info on a pull request that newly deprecates it).",
	Why: "A forced upgrade to a Kubernetes version that forbids the field would otherwise be rejected by validation." + stagesWhy,
	Fix: "In the maintenance reconciler, set the field to nil when the Shoot is forcefully upgraded to a version where it is forbidden.",
	Check: deprecationStage(stageRule{
		stage:   shoot.StageMaintenance,
		missing: "the maintenance reconciler never sets it to nil",
		hint:    "set %s to nil in the maintenance reconciler when a forced upgrade reaches the Kubernetes version that forbids it",
	}),
}
