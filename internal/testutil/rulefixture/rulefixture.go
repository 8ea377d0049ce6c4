// Package rulefixture reads, checks and rewrites the rule fixtures of
// internal/rules/testdata: txtar archives that hold a git history (see
// gitfixture) and, in the archive comment, the complete expected outcome of
// checking its "base" step against its "head" step (or, when it has a
// "worktree" step, against the working tree: the head step checked out,
// the worktree step written over it). The test that runs
// them is internal/rules/fixtures_test.go; docs/contributing.md describes
// the format for contributors.
//
// Layout: every fixture is testdata/<DIR>/<name>.txtar, and its case name
// is <DIR>/<name>. DIR is the ID of the rule the fixture is about
// (testdata/NEW_FIELD_NOT_POINTER/fires.txtar), or, for a fixture about
// no single rule, a topic in lower case after an underscore
// (testdata/_engine/...). testdata/_prelude holds the shared preludes (see
// History). Nothing else belongs in testdata: no .txtar directly in it,
// no subdirectory of a fixture directory, no file but .txtar ones.
//
// In a rule's directory, the name says what the case shows: fires[suffix]
// must expect the rule, quiet[suffix] must not (suffix: _more_words,
// -more-words or digits); another lower-case name asserts only its
// outcome. A topic directory has no fires or quiet cases.
//
// The comment is free text up to a line "want:"; before it, an optional
// line "options: key=value ..." sets options of the run (profile=,
// typeinfo=, trusted-config=, audit=rev|history: audit the head step
// instead of checking base against head, release-note=FILE: the file of
// the head step at that path is check's --release-note), and an optional
// line
// "prelude: NAME ..." names the shared preludes whose files the history
// starts with (testdata/_prelude/NAME.txtar). Every line after "want:" is
// part of the outcome:
//
//	RULE_ID SEVERITY PATH:LINE:COL SUBJECT MESSAGE
//		related: MESSAGE
//		suppressed: MESSAGE
//	note: MESSAGE
//	release: MESSAGE
//
// A finding line names the rule, its severity (error, warning, info), its
// position, its subject (Type.Field, Type, or - for neither) and its
// message. MESSAGE is a Go string literal, "exact text", or a substring
// marked with a tilde, ~"part of the text". The indented lines under a
// finding are its related positions, all of them in order, and the reason
// it was suppressed, if it was. A note line matches one note of the run.
// A release line matches the report's statement of the releases it used
// ("release used: v1.2.0 (2024-01-01)"); without one, the report must name
// no release. The lists are complete: a finding or a note that no line
// matches fails the case, so a case that expects nothing proves that
// nothing fires. The
// order of finding and note lines does not matter; Update writes them in
// report order. Blank lines and lines starting with # are ignored.
//
// Files named modcache/<module>@<version>/<path> are no part of the
// history: they are the module cache the run reads (ModCache), which
// holds nothing else; a case without them reads an empty one.
//
// A prelude (testdata/_prelude/NAME.txtar) is an archive whose comment
// says what it holds and whose files are named by their path in the
// repository, without a step. Its files are added to the first step of
// every history that names it; a file the fixture's first step has at
// the same path takes its place (the fixture wins), and later steps change
// or delete prelude files like any other. Two preludes of one fixture must
// not share a path.
package rulefixture

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"

	"github.com/apicheck/apicheck/internal/finding"
)

// Kinds of case, from the file name.
const (
	Fires   = "fires"
	Quiet   = "quiet"
	General = ""
)

// Step names of the compared revisions.
const (
	BaseStep = "base"
	HeadStep = "head"
)

// PreludeDir is the directory of the shared preludes, next to the fixture
// directories.
const PreludeDir = "_prelude"

// ModCacheStep names the files of an archive that are no part of the
// history: modcache/<module>@<version>/<path> is a file of the module
// cache the run reads (see ModCache).
const ModCacheStep = "modcache"

