// Package kal reads what apicheck needs of a repository's kube-api-linter
// configuration (sigs.k8s.io/kube-api-linter, which golangci-lint runs as
// the custom linter kubeapilinter): whether its optionalorrequired and
// optionalfields linters are enabled, optionalfields' pointer preference,
// and the files golangci-lint's exclusions leave out of it. The crd profile
// follows those conventions for new fields.
//
// The configuration is data: it is read as YAML (the file at the root of
// a revision, .golangci-kal.yml first, then .golangci.yml), never run.
// Only the settings golangci-lint's two layouts give the linter are read:
// linters.settings.custom.kubeapilinter (version 2) and
// linters-settings.custom.kubeapilinter (version 1), with the exclusions
// of linters.exclusions (version 2) and issues (version 1).
package kal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/git"
)

// Files are the configuration files read, in order: the first that
// configures kubeapilinter is the repository's.
var Files = []string{".golangci-kal.yml", ".golangci-kal.yaml", ".golangci.yml", ".golangci.yaml"}

// The linters of kube-api-linter whose conventions apicheck follows.
const (
	// OptionalOrRequired asks every field to be marked +optional or
	// +required.
	OptionalOrRequired = "optionalorrequired"
	// OptionalFields asks optional fields to be pointers (as
	// PointerPreference says) with omitempty.
	OptionalFields = "optionalfields"
)

// The values of optionalfields' pointers.preference.
const (
	// PointersAlways: every optional field that is not nillable should be
	// a pointer (kube-api-linter's default).
	PointersAlways = "Always"
	// PointersWhenRequired: an optional field needs to be a pointer only
	// when its zero value is valid.
	PointersWhenRequired = "WhenRequired"
)

// linterName is kube-api-linter's name in golangci-lint's configuration.
const linterName = "kubeapilinter"

// defaults are kube-api-linter's linters enabled when the configuration
// does not say otherwise (of those apicheck follows).
var defaults = map[string]bool{OptionalOrRequired: true, OptionalFields: true}

// Config is a repository's kube-api-linter configuration.
type Config struct {
	// File is the configuration's path in the repository; Rev the
	// revision it was read from ("base" or "head", set by the caller).
	File, Rev string

	enable, disable []string
	pointers        string
	// excluded are the paths golangci-lint leaves out of every linter or
	// of kubeapilinter as a whole.
	excluded []*regexp.Regexp
	rules    []exclusion
}

// exclusion is an exclusion rule that applies to kubeapilinter's issues:
// those of files path matches (and path-except does not), whose text
// matches text (every issue when nil).
type exclusion struct {
	path, pathExcept, text *regexp.Regexp
}

// Source is a revision's files (git.Snapshot).
type Source interface {
	Files() []string
	ReadFiles(paths []string) (map[string][]byte, error)
}

// Read returns the kube-api-linter configuration of a revision: the
// first of Files that configures kubeapilinter and enables it; nil when
// none does.
func Read(src Source) (*Config, error) {
	for _, name := range Files {
		if ok, err := git.HasFile(src, name); err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		} else if !ok {
			continue
		}
		data, err := src.ReadFiles([]string{name})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		cfg, err := Parse(name, data[name])
		if err != nil || cfg != nil {
			return cfg, err
		}
	}
	return nil, nil
}

// Parse reads a golangci-lint configuration file named name; nil when it
// does not enable kubeapilinter with its settings.
func Parse(name string, data []byte) (*Config, error) {
	var doc map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty file
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	linters := mapAt(doc, "linters")
	settings := mapAt(linters, "settings", "custom", linterName) // version 2
	if settings == nil {
		settings = mapAt(doc, "linters-settings", "custom", linterName) // version 1
	}
	if settings == nil || !enabledIn(linters) {
		return nil, nil
	}
	cfg := &Config{File: name}
	kal := mapAt(settings, "settings")
	cfg.enable = strings_(at(kal, "linters", "enable"))
	cfg.disable = strings_(at(kal, "linters", "disable"))
	for k, v := range mapAt(kal, "lintersConfig") {
		if strings.ToLower(k) == OptionalFields { // early configurations spelled it optionalFields
			if p, ok := at(asMap(v), "pointers", "preference").(string); ok {
				cfg.pointers = p
			}
		}
	}
	var err error
	// Version 2: linters.exclusions; version 1: issues.
	ex := mapAt(linters, "exclusions")
	if cfg.excluded, err = regexps(name, at(ex, "paths")); err != nil {
		return nil, err
	}
	for _, key := range []string{"exclude-files", "exclude-dirs"} {
		res, err := regexps(name, at(doc, "issues", key))
		if err != nil {
			return nil, err
		}
		cfg.excluded = append(cfg.excluded, res...)
	}
	for _, list := range []any{at(ex, "rules"), at(doc, "issues", "exclude-rules")} {
		items, _ := list.([]any)
		for _, it := range items {
			if err := cfg.addRule(name, asMap(it)); err != nil {
				return nil, err
			}
		}
	}
	return cfg, nil
}

