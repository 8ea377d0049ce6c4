package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/check"
)

func newDumpCmd() *cobra.Command {
	var rev, repo, configPath string
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Print the scanned API model of one revision as JSON (for debugging and bug reports)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := check.Dump(check.Request{Context: cmd.Context(), Dir: dirOrCwd(repo), Head: rev, ConfigPath: configPath})
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