// Options of a run, from the "options:" line.
type Options struct {
	// TypeInfo is the lifecycle type-information mode: "" (the tool's
	// default), "auto" or "off".
	TypeInfo string
	// Profile is the repository profile the prelude configures: "" means
	// gardener (the checklist most fixtures are written for), "detect"
	// leaves it to apicheck's detection.
	Profile string
	// TrustedConfig is check's --trusted-config: "" (the default, head) or
	// "base".
	TrustedConfig string
	// Audit is "" (check base against head), "rev" (`apicheck audit` of
	// the head step) or "history" (`apicheck audit --history` of the head
	// step; the base step is not read).
	Audit string
	// ReleaseNote is the path of the head step's file that is check's
	// --release-note ("": none).
	ReleaseNote string
}

// Matcher matches a message: exactly, or as a substring.
type Matcher struct {
	Text      string
	Substring bool
}

// Match says whether s is the text (or contains it, for a substring).
func (m Matcher) Match(s string) bool {
	if m.Substring {
		return strings.Contains(s, m.Text)
	}
	return s == m.Text
}

// String is the matcher as fixtures spell it.
func (m Matcher) String() string {
	if m.Substring {
		return "~" + strconv.Quote(m.Text)
	}
	return strconv.Quote(m.Text)
}

// Exact is the matcher of exactly s.
func Exact(s string) Matcher { return Matcher{Text: s} }

// Want is one expected finding.
type Want struct {
	Rule      string
	Severity  finding.Severity
	Path      string
	Line, Col int
	// Subject is "Type.Field", "Type" or "" (written "-").
	Subject    string
	Message    Matcher
	Related    []Matcher
	Suppressed *Matcher
	// Src is the line of the fixture file, for messages.
	Src int
}

// Case is one fixture.
type Case struct {
	// Name is <DIR>/<file name without ".txtar">.
	Name string
	File string
	// Dir is the fixture's directory: a rule ID or a topic (_name); ""
	// for a case parsed under a name without one.
	Dir string
	// Rule is Dir when it names a rule, "" for a topic. Kind comes from
	// the file name: Fires, Quiet or General.
	Rule, Kind string
	Options    Options
	// Preludes are the names on the "prelude:" line, in order.
	Preludes []string
	Want     []Want
	Notes    []Matcher
	// Release matches the report's releases line (finding.Releases.Used);
	// nil means the report names no release.
	Release *Matcher

	archive *txtar.Archive
	// intro is the comment up to and including the "want:" line.
	intro string
	// prelude holds the files of Preludes once read (see ReadPreludes).
	prelude []txtar.File
	// preludesRead says ReadPreludes ran.
	preludesRead bool
}

