package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/report"
)

// Shell completion, help texts and suggestions for mistyped names.

// exitCodesHelp ends the long help of check and audit.
const exitCodesHelp = `

Exit codes:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  usage or configuration error (bad flag, unknown revision, not a git repository, bad .apicheck.yaml)
  3  scan or internal failure (e.g. a Go file that does not parse; the message names the file and line)`

// formatDescriptions are shown next to --format values when completing.
var formatDescriptions = map[string]string{
	"text":     "findings grouped by file, with hints",
	"json":     "the stable JSON report",
	"markdown": "a pull-request comment",
	"sarif":    "SARIF 2.1.0 for GitHub code scanning",
	"github":   "GitHub Actions annotations",
}

// completeFormats completes --format and the FORMAT of --report FORMAT=PATH.
func completeFormats(names []string, suffix string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n+suffix, toComplete) {
				out = append(out, cobra.CompletionWithDesc(n+suffix, formatDescriptions[n]))
			}
		}
		directive := cobra.ShellCompDirectiveNoFileComp
		if suffix != "" {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return out, directive
	}
}

// completeFailOn completes --fail-on.
func completeFailOn(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, n := range append(finding.SeverityNames(), "none") {
		desc := "exit 1 on findings of severity " + n + " or higher"
		if n == "none" {
			desc = "never exit 1"
		}
		if strings.HasPrefix(n, strings.ToLower(toComplete)) {
			out = append(out, cobra.CompletionWithDesc(n, desc))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRefs completes a revision flag with the repository's branches,
// remote-tracking branches and tags (git for-each-ref), in the
// repository --repo names or the current directory.
func completeRefs(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	repo := ""
	if f := cmd.Flags().Lookup("repo"); f != nil {
		repo = f.Value.String()
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := git.OpenContext(ctx, dirOrCwd(repo))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := r.RefNames()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRuleIDs completes the arguments of `apicheck rules` with the
// rule IDs not given yet.
func completeRuleIDs(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	given := map[string]bool{}
	for _, a := range args {
		given[strings.ToUpper(a)] = true
	}
	var out []cobra.Completion
	for _, r := range catalog.All() {
		if !given[r.ID] && strings.HasPrefix(r.ID, strings.ToUpper(toComplete)) {
			summary, _, _ := strings.Cut(r.Summary, ". ")
			out = append(out, cobra.CompletionWithDesc(r.ID, strings.TrimSuffix(summary, ".")))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions adds value completion to the flags a command has,
// unless the command registered its own.
func registerCompletions(cmd *cobra.Command) {
	fns := map[string]cobra.CompletionFunc{
		"format":  completeFormats(report.FormatNames(), ""),
		"report":  completeFormats(report.FormatNames(), "="),
		"fail-on": completeFailOn,
		"base":    completeRefs,
		"head":    completeRefs,
		"rev":     completeRefs,
	}
	for name, fn := range fns {
		if _, own := cmd.GetFlagCompletionFunc(name); cmd.Flags().Lookup(name) != nil && !own {
			if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
				panic(err) // registered twice: a programming error
			}
		}
	}
	if f := cmd.Flags().Lookup("repo"); f != nil {
		_ = cmd.MarkFlagDirname("repo")
	}
}

// unknownFlagRE matches pflag's errors for a flag that does not exist.
var unknownFlagRE = lazyre.New(`^unknown flag: --([^=\s]+)|^unknown shorthand flag: '(.)' in -`)

// flagError is the flag error function of every command: a usage error
// (exit 2) that suggests the flag meant, by edit distance or prefix, or
// the commands that have a flag of that name.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := unknownFlagRE.FindStringSubmatch(msg); m != nil {
		if s := suggestFlag(cmd, m[1], m[2]); s != "" {
			msg += "\n" + s
		}
	}
	return usageErr("%s\nRun '%s --help' for usage.", msg, cmd.CommandPath())
}

// suggestFlag says which flag of cmd the user probably meant ("" when
// none is close), or which other commands have the flag.
func suggestFlag(cmd *cobra.Command, long, short string) string {
	var names []string
	shorts := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
			if f.Shorthand != "" {
				shorts[f.Shorthand] = f.Name
			}
		}
	})
	if short != "" {
		if long, ok := shorts[strings.ToLower(short)]; ok {
			return fmt.Sprintf("Did you mean -%s (--%s)?", strings.ToLower(short), long)
		}
		return ""
	}
	if best := suggest(long, names); len(best) > 0 {
		return "Did you mean --" + strings.Join(best, " or --") + "?"
	}
	// A flag of other commands: say which.
	var others []string
	for _, c := range cmd.Root().Commands() {
		if c != cmd && c.Flags().Lookup(long) != nil {
			others = append(others, c.CommandPath())
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("--%s is a flag of %s, not of %s", long, strings.Join(others, ", "), cmd.CommandPath())
	}
	return ""
}

// suggest returns the candidates closest to name: within an edit
// distance of 2 (1 for names of up to 4 characters), or starting with
// name; case does not matter. The closest come first.
func suggest(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	var found []scored
	lname := strings.ToLower(name)
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lname {
			continue
		}
		d := config.EditDistance(lname, lc)
		switch {
		case d <= limit:
			found = append(found, scored{c, d})
		case len(lname) >= 3 && strings.HasPrefix(lc, lname):
			found = append(found, scored{c, limit + 1})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	var out []string
	for _, f := range found {
		if f.d == found[0].d {
			out = append(out, f.s)
		}
	}
	return out
}
