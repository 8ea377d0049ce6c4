package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/kal"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/notes"
	"github.com/apicheck/apicheck/internal/quote"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// LoadConfig reads and decodes the configuration (step "config"): from
// path on disk when set, else from .apicheck.yaml at the root of the head
// revision (for the working tree its current, possibly uncommitted
// content); without a file, the defaults. A bad file or a missing --config
// file is a UsageError; failing to read the head revision is not.
func LoadConfig(head git.Snapshot, path string, catalogue []*rules.Rule) (*config.Config, error) {
	var cfg *config.Config
	var err error
	switch {
	case path != "":
		if cfg, err = loadFile(path, path, catalogue); err != nil {
			return nil, err
		}
	case !hasFile(head, config.FileName):
		return config.Default(), nil
	default:
		data, rerr := readConfigFile(head, config.FileName)
		var ce config.Errors
		if errors.As(rerr, &ce) {
			return nil, &UsageError{rerr}
		}
		if rerr != nil {
			return nil, fmt.Errorf("reading %s of %s: %w", config.FileName, head.Ref(), rerr)
		}
		if cfg, err = config.Parse(config.FileName, data, Vocabulary(catalogue)); err != nil {
			return nil, &UsageError{err}
		}
	}
	if err := checkGroupDirs(cfg, head); err != nil {
		return nil, &UsageError{err}
	}
	return cfg, nil
}

// loadFile reads a configuration file from disk, naming it name in
// positions and errors. Every error is a UsageError.
func loadFile(path, name string, catalogue []*rules.Rule) (*config.Config, error) {
	data, err := readLimited(path, name)
	if err != nil {
		var ce config.Errors
		switch {
		case errors.As(err, &ce):
			return nil, &UsageError{err}
		case errors.Is(err, os.ErrNotExist):
			return nil, &UsageError{fmt.Errorf("--config %s: no such file", path)}
		}
		return nil, &UsageError{fmt.Errorf("--config: %v", err)}
	}
	cfg, err := config.Parse(name, data, Vocabulary(catalogue))
	if err != nil {
		return nil, &UsageError{err}
	}
	return cfg, nil
}

// Where the configuration of a check comes from (Request.TrustedConfig).
const (
	// TrustHead reads .apicheck.yaml of the head revision: convenient, but
	// a change can relax its own check (SUPPRESSION_ADDED reports it).
	TrustHead = "head"
	// TrustBase reads .apicheck.yaml of the base revision, so that a
	// change cannot relax its own check.
	TrustBase = "base"
)

// loadConfigs reads the configuration in effect and the pair of
// configurations SUPPRESSION_ADDED compares (step "config"):
//
//   - --config PATH outside the repository is trusted: it is in effect,
//     and the repository's .apicheck.yaml at base and head are compared;
//   - --config PATH inside the repository is the change's own: it is in
//     effect and compared with the same path at base;
//   - --trusted-config base: the base revision's .apicheck.yaml is in
//     effect; it is compared with head's;
//   - otherwise head's .apicheck.yaml is in effect, compared with base's.
//
// A broken configuration in effect is a UsageError; a broken one that is
// only compared becomes a note.
func loadConfigs(res *Result, req Request) error {
	cat := req.catalogue()
	mode := req.TrustedConfig
	switch mode {
	case "":
		mode = TrustHead
	case TrustHead, TrustBase:
	default:
		return &UsageError{fmt.Errorf("--trusted-config %q: want %s or %s", mode, TrustHead, TrustBase)}
	}
	if mode == TrustBase && req.ConfigPath != "" {
		return &UsageError{errors.New("--trusted-config base reads the configuration from the base revision; it cannot be combined with --config")}
	}
	name := config.FileName // the repository's configuration, compared at base and head
	var err error
	switch {
	case req.ConfigPath != "":
		rel, inside := repoRelative(res.Repo.Root, req.ConfigPath)
		if !inside {
			if res.Config, err = LoadConfig(res.Head, req.ConfigPath, cat); err != nil {
				return err
			}
			res.ConfigTrusted = true
			res.ConfigSource = "--config " + req.ConfigPath
			break
		}
		// The change's own file: named and compared by its repository path.
		name = rel
		if res.Config, err = loadFile(req.ConfigPath, rel, cat); err != nil {
			return err
		}
		if err := checkGroupDirs(res.Config, res.Head); err != nil {
			return &UsageError{err}
		}
		res.HeadConfig = res.Config
	case mode == TrustBase:
		if res.Config, err = readConfig(res.Base, name, cat); err != nil {
			return &UsageError{fmt.Errorf("the configuration of the base revision (--trusted-config base): %w", err)}
		}
		if err := checkGroupDirs(res.Config, res.Base); err != nil {
			return &UsageError{err}
		}
		res.ConfigTrusted = true
		res.ConfigSource = "the base revision (--trusted-config base)"
		res.BaseConfig = res.Config
	default:
		if res.Config, err = LoadConfig(res.Head, "", cat); err != nil {
			return err
		}
		res.HeadConfig = res.Config
	}
	if res.BaseConfig == nil {
		if res.BaseConfig, err = readConfig(res.Base, name, cat); err != nil {
			res.configNotes = append(res.configNotes, fmt.Sprintf("%s of the base revision is not valid (%v): every suppression of head's counts as added", name, oneLine(err)))
			res.BaseConfig = config.Default()
		}
	}
	if res.HeadConfig == nil {
		if res.HeadConfig, err = readConfig(res.Head, name, cat); err != nil {
			res.configNotes = append(res.configNotes, fmt.Sprintf("%s of the head revision is not valid and not in effect (%v); it will be once merged", name, oneLine(err)))
			res.HeadConfig = nil
		}
	}
	if res.ConfigTrusted {
		res.configNotes = append(res.configNotes, "configuration read from "+res.ConfigSource+
			": suppressions the change adds to "+name+" or inline do not apply in this run")
	}
	readLinter(res)
	return nil
}

