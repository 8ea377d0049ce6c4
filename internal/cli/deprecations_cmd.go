package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/deprecations"
	"github.com/apicheck/apicheck/internal/git"
)

// deprecationFormats describe the --format values of `apicheck
// deprecations` when completing.
var deprecationFormats = map[string]string{
	"text":     "one aligned line per deprecation and a summary",
	"json":     "the JSON plan",
	"markdown": "a table and a Mermaid timeline by release",
}

func newDeprecationsCmd() *cobra.Command {
	var rev, repo, configPath, format string
	cmd := &cobra.Command{
		Use:   "deprecations",
		Short: "List the deprecated fields, types and versions of one revision and plan their removal",
		Long: "deprecations scans one revision (default: the working tree) and lists every deprecated field, type " +
			"and version of its API: the release that first shipped the deprecation (from the release tags), the " +
			"Kubernetes version from which validation forbids a Shoot field, the usages left in the code base, the " +
			"stage the deprecation is in, the next step, and whether it may be removed now or from when. Fields " +
			"follow the two-step removal (removable once a release before the newest shipped the deprecation and " +
			"no usage is left); Shoot spec fields tied to a Kubernetes version follow Gardener's Shoot stages " +
			"(warning, version-gated validation, maintenance, Canonicalize for defaulted fields) and are removable " +
			"once no supported Kubernetes version allows them; under the kubernetes and crd profiles a deprecated " +
			"field of a served version goes in the next API version. docs/deprecations.md describes the output.\n\n" +
			"Exit codes:\n" +
			"  0  the plan was printed\n" +
			"  2  usage or configuration error (bad flag or format, unknown revision, not a git repository, bad .apicheck.yaml)\n" +
			"  3  scan or internal failure",
		Example: `  # the working tree
  apicheck deprecations

  # a release, as Markdown with a timeline
  apicheck deprecations --rev v1.149.0 --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDeprecations(cmd, rev, repo, configPath, format)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&rev, "rev", "", "revision to plan (default: the working tree)")
	fl.StringVar(&format, "format", "text", "output format: "+strings.Join(deprecations.FormatNames(), "|"))
	fl.StringVar(&repo, "repo", "", "repository directory (default: the current directory)")
	addConfigFlag(cmd, &configPath)
	_ = cmd.RegisterFlagCompletionFunc("format", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, n := range deprecations.FormatNames() {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, cobra.CompletionWithDesc(n, deprecationFormats[n]))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runDeprecations(cmd *cobra.Command, rev, repoDir, configPath, format string) error {
	write, ok := deprecations.Formats[format]
	if !ok {
		return usageErr("--format %q is not one of %s", format, strings.Join(deprecations.FormatNames(), ", "))
	}
	ctx := cmd.Context()
	repo, err := git.OpenContext(ctx, dirOrCwd(repoDir))
	if err != nil {
		return failure(&check.UsageError{Err: err})
	}
	if rev == "" {
		rev = git.WorktreeRef
	}
	snap, err := repo.Snapshot(rev)
	if err != nil {
		var u *git.UnknownRefError
		if errors.As(err, &u) && u.Err == nil && len(u.Hints) == 0 {
			u.Hints = repo.RefHints(u.Ref)
		}
		return failure(err)
	}
	defer snap.Close()
	cfg, err := check.LoadConfig(snap, configPath, catalog.All())
	if err != nil {
		return failure(err)
	}
	opts := check.OptionsFor(cfg, check.Request{Context: ctx})
	plan, err := deprecations.Find(deprecations.Input{Context: ctx, Repo: repo, Snap: snap, Scan: opts.Scan, Lifecycle: opts.Lifecycle})
	if err != nil {
		return failure(err)
	}
	if err := ctx.Err(); err != nil {
		return failure(err)
	}
	if err := write(cmd.OutOrStdout(), plan); err != nil {
		return failure(err)
	}
	return nil
}
