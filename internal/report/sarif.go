package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
)

// SARIF constants. The schema URI is the OASIS-published SARIF 2.1.0
// schema (errata 01); GitHub code scanning accepts it.
const (
	sarifSchemaURI      = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion        = "2.1.0"
	sarifInformationURI = "https://github.com/apicheck/apicheck"
	// sarifRulesDocURI is the generated rule documentation; a rule's
	// helpUri is this plus "#" and the lower-cased rule ID (the anchor
	// GitHub derives from the heading "### `RULE_ID`").
	sarifRulesDocURI = "https://github.com/apicheck/apicheck/blob/main/docs/rules.md"
	sarifSrcRoot     = "%SRCROOT%"
	// SARIFFingerprintKey is the partialFingerprints key holding
	// finding.Fingerprint. Bump its version suffix whenever the
	// fingerprint's derivation changes, so that code scanning does not
	// pair unrelated results.
	SARIFFingerprintKey = "apicheckFingerprint/v1"
	// sarifCategoryTag is added to every rule's tags.
	sarifCategoryTag = "api-compatibility"
	// sarifDevVersion stands for tool versions that are not semantic
	// versions (such as "dev"); what they say follows as build metadata.
	sarifDevVersion = "0.0.0-dev"
)

// SARIF writes a SARIF 2.1.0 log whose rule table is the catalogue the
// run used (r.Rules), for GitHub code scanning and other SARIF consumers.
func SARIF(w io.Writer, r *finding.Report) error {
	return WriteSARIF(w, r, r.Rules)
}

// WriteSARIF writes a SARIF 2.1.0 log whose rule table is rs in the given
// order. Findings of rules missing from rs get a minimal rule entry
// appended after rs (in order of first appearance), so every result has a
// valid ruleIndex. The output is deterministic: identical input gives
// identical bytes.
func WriteSARIF(w io.Writer, r *finding.Report, rs []finding.RuleDoc) error {
	log := buildSARIF(r, rs)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return err
	}
	_, err := w.Write(jsonSafe(buf.Bytes()))
	return err
}

