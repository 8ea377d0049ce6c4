package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
	"github.com/apicheck/apicheck/internal/suppress"
)

// addConfigFlag registers --config on a command that runs the check
// pipeline.
func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "config", "", "read the configuration from this file on disk instead of "+config.FileName+" of the head revision")
}

// ruleIDs lists the IDs of the rule catalogue.
func ruleIDs() []string {
	var ids []string
	for _, r := range catalog.All() {
		ids = append(ids, r.ID)
	}
	return ids
}

// vocabulary is what a configuration may name: the rule catalogue, the
// profiles and the severities.
func vocabulary() config.Vocabulary {
	v := config.Vocabulary{RuleIDs: ruleIDs(), Severities: finding.SeverityNames()}
	for _, p := range model.Profiles() {
		v.Profiles = append(v.Profiles, string(p))
	}
	return v
}

// withConfig makes a check load its configuration once the snapshots are
// open: from configPath on disk when set, else from .apicheck.yaml at the
// root of the head revision (read through the head snapshot, so for the
// working tree its current, possibly uncommitted content). Configuration
// errors are usage errors (exit code 2).
func withConfig(opts check.Options, configPath string) check.Options {
	opts.Configure = func(res *check.Result, o *check.Options) error {
		cfg, err := loadConfig(res.Head, configPath)
		if err != nil {
			return &check.UsageError{Err: err}
		}
		if err := checkGroupDirs(cfg, res.Head); err != nil {
			return &check.UsageError{Err: err}
		}
		return applyConfig(cfg, o)
	}
	return opts
}

// loadConfig reads and decodes the configuration; without a file it
// returns the defaults.
func loadConfig(head git.Snapshot, configPath string) (*config.Config, error) {
	vocab := vocabulary()
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("--config %s: no such file", configPath)
			}
			return nil, fmt.Errorf("--config: %v", err)
		}
		return config.Parse(configPath, data, vocab)
	}
	if !hasFile(head, config.FileName) {
		return config.Default(), nil
	}
	files, err := head.ReadFiles([]string{config.FileName})
	if err != nil {
		return nil, fmt.Errorf("reading %s of %s: %v", config.FileName, head.Ref(), err)
	}
	return config.Parse(config.FileName, files[config.FileName], vocab)
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

// applyConfig turns the configuration into scan and rule options and the
// suppression stage.
func applyConfig(cfg *config.Config, o *check.Options) error {
	o.Config = cfg
	if len(cfg.Groups) > 0 {
		o.Scan.Groups = nil
		for _, g := range cfg.Groups {
			o.Scan.Groups = append(o.Scan.Groups, scan.GroupSpec{Dir: g.Dir, Profile: model.Profile(g.Profile)})
		}
	}
	for id := range cfg.DisabledRules() {
		if o.RuleOptions.Disabled == nil {
			o.RuleOptions.Disabled = map[string]bool{}
		}
		o.RuleOptions.Disabled[id] = true
	}
	for id, name := range cfg.SeverityOverrides() {
		sev, err := finding.ParseSeverity(name)
		if err != nil { // config checked it against finding.SeverityNames
			return fmt.Errorf("rules.%s.severity: %v", id, err)
		}
		if o.RuleOptions.Severity == nil {
			o.RuleOptions.Severity = map[string]finding.Severity{}
		}
		o.RuleOptions.Severity[id] = sev
	}
	o.Lifecycle.TagPattern = cfg.Releases.TagPattern
	o.Lifecycle.Shoot = cfg.Shoot
	ids := ruleIDs()
	o.Suppress = func(res *check.Result) error {
		notes, err := suppress.Apply(res.Report.Findings, cfg, res.HeadModel, ids)
		if err != nil {
			return &check.UsageError{Err: err}
		}
		res.Report.Notes = append(res.Report.Notes, notes...)
		return nil
	}
	return nil
}
