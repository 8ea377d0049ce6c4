package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/quote"
)

type fixFlags struct {
	base, head, repo, config string
	dryRun, force            bool
}

func newFixCmd() *cobra.Command {
	var f fixFlags
	cmd := &cobra.Command{
		Use:   "fix",
		Short: "Rewrite the working tree's API files to fix the findings that have one safe fix",
		Long: "fix runs check (--base as for check; head is the working tree unless --head names a " +
			"revision) and applies the fixes of its findings to the working tree, gofmt'ed. Rules with " +
			"fixes: " + strings.Join(fix.Rules(), ", ") + ". Suppressed findings are left alone. See docs/fix.md.\n\n" +
			"Only files of the analysed API packages change; never the index or .git. Files are fixed as they " +
			"are, uncommitted changes included (the file you just edited is the one to fix): the fixes are " +
			"computed on the content check read, and a file that changed since is refused (run fix again). " +
			"--dry-run prints the changes as a unified diff and writes nothing. Running fix again changes " +
			"nothing.\n\n" +
			"Exit codes: 0 every finding with a fix was fixed (or there was nothing to fix); 1 something was " +
			"left unfixed: a fix was refused or is not safe (each is named on standard error with file:line " +
			"and the reason); 2 usage or configuration error; 3 scan or internal failure (e.g. a Go file " +
			"that does not parse when the check runs). Findings of rules without fixes do not count: " +
			"apicheck check reports them.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("force") {
				return usageErr("--force is no longer needed: fix edits files with uncommitted changes as they are; drop --force")
			}
			res, err := check.Run(check.Request{
				Context:    cmd.Context(),
				Dir:        dirOrCwd(f.repo),
				Base:       f.base,
				Head:       f.head,
				ConfigPath: f.config,
				Version:    version(),
			})
			if err != nil {
				return failure(err)
			}
			defer res.Close()
			return applyFixes(cmd, res, fix.Options{DryRun: f.dryRun})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "base", "", "base revision (default: merge-base of HEAD and the upstream default branch)")
	fl.StringVar(&f.head, "head", "", "revision to check (default: the working tree); the fixes always go to the working tree")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the changes as a unified diff; write nothing")
	fl.StringVar(&f.repo, "repo", "", "repository directory (default: the current directory)")
	addConfigFlag(cmd, &f.config)
	// --force fixed files with uncommitted changes, which fix now always
	// does: it is refused with that reason rather than as an unknown flag.
	fl.BoolVar(&f.force, "force", false, "no longer needed")
	_ = fl.MarkHidden("force")
	return cmd
}

// applyFixes applies the fixes of a check to the working tree and says
// what it did: the diff (dry run) on standard output, each fix and each
// finding left unfixed on standard error. Something left unfixed is
// exit code 1.
func applyFixes(cmd *cobra.Command, res *check.Result, opts fix.Options) error {
	if res.Repo.Bare {
		return usageErr("%s is a bare repository: there is no working tree to fix", res.Repo.Root)
	}
	out, err := res.Fixes.Apply(res.Repo, opts)
	if err != nil {
		return failure(err)
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if opts.DryRun {
		if _, err := stdout.Write(out.Diff); err != nil {
			return failure(err)
		}
	}
	verb := "fixed"
	if opts.DryRun {
		verb = "would fix"
	}
	// Paths, subjects and reasons come from the repository.
	for _, a := range out.Applied {
		fmt.Fprintf(stderr, "%s %s: %s\n", verb, quote.Name(a.Path), quote.Text(strings.Join(a.Findings, ", ")+": "+a.Description))
	}
	// One line per refusal, naming every finding it leaves unfixed.
	for _, s := range out.Skipped {
		fmt.Fprintf(stderr, "not fixed: %s\n", quote.Text(fmt.Sprint(s)))
	}
	files := "files"
	if len(out.Files) == 1 {
		files = "file"
	}
	switch {
	case opts.DryRun:
		fmt.Fprintf(stderr, "apicheck fix: %d fixes would change %d %s (dry run: nothing written); %d left unfixed\n",
			len(out.Applied), len(out.Files), files, out.Unfixed())
	default:
		fmt.Fprintf(stderr, "apicheck fix: %d fixes applied, %d %s changed; %d left unfixed\n",
			len(out.Applied), len(out.Files), files, out.Unfixed())
	}
	if len(out.Skipped) > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}
