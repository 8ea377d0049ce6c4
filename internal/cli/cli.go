// Package cli is apicheck's command line: flags, configuration, output
// files and exit codes. It is the only package that knows about cobra.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/quote"
	"github.com/apicheck/apicheck/internal/releasenote"
	"github.com/apicheck/apicheck/internal/report"
	"github.com/apicheck/apicheck/internal/rules"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
	ExitFailure  = 3
)

// Version is set at build time with -ldflags "-X ...cli.Version=v1.2.3"
// (make build, make release and the Action's build from source do);
// otherwise the build information of the binary gives it (see
// versionFrom).
var Version = ""

// modulePath is apicheck's module.
const modulePath = "github.com/apicheck/apicheck"

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionFrom(Version, bi)
}

// versionFrom chooses apicheck's version: the -ldflags value when set;
// else the module version of the build (`go install ...@v1.2.3`, or the
// version the go command derives from the repository's tags and commit);
// else, for a `go build` of a checkout that did not stamp a version, a
// pseudo-version made of the commit (vcs.revision, vcs.time) with
// "+dirty" for uncommitted changes (vcs.modified); "dev" when the binary
// knows nothing about its origin (a build from a source archive).
func versionFrom(ldflags string, bi *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if bi == nil {
		return "dev"
	}
	if bi.Main.Path != "" && bi.Main.Path != modulePath {
		// A dependency of another module: `go get -tool` and `go tool
		// apicheck`, or `go run` in a module that requires apicheck. The
		// main module and its VCS information are the user's; apicheck's
		// version is that of the dependency.
		for _, d := range bi.Deps {
			if d.Path != modulePath {
				continue
			}
			switch {
			case d.Replace == nil:
				return d.Version
			case d.Replace.Version != "":
				return d.Replace.Version
			}
			return "dev" // replaced by a directory: no version
		}
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "v0.0.0-" + rev
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		v = "v0.0.0-" + t.UTC().Format("20060102150405") + "-" + rev
	}
	if dirty {
		v += "+dirty"
	}
	return v
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, a...)}
}

func failure(err error) error {
	var u *check.UsageError
	var ref *git.UnknownRefError
	if errors.As(err, &u) || errors.As(err, &ref) {
		return &exitError{ExitUsage, err}
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{ExitFailure, err}
}

// crashTest and crashRule are set only in binaries built with the
// apicheck_crashtest tag (crashtest.go), whose tests prove that every kind
// of crash exits 3 and writes no report, and in this package's tests:
// crashTest runs before the command, crashRule joins the catalogue of
// check and audit.
var (
	crashTest func()
	crashRule *rules.Rule
)

// catalogue is the rule list of check and audit: nil (the catalogue)
// except in crash-test binaries.
func catalogue() []*rules.Rule {
	if crashRule == nil {
		return nil
	}
	return append(catalog.All(), crashRule)
}

// Execute runs the CLI and returns the process exit code.
func Execute(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "apicheck: internal error: %s; %s\n%s", quote.Lines(fmt.Sprint(p)), reportHint, debug.Stack())
			code = ExitFailure
		}
	}()
	if crashTest != nil {
		crashTest()
	}
	// SIGINT/SIGTERM cancel the run: git processes are killed with their
	// process groups, no report is written (a run interrupted at any
	// point has none), and nothing half-done is left behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer atomicfile.Cleanup()
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "apicheck: interrupted; no report was written")
		return ExitFailure
	}
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		var pe *par.PanicError
		switch {
		case errors.As(ee.err, &pe):
			// A recovered panic (a rule, a scan worker): a bug, never a
			// verdict on the change.
			fmt.Fprintf(stderr, "apicheck: %s; %s\n%s", quote.Lines(ee.err.Error()), reportHint, pe.Stack)
		case ee.err != nil && ee.code != ExitFindings:
			printError(stderr, ee.err)
		}
		return ee.code
	}
	// Errors from cobra itself: unknown flag or command.
	printError(stderr, err)
	return ExitUsage
}

// printError writes an error as "apicheck: ERROR" on standard error.
// Errors quote names from the repository (quote.Name) and the command
// line; whatever control characters or workflow commands remain in the
// message are escaped (quote.Lines), so that no line of it acts on a
// terminal or reads as a GitHub Actions workflow command.
func printError(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "apicheck: %s\n", quote.Lines(err.Error()))
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "apicheck",
		Short: "Keep Kubernetes-style Go APIs backwards compatible",
		Long: "apicheck compares the API packages of two revisions (git refs or the working tree) and " +
			"enforces the API change checklist: optional new fields, stable protobuf numbers, tombstones, " +
			"wire compatibility and changes reaching every version of a group.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newAuditCmd(), newCheckCmd(), newDumpCmd(), newVersionCmd(), newInitCmd(), newReleaseNotesCmd())
	root.AddCommand(newRulesCmd())
	root.AddCommand(newFixCmd())
	root.AddCommand(newDeprecationsCmd())
	// "apicheck chekc": did you mean check? "--bas": did you mean --base?
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(flagError)
	for _, c := range root.Commands() {
		registerCompletions(c)
	}
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print apicheck's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "apicheck %s\n", version())
			return nil
		},
	}
}

