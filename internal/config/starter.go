package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// StarterGroup is one discovered API group for Starter.
type StarterGroup struct {
	Dir string
	// Profile is written as the group's profile; "" leaves it out (the
	// default profile).
	Profile string
	// Name is the group's +groupName (shown as a comment), if known.
	Name string
	// Versions are the version packages found (shown as a comment).
	Versions []string
}

// StarterInfo is what apicheck init found in the repository.
type StarterInfo struct {
	// Profile is the detected repository profile ("" leaves it out).
	Profile string
	Groups  []StarterGroup
	// Excluded are directories with version packages that discovery left
	// out (generated clients, tests, vendored copies), shown as comments.
	Excluded []string
	// Stages are the Shoot stage locations found in the repository; nil
	// when none was found (the defaults are shown commented out).
	Stages *StageFiles
}

// Starter renders a commented starter configuration listing the given
// groups. The result parses with Parse.
func Starter(groups []StarterGroup) []byte { return StarterFor(StarterInfo{Groups: groups}) }

// StarterFor renders a commented starter configuration from what init
// found: the profile, the groups, the exclusions and the Shoot stage
// locations. The result parses with Parse.
func StarterFor(info StarterInfo) []byte {
	groups := info.Groups
	stages := DefaultStageFiles()
	var b strings.Builder
	b.WriteString(`# apicheck configuration. Reference: docs/configuration.md.
#
# apicheck reads this file from the revision it checks (the working tree by
# default). Keys are strict: an unknown key, rule ID, profile or severity is
# an error that names the line.

# The repository's profile (docs/profiles.md): gardener, kubernetes, crd or
# componentconfig. Without it apicheck detects one and says which.
`)
	if info.Profile != "" {
		fmt.Fprintf(&b, "profile: %s  # detected\n", yamlString(info.Profile))
	} else {
		b.WriteString("# profile: gardener\n")
	}
	b.WriteString(`
# Directories that are never API groups, in addition to generated clients,
# test code and vendored copies (globs; ** matches any number of levels).
exclude: []
`)
	for _, d := range info.Excluded {
		fmt.Fprintf(&b, "#  - %s  # left out by discovery already\n", d)
	}
	b.WriteString(`
# API groups to check: the directory of the internal version (parent of the
# version packages v1, v1beta1, ...). When this list is not empty it replaces
# automatic discovery, so add new groups here. A group's profile overrides
# the repository's; versions lists version directories that live elsewhere
# (Kubernetes' split layout); stable lists alpha/beta versions that must
# stay compatible.
`)
	if len(groups) == 0 {
		b.WriteString(`# No API groups were discovered; list them here, e.g.:
# groups:
#   - dir: pkg/apis/core
#     profile: gardener
groups: []
`)
	} else {
		b.WriteString("groups:\n")
		for _, g := range groups {
			var about []string
			if g.Name != "" {
				about = append(about, g.Name)
			}
			if len(g.Versions) > 0 {
				about = append(about, strings.Join(g.Versions, ", "))
			}
			comment := ""
			if len(about) > 0 {
				comment = "  # " + strings.Join(about, ": ")
			}
			fmt.Fprintf(&b, "  - dir: %s%s\n", yamlString(g.Dir), comment)
			if g.Profile != "" {
				fmt.Fprintf(&b, "    profile: %s\n", yamlString(g.Profile))
			}
		}
	}
	b.WriteString(`
# Per-rule settings by rule ID (docs/rules.md): turn a rule off or change its
# severity (error, warning or info).
rules: {}
#  PROTO_TAG_MISSING:
#    severity: error
#  UNCLASSIFIED_CHANGE:
#    enabled: false

# Release tags, for the rules that look at release history. A pattern that
# starts with ^ is a regular expression, anything else a glob (e.g. "v*.*.0").
releases:
  tagPattern: '` + DefaultTagPattern + `'

`)
	if info.Stages != nil {
		st := *info.Stages
		b.WriteString(`# Where the Shoot deprecation stages live (found in this repository). A list
# set here replaces the default list; an entry ending in / is a directory.
shoot:
`)
		for _, l := range []struct {
			key string
			v   []string
		}{{"warnings", st.Warnings}, {"validation", st.Validation}, {"strategy", st.Strategy}, {"maintenance", st.Maintenance}} {
			if len(l.v) > 0 {
				quoted := make([]string, len(l.v))
				for i, v := range l.v {
					quoted[i] = yamlString(v)
				}
				fmt.Fprintf(&b, "  %s: [%s]\n", l.key, strings.Join(quoted, ", "))
			}
		}
		if st.SupportedVersions != "" {
			fmt.Fprintf(&b, "  supportedVersions: %s\n", yamlString(st.SupportedVersions))
		}
	} else {
		b.WriteString(`# Where the Shoot deprecation stages live. The values shown are the defaults,
# except for defaults (see its comment). A list set here replaces the default
# list; an entry ending in / is a directory.
# shoot:
#   warnings: [` + strings.Join(stages.Warnings, ", ") + `]
#   validation: [` + strings.Join(stages.Validation, ", ") + `]
#   strategy: [` + strings.Join(stages.Strategy, ", ") + `]
#   maintenance: [` + strings.Join(stages.Maintenance, ", ") + `]
#   defaults: [pkg/apis/core/v1beta1/defaults_shoot.go]  # default: defaults*.go of the field's version package
#   supportedVersions: ` + stages.SupportedVersions + `
`)
	}
	b.WriteString(`
# Code that is not a usage of a removed field (FIELD_REMOVED_STILL_USED,
# FIELD_REMOVAL_NOT_RELEASED): globs of files. The entry "default" stands for
# the default list (tests, mocks and fakes, generated code, and code that runs
# in or with the API server); a list without it replaces the defaults.
# usages:
#   exclude: [default, "hack/**"]

# Accepted findings. Each entry names the rule, what it applies to (type and
# optional field, or apiPath; optionally package or group) and why. Suppressed
# findings stay in every report but never fail the check. In code, a
# "// +apicheck:ignore=RULE_ID reason" line in a field's or type's comment
# does the same.
ignore: []
#  - rule: FIELD_REMOVED_WITHOUT_TOMBSTONE
#    type: ShootSpec
#    field: SeedTemplate
#    reason: the field was never released
`)
	return []byte(b.String())
}

var plainYAML = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

// yamlString renders s as a YAML scalar: plain when that is unambiguous,
// double-quoted otherwise (Go's escapes are valid YAML escapes).
func yamlString(s string) string {
	if plainYAML.MatchString(s) && !yamlKeyword[strings.ToLower(s)] {
		return s
	}
	return strconv.Quote(s)
}

var yamlKeyword = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"null": true, "~": true, "y": true, "n": true,
}
