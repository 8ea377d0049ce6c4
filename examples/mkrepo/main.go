// Command mkrepo turns a txtar history (see internal/txtarrepo) into a git
// repository with one commit per step and one branch per step name, so
// that `apicheck check --base base --head head` can compare them. It is
// what `make run` uses to build the shipped example.
//
// Usage: go run ./examples/mkrepo ARCHIVE.txtar DIR
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/apicheck/apicheck/internal/txtarrepo"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkrepo ARCHIVE.txtar DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mkrepo:", err)
		os.Exit(1)
	}
}

func run(archive, dir string) error {
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	steps, err := txtarrepo.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %v", archive, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GIT_AUTHOR_NAME=apicheck example", "GIT_AUTHOR_EMAIL=example@apicheck.invalid",
			"GIT_COMMITTER_NAME=apicheck example", "GIT_COMMITTER_EMAIL=example@apicheck.invalid",
			"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, stderr.String())
		}
		return nil
	}
	if err := git("init", "-q"); err != nil {
		return err
	}
	for _, s := range steps {
		if _, err := txtarrepo.Overlay(dir, s.Files); err != nil {
			return fmt.Errorf("step %s: %v", s.Name, err)
		}
		if s.Name == txtarrepo.WorktreeStep {
			continue
		}
		if err := git("add", "-A"); err != nil {
			return err
		}
		if err := git("commit", "-q", "--allow-empty", "-m", s.Name); err != nil {
			return err
		}
		if err := git("branch", "-f", s.Name); err != nil {
			return err
		}
		for _, t := range s.Tags {
			if err := git("tag", t); err != nil {
				return err
			}
		}
	}
	abs, _ := filepath.Abs(dir)
	fmt.Println(abs)
	return nil
}