var (
	ruleDirRe  = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$`)
	topicDirRe = regexp.MustCompile(`^_[a-z][a-z0-9-]*$`)
	fileRe     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	kindRe     = regexp.MustCompile(`^(fires|quiet)(?:[_-][a-z0-9_-]*|[0-9]*)$`)
	preludeRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// ParseName splits a case name, <DIR>/<file>, into the rule and the kind
// it is about: in a rule's directory the rule and Fires, Quiet or General
// (a lower-case name that is neither); in a topic directory "" and
// General. A lower-case name without a directory, which only a case
// parsed from content can have (another package's own cases, run through
// History), is General too.
func ParseName(name string) (rule, kind string, err error) {
	dir, file, ok := strings.Cut(name, "/")
	switch {
	case !ok && fileRe.MatchString(name):
		return "", General, nil
	case !ok || strings.Contains(file, "/"):
		return "", "", fmt.Errorf("fixture name %q: want <RULE_ID>/<name> or _<topic>/<name>", name)
	case !fileRe.MatchString(file):
		return "", "", fmt.Errorf("fixture name %q: the file name %q is not lower case (a-z, 0-9, _ and -)", name, file)
	case ruleDirRe.MatchString(dir):
		if m := kindRe.FindStringSubmatch(file); m != nil {
			return dir, m[1], nil
		}
		return dir, General, nil
	case dir == PreludeDir:
		return "", "", fmt.Errorf("fixture name %q: %s holds preludes, not fixtures", name, PreludeDir)
	case topicDirRe.MatchString(dir):
		if kindRe.MatchString(file) {
			return "", "", fmt.Errorf("fixture name %q: a fires or quiet case belongs in the directory of its rule", name)
		}
		return "", General, nil
	}
	return "", "", fmt.Errorf("fixture name %q: the directory %q is neither a rule ID (UPPER_CASE) nor a topic (_lower-case)", name, dir)
}

// Glob loads every fixture of dir, dir/<DIR>/<name>.txtar, sorted by
// name. It fails on anything else in dir but the prelude directory: a
// .txtar directly in dir, a directory that is neither a rule ID nor a
// topic, a subdirectory of a fixture directory, or a file that is not a
// .txtar (and on a fixture whose preludes cannot be read).
func Glob(dir string) ([]*Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	var errs []error
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case !e.IsDir():
			if strings.HasSuffix(e.Name(), ".txtar") {
				errs = append(errs, fmt.Errorf("%s: a fixture belongs in the directory of its rule (%s/<RULE_ID>/<name>.txtar)", p, dir))
			} else {
				errs = append(errs, fmt.Errorf("%s: not a fixture directory", p))
			}
			continue
		case e.Name() == PreludeDir:
			continue
		case !ruleDirRe.MatchString(e.Name()) && !topicDirRe.MatchString(e.Name()):
			errs = append(errs, fmt.Errorf("%s: a fixture directory is named for a rule ID (UPPER_CASE) or a topic (_lower-case)", p))
			continue
		}
		inner, err := os.ReadDir(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(inner) == 0 {
			errs = append(errs, fmt.Errorf("%s: an empty fixture directory", p))
		}
		for _, f := range inner {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".txtar") {
				errs = append(errs, fmt.Errorf("%s: a fixture directory holds only .txtar files", filepath.Join(p, f.Name())))
				continue
			}
			files = append(files, filepath.Join(p, f.Name()))
		}
	}
	if len(files) == 0 && len(errs) == 0 {
		return nil, fmt.Errorf("no fixtures in %s", dir)
	}
	sort.Strings(files)
	var cases []*Case
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases = append(cases, c)
	}
	return cases, errors.Join(errs...)
}

// Load reads and parses one fixture, testdata/<DIR>/<name>.txtar, and
// the preludes it names (testdata/_prelude).
func Load(file string) (*Case, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
	c, err := Parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("%s:%v", file, err)
	}
	c.File = file
	if err := c.ReadPreludes(filepath.Join(filepath.Dir(filepath.Dir(file)), PreludeDir)); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return c, nil
}

// ReadPreludes reads the preludes the case names from dir (Load does this
// for a fixture file).
func (c *Case) ReadPreludes(dir string) error {
	c.prelude, c.preludesRead = nil, true
	from := map[string]string{}
	for _, name := range c.Preludes {
		files, err := ReadPrelude(filepath.Join(dir, name+".txtar"))
		if err != nil {
			return fmt.Errorf("prelude %s: %v", name, err)
		}
		for _, f := range files {
			if other, dup := from[f.Name]; dup {
				return fmt.Errorf("preludes %s and %s both have %s", other, name, f.Name)
			}
			from[f.Name] = name
		}
		c.prelude = append(c.prelude, files...)
	}
	return nil
}

// ReadPrelude reads a prelude: an archive of files named by their path in
// the repository.
func ReadPrelude(file string) ([]txtar.File, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	ar := txtar.Parse(data)
	if len(ar.Files) == 0 {
		return nil, fmt.Errorf("%s: no files", file)
	}
	have := map[string]bool{}
	for _, f := range ar.Files {
		switch p := f.Name; {
		case p == "" || strings.HasSuffix(p, "/") || path.Clean(p) != p || strings.HasPrefix(p, "../") || path.IsAbs(p):
			return nil, fmt.Errorf("%s: file %q: want a clean path relative to the repository root", file, p)
		case have[p]:
			return nil, fmt.Errorf("%s: has %s twice", file, p)
		case strings.TrimSpace(string(f.Data)) == "(deleted)":
			return nil, fmt.Errorf("%s: %s: a prelude deletes nothing", file, p)
		}
		have[f.Name] = true
	}
	return ar.Files, nil
}

// Parse parses a fixture's content; name is <DIR>/<file name without
// ".txtar">. Errors start with the line number. A case that names
// preludes needs ReadPreludes before History.
func Parse(name string, data []byte) (*Case, error) {
	c := &Case{Name: name, archive: txtar.Parse(data)}
	var err error
	if c.Rule, c.Kind, err = ParseName(name); err != nil {
		return nil, fmt.Errorf("1: %v", err)
	}
	if dir, _, ok := strings.Cut(name, "/"); ok {
		c.Dir = dir
	}
	lines := strings.SplitAfter(string(c.archive.Comment), "\n")
	in := false
	var last *Want
	for i, raw := range lines {
		n := i + 1
		l := strings.TrimSpace(raw)
		if !in {
			c.intro += raw
			switch {
			case l == "want:":
				in = true
			case strings.HasPrefix(l, "options:"):
				if err := c.Options.parse(strings.TrimPrefix(l, "options:")); err != nil {
					return nil, fmt.Errorf("%d: %v", n, err)
				}
			case strings.HasPrefix(l, "prelude:"):
				if c.Preludes != nil {
					return nil, fmt.Errorf("%d: a second prelude: line (name every prelude on one)", n)
				}
				names := strings.Fields(strings.TrimPrefix(l, "prelude:"))
				if len(names) == 0 {
					return nil, fmt.Errorf("%d: the prelude: line names no prelude", n)
				}
				for i, p := range names {
					if !preludeRe.MatchString(p) {
						return nil, fmt.Errorf("%d: prelude: %q: want the name of a file of %s without .txtar (a-z, 0-9 and -)", n, p, PreludeDir)
					}
					if slices.Contains(names[:i], p) {
						return nil, fmt.Errorf("%d: prelude: %s named twice", n, p)
					}
				}
				c.Preludes = names
			}
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		key, rest, _ := strings.Cut(l, ":")
		switch key {
		case "release":
			if c.Release != nil {
				return nil, fmt.Errorf("%d: a second release: line", n)
			}
			m, err := parseMatcher(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("%d: release: %v", n, err)
			}
			c.Release = &m
			last = nil
			continue
		case "note":
			m, err := parseMatcher(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("%d: note: %v", n, err)
			}
			c.Notes = append(c.Notes, m)
			last = nil
			continue
		case "related", "suppressed":
			if last == nil {
				return nil, fmt.Errorf("%d: %s: line does not follow a finding line", n, key)
			}
			m, err := parseMatcher(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("%d: %s: %v", n, key, err)
			}
			if key == "related" {
				last.Related = append(last.Related, m)
			} else if last.Suppressed != nil {
				return nil, fmt.Errorf("%d: a second suppressed: line", n)
			} else {
				last.Suppressed = &m
			}
			continue
		}
		w, err := parseWant(l)
		if err != nil {
			return nil, fmt.Errorf("%d: %v", n, err)
		}
		w.Src = n
		c.Want = append(c.Want, w)
		last = &c.Want[len(c.Want)-1]
	}
	if !in {
		return nil, errors.New("1: no want: line in the archive comment")
	}
	return c, nil
}

func (o *Options) parse(s string) error {
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "profile":
			switch v {
			case "gardener", "kubernetes", "crd", "componentconfig", "detect":
				o.Profile = v
			default:
				return fmt.Errorf("options: profile=%q: want gardener, kubernetes, crd, componentconfig or detect", v)
			}
		case "typeinfo":
			if v != "auto" && v != "off" {
				return fmt.Errorf("options: typeinfo=%q: want auto or off", v)
			}
			o.TypeInfo = v
		case "trusted-config":
			if v != "head" && v != "base" {
				return fmt.Errorf("options: trusted-config=%q: want head or base", v)
			}
			o.TrustedConfig = v
		case "audit":
			if v != "rev" && v != "history" {
				return fmt.Errorf("options: audit=%q: want rev or history", v)
			}
			o.Audit = v
		case "release-note":
			if v == "" {
				return errors.New("options: release-note= needs the path of a file of the head step")
			}
			o.ReleaseNote = v
		default:
			return fmt.Errorf("options: unknown option %q (known: profile, typeinfo, trusted-config, audit, release-note)", k)
		}
	}
	return nil
}

var posRe = regexp.MustCompile(`^(.+):([0-9]+):([0-9]+)$`)

func parseWant(l string) (Want, error) {
	var w Want
	f := fields(l, 5)
	if len(f) < 5 {
		return w, fmt.Errorf("finding line %q: want RULE_ID SEVERITY PATH:LINE:COL SUBJECT MESSAGE", l)
	}
	w.Rule = f[0]
	sev, err := finding.ParseSeverity(f[1])
	if err != nil || sev.String() != f[1] {
		return w, fmt.Errorf("finding line %q: severity %q: want error, warning or info", l, f[1])
	}
	w.Severity = sev
	m := posRe.FindStringSubmatch(f[2])
	if m == nil {
		return w, fmt.Errorf("finding line %q: position %q: want path:line:col", l, f[2])
	}
	w.Path = m[1]
	w.Line, _ = strconv.Atoi(m[2])
	w.Col, _ = strconv.Atoi(m[3])
	if f[3] != "-" {
		w.Subject = f[3]
	}
	if w.Message, err = parseMatcher(strings.TrimSpace(f[4])); err != nil {
		return w, fmt.Errorf("finding line %q: message: %v", l, err)
	}
	return w, nil
}

// fields splits s at runs of white space into at most n fields; the last
// one is the rest of s.
func fields(s string, n int) []string {
	var out []string
	for len(out) < n-1 {
		s = strings.TrimLeft(s, " \t")
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			break
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}

func parseMatcher(s string) (Matcher, error) {
	var m Matcher
	if strings.HasPrefix(s, "~") {
		m.Substring = true
		s = s[1:]
	}
	if !strings.HasPrefix(s, `"`) {
		return m, fmt.Errorf("%s: want a quoted string, \"exact\" or ~\"substring\"", s)
	}
	text, err := strconv.Unquote(s)
	if err != nil {
		return m, fmt.Errorf("%s: not a Go string literal (%v)", s, err)
	}
	if m.Substring && text == "" {
		return m, errors.New(`~"" matches anything: write the text`)
	}
	m.Text = text
	return m, nil
}

