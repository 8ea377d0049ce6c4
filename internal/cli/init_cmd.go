package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

func newInitCmd() *cobra.Command {
	var repo string
	var force bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented starter " + config.FileName + " listing the API groups found in the working tree",
		Long: "init scans the working tree for API groups (as check does without configuration) and writes " +
			config.FileName + " at the repository root, listing each group with its profile and commented " +
			"examples of every other setting. It refuses to overwrite an existing file unless --force is given.\n\n" +
			"Exit codes:\n" +
			"  0  the file was written\n" +
			"  2  usage error (not a git repository, the file exists and --force was not given)\n" +
			"  3  scan or internal failure (e.g. a Go file that does not parse)",
		Example: `  # in the repository
  apicheck init

  # another repository, replacing its configuration
  apicheck init --repo ../gardener --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInit(cmd, repo, force)
		},
	}
	cmd.Flags().StringVar(&repo, "repo", "", "repository directory (default: the current directory)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing "+config.FileName)
	return cmd
}

func runInit(cmd *cobra.Command, repo string, force bool) error {
	r, err := git.Open(dirOrCwd(repo))
	if err != nil {
		return usageErr("%v", err)
	}
	target := filepath.Join(r.Root, config.FileName)
	if !force {
		if _, err := os.Lstat(target); err == nil {
			return usageErr("%s already exists; use --force to overwrite it", target)
		}
	}
	snap, err := r.Snapshot(git.WorktreeRef)
	if err != nil {
		return failure(err)
	}
	defer snap.Close()
	m, err := scan.Scan(snap, scan.Options{})
	if err != nil {
		return failure(err)
	}
	var groups []config.StarterGroup
	for _, g := range m.Groups {
		sg := config.StarterGroup{Dir: g.Dir, Profile: string(g.Profile), Name: g.Name}
		for _, v := range g.Versions {
			sg.Versions = append(sg.Versions, v.Version)
		}
		groups = append(groups, sg)
	}
	info := config.StarterInfo{Profile: string(m.Profile), Groups: groups, Excluded: scan.ExcludedGroupDirs(snap.Files(), nil)}
	if m.Profile == model.ProfileGardener {
		info.Stages = foundStages(snap.Files())
	}
	data := config.StarterFor(info)
	if err := writeNew(target, data, force); err != nil {
		return failure(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s with %d API group(s)\n", target, len(groups))
	return nil
}

// foundStages are the default Shoot stage locations that exist in the
// repository (nil when none does).
func foundStages(files []string) *config.StageFiles {
	def := config.DefaultStageFiles()
	has := func(entry string) bool {
		for _, f := range files {
			if f == entry || strings.HasSuffix(entry, "/") && strings.HasPrefix(f, entry) {
				return true
			}
		}
		return false
	}
	keep := func(entries []string) []string {
		var out []string
		for _, e := range entries {
			if has(e) {
				out = append(out, e)
			}
		}
		return out
	}
	st := config.StageFiles{Warnings: keep(def.Warnings), Validation: keep(def.Validation), Strategy: keep(def.Strategy), Maintenance: keep(def.Maintenance)}
	if has(def.SupportedVersions) {
		st.SupportedVersions = def.SupportedVersions
	}
	if st.Warnings == nil && st.Validation == nil && st.Strategy == nil && st.Maintenance == nil && st.SupportedVersions == "" {
		return nil
	}
	return &st
}

// writeNew writes data to path; without force it fails if the file
// appeared in the meantime (O_EXCL), with force it writes it with
// atomicfile.Write (a regular file is replaced atomically; a symlink is
// never replaced, and written through only to a FIFO or a device).
func writeNew(path string, data []byte, force bool) error {
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, os.ErrExist) {
				return usageErr("%s already exists; use --force to overwrite it", path)
			}
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(path)
			return err
		}
		return f.Close()
	}
	return atomicfile.Write(path, data, 0o644)
}
