// Package check runs one comparison end to end: snapshots of two
// revisions, scan, diff, rules. The CLI and the reporters use its result;
// it knows nothing about flags or output formats.
package check

import (
	"errors"
	"fmt"
	"sync"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// Options select what to compare.
type Options struct {
	// Dir is any directory inside the repository.
	Dir string
	// Base is the base ref; empty means the merge-base of HEAD and the
	// upstream default branch.
	Base string
	// Head is the head ref; empty or git.WorktreeRef means the working tree.
	Head string
	// Scan tunes discovery (explicit groups from configuration).
	Scan scan.Options
	// Rules is the rule list to run (default catalog.All()).
	Rules []*rules.Rule
	// RuleOptions disable rules or override severities.
	RuleOptions rules.Options
	// Lifecycle configures the lifecycle rules (release tag pattern,
	// Shoot stage files); the zero value takes the defaults.
	Lifecycle lifecycle.Options
	// Version is apicheck's version for the report.
	Version string
	// Config is the project configuration in effect (nil: defaults); the
	// Configure hook sets it.
	Config *config.Config
	// Configure, when set, runs first in Analyze, with both snapshots
	// open: it may read the head snapshot (the configuration file) and
	// adjust the options of this analysis.
	Configure func(res *Result, opts *Options) error
	// Suppress, when set, runs once every finding is in res.Report and
	// before the report is finalized: it may mark findings suppressed
	// and add notes.
	Suppress func(res *Result) error
}

// Result is everything a comparison produced.
type Result struct {
	Repo *git.Repo
	// BaseLabel describes a base that apicheck chose (no --base given).
	BaseLabel  string
	Base, Head git.Snapshot
	BaseModel  *model.Model
	HeadModel  *model.Model
	Diff       *model.Diff
	Report     *finding.Report
}

// baseRef is how the report names the base: the ref the user gave, or
// how the default base was chosen.
func (r *Result) baseRef() string {
	if r.BaseLabel != "" || r.Base == nil {
		return r.BaseLabel
	}
	return r.Base.Ref()
}

// Close releases the snapshots.
func (r *Result) Close() {
	if r.Base != nil {
		r.Base.Close()
	}
	if r.Head != nil {
		r.Head.Close()
	}
}

// UsageError marks errors caused by what the user asked for (unknown
// ref, not a repository): the CLI exits 2 for those.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Open resolves the two revisions to snapshots.
func Open(opts Options) (*Result, error) {
	repo, err := git.Open(opts.Dir)
	if err != nil {
		return nil, &UsageError{err}
	}
	res := &Result{Repo: repo}
	headRef := opts.Head
	if headRef == "" {
		headRef = git.WorktreeRef
	}
	baseRef := opts.Base
	if baseRef == "" {
		upstream, sha, err := repo.DefaultBase()
		if err != nil {
			return nil, &UsageError{err}
		}
		baseRef = sha
		res.BaseLabel = "merge-base of HEAD and " + upstream
	}
	if res.Base, err = repo.Snapshot(baseRef); err != nil {
		return nil, refError(err)
	}
	if res.Head, err = repo.Snapshot(headRef); err != nil {
		res.Base.Close()
		return nil, refError(err)
	}
	return res, nil
}

func refError(err error) error {
	var u *git.UnknownRefError
	if errors.As(err, &u) {
		return &UsageError{err}
	}
	return err
}

// Run compares the two revisions and judges the diff.
func Run(opts Options) (*Result, error) {
	res, err := Open(opts)
	if err != nil {
		return nil, err
	}
	if err := res.Analyze(opts); err != nil {
		res.Close()
		return nil, err
	}
	return res, nil
}

// Analyze scans both snapshots (in parallel), diffs and runs the rules.
func (res *Result) Analyze(opts Options) error {
	if opts.Configure != nil {
		if err := opts.Configure(res, &opts); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	var baseErr, headErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		res.BaseModel, baseErr = scan.Scan(res.Base, opts.Scan)
	}()
	go func() {
		defer wg.Done()
		res.HeadModel, headErr = scan.Scan(res.Head, opts.Scan)
	}()
	wg.Wait()
	if baseErr != nil {
		return fmt.Errorf("scanning base %s: %w", describe(res.Base), baseErr)
	}
	if headErr != nil {
		return fmt.Errorf("scanning head %s: %w", describe(res.Head), headErr)
	}
	res.Diff = model.Compare(res.BaseModel, res.HeadModel)
	return res.judge(opts, true)
}

// judge runs the rules over res.Diff and builds the finalized report.
// The lifecycle Env is built only when withLifecycle is set.
func (res *Result) judge(opts Options, withLifecycle bool) error {
	rs := opts.Rules
	if rs == nil {
		rs = catalog.All()
	}
	ruleOpts := opts.RuleOptions
	if ruleOpts.Env == nil && withLifecycle {
		env := lifecycle.NewEnv(lifecycle.Input{
			Repo: res.Repo, Base: res.Base, Head: res.Head,
			BaseModel: res.BaseModel, HeadModel: res.HeadModel, Diff: res.Diff,
			Scan: opts.Scan, Options: opts.Lifecycle,
		})
		defer env.Close()
		ruleOpts.Env = env
	}
	out, err := rules.Run(res.Diff, rs, ruleOpts)
	if err != nil {
		return err
	}
	base := finding.Rev{Ref: res.baseRef()}
	if res.Base != nil {
		base.Commit = res.Base.Commit()
	}
	res.Report = &finding.Report{
		Tool:     finding.Tool{Name: "apicheck", Version: opts.Version},
		Base:     base,
		Head:     finding.Rev{Ref: res.Head.Ref(), Commit: res.Head.Commit()},
		Findings: out.Findings,
		Notes:    out.Notes,
	}
	if len(res.HeadModel.Groups) == 0 && len(res.BaseModel.Groups) == 0 {
		res.Report.Notes = append(res.Report.Notes, "no API groups found (a directory with version sub-packages such as v1beta1 that declare +groupName or SchemeGroupVersion); list them in .apicheck.yaml if discovery misses them")
	}
	res.Report.Notes = append(res.Report.Notes, snapshotNotes(res.Base, res.Head)...)
	if opts.Suppress != nil {
		if err := opts.Suppress(res); err != nil {
			return err
		}
	}
	res.Report.Finalize()
	return nil
}

func describe(s git.Snapshot) string {
	if s.Commit() != "" && s.Ref() != s.Commit() {
		return fmt.Sprintf("%s (%s)", s.Ref(), short(s.Commit()))
	}
	return s.Ref()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