type checkFlags struct {
	base, head, format, output, failOn, repo string
	config                                   string
	trustedConfig                            string   // --trusted-config (check only)
	reports                                  []string // --report FORMAT=PATH (reports.go)
	linkBase                                 string   // --link-base URL (reports.go)
	fix                                      bool     // check --fix (fix_cmd.go)
	history                                  bool     // audit --history
	partFiles                                int      // check --part-files (hidden)
	releaseNote                              string   // check --release-note FILE (- for stdin)
}

func newCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Compare the API of two revisions and report checklist violations",
		Long: "check compares the API packages at --base and --head. Without --base it uses the merge-base " +
			"of HEAD and the upstream of HEAD's branch (@{upstream}), else the default branch of the remote " +
			"upstream, else that of origin (<remote>/HEAD, <remote>/main or <remote>/master); the report says " +
			"which base it chose and why. Without --head it reads the working tree, uncommitted and untracked " +
			"files included." + exitCodesHelp,
		Example: `  # the working tree against the merge-base with the upstream
  apicheck check

  # a pull request in CI: annotations on stdout, SARIF and Markdown reports
  apicheck check --base "$PULL_BASE_SHA" --head HEAD --format github \
    --report sarif=apicheck.sarif --report markdown=apicheck.md

  # before make generate: warnings do not fail, errors do
  apicheck check --fail-on error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "base", "", "base revision (default: merge-base of HEAD and its upstream, else upstream's or origin's default branch)")
	fl.StringVar(&f.head, "head", "", "head revision (default: the working tree)")
	fl.StringVar(&f.trustedConfig, "trusted-config", check.TrustHead, "which revision's "+config.FileName+" is in effect: "+
		check.TrustHead+" (convenient, but a change can relax its own check) or "+check.TrustBase+" (for CI gates: a change cannot)")
	fl.BoolVar(&f.fix, "fix", false, "after the report, apply the safe fixes to the working tree as apicheck fix does")
	// The size of the parts a large tree is judged in: for tests and the
	// survey that compares reports judged in parts with whole ones.
	fl.IntVar(&f.partFiles, "part-files", 0, "judge a tree of more than twice this many API Go files (base and head) part by part (0: 1000; -1: never)")
	_ = fl.MarkHidden("part-files")
	fl.StringVar(&f.releaseNote, "release-note", "", "the pull request's release note: Markdown with Gardener's release-note blocks, "+
		"e.g. the pull request's description (FILE, or - for standard input); RELEASE_NOTE_MISSING judges it")
	addOutputFlags(cmd, &f)
	return cmd
}

func newAuditCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Report every existing violation of the single-revision invariants (for adopting apicheck)",
		Long: "audit scans one revision and reports every struct that violates a single-revision invariant " +
			"(" + strings.Join(auditRuleIDs(false), ", ") + "), not only what a change introduces. " +
			"With --history it also judges the revision against its release tags (" +
			strings.Join(auditRuleIDs(true), ", ") + "): a protobuf number that a live field carries but a " +
			"different field of the same struct carried at an earlier release, removed without a tombstone. " +
			"Use it once when adopting apicheck on an existing API; check then ratchets." + exitCodesHelp,
		Example: `  # every existing violation in the working tree
  apicheck audit

  # a revision against its whole release history (needs the release tags)
  apicheck audit --rev origin/main --history

  # a revision, as JSON, to a file
  apicheck audit --rev origin/main --format json --output audit.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAndReport(cmd, f, check.Audit)
		},
	}
	cmd.Flags().StringVar(&f.head, "rev", "", "revision to audit (default: the working tree)")
	cmd.Flags().BoolVar(&f.history, "history", false, "also judge the revision against its release tags (protobuf numbers earlier releases gave other fields)")
	addOutputFlags(cmd, &f)
	return cmd
}

// addOutputFlags registers the flags check and audit share.
func addOutputFlags(cmd *cobra.Command, f *checkFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.FormatNames(), "|"))
	fl.StringVarP(&f.output, "output", "o", "", "write the report to FILE instead of standard output")
	fl.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding has this severity or higher: error|warning|info|none")
	fl.StringVar(&f.repo, "repo", "", "repository directory (default: the current directory)")
	addConfigFlag(cmd, &f.config)
	addReportFlag(cmd, &f.reports)
	addLinkBaseFlag(cmd, &f.linkBase)
}