// readLinter reads the repository's kube-api-linter configuration
// (kal.Files) from the revision whose configuration the run trusts: base's
// when the configuration in effect does not come from the change
// (ConfigTrusted), so that a change cannot relax the conventions it is
// judged by, else head's. A file that cannot be read becomes a note.
func readLinter(res *Result) {
	snap, rev := res.Head, "head"
	if res.ConfigTrusted {
		snap, rev = res.Base, "base"
	}
	cfg, err := kal.Read(snap)
	if err != nil {
		res.configNotes = append(res.configNotes, fmt.Sprintf("the kube-api-linter configuration of the %s revision was not read (%v): the crd profile judges new fields without it", rev, oneLine(err)))
		return
	}
	if cfg != nil {
		cfg.Rev = rev
	}
	res.linter = cfg
}

// readConfig decodes a configuration file of a revision; the defaults
// when the revision has none.
func readConfig(s git.Snapshot, name string, catalogue []*rules.Rule) (*config.Config, error) {
	if !hasFile(s, name) {
		return config.Default(), nil
	}
	data, err := readConfigFile(s, name)
	var ce config.Errors
	if err != nil && !errors.As(err, &ce) {
		return nil, fmt.Errorf("reading %s of %s: %w", name, s.Ref(), err)
	}
	if err != nil {
		return nil, err
	}
	return config.Parse(name, data, Vocabulary(catalogue))
}

// readConfigFile reads a configuration file of a revision. A file above
// the snapshot's per-file limit is a configuration error (config.TooLarge),
// as one above config.MaxSize is: the file is bad, not the repository.
func readConfigFile(s git.Snapshot, name string) ([]byte, error) {
	files, err := s.ReadFiles([]string{name})
	var big *git.FileTooLargeError
	if errors.As(err, &big) {
		return nil, config.TooLarge(name, big.Size)
	}
	if err != nil {
		return nil, err
	}
	return files[name], nil
}

// readLimited reads a configuration file from disk, at most
// config.MaxSize+1 bytes of it: a larger file is config.TooLarge, named
// name, without being read whole.
func readLimited(path, name string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, config.MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > config.MaxSize {
		size := int64(len(data))
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		return nil, config.TooLarge(name, size)
	}
	return data, nil
}

// repoRelative returns the repository-relative slash path of a file and
// whether it is inside the repository's directory, symbolic links
// resolved (a link from outside into the repository is inside).
func repoRelative(root, path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	return s
}

// Vocabulary is what a configuration may name: the rule catalogue, the
// profiles, the severities and the release-note audiences.
func Vocabulary(catalogue []*rules.Rule) config.Vocabulary {
	v := config.Vocabulary{RuleIDs: ruleIDs(catalogue), Severities: finding.SeverityNames(), Audiences: notes.Audiences}
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

// hasFile reports whether revision s has file name; true when that
// cannot be told (reading it then says why).
func hasFile(s git.Snapshot, name string) bool {
	ok, err := git.HasFile(s, name)
	return ok || err != nil
}

// checkGroupDirs reports configured groups whose directory holds no file
// at head (a typo would otherwise surface as a scan failure).
func checkGroupDirs(cfg *config.Config, head git.Snapshot) error {
	if len(cfg.Groups) == 0 {
		return nil
	}
	var errs config.Errors
	for i, g := range cfg.Groups {
		if g.Dir == "." {
			continue
		}
		ok, err := git.HasDir(head, g.Dir)
		if err != nil {
			return err
		}
		if !ok {
			errs = append(errs, &config.Error{File: g.Pos.File, Line: g.Pos.Line, Column: g.Pos.Col,
				Key: fmt.Sprintf("groups[%d].dir", i), Msg: fmt.Sprintf("directory %s does not exist in %s", quote.Name(g.Dir), head.Ref())})
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
			Context:  req.Context,
		},
	}
	for _, g := range cfg.Groups {
		o.Scan.Groups = append(o.Scan.Groups, scan.GroupSpec{Dir: g.Dir, Profile: model.Profile(g.Profile), Versions: g.Versions, Stable: g.Stable})
	}
	o.Scan.Profile = model.Profile(cfg.Profile)
	o.Scan.ModCache = req.ModCache
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