// Subject is a finding's subject as fixtures write it ("" when it has
// neither type nor field).
func Subject(f finding.Finding) string {
	switch {
	case f.Field == "":
		return f.Type
	case f.Type == "":
		return "." + f.Field
	}
	return f.Type + "." + f.Field
}

func (w Want) matches(f finding.Finding) bool {
	if w.Rule != f.Rule || w.Severity != f.Severity || w.Path != f.Path || w.Line != f.Line || w.Col != f.Column ||
		w.Subject != Subject(f) || !w.Message.Match(f.Message) || len(w.Related) != len(f.Related) {
		return false
	}
	for i, r := range w.Related {
		if !r.Match(f.Related[i].String()) {
			return false
		}
	}
	if w.Suppressed == nil {
		return f.Suppressed == ""
	}
	return f.Suppressed != "" && w.Suppressed.Match(f.Suppressed)
}

// String is the want as a fixture line (and its continuation lines).
func (w Want) String() string {
	subject := w.Subject
	if subject == "" {
		subject = "-"
	}
	s := fmt.Sprintf("%s %s %s:%d:%d %s %s", w.Rule, w.Severity, w.Path, w.Line, w.Col, subject, w.Message)
	for _, r := range w.Related {
		s += "\n\trelated: " + r.String()
	}
	if w.Suppressed != nil {
		s += "\n\tsuppressed: " + w.Suppressed.String()
	}
	return s
}

