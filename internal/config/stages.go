package config

import "slices"

// StageFiles locate the code of the Shoot deprecation stages (rules.md
// "Shoot deprecation stages"). Every entry is a repository-relative slash
// path; an entry ending in "/" names a directory (the non-test,
// non-generated Go files in it and below it), and an entry with "*" is a
// path.Match pattern. A strategy or validation entry stands for every Go
// file of its package (Canonicalize and the validation call helpers defined
// next to them). Where a configured path does not exist, the lifecycle
// analysis finds the stage by content (internal/lifecycle/shoot).
//
// A nil list means the default (see DefaultStageFiles and WithDefaults); an
// empty non-nil list means "none". A list set in the configuration file
// replaces the default list entirely; "[]" in the file is an empty list.
type StageFiles struct {
	// Warnings hold the WarningsOnCreate/WarningsOnUpdate code.
	Warnings []string
	// Validation holds the Kubernetes-version-gated validation of Shoot
	// fields.
	Validation []string
	// Strategy holds Canonicalize.
	Strategy []string
	// Maintenance holds the maintenance reconciler that resets fields on
	// forced Kubernetes upgrades.
	Maintenance []string
	// Defaults hold the defaulting functions of the Shoot API. Its default
	// is nil: the defaults*.go files of the version package of the field
	// in question.
	Defaults []string
	// SupportedVersions is the YAML file listing the supported Kubernetes
	// versions, read at head; "" means the default.
	SupportedVersions string
}

// DefaultStageFiles returns the default stage locations (Gardener's
// layout since gardener/gardener#13536 moved the validation to
// pkg/api/core/validation). Each call returns fresh slices.
func DefaultStageFiles() StageFiles {
	return StageFiles{
		Warnings:          []string{"pkg/api/core/shoot/warnings.go"},
		Validation:        []string{"pkg/api/core/validation/shoot.go"},
		Strategy:          []string{"pkg/apiserver/registry/core/shoot/strategy.go"},
		Maintenance:       []string{"pkg/controllermanager/controller/shoot/maintenance/"},
		Defaults:          nil, // the defaults*.go files of the field's version package
		SupportedVersions: "supported-kubernetes-versions.yaml",
	}
}

// WithDefaults returns s with every unset location (a nil list, an empty
// SupportedVersions) replaced by its default. Empty non-nil lists stay
// empty.
func (s StageFiles) WithDefaults() StageFiles {
	d := DefaultStageFiles()
	for _, f := range []struct{ v, def *[]string }{
		{&s.Warnings, &d.Warnings},
		{&s.Validation, &d.Validation},
		{&s.Strategy, &d.Strategy},
		{&s.Maintenance, &d.Maintenance},
		{&s.Defaults, &d.Defaults},
	} {
		if *f.v == nil {
			*f.v = slices.Clone(*f.def)
		}
	}
	if s.SupportedVersions == "" {
		s.SupportedVersions = d.SupportedVersions
	}
	return s
}
