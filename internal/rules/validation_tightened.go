package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ValidationTightened is VALIDATION_TIGHTENED.
var ValidationTightened = &Rule{
	ID:           "VALIDATION_TIGHTENED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Warning,
	Relax:        relaxedToInfo,
	Judges:       []model.Attr{model.AttrValidation},
	Summary: "The validation of an existing field got stricter: a bound raised or lowered against it, a pattern, format, " +
		"enum restriction, CEL rule (`XValidation`) or immutability added or changed (`+kubebuilder:validation:*`, `+k8s:*`). " +
		"Info for a minimum of at most 0 on an unsigned integer, which never held a negative value.",
	Why: "Objects stored under the old rules may violate the new ones: updates of them fail, and clients that " +
		"relied on the old range are rejected.",
	Fix:    "Keep the old constraint, or ratchet the new one (apply it only to new or changed values).",
	Before: "// +kubebuilder:validation:Maximum=10\nReplicas *int32 `json:\"replicas,omitempty\"`",
	After:  "// +kubebuilder:validation:Maximum=100 // as at base\nReplicas *int32 `json:\"replicas,omitempty\"`",
	Check:  validationCheck(true),
}
