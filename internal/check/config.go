package check

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// LoadConfig reads and decodes the configuration (step "config"): from
// path on disk when set, else from .apicheck.yaml at the root of the head
// revision (for the working tree its current, possibly uncommitted
// content); without a file, the defaults. A bad file or a missing --config
// file is a UsageError; failing to read the head revision is not.
func LoadConfig(head git.Snapshot, path string, catalogue []*rules.Rule) (*config.Config, error) {
	vocab := Vocabulary(catalogue)
	var cfg *config.Config
	var err error
	switch {
	case path != "":
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			if errors.Is(rerr, os.ErrNotExist) {
				return nil, &UsageError{fmt.Errorf("--config %s: no such file", path)}
			}
			return nil, &UsageError{fmt.Errorf("--config: %v", rerr)}
		}
		cfg, err = config.Parse(path, data, vocab)
	case !hasFile(head, config.FileName):
		return config.Default(), nil
	default:
		files, rerr := head.ReadFiles([]string{config.FileName})
		if rerr != nil {
			return nil, fmt.Errorf("reading %s of %s: %w", config.FileName, head.Ref(), rerr)
		}
		cfg, err = config.Parse(config.FileName, files[config.FileName], vocab)
	}
	if err != nil {
		return nil, &UsageError{err}
	}
	if err := checkGroupDirs(cfg, head); err != nil {
		return nil, &UsageError{err}
	}
	return cfg, nil
}

// Vocabulary is what a configuration may name: the rule catalogue, the
// profiles and the severities.
func Vocabulary(catalogue []*rules.Rule) config.Vocabulary {
	v := config.Vocabulary{RuleIDs: ruleIDs(catalogue), Severities: finding.SeverityNames()}
	for _, p := range model.Profiles() {
		v.Profiles = append(v.Profiles, string(p))
	}
	return v
}

func ruleIDs(rs []*rules.Rule) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

func hasFile(s git.Snapshot, name string) bool {
	for _, f := range s.Files() {
		if f == name {
			return true
		}
	}
	return false
}

// checkGroupDirs reports configured groups whose directory holds no file
// at head (a typo would otherwise surface as a scan failure).
func checkGroupDirs(cfg *config.Config, head git.Snapshot) error {
	if len(cfg.Groups) == 0 {
		return nil
	}
	dirs := map[string]bool{}
	for _, f := range head.Files() {
		for d := f; strings.Contains(d, "/"); {
			d = d[:strings.LastIndex(d, "/")]
			if dirs[d] {
				break
			}
			dirs[d] = true
		}
	}
	var errs config.Errors
	for i, g := range cfg.Groups {
		if g.Dir != "." && !dirs[g.Dir] {
			errs = append(errs, &config.Error{File: g.Pos.File, Line: g.Pos.Line, Column: g.Pos.Col,
				Key: fmt.Sprintf("groups[%d].dir", i), Msg: fmt.Sprintf("directory %s does not exist in %s", g.Dir, head.Ref())})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// OptionsFor derives the settings of a run from the configuration and the
// request (step "options").
func OptionsFor(cfg *config.Config, req Request) Options {
	o := Options{
		Rules:     req.catalogue(),
		Lifecycle: req.Lifecycle,
		Engine: rules.Options{
			Disabled: cfg.DisabledRules(),
			Severity: map[string]finding.Severity{},
		},
	}
	for _, g := range cfg.Groups {
		o.Scan.Groups = append(o.Scan.Groups, scan.GroupSpec{Dir: g.Dir, Profile: model.Profile(g.Profile), Versions: g.Versions, Stable: g.Stable})
	}
	o.Scan.Profile = model.Profile(cfg.Profile)
	for _, g := range cfg.Exclude {
		o.Scan.Exclude = append(o.Scan.Exclude, g.Pattern)
	}
	o.Engine.VersionSkew = cfg.VersionSkew
	for id, name := range cfg.SeverityOverrides() {
		// Parse checked the name against finding.SeverityNames.
		if sev, err := finding.ParseSeverity(name); err == nil {
			o.Engine.Severity[id] = sev
		}
	}
	// What the request sets explicitly wins over the file.
	if o.Lifecycle.TagPattern == "" {
		o.Lifecycle.TagPattern = cfg.Releases.TagPattern
	}
	o.Lifecycle.Shoot = cfg.Shoot
	if o.Lifecycle.UsageExclude == nil {
		o.Lifecycle.UsageExclude = cfg.Usages.Exclude
	}
	return o
}
