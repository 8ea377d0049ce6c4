package rules

import (
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// ValidationLoosened is VALIDATION_LOOSENED.
var ValidationLoosened = &Rule{
	ID:       "VALIDATION_LOOSENED",
	Category: CatCompat,
	Severity: finding.Info,
	Relax:    relaxedToInfo,
	Judges:   []model.Attr{model.AttrValidation},
	Summary:  "The validation of an existing field got more permissive: a bound relaxed, an enum value or CEL rule removed.",
	Why:      "Compatible for clients; during a rolling upgrade, older API servers still reject the newly allowed values.",
	Fix:      "Nothing to fix; mention the relaxed validation in the release note.",
	Check:    validationCheck(false),
}
