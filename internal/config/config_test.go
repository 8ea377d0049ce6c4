package config

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var testVocab = Vocabulary{
	RuleIDs: []string{
		"PROTO_TAG_MISSING", "UNCLASSIFIED_CHANGE", "FIELD_REMOVED_WITHOUT_TOMBSTONE",
		"NEW_FIELD_NOT_POINTER", "JSON_NAME_CHANGED",
	},
	Profiles:   []string{"gardener", "componentconfig"},
	Severities: []string{"error", "warning", "info"},
	Audiences:  []string{"user", "operator", "developer", "dependency"},
}

const fullConfig = `# every key
groups:
  - dir: pkg/apis/core
    profile: gardener
  - dir: pkg/gardenlet/apis/config/
    profile: componentconfig
  - dir: pkg/apis/extensions
rules:
  PROTO_TAG_MISSING:
    severity: error
  UNCLASSIFIED_CHANGE:
    enabled: false
  JSON_NAME_CHANGED: {enabled: true, severity: warning}
releases:
  tagPattern: "v*.*.0"
releaseNotes:
  audiences:
    - {group: "*.gardener.cloud", kind: Shoot, audience: user}
    - group: pkg/apis/extensions
      audience: Developer
    - kind: "Managed*"
      audience: operator
shoot:
  warnings: [pkg/api/core/shoot/warnings.go, pkg/api/core/shoot/more.go]
  validation: pkg/apis/core/validation/shoot.go
  strategy: [pkg/registry/strategy.go]
  maintenance: [pkg/maintenance/]
  defaults: [pkg/apis/core/v1beta1/defaults_shoot.go]
  supportedVersions: hack/versions.yaml
usages:
  exclude: [default, "hack/**"]
ignore:
  - rule: FIELD_REMOVED_WITHOUT_TOMBSTONE
    type: ShootSpec
    field: SeedTemplate
    reason: never released
  - rule: NEW_FIELD_NOT_POINTER
    apiPath: Shoot.spec.replicas
    package: pkg/apis/core/v1beta1
    group: pkg/apis/core
    reason: "defaulted, see #123"
`

func boolPtr(b bool) *bool { return &b }

