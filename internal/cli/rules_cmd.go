package cli

import (
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/report"
	"github.com/apicheck/apicheck/internal/rules"
)

// rulesFormats are the outputs of `apicheck rules`.
var rulesFormats = map[string]func(w io.Writer, rs []finding.RuleDoc) error{
	"text": report.RulesText,
	"json": report.RulesJSON,
	"markdown": func(w io.Writer, rs []finding.RuleDoc) error {
		_, err := io.WriteString(w, report.RulesMarkdown(rs))
		return err
	},
}

func newRulesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules [RULE_ID...]",
		Short: "List the rules: ID, category, default severity, summary, rationale and fix",
		Long: "rules prints the rule catalogue (all rules, or the ones named) with each rule's ID, category, " +
			"default severity, what fires it, why it matters and how to fix it. docs/rules.md is the same " +
			"catalogue in Markdown.\n\n" +
			"Exit codes:\n" +
			"  0  the rules were printed\n" +
			"  2  usage error (an unknown rule ID or format)\n" +
			"  3  internal failure",
		Example: `  # the whole catalogue
  apicheck rules

  # one rule (IDs are case-insensitive)
  apicheck rules NEW_FIELD_NOT_POINTER

  # the catalogue as Markdown or JSON
  apicheck rules --format markdown`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeRuleIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := rulesFormats[format]
			if !ok {
				return usageErr("--format %q is not one of text, json, markdown", format)
			}
			rs, err := selectRules(catalog.All(), args)
			if err != nil {
				return err
			}
			if err := write(cmd.OutOrStdout(), rules.Docs(rs)); err != nil {
				return failure(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json|markdown")
	_ = cmd.RegisterFlagCompletionFunc("format", completeFormats(slices.Sorted(maps.Keys(rulesFormats)), ""))
	return cmd
}

// selectRules returns the named rules (IDs case-insensitive) in catalogue
// order, or all rules when none is named.
func selectRules(all []*rules.Rule, ids []string) ([]*rules.Rule, error) {
	if len(ids) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		id = strings.ToUpper(strings.TrimSpace(id))
		if rules.Lookup(all, id) == nil {
			var ids []string
			for _, r := range all {
				ids = append(ids, r.ID)
			}
			if s := suggest(id, ids); len(s) > 0 {
				return nil, usageErr("unknown rule %q: did you mean %s? (see `apicheck rules` for the list)", id, strings.Join(s, " or "))
			}
			return nil, usageErr("unknown rule %q (see `apicheck rules` for the list)", id)
		}
		want[id] = true
	}
	var out []*rules.Rule
	for _, r := range all {
		if want[r.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}
