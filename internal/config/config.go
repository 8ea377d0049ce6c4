// Package config holds apicheck's project configuration, the
// `.apicheck.yaml` file at the root of the repository, and its strict
// decoder.
//
// The configuration is plain data: the CLI turns it into scan and rule
// options, the suppression stage reads its ignore entries and the lifecycle
// analysis reads Releases and Shoot. It is a leaf package: it imports no
// other package of apicheck, so every stage may import it. What a file may
// name (rule IDs, profiles, severities) is injected by the caller as a
// Vocabulary.
package config

import "regexp"

// FileName is the configuration file apicheck reads from the root of the
// head revision.
const FileName = ".apicheck.yaml"

// Config is a decoded configuration. The zero value is not useful; start
// from Default or Parse.
type Config struct {
	// File is where the configuration was read from (as given to Parse);
	// "" when none was read and Default applies.
	File string

	// Profile is the repository's profile (one of Vocabulary.Profiles);
	// "" lets apicheck detect it from the repository.
	Profile string
	// ProfilePos is where profile is set.
	ProfilePos Pos

	// VersionSkew is the VERSION_SKEW policy: "all" (a change reaches every
	// version of a group) or "newest" (new fields may go to the newest
	// version only; older versions are frozen); "" is the profile's
	// default.
	VersionSkew string
	// VersionSkewPos is where versionSkew is set.
	VersionSkewPos Pos

	// Exclude are globs of directories that are never API groups (in
	// addition to the built-in exclusions).
	Exclude []ExcludePattern

	// Groups, when non-empty, list the API groups explicitly and replace
	// automatic discovery.
	Groups []Group
	// GroupsPos is where the groups key is written (zero when it is not).
	GroupsPos Pos

	// Rules holds per-rule settings by rule ID.
	Rules map[string]RuleSetting

	// Releases says which git tags are releases (lifecycle rules).
	Releases Releases

	// ReleaseNotes configures `apicheck release-notes`.
	ReleaseNotes ReleaseNotes

	// Shoot locates the files of the Shoot deprecation stages.
	Shoot StageFiles

	// Usages says which code is not a usage of a removed field.
	Usages Usages

	// Ignore entries suppress findings, in file order.
	Ignore []Ignore
}

// Pos is a position in the configuration file (1-based line and column).
type Pos struct {
	File      string
	Line, Col int
}

// Vocabulary is what a configuration may name. Parse checks every rule ID,
// profile and severity of the file against it.
type Vocabulary struct {
	// RuleIDs are the known rule IDs (the rule catalogue); nil accepts any
	// ID.
	RuleIDs []string
	// Profiles are the profiles (repository and group). Matched
	// case-insensitively and stored as written here. Nil accepts any
	// profile (stored lower-case). A group without one keeps "" (the
	// repository's profile).
	Profiles []string
	// Severities are the severity names, most severe first. Matched
	// case-insensitively and stored as written here (the canonical
	// lower-case name). Nil accepts any name (stored lower-case).
	Severities []string
	// Audiences are the audiences of release notes (user, operator, ...).
	// Matched like Severities.
	Audiences []string
}

// Group is one explicitly listed API group.
type Group struct {
	// Dir is the repository-relative directory of the group (the internal
	// version package, parent of the version packages), e.g. "pkg/apis/core".
	Dir string
	// Profile is one of Vocabulary.Profiles; "" means the repository's
	// profile (or the component-config profile where detected).
	Profile string
	// Versions are directories of external versions that live elsewhere
	// (Kubernetes' split layout: internal types in pkg/apis/<group>,
	// versions in staging/src/k8s.io/api/<group>/<version>); empty means
	// the version sub-directories of Dir.
	Versions []string
	// Stable are versions judged as stable although their names say alpha
	// or beta (a served version that must stay compatible).
	Stable []string
	// Pos is where the entry is in the configuration file.
	Pos Pos
}

// ExcludePattern is one exclude pattern and where it is written.
type ExcludePattern struct {
	Pattern string
	Pos     Pos
}

// RuleSetting enables/disables one rule or overrides its severity.
type RuleSetting struct {
	// Enabled is nil when the file does not say; false disables the rule.
	Enabled *bool
	// Severity is one of Vocabulary.Severities, "" when the file does not
	// override it.
	Severity string
	// Pos is where the rule ID is in the configuration file.
	Pos Pos
}

// Releases configures how release tags are recognised.
type Releases struct {
	// TagPattern is the pattern as written in the file (DefaultTagPattern
	// when not set); see CompileTagPattern.
	TagPattern string
	// TagRegexp is TagPattern compiled. Never nil in a Config from Default
	// or Parse.
	TagRegexp *regexp.Regexp
	// Pos is where tagPattern is set (zero when it is not).
	Pos Pos
}

// IsRelease reports whether a tag name is a release tag.
func (r Releases) IsRelease(tag string) bool {
	if r.TagRegexp == nil {
		return defaultTagRegexp.MatchString(tag)
	}
	return r.TagRegexp.MatchString(tag)
}

// Ignore is one suppression entry. Every criterion that is set must match
// the finding; Rule and Reason are always set, and at least one of Type
// or APIPath.
type Ignore struct {
	// Rule is the rule ID whose findings are suppressed.
	Rule string
	// Type is the Go type name the finding is about (finding.Type).
	Type string
	// Field is the Go field name (finding.Field); requires Type. Without
	// Field, an entry matches every finding of the rule on the type,
	// including those about its fields.
	Field string
	// APIPath is the JSON path from the root kind, e.g.
	// "Shoot.spec.purpose" (finding.APIPath), matched exactly.
	APIPath string
	// Package narrows to one package: its Go import path or its
	// repository-relative directory (e.g. "pkg/apis/core/v1beta1").
	Package string
	// Group narrows to one API group: its repository-relative directory
	// (e.g. "pkg/apis/core").
	Group string
	// Reason says why the finding is accepted; it is shown in every report.
	Reason string
	// Pos is where the entry is in the configuration file.
	Pos Pos
}

// Default is the configuration used when the repository has none.
func Default() *Config {
	return &Config{
		Rules:    map[string]RuleSetting{},
		Releases: Releases{TagPattern: DefaultTagPattern, TagRegexp: defaultTagRegexp.Regexp()},
		Shoot:    DefaultStageFiles(),
		Usages:   Usages{Exclude: DefaultUsageExclude()},
	}
}

// DisabledRules returns the IDs of rules the configuration disables.
func (c *Config) DisabledRules() map[string]bool {
	out := map[string]bool{}
	for id, s := range c.Rules {
		if s.Enabled != nil && !*s.Enabled {
			out[id] = true
		}
	}
	return out
}

// SeverityOverrides returns the severities the configuration sets (names
// of Vocabulary.Severities), by rule ID.
func (c *Config) SeverityOverrides() map[string]string {
	out := map[string]string{}
	for id, s := range c.Rules {
		if s.Severity != "" {
			out[id] = s.Severity
		}
	}
	return out
}