func parseFailOn(s string) (finding.Severity, error) {
	if strings.EqualFold(s, "none") {
		return 0, nil
	}
	sev, err := finding.ParseSeverity(s)
	if err != nil {
		return 0, usageErr("--fail-on: %v (or none)", err)
	}
	return sev, nil
}

func runCheck(cmd *cobra.Command, f checkFlags) error {
	return runAndReport(cmd, f, check.Run)
}

// runAndReport runs a comparison (check.Run or check.Audit) and writes its
// reports; it owns output files and the exit code.
func runAndReport(cmd *cobra.Command, f checkFlags, runner func(check.Request) (*check.Result, error)) error {
	failOn, err := parseFailOn(f.failOn)
	if err != nil {
		return err
	}
	outputs, err := planOutputs(f.format, f.output, f.reports)
	if err != nil {
		return err
	}
	opts, err := reportOptions(f.linkBase, os.Getenv)
	if err != nil {
		return err
	}
	outputs.configure(opts)
	note, err := readReleaseNote(cmd, f.releaseNote)
	if err != nil {
		return err
	}
	res, err := runner(check.Request{
		Context:       cmd.Context(),
		Dir:           dirOrCwd(f.repo),
		Base:          f.base,
		Head:          f.head,
		ConfigPath:    f.config,
		TrustedConfig: f.trustedConfig,
		Version:       version(),
		Rules:         catalogue(),
		History:       f.history,
		// --fix applies the whole plan, whose skipped fixes are listed in
		// the order of the whole tree's findings.
		Stream:      !f.fix,
		StreamFiles: f.partFiles,
		GCPercent:   gcPercent(),
		HeapLimit:   heapLimit(),
		ReleaseNote: note,
	})
	if err != nil {
		return failure(err)
	}
	defer res.Close()
	// An interrupted run writes no report (check.Run returns none; this
	// holds for any runner).
	if err := cmd.Context().Err(); err != nil {
		return failure(err)
	}
	if handOff != nil {
		if handOff.orphaned() {
			return failure(errSupervisorGone) // not even standard output
		}
		handOff.plan(f.format, f.output, f.reports)
	}
	if err := outputs.write(cmd.OutOrStdout(), res.Report); err != nil {
		return failure(err)
	}
	var fixErr error
	if f.fix {
		fixErr = applyFixes(cmd, res, fix.Options{})
	}
	if fixErr != nil {
		return fixErr
	}
	if failOn != 0 && res.Report.Worst() >= failOn {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// readReleaseNote reads check --release-note (nil without it).
func readReleaseNote(cmd *cobra.Command, path string) (*releasenote.Note, error) {
	if path == "" {
		return nil, nil
	}
	note, err := releasenote.Read(path, cmd.InOrStdin())
	if err != nil {
		return nil, usageErr("--release-note: %v", err)
	}
	return note, nil
}

// auditRuleIDs are the rules `apicheck audit` runs, or with history
// those `apicheck audit --history` adds.
func auditRuleIDs(history bool) []string {
	var ids []string
	for _, r := range catalog.All() {
		if !history && r.Audit || history && r.AuditHistory {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func dirOrCwd(d string) string {
	if d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// gcPercent is the garbage collector's percentage a check sets for a
// small tree (check.Request.GCPercent) once its heap passed 128 MiB
// (before that the collector is off): 400, a fifth of the collections
// of Go's default for a run that lives a fraction of a second, unless the
// user chose one with GOGC (then 0: the runtime's setting stands).
// Measured on Gardener's release pair against Go's default, interleaved:
// 0.97x the wall time warm and 0.93x cold, 0.92x the CPU (21
// and 15 interleaved pairs); peak RSS 36 and 68 MB either way.
func gcPercent() int {
	if _, set := os.LookupEnv("GOGC"); set {
		return 0
	}
	return 400
}

// heapLimit is the least soft memory limit a check of a tree that is not
// small for sure runs under (check.Request.HeapLimit): 176 MiB, raised to
// 1.5 times the live heap after each collection, unless the user set GOGC
// or GOMEMLIMIT (then 0: the runtime's settings stand). On the generated
// 2,560-group tree (51,200 API files a revision, judged in 103 parts, a
// live heap of 90–115 MB), cold: peak RSS 255 → 190 MB for 13% more CPU
// (docs/performance.md#memory); a lower floor collects more often for
// less (160 MiB: 179 MB, 28% more CPU).
func heapLimit() int64 {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			return 0
		}
	}
	return 176 << 20
}