// enabledIn reports whether a golangci-lint linters section enables
// kubeapilinter: it lists it in enable (or enables all) and does not
// disable it.
func enabledIn(linters map[string]any) bool {
	if slices.Contains(strings_(at(linters, "disable")), linterName) {
		return false
	}
	all := at(linters, "default") == "all" || at(linters, "enable-all") == true
	return all || slices.Contains(strings_(at(linters, "enable")), linterName)
}

// addRule adds an exclusion rule when it applies to kubeapilinter's
// issues: its linters name it (or are not given: every linter's), and it
// has no source condition (which names lines of code, not files or
// linters).
func (c *Config) addRule(file string, r map[string]any) error {
	if r == nil || at(r, "source") != nil {
		return nil
	}
	if ls := strings_(at(r, "linters")); len(ls) > 0 && !slices.Contains(ls, linterName) {
		return nil
	}
	var e exclusion
	var err error
	for key, dst := range map[string]**regexp.Regexp{"path": &e.path, "path-except": &e.pathExcept, "text": &e.text} {
		s, ok := at(r, key).(string)
		if !ok || s == "" {
			continue
		}
		if *dst, err = regexp.Compile(s); err != nil {
			return fmt.Errorf("%s: exclusion rule %s %q: %v", file, key, s, err)
		}
	}
	if e.path == nil && e.pathExcept == nil && e.text == nil {
		return nil // linters alone: golangci-lint asks for a second condition
	}
	c.rules = append(c.rules, e)
	return nil
}

// Enabled reports whether the configuration runs one of kube-api-linter's
// linters on a file (a slash path of the repository): kube-api-linter
// enables it (its enable and disable lists, "*" for all, over its
// defaults), and no exclusion of golangci-lint leaves the file out of
// kubeapilinter, or out of that linter (a rule whose text matches the
// linter's "name: " prefix, which starts each of its issues).
func (c *Config) Enabled(linter, file string) bool {
	if c == nil || !c.on(linter) {
		return false
	}
	for _, re := range c.excluded {
		if re.MatchString(file) {
			return false
		}
	}
	for _, r := range c.rules {
		if r.path != nil && !r.path.MatchString(file) || r.pathExcept != nil && r.pathExcept.MatchString(file) {
			continue
		}
		if r.text == nil || r.text.MatchString(linter+": ") {
			return false
		}
	}
	return true
}

// on is kube-api-linter's own choice of linters (its registry's): a
// linter is enabled unless disabled, when enabled by name, by "*", or by
// default unless "*" disables all.
func (c *Config) on(linter string) bool {
	allEnabled := len(c.enable) == 1 && c.enable[0] == "*"
	allDisabled := len(c.disable) == 1 && c.disable[0] == "*"
	return !slices.Contains(c.disable, linter) && (allEnabled || slices.Contains(c.enable, linter) || !allDisabled && defaults[linter])
}

// Pointers is optionalfields' pointers.preference: PointersAlways unless
// the configuration sets PointersWhenRequired.
func (c *Config) Pointers() string {
	if c != nil && c.pointers == PointersWhenRequired {
		return PointersWhenRequired
	}
	return PointersAlways
}

// Describe says what the configuration enables of the conventions
// apicheck follows, for the report's note.
func (c *Config) Describe() string {
	var on []string
	if c.on(OptionalOrRequired) {
		on = append(on, OptionalOrRequired)
	}
	if c.on(OptionalFields) {
		on = append(on, OptionalFields+" (pointers.preference "+c.Pointers()+")")
	}
	what := "neither optionalorrequired nor optionalfields"
	if len(on) > 0 {
		what = strings.Join(on, " and ")
	}
	where := c.File
	if c.Rev != "" {
		where += " of the " + c.Rev + " revision"
	}
	return fmt.Sprintf("the crd profile judges new fields by the kube-api-linter configuration in %s, which enables %s", where, what)
}

// at is the value at a path of keys in nested mappings (nil when absent).
func at(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm := asMap(v)
		if mm == nil {
			return nil
		}
		v = mm[k]
	}
	return v
}

// mapAt is the mapping at a path of keys (nil when there is none).
func mapAt(m map[string]any, keys ...string) map[string]any { return asMap(at(m, keys...)) }

// asMap is v as a mapping with string keys (nil when it is none).
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// strings_ are the strings of a YAML sequence (a single string counts as
// one).
func strings_(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// regexps compiles a YAML sequence of regular expressions.
func regexps(file string, v any) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, s := range strings_(v) {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%s: exclusion %q: %v", file, s, err)
		}
		out = append(out, re)
	}
	return out, nil
}
