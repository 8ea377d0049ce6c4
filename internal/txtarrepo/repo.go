package txtarrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Identity is the author and committer of a Repo's commits.
type Identity struct {
	Name, Email string
}

// Repo is a git repository that a program builds on disk, commit by
// commit, with git running hermetically: the caller's environment minus
// anything that points git elsewhere, an empty HOME, no system or global
// configuration, a fixed identity and the dates the caller gives, so the
// commits are the same on every machine. Close removes the HOME.
type Repo struct {
	Dir string

	id   Identity
	home string
	env  []string
}

// Init runs git init in dir (created if need be; files already there
// stay) with main as the branch HEAD names.
func Init(dir string, id Identity) (*Repo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "txtarrepo-home-")
	if err != nil {
		return nil, err
	}
	r := &Repo{Dir: dir, id: id, home: home, env: hermeticEnv(home)}
	if _, err := r.Git("init", "-q"); err != nil {
		r.Close()
		return nil, err
	}
	if _, err := r.Git("symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close removes the repository's temporary HOME; the repository stays.
func (r *Repo) Close() error { return os.RemoveAll(r.home) }

// Git runs git in the repository and returns its output, trimmed.
func (r *Repo) Git(args ...string) (string, error) { return r.gitEnv(nil, args...) }

// Commit commits the work tree as it is (every change staged, an empty
// commit when nothing changed) with message msg, dated date.
func (r *Repo) Commit(msg string, date time.Time) error {
	if _, err := r.Git("add", "-A"); err != nil {
		return err
	}
	d := fmt.Sprintf("@%d +0000", date.Unix())
	_, err := r.gitEnv([]string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d}, "commit", "-q", "--allow-empty", "--no-verify", "-m", msg)
	return err
}

// config is what every git command runs with: no signing, no line-ending
// conversion, no automatic gc.
var config = []string{
	"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
	"-c", "core.autocrlf=false", "-c", "gc.auto=0",
}

func (r *Repo) gitEnv(extra []string, args ...string) (string, error) {
	cmd := exec.Command("git", append(append([]string(nil), config...), args...)...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(append([]string(nil), r.env...),
		"GIT_AUTHOR_NAME="+r.id.Name, "GIT_AUTHOR_EMAIL="+r.id.Email,
		"GIT_COMMITTER_NAME="+r.id.Name, "GIT_COMMITTER_EMAIL="+r.id.Email), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// hermeticEnv is the environment git runs with: the caller's, minus
// anything that points git elsewhere, plus an empty HOME and no system or
// global configuration.
func hermeticEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"), // git >= 2.32; older ones read $HOME/.gitconfig, which does not exist
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	)
}

// Build makes a git repository in dir from the steps of a history (see
// Parse): one commit per step, with the step's name as message, and a
// branch of that name at it (plus the step's tags); every commit is by id
// and dated date. The worktree step is written to disk only.
func Build(dir string, steps []*Step, id Identity, date time.Time) error {
	r, err := Init(dir, id)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, s := range steps {
		if _, err := Overlay(dir, s.Files); err != nil {
			return fmt.Errorf("step %s: %v", s.Name, err)
		}
		if s.Name == WorktreeStep {
			continue
		}
		if err := r.Commit(s.Name, date); err != nil {
			return err
		}
		if _, err := r.Git("branch", "-f", s.Name); err != nil {
			return err
		}
		for _, t := range s.Tags {
			if _, err := r.Git("tag", t); err != nil {
				return err
			}
		}
	}
	return nil
}
