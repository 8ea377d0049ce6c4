package lifecycle

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Stage names a Shoot deprecation stage whose code the rules read.
type Stage string

const (
	StageWarnings    Stage = "warnings"
	StageValidation  Stage = "validation"
	StageStrategy    Stage = "strategy"
	StageMaintenance Stage = "maintenance"
	StageDefaults    Stage = "defaults"
)

// Revisions the stage code is read at.
const (
	RevBase    = "base"
	RevHead    = "head"
	RevRelease = "release"
)

// StageCode is the parsed code of one stage at one revision.
type StageCode struct {
	Files []*shoot.File
	// Problem says why the code could not be read (a configured file
	// that does not exist, a file that does not parse, no release); the
	// stage must then not be judged.
	Problem string
}

// Stage returns the code of a stage at a revision. For StageDefaults,
// versionDir is the field's version package: without configured defaults
// files, its defaults*.go files are read.
func (e *Env) Stage(rev string, st Stage, versionDir string) *StageCode {
	key := rev + "\x00" + string(st) + "\x00" + versionDir
	if sc, ok := e.stages[key]; ok {
		return sc
	}
	sc := e.readStage(rev, st, versionDir)
	e.stages[key] = sc
	return sc
}

func (e *Env) readStage(rev string, st Stage, versionDir string) *StageCode {
	var snap git.Snapshot
	switch rev {
	case RevBase:
		snap = e.in.Base
	case RevHead:
		snap = e.in.Head
	case RevRelease:
		s, _, err := e.releaseSnapshot()
		if err != nil {
			return &StageCode{Problem: err.Error()}
		}
		snap = s
	}
	revName := rev
	if rev == RevRelease {
		rel, _ := e.Release()
		revName = "release " + rel.Newest.Name
	}
	entries, setting := e.stageEntries(st, versionDir)
	files := snap.Files()
	var want, missing []string
	for _, en := range entries {
		got := expandEntry(files, en, st == StageStrategy)
		if len(got) == 0 {
			missing = append(missing, en)
		}
		want = append(want, got...)
	}
	if len(missing) > 0 {
		return &StageCode{Problem: fmt.Sprintf("%s code %s not found at %s (set %s in .apicheck.yaml)",
			st, strings.Join(missing, ", "), revName, setting)}
	}
	contents, err := snap.ReadFiles(dedup(want))
	if err != nil {
		return &StageCode{Problem: fmt.Sprintf("cannot read %s code at %s: %v", st, revName, err)}
	}
	parsed, err := shoot.Parse(contents)
	if err != nil {
		return &StageCode{Problem: fmt.Sprintf("%s code at %s: %v", st, revName, err)}
	}
	return &StageCode{Files: parsed}
}

// stageEntries returns the configured entries of a stage and the name of
// their configuration setting.
func (e *Env) stageEntries(st Stage, versionDir string) ([]string, string) {
	s := e.opts.Shoot
	switch st {
	case StageWarnings:
		return s.Warnings, "shoot.warnings"
	case StageValidation:
		return s.Validation, "shoot.validation"
	case StageStrategy:
		return s.Strategy, "shoot.strategy"
	case StageMaintenance:
		return s.Maintenance, "shoot.maintenance"
	}
	if s.Defaults != nil {
		return s.Defaults, "shoot.defaults"
	}
	return []string{versionDir + "/defaults*.go"}, "shoot.defaults"
}

// expandEntry lists the Go files an entry stands for: a directory entry
// ("dir/") its non-test, non-generated Go files below it, a file itself
// (for the strategy: every such file of its package), and "dir/prefix*.go"
// the matching files of dir.
func expandEntry(files []string, entry string, wholePackage bool) []string {
	var out []string
	switch {
	case strings.HasSuffix(entry, "/"):
		for _, f := range files {
			if strings.HasPrefix(f, entry) && scan.Scannable(f) {
				out = append(out, f)
			}
		}
	case strings.Contains(entry, "*"):
		for _, f := range files {
			if ok, _ := path.Match(entry, f); ok && scan.Scannable(f) {
				out = append(out, f)
			}
		}
	default:
		found := false
		for _, f := range files {
			if f == entry {
				found = true
				break
			}
		}
		if !found {
			return nil
		}
		if !wholePackage {
			return []string{entry}
		}
		dir := path.Dir(entry)
		for _, f := range files {
			if path.Dir(f) == dir && scan.Scannable(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func dedup(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// SupportedVersions reads the supported Kubernetes versions at head; the
// problem says why they cannot be used.
func (e *Env) SupportedVersions() ([]shoot.Version, string) {
	if e.versDone {
		return e.vers, e.versProb
	}
	e.versDone = true
	p := e.opts.Shoot.SupportedVersions
	found := false
	for _, f := range e.in.Head.Files() {
		if f == p {
			found = true
			break
		}
	}
	if !found {
		e.versProb = fmt.Sprintf("%s not found at head (set shoot.supportedVersions in .apicheck.yaml)", p)
		return nil, e.versProb
	}
	data, err := e.in.Head.ReadFiles([]string{p})
	if err != nil {
		e.versProb = fmt.Sprintf("cannot read %s: %v", p, err)
		return nil, e.versProb
	}
	e.vers, err = shoot.SupportedVersions(data[p])
	if err != nil {
		e.versProb = fmt.Sprintf("cannot parse %s at head: %v", p, err)
	}
	return e.vers, e.versProb
}

// ShootField describes a field of the Shoot API for the stage detectors.
// apiPath is its JSON path from the root kind ("Shoot.spec.x.y"); pkg is
// the package the field's struct lives in (for the parents).
func ShootField(f *model.Field, owner string, apiPath string, pkg *model.Package) shoot.Field {
	sf := shoot.Field{GoName: f.Name, JSONName: f.WireName(), Path: strings.TrimPrefix(apiPath, "Shoot.")}
	if pkg != nil {
		seen := map[string]bool{}
		for _, t := range pkg.Types {
			for _, pf := range t.Fields {
				if model.LocalTypeName(pf.Type) == owner && !seen[pf.Name] {
					seen[pf.Name] = true
					sf.Parents = append(sf.Parents, pf.Name)
				}
			}
		}
		sort.Strings(sf.Parents)
	}
	return sf
}
