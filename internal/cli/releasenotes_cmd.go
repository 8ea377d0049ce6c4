package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/notes"
)

func newReleaseNotesCmd() *cobra.Command {
	var base, head, repo, configPath string
	cmd := &cobra.Command{
		Use:   "release-notes",
		Short: "Draft release-note blocks (Gardener's PR format) for the API changes between two revisions",
		Long: "release-notes compares --base and --head as check does and prints one fenced Markdown block per " +
			"category and audience, e.g. \"```breaking user\": removed fields and incompatible changes are " +
			"breaking, Go-only changes (renames, a field made a pointer or given another type of the same wire " +
			"shape, a type's declaration changed within its wire shape, a package moved: whatever check says breaks " +
			"Go clients and not the wire) are \"```breaking developer\", new fields (named by their leaf fields) and " +
			"kinds are features, new deprecations (with the replacement they name) are noteworthy. Lines name " +
			"removed and renamed fields by their path at base, and new and removed fields carry the first sentence " +
			"of their doc comment; a removal names the replacement its Deprecated: paragraph named. The audience " +
			"comes from releaseNotes.audiences in the configuration, else the profile: in the gardener profile " +
			"Shoot and other end-user kinds are for users, Seed, Garden and the other kinds that run Gardener for " +
			"operators, the extensions contract for developers; component configurations are for operators. The " +
			"lines are stubs to paste into the pull request and edit. Without anything to note it prints the block " +
			"Gardener's pull request template asks for then, \"```other operator\" with NONE, and says so on stderr. " +
			"It exits 0 whatever the findings are.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := check.Run(check.Request{
				Context:    cmd.Context(),
				Dir:        dirOrCwd(repo),
				Base:       base,
				Head:       head,
				ConfigPath: configPath,
				Version:    version(),
			})
			if err != nil {
				return failure(err)
			}
			defer res.Close()
			blocks := notes.Generate(res.Diff, res.Report.Findings, res.Options.Rules, notes.Options{ReleaseNotes: res.Config.ReleaseNotes})
			if len(blocks) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "apicheck: "+notes.NoChanges)
			}
			if err := notes.Render(cmd.OutOrStdout(), blocks); err != nil {
				return failure(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&base, "base", "", "base revision (default: merge-base of HEAD and the upstream default branch)")
	fl.StringVar(&head, "head", "", "head revision (default: the working tree)")
	fl.StringVar(&repo, "repo", "", "repository directory (default: the current directory)")
	addConfigFlag(cmd, &configPath)
	return cmd
}
