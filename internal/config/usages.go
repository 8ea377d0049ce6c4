package config

import (
	"slices"

	"github.com/apicheck/apicheck/internal/glob"
)

// Usages configures the usage search of the two-step removal rules
// (FIELD_REMOVED_STILL_USED, FIELD_REMOVAL_NOT_RELEASED): which code is not
// a usage of a removed field.
type Usages struct {
	// Exclude lists globs (see glob.Glob) of repository-relative files whose
	// references are not usages. Never nil in a Config from Default or
	// Parse; the entry "default" in the file stands for DefaultUsageExclude.
	Exclude []string
	// Pos is where exclude is set (zero when it is not).
	Pos Pos
}

// UsageExcludeDefaultEntry is the list entry that stands for the default
// exclusions, so a configuration can add to them.
const UsageExcludeDefaultEntry = "default"

// DefaultUsageExclude returns the default usage exclusions. Beyond these,
// the usage search always skips the removed field's API group directory
// and everything below it (conversion, defaulting, helpers, validation of
// the group), the configured Shoot stage files, vendor/ and testdata/, and
// files whose header says "Code generated ... DO NOT EDIT.".
func DefaultUsageExclude() []string {
	return []string{
		// Tests, test helper packages, mocks and fakes: they never run
		// against a live API server of another version.
		"*_test.go", "*test", "testing", "*fake*", "mock*",
		// Generated code, also when its header is missing.
		"zz_generated*", "*.pb.go",
		// Code that runs inside the API server and is upgraded together
		// with the types: registry strategies (current and older layouts),
		// the API packages' validation, warnings and helpers, admission
		// plugins, the API server's own command.
		"pkg/apiserver/**", "pkg/registry/**", "pkg/api/**", "pkg/apis/**/validation/**", "plugin/**",
		"cmd/*apiserver*/**",
		// Admission and authorization webhooks of the API server's
		// control plane: called by the API server about the object of a
		// request, rolled out with it (docs/configuration.md "usages").
		"pkg/admissioncontroller/**", "**/webhook/defaulting/**", "**/webhook/validation/**",
	}
}

// ExpandUsageExclude replaces the entry "default" by the default list. The
// result is never nil.
func ExpandUsageExclude(list []string) []string {
	out := []string{}
	for _, e := range list {
		if e == UsageExcludeDefaultEntry {
			out = append(out, DefaultUsageExclude()...)
			continue
		}
		out = append(out, e)
	}
	return slices.Compact(out)
}

// CompileGlobs compiles a usages.exclude list (after ExpandUsageExclude);
// the first invalid pattern is an error.
func CompileGlobs(list []string) ([]glob.Glob, error) {
	return glob.CompileAll(ExpandUsageExclude(list))
}