// The types below model the part of SARIF 2.1.0 apicheck writes. Field
// order is the output order.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool              `json:"tool"`
	AutomationDetails sarifAutomationDetails `json:"automationDetails"`
	Invocations       []sarifInvocation      `json:"invocations"`
	Results           []sarifResult          `json:"results"`
	Properties        *sarifRunProperties    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string              `json:"id"`
	Name                 string              `json:"name"`
	ShortDescription     sarifText           `json:"shortDescription"`
	FullDescription      sarifText           `json:"fullDescription"`
	HelpURI              string              `json:"helpUri,omitempty"`
	Help                 *sarifHelp          `json:"help,omitempty"`
	DefaultConfiguration sarifConfiguration  `json:"defaultConfiguration"`
	Properties           sarifRuleProperties `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProperties struct {
	Tags []string `json:"tags"`
}

type sarifAutomationDetails struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifRunProperties struct {
	Base finding.Rev `json:"base"`
	Head finding.Rev `json:"head"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Suppressions        []sarifSuppress   `json:"suppressions,omitempty"`
	Properties          *sarifResultProps `json:"properties,omitempty"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifSuppress struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// sarifResultProps carries the finding's API identity, which SARIF has no
// standard place for.
type sarifResultProps struct {
	Package string `json:"package,omitempty"`
	Type    string `json:"type,omitempty"`
	Field   string `json:"field,omitempty"`
	APIPath string `json:"apiPath,omitempty"`
}

func buildSARIF(r *finding.Report, rs []finding.RuleDoc) sarifLog {
	table := make([]sarifRule, 0, len(rs))
	index := map[string]int{}
	for _, rule := range rs {
		if _, dup := index[rule.ID]; dup {
			continue
		}
		index[rule.ID] = len(table)
		table = append(table, sarifRuleFor(rule))
	}
	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		i, ok := index[f.Rule]
		if !ok {
			// A rule outside the table (should not happen with the
			// catalogue): describe it minimally so ruleIndex stays valid.
			i = len(table)
			index[f.Rule] = i
			table = append(table, sarifRule{
				ID:                   f.Rule,
				Name:                 RuleName(f.Rule),
				ShortDescription:     sarifText{Text: f.Rule},
				FullDescription:      sarifText{Text: f.Rule},
				Help:                 sarifFallbackHelp(f.Rule, ""),
				DefaultConfiguration: sarifConfiguration{Level: sarifLevel(f.Severity)},
				Properties:           sarifRuleProperties{Tags: []string{sarifCategoryTag}},
			})
		}
		results = append(results, sarifResultFor(f, i))
	}
	var notes []sarifNotification
	for _, n := range r.Notes {
		notes = append(notes, sarifNotification{Level: "note", Message: sarifText{Text: n}})
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            "apicheck",
			Version:         sarifSemver(r.Tool.Version),
			SemanticVersion: sarifSemver(r.Tool.Version),
			InformationURI:  sarifInformationURI,
			Rules:           table,
		}},
		AutomationDetails: sarifAutomationDetails{ID: "apicheck/"},
		Invocations:       []sarifInvocation{{ExecutionSuccessful: true, ToolExecutionNotifications: notes}},
		Results:           results,
	}
	if r.Base != (finding.Rev{}) || r.Head != (finding.Rev{}) {
		run.Properties = &sarifRunProperties{Base: r.Base, Head: r.Head}
	}
	return sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}}
}

func sarifRuleFor(rule finding.RuleDoc) sarifRule {
	full := rule.Summary
	if rule.Why != "" {
		full = strings.TrimSpace(full + " " + rule.Why)
	}
	sr := sarifRule{
		ID:                   rule.ID,
		Name:                 RuleName(rule.ID),
		ShortDescription:     sarifText{Text: rule.Summary},
		FullDescription:      sarifText{Text: full},
		HelpURI:              sarifRulesDocURI + "#" + strings.ToLower(rule.ID),
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
		Properties:           sarifRuleProperties{Tags: []string{string(rule.Category), sarifCategoryTag}},
	}
	if sr.ShortDescription.Text == "" {
		sr.ShortDescription.Text = rule.ID
	}
	if sr.FullDescription.Text == "" {
		sr.FullDescription.Text = sr.ShortDescription.Text
	}
	if rule.Category == "" {
		sr.Properties.Tags = []string{sarifCategoryTag}
	}
	if text, md := ruleHelpText(rule), ruleHelpMarkdown(rule); text != "" {
		sr.Help = &sarifHelp{Text: text, Markdown: md}
	} else {
		sr.Help = sarifFallbackHelp(sr.FullDescription.Text, sr.HelpURI)
	}
	return sr
}

// sarifFallbackHelp is the help of a rule without documentation of its
// own: GitHub code scanning requires help text on every rule (the SARIF
// multitool's GH2012).
func sarifFallbackHelp(description, uri string) *sarifHelp {
	h := &sarifHelp{Text: description, Markdown: mdLine(description)}
	if uri != "" {
		h.Text += "\n\nDocumentation: " + uri
		h.Markdown += "\n\n[Documentation](" + uri + ")"
	}
	return h
}

// ruleHelpText is a rule's help as plain text: why, how to fix, examples.
func ruleHelpText(rule finding.RuleDoc) string {
	var parts []string
	if rule.Why != "" {
		parts = append(parts, "Why: "+rule.Why)
	}
	if rule.Fix != "" {
		parts = append(parts, "How to fix: "+rule.Fix)
	}
	if rule.Before != "" {
		parts = append(parts, "Before (reported):\n"+indent(rule.Before, "    "))
	}
	if rule.After != "" {
		parts = append(parts, "After (accepted):\n"+indent(rule.After, "    "))
	}
	return strings.Join(parts, "\n\n")
}

// ruleHelpMarkdown is a rule's help as Markdown, examples as Go code
// blocks. It is also the body of a rule's section in docs/rules.md.
func ruleHelpMarkdown(rule finding.RuleDoc) string {
	var parts []string
	if rule.Why != "" {
		parts = append(parts, "**Why.** "+rule.Why)
	}
	if rule.Fix != "" {
		parts = append(parts, "**How to fix.** "+rule.Fix)
	}
	if rule.Before != "" {
		parts = append(parts, "Before (reported):\n\n"+goBlock(rule.Before))
	}
	if rule.After != "" {
		parts = append(parts, "After (accepted):\n\n"+goBlock(rule.After))
	}
	return strings.Join(parts, "\n\n")
}

// goBlock fences Go code with a fence longer than any backtick run in it.
func goBlock(code string) string {
	fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
	return fence + "go\n" + strings.TrimRight(code, "\n") + "\n" + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func sarifResultFor(f finding.Finding, ruleIndex int) sarifResult {
	msg := sarifEscape(f.Message)
	if f.Hint != "" {
		msg += "\n" + sarifEscape(f.Hint)
	}
	if msg == "" {
		msg = f.Rule
	}
	res := sarifResult{
		RuleID:    f.Rule,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(f.Severity),
	}
	if f.Path != "" {
		res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical(f.Path, f.Line, f.Column)}}
	}
	// Each related position in a file at head with a line is a related
	// location with an id, its label as message, and a link to it from the
	// result's message: code scanning shows related locations only where
	// the message links them ("[text](id)"), and resolves every location
	// in the analysed commit, head. A position at base or at a release
	// (relatedRev), or without a line, is named in the message as text.
	var links []string
	for _, rel := range f.Related {
		if rel.Path == "" || rel.Line <= 0 || relatedRev(rel.Label) != revHead {
			if s := rel.String(); s != "" {
				links = append(links, sarifEscape(s))
			}
			continue
		}
		id := len(res.RelatedLocations) + 1
		label := rel.Label
		if label == "" {
			label = "related"
		}
		res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
			ID:               &id,
			PhysicalLocation: sarifPhysical(rel.Path, rel.Line, rel.Column),
			Message:          &sarifText{Text: label},
		})
		links = append(links, fmt.Sprintf("[%s](%d)", sarifLinkText(rel.String()), id))
	}
	if len(links) > 0 {
		msg += "\nSee " + strings.Join(links, ", ") + "."
	}
	res.Message = sarifText{Text: msg}
	if f.Fingerprint != "" {
		res.PartialFingerprints = map[string]string{SARIFFingerprintKey: f.Fingerprint}
	}
	if f.Suppressed != "" {
		kind := "external"
		if strings.HasPrefix(f.Suppressed, "inline: ") {
			kind = "inSource"
		}
		res.Suppressions = []sarifSuppress{{Kind: kind, Justification: f.Suppressed}}
	}
	if f.Package != "" || f.Type != "" || f.Field != "" || f.APIPath != "" {
		res.Properties = &sarifResultProps{Package: f.Package, Type: f.Type, Field: f.Field, APIPath: f.APIPath}
	}
	res.Fixes = sarifFixes(f.Fixes)
	return res
}

// SARIF fixes (§3.55): a finding's fixes as replacements in the files of
// head. Regions are the edits' lines and columns (columns count bytes,
// as every position of the report does); an insertion is an empty
// region (endColumn equal to startColumn).
type sarifFix struct {
	Description     sarifText             `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifFixRegion `json:"deletedRegion"`
	InsertedContent *sarifText     `json:"insertedContent,omitempty"`
}

type sarifFixRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

func sarifFixes(fixes []finding.Fix) []sarifFix {
	var out []sarifFix
	for _, fx := range fixes {
		sf := sarifFix{Description: sarifText{Text: fx.Description}}
		byPath := map[string]int{}
		for _, e := range fx.Edits {
			i, ok := byPath[e.Path]
			if !ok {
				i = len(sf.ArtifactChanges)
				byPath[e.Path] = i
				sf.ArtifactChanges = append(sf.ArtifactChanges, sarifArtifactChange{
					ArtifactLocation: sarifArtifactLocation{URI: sarifURI(e.Path), URIBaseID: sarifSrcRoot},
				})
			}
			r := sarifReplacement{DeletedRegion: sarifFixRegion{
				StartLine: e.StartLine, StartColumn: e.StartCol, EndLine: e.EndLine, EndColumn: e.EndCol,
			}}
			if e.NewText != "" {
				r.InsertedContent = &sarifText{Text: e.NewText}
			}
			sf.ArtifactChanges[i].Replacements = append(sf.ArtifactChanges[i].Replacements, r)
		}
		if len(sf.ArtifactChanges) > 0 {
			out = append(out, sf)
		}
	}
	return out
}

// sarifEscape keeps text from reading as an embedded link ("[text](id)",
// SARIF 2.1.0 §3.11.6) where it has none: a "]" right before "(" is
// escaped. Other brackets, such as Go's "[]string", stay as they are.
func sarifEscape(s string) string {
	return strings.ReplaceAll(s, "](", "\\](")
}

