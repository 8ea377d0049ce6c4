package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/scan"
)

func newDumpCmd() *cobra.Command {
	var rev, repo, configPath string
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Print the scanned API model of one revision as JSON (for debugging and bug reports)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := git.Open(dirOrCwd(repo))
			if err != nil {
				return usageErr("%v", err)
			}
			if rev == "" {
				rev = git.WorktreeRef
			}
			snap, err := r.Snapshot(rev)
			if err != nil {
				var u *git.UnknownRefError
				if asUnknown(err, &u) {
					return usageErr("%v", err)
				}
				return failure(err)
			}
			defer snap.Close()
			// The groups of .apicheck.yaml (of this revision) apply here too.
			cfg, err := loadConfig(snap, configPath)
			if err != nil {
				return usageErr("%v", err)
			}
			var o check.Options
			applyConfig(cfg, &o)
			m, err := scan.Scan(snap, o.Scan)
			if err != nil {
				return failure(err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(m)
		},
	}
	cmd.Flags().StringVar(&rev, "rev", "", "revision to scan (default: the working tree)")
	cmd.Flags().StringVar(&repo, "repo", "", "repository directory (default: the current directory)")
	addConfigFlag(cmd, &configPath)
	return cmd
}