func TestParseEveryKey(t *testing.T) {
	cfg, err := Parse(".apicheck.yaml", []byte(fullConfig), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	pos := func(line, col int) Pos { return Pos{File: ".apicheck.yaml", Line: line, Col: col} }
	want := &Config{
		File: ".apicheck.yaml",
		Groups: []Group{
			{Dir: "pkg/apis/core", Profile: "gardener", Pos: pos(3, 5)},
			{Dir: "pkg/gardenlet/apis/config", Profile: "componentconfig", Pos: pos(5, 5)},
			{Dir: "pkg/apis/extensions", Pos: pos(7, 5)},
		},
		GroupsPos: pos(2, 1),
		Rules: map[string]RuleSetting{
			"PROTO_TAG_MISSING":   {Severity: "error", Pos: pos(9, 3)},
			"UNCLASSIFIED_CHANGE": {Enabled: boolPtr(false), Pos: pos(11, 3)},
			"JSON_NAME_CHANGED":   {Enabled: boolPtr(true), Severity: "warning", Pos: pos(13, 3)},
		},
		Releases: Releases{TagPattern: "v*.*.0", Pos: pos(15, 15)},
		ReleaseNotes: ReleaseNotes{Audiences: []Audience{
			{Group: "*.gardener.cloud", Kind: "Shoot", Audience: "user", Pos: pos(18, 7)},
			{Group: "pkg/apis/extensions", Audience: "developer", Pos: pos(19, 7)},
			{Kind: "Managed*", Audience: "operator", Pos: pos(21, 7)},
		}},
		Shoot: StageFiles{
			Warnings:          []string{"pkg/api/core/shoot/warnings.go", "pkg/api/core/shoot/more.go"},
			Validation:        []string{"pkg/apis/core/validation/shoot.go"},
			Strategy:          []string{"pkg/registry/strategy.go"},
			Maintenance:       []string{"pkg/maintenance/"},
			Defaults:          []string{"pkg/apis/core/v1beta1/defaults_shoot.go"},
			SupportedVersions: "hack/versions.yaml",
		},
		Usages: Usages{Exclude: append(DefaultUsageExclude(), "hack/**"), Pos: pos(31, 12)},
		Ignore: []Ignore{
			{Rule: "FIELD_REMOVED_WITHOUT_TOMBSTONE", Type: "ShootSpec", Field: "SeedTemplate", Reason: "never released", Pos: pos(33, 5)},
			{Rule: "NEW_FIELD_NOT_POINTER", APIPath: "Shoot.spec.replicas", Package: "pkg/apis/core/v1beta1", Group: "pkg/apis/core", Reason: "defaulted, see #123", Pos: pos(37, 5)},
		},
	}
	if diff := cmp.Diff(want, cfg, cmpopts.IgnoreFields(Releases{}, "TagRegexp")); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	if got := cfg.DisabledRules(); !cmp.Equal(got, map[string]bool{"UNCLASSIFIED_CHANGE": true}) {
		t.Errorf("DisabledRules = %v", got)
	}
	if got := cfg.SeverityOverrides(); !cmp.Equal(got, map[string]string{"PROTO_TAG_MISSING": "error", "JSON_NAME_CHANGED": "warning"}) {
		t.Errorf("SeverityOverrides = %v", got)
	}
	for tag, want := range map[string]bool{"v1.2.0": true, "v1.2.1": false, "v10.20.0": true, "release/v1.2.0": false} {
		if got := cfg.Releases.IsRelease(tag); got != want {
			t.Errorf("glob IsRelease(%q) = %v, want %v", tag, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	for name, src := range map[string]string{
		"empty":         "",
		"comments only": "# nothing here\n",
		"null values":   "groups:\nrules:\nreleases:\nshoot:\nignore:\n",
		"empty objects": "groups: []\nrules: {}\nreleases: {}\nshoot: {}\nignore: []\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(src), testVocab)
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			want.File = "c.yaml"
			if diff := cmp.Diff(want, cfg, cmpopts.IgnoreFields(Releases{}, "TagRegexp"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	d := Default()
	if d.Shoot.Validation[0] != "pkg/api/core/validation/shoot.go" || d.Shoot.Warnings[0] != "pkg/api/core/shoot/warnings.go" ||
		d.Shoot.Strategy[0] != "pkg/apiserver/registry/core/shoot/strategy.go" ||
		d.Shoot.Maintenance[0] != "pkg/controllermanager/controller/shoot/maintenance/" ||
		d.Shoot.SupportedVersions != "supported-kubernetes-versions.yaml" || d.Shoot.Defaults != nil {
		t.Errorf("unexpected Shoot defaults %+v", d.Shoot)
	}
	for tag, want := range map[string]bool{"v1.2.0": true, "v1.2.3": false, "v1.2.0-rc.1": false, "1.2.0": false} {
		if got := d.Releases.IsRelease(tag); got != want {
			t.Errorf("default IsRelease(%q) = %v, want %v", tag, got, want)
		}
	}
	if m := d.Releases.TagRegexp.FindStringSubmatch("v1.105.0"); len(m) != 3 || m[1] != "1" || m[2] != "105" {
		t.Errorf("default pattern submatches = %v", m)
	}
}

func TestTagPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{`^v(\d+)\.(\d+)\.0$`, []string{"v1.0.0"}, []string{"v1.0.1", "xv1.0.0"}},
		{`^release-`, []string{"release-1", "release-"}, []string{"v1"}},
		{"v*.*.0", []string{"v1.2.0", "v..0"}, []string{"v1.2.1", "av1.2.0", "v1/2.0"}},
		{"v1.?.0", []string{"v1.2.0"}, []string{"v1.20.0", "v1x2.0"}},
		{"v[0-9].[^a]*", []string{"v1.2", "v1.b"}, []string{"vx.2", "v1.a"}},
		{"v1.(2)+", []string{"v1.(2)+"}, []string{"v1.22"}},
		{DefaultTagPattern, []string{"v1.2.0", "v1.120.0"}, []string{"v1.2.1", "v1.2.0-rc.1", "1.2.0", "xv1.2.0"}},
		{"v*.*.0", []string{"v10.3.0"}, []string{"release/v1.2.0"}},
		{"release-[0-9]*", []string{"release-1.2"}, []string{"release-x", "release-"}},
		{"api/v?.0", []string{"api/v1.0"}, []string{"api/v10.0"}},
	} {
		re, err := CompileTagPattern(tc.pattern)
		if err != nil {
			t.Errorf("%q: %v", tc.pattern, err)
			continue
		}
		for _, s := range tc.match {
			if !re.MatchString(s) {
				t.Errorf("%q (%s) does not match %q", tc.pattern, re, s)
			}
		}
		for _, s := range tc.noMatch {
			if re.MatchString(s) {
				t.Errorf("%q (%s) matches %q", tc.pattern, re, s)
			}
		}
	}
}

func TestTagPatternInvalid(t *testing.T) {
	for _, bad := range []string{"^v(", "v[1-", "", "  "} {
		if _, err := CompileTagPattern(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestErrors checks every class of bad input: each case's error must name
// the position and the key, and say what is wrong.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // each a regexp matched against one error line, in order
	}{
		{"broken yaml", "groups:\n  - dir: a\n  profile: [\n", []string{`^c\.yaml:3: invalid YAML: `}},
		{"tab indentation", "groups:\n\t- dir: a\n", []string{`^c\.yaml:2: invalid YAML: .*\(a tab character`}},
		{"bad indentation", "a:\n  b: c\n d: e\n", []string{`^c\.yaml:3: invalid YAML: `}},
		{"unclosed flow", "rules: {}\ngroups: [\n", []string{`^c\.yaml:2: invalid YAML: `}},
		{"unclosed quote", "releases:\n  tagPattern: 'v*\n", []string{`^c\.yaml:2: invalid YAML: `}},
		{"two documents", "rules: {}\n---\nrules: {}\n", []string{`^c\.yaml:2:1: a second YAML document`}},
		{"not a mapping", "- a\n- b\n", []string{`^c\.yaml:1:1: want a mapping with keys profile, versionSkew, exclude, groups, rules, releases, releaseNotes, shoot, usages, ignore, got a list`}},
		{"unknown top key", "grups: []\nfoo: 1\n", []string{
			`^c\.yaml:1:1: grups: unknown key "grups" \(did you mean "groups"\?\); known keys: profile, versionSkew, exclude, groups, rules, releases, releaseNotes, shoot, usages, ignore$`,
			`^c\.yaml:2:1: foo: unknown key "foo"; known keys: `,
		}},
		{"duplicate key", "rules: {}\nrules: {}\n", []string{`^c\.yaml:2:1: rules: duplicate key "rules" \(first at line 1\)`}},
		{"unknown group key", "groups:\n  - dir: a\n    profil: api\n", []string{`^c\.yaml:3:5: groups\[0\]\.profil: unknown key "profil" \(did you mean "profile"\?\)`}},
		{"bad profile", "groups:\n  - dir: a\n    profile: strict\n", []string{`^c\.yaml:3:14: groups\[0\]\.profile: unknown profile "strict" \(want gardener or componentconfig\)`}},
		{"group without dir", "groups:\n  - profile: gardener\n", []string{`^c\.yaml:2:5: groups\[0\]: missing dir`}},
		{"group twice", "groups:\n  - dir: a\n  - dir: a/\n", []string{`^c\.yaml:3:5: groups\[1\]\.dir: group a is listed twice \(first at line 2\)`}},
		{"bad dir", "groups:\n  - dir: /abs\n  - dir: ../up\n  - dir: a//b\n", []string{
			`^c\.yaml:2:10: groups\[0\]\.dir: "/abs": want a repository-relative path`,
			`^c\.yaml:3:10: groups\[1\]\.dir: "../up": want a clean`,
			`^c\.yaml:4:10: groups\[2\]\.dir: "a//b": want a clean`,
		}},
		{"groups not a list", "groups: pkg/apis/core\n", []string{`^c\.yaml:1:9: groups: want a list, got the string "pkg/apis/core"`}},
		{"unknown rule", "rules:\n  PROTO_TAG_MISING: {severity: error}\n", []string{`^c\.yaml:2:3: rules\.PROTO_TAG_MISING: unknown rule ID "PROTO_TAG_MISING" \(did you mean "PROTO_TAG_MISSING"\?\)`}},
		{"unknown rule key", "rules:\n  PROTO_TAG_MISSING:\n    level: error\n", []string{`^c\.yaml:3:5: rules\.PROTO_TAG_MISSING\.level: unknown key "level"; known keys: enabled, severity`}},
		{"bad severity", "rules:\n  PROTO_TAG_MISSING:\n    severity: fatal\n", []string{`^c\.yaml:3:15: rules\.PROTO_TAG_MISSING\.severity: unknown severity "fatal" \(want error, warning or info`}},
		{"bad enabled", "rules:\n  PROTO_TAG_MISSING:\n    enabled: maybe\n", []string{`^c\.yaml:3:14: rules\.PROTO_TAG_MISSING\.enabled: want true or false, got the string "maybe"`}},
		{"rule settings not a mapping", "rules:\n  PROTO_TAG_MISSING: error\n", []string{`^c\.yaml:2:22: rules\.PROTO_TAG_MISSING: want a mapping with keys enabled, severity`}},
		{"bad regexp", "releases:\n  tagPattern: '^v(\\d+'\n", []string{`^c\.yaml:2:15: releases\.tagPattern: invalid regular expression`}},
		{"bad glob", "releases:\n  tagPattern: 'v[1'\n", []string{`^c\.yaml:2:15: releases\.tagPattern: invalid glob "v\[1"`}},
		{"unknown releases key", "releases:\n  pattern: x\n", []string{`^c\.yaml:2:3: releases\.pattern: unknown key "pattern"; known keys: tagPattern`}},
		{"unknown shoot key", "shoot:\n  warning: [a.go]\n", []string{`^c\.yaml:2:3: shoot\.warning: unknown key "warning" \(did you mean "warnings"\?\)`}},
		{"bad shoot path", "shoot:\n  warnings: [a.go, /b.go]\n  supportedVersions: [a]\n", []string{
			`^c\.yaml:2:20: shoot\.warnings\[1\]: "/b.go": want a repository-relative path`,
			`^c\.yaml:3:22: shoot\.supportedVersions: want a string, got a list`,
		}},
		{"release-note audiences", "releaseNotes:\n  audiences:\n    - {group: 'a.[', audience: user}\n    - {kind: Shoot, audience: users}\n" +
			"    - {audience: user}\n    - {kind: Shoot}\n    - {group: '/abs', kind: '[', audiences: user}\n  audience: x\n", []string{
			`^c\.yaml:3:15: releaseNotes\.audiences\[0\]\.group: "a\.\[": syntax error in pattern$`,
			`^c\.yaml:4:31: releaseNotes\.audiences\[1\]\.audience: unknown audience "users" \(want user, operator, developer or dependency\)$`,
			`^c\.yaml:5:7: releaseNotes\.audiences\[2\]: needs group or kind`,
			`^c\.yaml:6:7: releaseNotes\.audiences\[3\]\.audience: missing audience \(user, operator, developer or dependency\)$`,
			`^c\.yaml:7:7: releaseNotes\.audiences\[4\]\.audience: missing audience`,
			`^c\.yaml:7:15: releaseNotes\.audiences\[4\]\.group: "/abs": want a repository-relative pattern`,
			`^c\.yaml:7:29: releaseNotes\.audiences\[4\]\.kind: "\[": syntax error in pattern$`,
			`^c\.yaml:7:34: releaseNotes\.audiences\[4\]\.audiences: unknown key "audiences" \(did you mean "audience"\?\); known keys: group, kind, audience$`,
			`^c\.yaml:8:3: releaseNotes\.audience: unknown key "audience" \(did you mean "audiences"\?\); known keys: audiences$`,
		}},
		{"release-note audiences of the wrong kind", "releaseNotes: [x]\n", []string{`^c\.yaml:1:15: releaseNotes: want a mapping with keys audiences, got a list$`}},
		{"unknown usages key", "usages:\n  excludes: [a]\n", []string{`^c\.yaml:2:3: usages\.excludes: unknown key "excludes" \(did you mean "exclude"\?\); known keys: exclude$`}},
		{"bad usage globs", "usages:\n  exclude: [ok/**, /abs, a/../b, 'x/[', 'pkg/a**', dir/, ~, [x]]\n", []string{
			`^c\.yaml:2:20: usages\.exclude\[1\]: "/abs": want a repository-relative pattern`,
			`^c\.yaml:2:26: usages\.exclude\[2\]: "a/../b": want a clean pattern`,
			`^c\.yaml:2:34: usages\.exclude\[3\]: "x/\[": syntax error in pattern$`,
			`^c\.yaml:2:41: usages\.exclude\[4\]: "pkg/a\*\*": \*\* must be a whole segment$`,
			`^c\.yaml:2:52: usages\.exclude\[5\]: "dir/": a trailing / matches nothing; write "dir/\*\*"`,
			`^c\.yaml:2:58: usages\.exclude\[6\]: want a string, got null$`,
			`^c\.yaml:2:61: usages\.exclude\[7\]: want a string, got a list$`,
		}},
		{"usage globs not a list", "usages:\n  exclude: {a: b}\n", []string{`^c\.yaml:2:12: usages\.exclude: want a glob or a list of globs, got a mapping$`}},
		{"ignore without reason", "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n", []string{`^c\.yaml:2:5: ignore\[0\]\.reason: missing reason`}},
		{"ignore with empty reason", "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason: '  '\n", []string{`^c\.yaml:4:13: ignore\[0\]\.reason: empty reason`}},
		{"ignore without rule", "ignore:\n  - type: T\n    reason: r\n", []string{`^c\.yaml:2:5: ignore\[0\]: missing rule`}},
		{"ignore unknown rule", "ignore:\n  - rule: NOPE\n    type: T\n    reason: r\n", []string{`^c\.yaml:2:11: ignore\[0\]\.rule: unknown rule ID "NOPE"`}},
		{"ignore without target", "ignore:\n  - rule: PROTO_TAG_MISSING\n    reason: r\n", []string{`^c\.yaml:2:5: ignore\[0\]: needs type \(with optional field\) or apiPath`}},
		{"ignore field without type", "ignore:\n  - rule: PROTO_TAG_MISSING\n    field: F\n    apiPath: A.b\n    reason: r\n", []string{`^c\.yaml:3:12: ignore\[0\]\.field: field needs type`}},
		{"ignore unknown key", "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason: r\n    path: x\n", []string{`^c\.yaml:5:5: ignore\[0\]\.path: unknown key "path"; known keys: rule, type, field, apiPath, package, group, reason`}},
		{"several errors, file order", "rules:\n  X: {}\ngroups:\n  - dir: a\n    profile: p\n", []string{
			`^c\.yaml:2:3: rules\.X: unknown rule ID`,
			`^c\.yaml:5:14: groups\[0\]\.profile: unknown profile`,
		}},

		// Unknown keys at every level come from the strict decoder
		// (KnownFields) and still name the key, line and column.
		{"unknown keys at every level", "groups:\n  - dir: a\n    foo: 1\nrules:\n  PROTO_TAG_MISSING:\n    foo: 1\nreleases: {foo: 1}\nshoot:\n  foo: [a]\nignore:\n  - {rule: PROTO_TAG_MISSING, type: T, reason: r}\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason: r\n    foo: x\nfoo: 1\n", []string{
			`^c\.yaml:3:5: groups\[0\]\.foo: unknown key "foo"; known keys: dir, profile, versions, stable$`,
			`^c\.yaml:6:5: rules\.PROTO_TAG_MISSING\.foo: unknown key "foo"; known keys: enabled, severity$`,
			`^c\.yaml:7:12: releases\.foo: unknown key "foo"; known keys: tagPattern$`,
			`^c\.yaml:9:3: shoot\.foo: unknown key "foo"; known keys: warnings, validation, strategy, maintenance, defaults, supportedVersions$`,
			`^c\.yaml:15:5: ignore\[1\]\.foo: unknown key "foo"; known keys: rule, type, field, apiPath, package, group, reason$`,
			`^c\.yaml:16:1: foo: unknown key "foo"; known keys: profile, versionSkew, exclude, groups, rules, releases, releaseNotes, shoot, usages, ignore$`,
		}},
		{"unknown keys in flow style", "groups: [{dir: a, dri: b}]\nrules: {PROTO_TAG_MISSING: {severty: info}}\n", []string{
			`^c\.yaml:1:19: groups\[0\]\.dri: unknown key "dri" \(did you mean "dir"\?\)`,
			`^c\.yaml:2:29: rules\.PROTO_TAG_MISSING\.severty: unknown key "severty" \(did you mean "severity"\?\)`,
		}},
		{"duplicate keys nested", "groups:\n  - dir: a\n    dir: b\nrules: {PROTO_TAG_MISSING: {}, PROTO_TAG_MISSING: {}}\nignore:\n  - rule: PROTO_TAG_MISSING\n    rule: PROTO_TAG_MISSING\n", []string{
			`^c\.yaml:3:5: groups\[0\]\.dir: duplicate key "dir" \(first at line 2\)$`,
			`^c\.yaml:4:32: rules\.PROTO_TAG_MISSING: duplicate key "PROTO_TAG_MISSING" \(first at line 4\)$`,
			`^c\.yaml:7:5: ignore\[0\]\.rule: duplicate key "rule" \(first at line 6\)$`,
		}},
		{"sections of the wrong kind", "rules: x\nreleases: []\nshoot: 1\nignore: {}\n", []string{
			`^c\.yaml:1:8: rules: want a mapping from rule ID to settings, got the string "x"$`,
			`^c\.yaml:2:11: releases: want a mapping with keys tagPattern, got a list$`,
			`^c\.yaml:3:8: shoot: want a mapping with keys warnings, .*, got a number$`,
			`^c\.yaml:4:9: ignore: want a list, got a mapping$`,
		}},
		{"entries of the wrong kind", "groups:\n  -\n  - [pkg/apis/core]\nrules:\n  [A]: {}\nignore:\n  - PROTO_TAG_MISSING\n", []string{
			`^c\.yaml:2:4: groups\[0\]: want a mapping with keys dir, profile, versions, stable, got null$`,
			`^c\.yaml:3:5: groups\[1\]: want a mapping with keys dir, profile, versions, stable, got a list$`,
			`^c\.yaml:5:3: rules: want a rule ID as key, got a list$`,
			`^c\.yaml:7:5: ignore\[0\]: want a mapping with keys rule, .*, got the string "PROTO_TAG_MISSING"$`,
		}},
		{"values of the wrong kind", "groups:\n  - dir: [a]\n  - dir: b\n    profile: {x: 1}\nrules:\n  PROTO_TAG_MISSING: {enabled: 1, severity: [error]}\nreleases:\n  tagPattern: [v1]\nshoot:\n  warnings: {a: b}\n  strategy: [a.go, [b.go], ~]\nignore:\n  - rule: PROTO_TAG_MISSING\n    type: [T]\n    reason: r\n", []string{
			`^c\.yaml:2:10: groups\[0\]\.dir: want a string, got a list$`,
			`^c\.yaml:4:14: groups\[1\]\.profile: want a string, got a mapping$`,
			`^c\.yaml:6:32: rules\.PROTO_TAG_MISSING\.enabled: want true or false, got a number$`,
			`^c\.yaml:6:45: rules\.PROTO_TAG_MISSING\.severity: want a string, got a list$`,
			`^c\.yaml:8:15: releases\.tagPattern: want a string, got a list$`,
			`^c\.yaml:10:13: shoot\.warnings: want a path or a list of paths, got a mapping$`,
			`^c\.yaml:11:20: shoot\.strategy\[1\]: want a string, got a list$`,
			`^c\.yaml:11:28: shoot\.strategy\[2\]: want a string, got null$`,
			`^c\.yaml:14:11: ignore\[0\]\.type: want a string, got a list$`,
		}},
		{"ignore with empty value", "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: ''\n    reason: r\n", []string{`^c\.yaml:3:11: ignore\[0\]\.type: empty value \(leave the key out instead\)$`}},
		{"bad severity lists the vocabulary", "rules:\n  PROTO_TAG_MISSING: {severity: warn}\n", []string{`^c\.yaml:2:33: rules\.PROTO_TAG_MISSING\.severity: unknown severity "warn" \(want error, warning or info; to turn a rule off use enabled: false\)$`}},
		{"empty tag pattern", "releases:\n  tagPattern: ''\n", []string{`^c\.yaml:2:15: releases\.tagPattern: empty tag pattern$`}},

		// Bounded input.
		{"three documents", "rules: {}\n---\nrules: {}\n---\n", []string{`^c\.yaml:2:1: a second YAML document \(---\): the configuration is one document$`}},
		{"empty second document", "rules: {}\n---\n", []string{`^c\.yaml:2:1: a second YAML document`}},
		{"alias", "shoot:\n  warnings: &w [a.go]\n  validation: *w\n", []string{`^c\.yaml:2:13: shoot\.warnings: anchor &w: YAML anchors, aliases and merge keys are not allowed in the configuration; write the value out$`}},
		{"alias in a list", "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason: r\n  - *x\n", []string{`^c\.yaml:5: invalid YAML: unknown anchor 'x' referenced$`}},
		{"anchor on a key", "groups:\n  - &d dir: a\n", []string{`^c\.yaml:2:5: groups\[0\]: anchor &d: YAML anchors`}},
		{"merge key", "rules:\n  <<: {PROTO_TAG_MISSING: {}}\n", []string{`^c\.yaml:2:3: rules: merge key <<: YAML anchors, aliases and merge keys are not allowed`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(tc.src), testVocab)
			if err == nil {
				t.Fatalf("no error; got %+v", cfg)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not Errors: %v", err, err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(lines), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !regexp.MustCompile(w).MatchString(lines[i]) {
					t.Errorf("error %d = %q\nwant match %s", i, lines[i], w)
				}
			}
		})
	}
}

func TestParseWithoutRuleIDs(t *testing.T) {
	v := testVocab
	v.RuleIDs = nil
	if _, err := Parse("c.yaml", []byte("rules:\n  ANY_RULE: {enabled: false}\n"), v); err != nil {
		t.Errorf("nil rule IDs must skip the check: %v", err)
	}
}

func TestStarterParses(t *testing.T) {
	for name, groups := range map[string][]StarterGroup{
		"none": nil,
		"some": {
			{Dir: "pkg/apis/core", Profile: "gardener", Name: "core.gardener.cloud", Versions: []string{"v1", "v1beta1"}},
			{Dir: "pkg/gardenlet/apis/config", Profile: "componentconfig"},
			{Dir: "odd dir: #1", Profile: ""},
			{Dir: "true"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			data := Starter(groups)
			cfg, err := Parse(FileName, data, testVocab)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if len(cfg.Groups) != len(groups) {
				t.Fatalf("groups = %+v", cfg.Groups)
			}
			for i, g := range groups {
				want := g.Profile // "" stays "": the repository's profile
				if cfg.Groups[i].Dir != g.Dir || cfg.Groups[i].Profile != want {
					t.Errorf("group %d = %+v, want %s %s", i, cfg.Groups[i], g.Dir, want)
				}
			}
			if cfg.Releases.TagPattern != DefaultTagPattern {
				t.Errorf("tagPattern = %q", cfg.Releases.TagPattern)
			}
			// The commented examples are valid configuration too.
			uncommented := uncommentExamples(string(data))
			if _, err := Parse(FileName, []byte(uncommented), testVocab); err != nil {
				t.Errorf("examples do not parse: %v\n%s", err, uncommented)
			}
		})
	}
}

// uncommentExamples turns the starter's commented-out examples into live
// YAML: "#  KEY:" lines directly following "rules: {}" or "ignore: []" and
// the "# shoot:" block.
func uncommentExamples(s string) string {
	var out []string
	mode := ""
	for _, l := range strings.Split(s, "\n") {
		switch {
		case l == "rules: {}" || l == "ignore: []":
			mode = "list"
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(l, " {}"), " []"))
			continue
		case l == "# shoot:":
			mode = "shoot"
			out = append(out, "shoot:")
			continue
		case mode == "list" && strings.HasPrefix(l, "#  "):
			out = append(out, l[1:])
			continue
		case mode == "shoot" && strings.HasPrefix(l, "#   "):
			out = append(out, l[2:])
			continue
		}
		mode = ""
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
