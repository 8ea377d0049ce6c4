// Package finding holds the result types every stage after the rules
// shares: severities, findings and the report envelope. It is a leaf
// package: rules produce findings, reporters and the CLI consume them.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Severity of a finding. The zero value is invalid.
type Severity int

const (
	Info Severity = iota + 1
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText makes severities appear as their names in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SeverityNames are the names of the severities, most severe first: the
// spellings ParseSeverity accepts (in any case) and the configuration's
// vocabulary of severities.
func SeverityNames() []string {
	return []string{Error.String(), Warning.String(), Info.String()}
}

// ParseSeverity parses "error", "warning" or "info", in any case. It is
// the one severity parser: the CLI's --fail-on and the configuration
// (through SeverityNames) accept the same spellings.
func ParseSeverity(s string) (Severity, error) {
	for _, sev := range []Severity{Error, Warning, Info} {
		if strings.EqualFold(strings.TrimSpace(s), sev.String()) {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Finding is one rule violation (or informational note) at one place.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Path is repository-relative with forward slashes; for a removed
	// element it is the nearest place that exists at head.
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Package is the Go import path of the package the finding is about.
	Package string `json:"package"`
	// Group is the repository-relative directory of the API group.
	Group   string `json:"group,omitempty"`
	Version string `json:"version,omitempty"`
	Type    string `json:"type,omitempty"`
	Field   string `json:"field,omitempty"`
	// APIPath is the JSON path from a root kind, e.g. "Shoot.spec.purpose".
	APIPath string `json:"apiPath,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	// Fingerprint is stable across unrelated edits: derived from rule,
	// package, type, field and API path, never from line numbers.
	Fingerprint string `json:"fingerprint"`
	// Suppressed holds the reason when a config ignore entry or inline
	// marker suppressed the finding; suppressed findings never count
	// toward the exit code.
	Suppressed string `json:"suppressed,omitempty"`
	// Related are other positions worth showing (e.g. usages, the base
	// position of a removed element), each with a label saying what it is.
	Related []Related `json:"related,omitempty"`
	// Fixes are the safe, mechanical resolutions of the finding, as
	// edits to head's files (see Fix); `apicheck fix` applies them.
	// Most findings have none.
	Fixes []Fix `json:"fixes,omitempty"`
	// SeverityReason says why the severity policy of the rules engine gave
	// the finding another severity than its rule did (its group's profile,
	// an alpha API, the release history, a struct no kind reaches, the
	// configuration), one reason per step, joined by "; "; "" when it kept
	// the rule's. The message says the same where it matters to a reader,
	// so no report shows it and the JSON report leaves it out.
	SeverityReason string `json:"-"`
}

// Fix is one safe resolution of a finding: edits to files of head that,
// applied together (and gofmt'ed), make the finding go away without
// changing anything else.
type Fix struct {
	// Description says what the fix does, e.g. "make Replicas a pointer:
	// *int32".
	Description string `json:"description"`
	// Edits never overlap; each applies to the file content the
	// finding's revision had.
	Edits []Edit `json:"edits"`
	// Suggestions are the same change as whole lines, formatted as
	// `apicheck fix` writes them: what a reviewer's suggested change
	// (GitHub's ```suggestion block) replaces lines StartLine..EndLine
	// of Path with. An insertion replaces the line it goes before,
	// repeated after the new lines.
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

// Suggestion replaces lines StartLine..EndLine (1-based, inclusive) of
// Path with Text (complete lines, without the final line break).
type Suggestion struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}

// Edit replaces a range of one file with new text. The range is given
// twice: as byte offsets (exact, for applying) and as 1-based lines and
// byte columns like every position of a report (for SARIF and people).
// An insertion has an empty range (End equals Start).
type Edit struct {
	// Path is repository-relative with forward slashes.
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	StartCol  int    `json:"startColumn"`
	EndLine   int    `json:"endLine"`
	EndCol    int    `json:"endColumn"`
	// StartOffset and EndOffset are byte offsets into the file: the edit
	// replaces content[StartOffset:EndOffset].
	StartOffset int    `json:"startOffset"`
	EndOffset   int    `json:"endOffset"`
	NewText     string `json:"newText"`
}

// Related is one position related to a finding: a usage, the base
// position of a removed element, a tombstone. Path is repository-relative
// with forward slashes, and may name a file of another revision than head
// (the label says which, e.g. "usage at base"). A Related without Path
// is information without a place (e.g. "release v1.2.0: Spec.Old = 5").
type Related struct {
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Label says what the position is, e.g. "usage at base", "base",
	// "tombstone".
	Label string `json:"label,omitempty"`
}

// Position is "path:line:col" ("path:line" without a column, "path"
// without a line), or "" without a path.
func (r Related) Position() string {
	switch {
	case r.Path == "":
		return ""
	case r.Line <= 0:
		return r.Path
	case r.Column <= 0:
		return fmt.Sprintf("%s:%d", r.Path, r.Line)
	}
	return fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Column)
}

// String is "label path:line:col", or whichever of the two it has.
func (r Related) String() string {
	pos := r.Position()
	switch {
	case r.Label == "":
		return pos
	case pos == "":
		return r.Label
	}
	return r.Label + " " + pos
}

// ComputeFingerprint fills f.Fingerprint from its identity.
func (f *Finding) ComputeFingerprint() {
	f.Fingerprint = FingerprintOf(f.Rule, f.Package, f.Type, f.Field, f.APIPath, f.discriminator())
}

// FingerprintOf is the fingerprint of an identity given as parts; a
// finding whose identity is not its API element (e.g. a line of the
// configuration) sets its Fingerprint with it before Finalize.
func FingerprintOf(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// discriminator separates findings of one rule on one field that differ
// only in what they say (e.g. two duplicate numbers), without using lines.
func (f *Finding) discriminator() string {
	if f.Type == "" && f.Field == "" && f.APIPath == "" {
		return f.Message
	}
	return ""
}

// Summary counts unsuppressed findings per severity.
type Summary struct {
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Infos      int `json:"infos"`
	Suppressed int `json:"suppressed,omitempty"`
}

// Summarize counts findings.
func Summarize(fs []Finding) Summary {
	var s Summary
	for _, f := range fs {
		if f.Suppressed != "" {
			s.Suppressed++
			continue
		}
		switch f.Severity {
		case Error:
			s.Errors++
		case Warning:
			s.Warnings++
		case Info:
			s.Infos++
		}
	}
	return s
}

// Sort orders findings deterministically: by path, line, column, rule,
// then the remaining identity fields. It is the one place findings are
// ordered; every reporter prints them in this order.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
}

// Dedupe removes exact duplicates (same rule, position, identity and
// message) from sorted findings.
func Dedupe(fs []Finding) []Finding {
	out := fs[:0]
	seen := map[string]bool{}
	for _, f := range fs {
		k := strings.Join([]string{f.Rule, f.Path, fmt.Sprint(f.Line, ":", f.Column), f.Package, f.Type, f.Field, f.Message}, "\x00")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// Tool identifies apicheck in reports.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Rev identifies one compared revision.
type Rev struct {
	// Ref is what the user gave (or "WORKTREE").
	Ref string `json:"ref"`
	// Commit is the resolved SHA; empty for a working tree without HEAD.
	Commit string `json:"commit"`
	// Reason says why apicheck chose this revision when the user named
	// none (the default base), e.g. "upstream/main is the default branch
	// of the remote upstream, and branch feature has no upstream".
	Reason string `json:"reason,omitempty"`
}

// ChoiceNote is the run note saying which revision apicheck chose and
// why ("" when the user named the revision).
func (r Rev) ChoiceNote() string {
	if r.Reason == "" {
		return ""
	}
	commit := r.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return fmt.Sprintf("base: %s (%s), chosen because no --base was given and %s; pass --base REF to compare with another revision",
		r.Ref, commit, r.Reason)
}

// Releases are the releases a run used.
type Releases struct {
	// NewestBeforeBase is the release before base: the one whose
	// components run next to the API server base becomes.
	NewestBeforeBase *Release `json:"newestBeforeBase,omitempty"`
	// NewestBeforeHead is the release before head, only when it differs
	// (the comparison spans releases).
	NewestBeforeHead *Release `json:"newestBeforeHead,omitempty"`
}

// Release is a release tag.
type Release struct {
	Tag    string `json:"tag"`
	Commit string `json:"commit"`
	// Date is the tag's date, YYYY-MM-DD ("" when unknown).
	Date string `json:"date,omitempty"`
}

// Label is "v1.149.0 (2026-08-13)".
func (r *Release) Label() string {
	if r.Date == "" {
		return r.Tag
	}
	return r.Tag + " (" + r.Date + ")"
}

// Used is the one-line statement of the releases used, e.g. "release
// used: v1.149.0 (2026-08-13)"; "" when none.
func (r *Releases) Used() string {
	switch {
	case r == nil || r.NewestBeforeBase == nil:
		return ""
	case r.NewestBeforeHead == nil:
		return "release used: " + r.NewestBeforeBase.Label()
	}
	return "releases used: " + r.NewestBeforeBase.Label() + " before base, " + r.NewestBeforeHead.Label() + " before head"
}

// Report is the complete result of one check. All formats derive from it.
type Report struct {
	Tool     Tool      `json:"tool"`
	Base     Rev       `json:"base"`
	Head     Rev       `json:"head"`
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	// Notes are statements about the run itself (e.g. "no release tag
	// found; release-based rules skipped", "usages are approximate").
	Notes []string `json:"notes,omitempty"`
	// Releases names the releases the run judged against (the lifecycle
	// rules); nil when it used none.
	Releases *Releases `json:"releases,omitempty"`
	// Rules documents the rules of the catalogue the run used, for the
	// formats that describe rules (SARIF); not part of the JSON report.
	Rules []RuleDoc `json:"-"`
	// ReleaseNote is the release note the run was given (check
	// --release-note); nil when none.
	ReleaseNote *ReleaseNote `json:"releaseNote,omitempty"`
}

// Finalize sorts, de-duplicates, fingerprints and counts the findings.
func (r *Report) Finalize() {
	for i := range r.Findings {
		if r.Findings[i].Fingerprint == "" {
			r.Findings[i].ComputeFingerprint()
		}
	}
	Sort(r.Findings)
	r.Findings = Dedupe(r.Findings)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	sort.Strings(r.Notes)
	r.Summary = Summarize(r.Findings)
}

// Worst returns the highest severity among unsuppressed findings (0 when
// there are none).
func (r *Report) Worst() Severity {
	var w Severity
	for _, f := range r.Findings {
		if f.Suppressed == "" && f.Severity > w {
			w = f.Severity
		}
	}
	return w
}
