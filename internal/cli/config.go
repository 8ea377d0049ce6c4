package cli

import (
	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/config"
)

// addConfigFlag registers --config on a command that runs the check
// pipeline.
func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "config", "", "read the configuration from this file on disk instead of "+config.FileName+" of the head revision")
}

// ruleIDs lists the IDs of the rule catalogue.
func ruleIDs() []string {
	var ids []string
	for _, r := range catalog.All() {
		ids = append(ids, r.ID)
	}
	return ids
}
