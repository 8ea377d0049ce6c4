package cli

import (
	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/config"
)

// addConfigFlag registers --config on a command that runs the check
// pipeline.
func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "config", "", "read the configuration from this file on disk instead of "+config.FileName+" of the head revision")
}