// Exactly is the want that matches f and nothing else.
func Exactly(f finding.Finding) Want {
	w := Want{Rule: f.Rule, Severity: f.Severity, Path: f.Path, Line: f.Line, Col: f.Column,
		Subject: Subject(f), Message: Exact(f.Message)}
	for _, r := range f.Related {
		w.Related = append(w.Related, Exact(r.String()))
	}
	if f.Suppressed != "" {
		m := Exact(f.Suppressed)
		w.Suppressed = &m
	}
	return w
}

// match pairs the case's lines with the report: forFinding[i] is the
// index in c.Want of the line matching r.Findings[i] (-1: none), forNote
// the same for notes; missing and missingNotes list the lines that match
// nothing. Lines are taken in file order, each by the first finding or
// note it matches that no earlier line took.
func (c *Case) match(r *finding.Report) (forFinding, forNote, missing, missingNotes []int) {
	forFinding = make([]int, len(r.Findings))
	for i := range forFinding {
		forFinding[i] = -1
	}
	for j, w := range c.Want {
		found := false
		for i, f := range r.Findings {
			if forFinding[i] < 0 && w.matches(f) {
				forFinding[i], found = j, true
				break
			}
		}
		if !found {
			missing = append(missing, j)
		}
	}
	forNote = make([]int, len(r.Notes))
	for i := range forNote {
		forNote[i] = -1
	}
	for j, m := range c.Notes {
		found := false
		for i, n := range r.Notes {
			if forNote[i] < 0 && m.Match(n) {
				forNote[i], found = j, true
				break
			}
		}
		if !found {
			missingNotes = append(missingNotes, j)
		}
	}
	return forFinding, forNote, missing, missingNotes
}