// sarifLinkText is the text of an embedded link: brackets and
// backslashes escaped (§3.11.6), on one line.
func sarifLinkText(s string) string {
	return strings.NewReplacer("\\", "\\\\", "[", "\\[", "]", "\\]", "\r", " ", "\n", " ").Replace(s)
}

func sarifPhysical(path string, line, col int) sarifPhysicalLocation {
	pl := sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sarifURI(path), URIBaseID: sarifSrcRoot}}
	// Code scanning needs a region with a start line (GH1003): a position
	// without a line (a whole file) is shown at its first line.
	pl.Region = &sarifRegion{StartLine: max(line, 1)}
	if line > 0 && col > 0 {
		pl.Region.StartColumn = col
	}
	return pl
}

// sarifURI turns a repository-relative path into a relative URI reference
// (percent-encoding what a URI cannot hold, such as spaces or '#').
func sarifURI(path string) string {
	path = strings.TrimPrefix(strings.ReplaceAll(path, "\\", "/"), "./")
	u := (&url.URL{Path: path}).EscapedPath()
	// A first segment with ':' would read as a scheme.
	if first, _, _ := strings.Cut(u, "/"); strings.Contains(first, ":") {
		u = "./" + u
	}
	return u
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "note"
}

// semverRE is Semantic Versioning 2.0.0 (semver.org's regular expression).
var semverRE = lazyre.New(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// sarifSemver is the tool version as SARIF's version and
// semanticVersion: a semantic version without a leading "v". A version
// that is not one (a build of a branch or commit, "dev") becomes
// 0.0.0-dev, with what it said as build metadata: "main" gives
// 0.0.0-dev+main, "2e57c9e-dirty" gives 0.0.0-dev+2e57c9e-dirty.
func sarifSemver(v string) string {
	if s := strings.TrimPrefix(v, "v"); semverRE.MatchString(s) {
		return s
	}
	switch v {
	case "", "dev", "(devel)":
		return sarifDevVersion
	}
	// Build metadata: dot-separated non-empty identifiers of [0-9A-Za-z-].
	var ids []string
	for _, id := range strings.Split(v, ".") {
		id = strings.Map(func(r rune) rune {
			if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, id)
		if strings.Trim(id, "-") != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return sarifDevVersion
	}
	return sarifDevVersion + "+" + strings.Join(ids, ".")
}

// RuleName is the CamelCase name of a rule ID: NEW_FIELD_NOT_POINTER gives
// NewFieldNotPointer.
func RuleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}