// Compare checks a report against the case and returns one line per
// difference: an expected finding or note that did not come ("-"), or one
// that came unexpected ("+"). Empty means the outcome is as expected.
func (c *Case) Compare(r *finding.Report) []string {
	forFinding, forNote, missing, missingNotes := c.match(r)
	var diffs []string
	for _, j := range missing {
		diffs = append(diffs, fmt.Sprintf("- %s (line %d)", indent(c.Want[j].String()), c.Want[j].Src))
	}
	for i, f := range r.Findings {
		if forFinding[i] < 0 {
			diffs = append(diffs, "+ "+indent(Exactly(f).String()))
		}
	}
	for _, j := range missingNotes {
		diffs = append(diffs, "- note: "+c.Notes[j].String())
	}
	for i, n := range r.Notes {
		if forNote[i] < 0 {
			diffs = append(diffs, "+ note: "+Exact(n).String())
		}
	}
	used := r.Releases.Used()
	switch {
	case c.Release == nil && used != "":
		diffs = append(diffs, "+ release: "+Exact(used).String())
	case c.Release != nil && used == "":
		diffs = append(diffs, "- release: "+c.Release.String())
	case c.Release != nil && !c.Release.Match(used):
		diffs = append(diffs, "- release: "+c.Release.String(), "+ release: "+Exact(used).String())
	}
	return diffs
}

// Outcome formats the outcome section for a report: in report order, the
// case's own line for every finding, note and the release line one
// matches (so substring matchers stay), an exact line for the others.
func (c *Case) Outcome(r *finding.Report) string {
	forFinding, forNote, _, _ := c.match(r)
	var b strings.Builder
	for i, f := range r.Findings {
		w := Exactly(f)
		if j := forFinding[i]; j >= 0 {
			w = c.Want[j]
		}
		b.WriteString(w.String() + "\n")
	}
	for i, n := range r.Notes {
		m := Exact(n)
		if j := forNote[i]; j >= 0 {
			m = c.Notes[j]
		}
		b.WriteString("note: " + m.String() + "\n")
	}
	if used := r.Releases.Used(); used != "" {
		m := Exact(used)
		if c.Release != nil && c.Release.Match(used) {
			m = *c.Release
		}
		b.WriteString("release: " + m.String() + "\n")
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// CheckName checks what the name promises: the directory of a rule names
// one of known (the catalogue), a fires case expects its rule, a quiet
// case does not.
func (c *Case) CheckName(known map[string]bool) error {
	if c.Rule == "" {
		return nil
	}
	if !known[c.Rule] {
		return fmt.Errorf("%s: in the directory %s, which is not a rule of the catalogue", c.Name, c.Rule)
	}
	expects := false
	for _, w := range c.Want {
		expects = expects || w.Rule == c.Rule
	}
	switch {
	case c.Kind == Fires && !expects:
		return fmt.Errorf("%s: a fires case of %s that does not expect it", c.Name, c.Rule)
	case c.Kind == Quiet && expects:
		return fmt.Errorf("%s: a quiet case of %s that expects it", c.Name, c.Rule)
	}
	return nil
}

// Update rewrites the case's file with the report as its outcome (see
// Outcome): the comment up to "want:" and the history stay.
func (c *Case) Update(r *finding.Report) error {
	c.archive.Comment = []byte(c.intro + c.Outcome(r))
	if err := os.WriteFile(c.File, txtar.Format(c.archive), 0o644); err != nil {
		return err
	}
	updated, err := Load(c.File)
	if err != nil {
		return err
	}
	*c = *updated
	return nil
}

// ModCache returns the files of the module cache the case's run reads,
// named by their paths relative to it (<module>@<version>/<path>): the
// archive's files under modcache/. A case without any reads an empty
// module cache, whatever the machine's holds.
func (c *Case) ModCache() []txtar.File {
	var out []txtar.File
	for _, f := range c.archive.Files {
		if rest, ok := strings.CutPrefix(f.Name, ModCacheStep+"/"); ok {
			out = append(out, txtar.File{Name: rest, Data: f.Data})
		}
	}
	return out
}

var versionDirRe = regexp.MustCompile(`(^|/)v[0-9]+((alpha|beta)[0-9]+)?$`)

// metaImport is the import path of the tiny package the prelude provides.
const metaImport = `"example.com/api/pkg/meta"`

// History returns the archive for gitfixture.FromTxtar with the prelude
// added to its first step, so that fixtures stay short. First come the
// files of the named preludes (testdata/_prelude), each unless the first
// step has a file at its path. Then, judged on the history with those
// files, what every fixture would otherwise repeat: a go.mod (module
// example.com/api) unless some step has one, an .apicheck.yaml naming the
// profile (options: profile=..., gardener by default, none for "detect")
// unless some step has one, a doc.go declaring
// +groupName=<group>.example.cloud for every version directory (v1,
// v1beta1, …) that has none, and a package pkg/meta with a TypeMeta type
// when a file imports example.com/api/pkg/meta (root kinds without
// dependencies).
func (c *Case) History() []byte {
	if len(c.Preludes) > 0 && !c.preludesRead {
		panic(fmt.Sprintf("rulefixture: %s names preludes (%s) that were not read: use Load, or ReadPreludes after Parse", c.Name, strings.Join(c.Preludes, " ")))
	}
	ar := &txtar.Archive{Comment: c.archive.Comment}
	for _, f := range c.archive.Files {
		if !strings.HasPrefix(f.Name, ModCacheStep+"/") {
			ar.Files = append(ar.Files, f)
		}
	}
	if len(ar.Files) == 0 {
		return txtar.Format(ar)
	}
	first, _, _ := strings.Cut(ar.Files[0].Name, "/")
	firstStep, _, _ := strings.Cut(first, "@")
	own := map[string]bool{}
	for _, f := range ar.Files {
		head, p, _ := strings.Cut(f.Name, "/")
		if step, _, _ := strings.Cut(head, "@"); step == firstStep {
			own[p] = true
		}
	}
	var files []txtar.File
	for _, f := range c.prelude {
		if !own[f.Name] {
			files = append(files, txtar.File{Name: first + "/" + f.Name, Data: f.Data})
		}
	}
	files = append(files, ar.Files...)
	have := map[string]bool{}
	var dirs []string
	usesMeta := false
	for _, f := range files {
		_, p, _ := strings.Cut(f.Name, "/")
		have[p] = true
		if d := path.Dir(p); versionDirRe.MatchString(d) && !have["dir:"+d] {
			have["dir:"+d] = true
			dirs = append(dirs, d)
		}
		usesMeta = usesMeta || strings.Contains(string(f.Data), metaImport)
	}
	sort.Strings(dirs)
	var extra []txtar.File
	add := func(p, content string) {
		if !have[p] {
			extra = append(extra, txtar.File{Name: first + "/" + p, Data: []byte(content)})
		}
	}
	add("go.mod", "module example.com/api\n\ngo 1.22\n")
	switch c.Options.Profile {
	case "detect":
	case "":
		add(".apicheck.yaml", "profile: gardener\n")
	default:
		add(".apicheck.yaml", "profile: "+c.Options.Profile+"\n")
	}
	if usesMeta {
		add("pkg/meta/meta.go", "package meta\n\n// TypeMeta marks root kinds.\ntype TypeMeta struct {\n\tKind string `json:\"kind,omitempty\"`\n}\n")
	}
	for _, d := range dirs {
		add(d+"/doc.go", fmt.Sprintf("// +groupName=%s.example.cloud\npackage %s\n", path.Base(path.Dir(d)), path.Base(d)))
	}
	return txtar.Format(&txtar.Archive{Files: append(extra, files...)})
}
