package benchgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Refs BuildRepo creates.
const (
	BaseRef = "base"
	HeadRef = "head"
)

// Repo describes a repository made by BuildRepo.
type Repo struct {
	Dir              string
	BaseSHA, HeadSHA string
	// Changes are what Mutate did; Touched the paths it changed.
	Changes []Change
	Touched []string
}

// BuildRepo makes a git repository in dir (which must not exist or be
// empty): the tree for opts committed as branch "base", then Mutate(seed)
// committed on top as branch "head" (also checked out). git runs with a
// hermetic environment (HOME in a temporary directory, no system or global
// configuration, fixed identity and dates), so the commits are the same on
// every machine. The objects are packed at the end.
func BuildRepo(dir string, opts Options, seed int64) (*Repo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err != nil {
		return nil, err
	} else if len(entries) > 0 {
		return nil, fmt.Errorf("benchgen: %s is not empty", dir)
	}
	home, err := os.MkdirTemp("", "benchgen-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	g := &gitRunner{dir: dir, env: hermeticEnv(home)}

	if err := Generate(dir, opts); err != nil {
		return nil, err
	}
	g.run("init", "-q")
	g.run("symbolic-ref", "HEAD", "refs/heads/main")
	g.commit("base", "2024-01-01T00:00:00Z")
	g.run("branch", BaseRef)
	res, err := mutate(dir, seed)
	if err != nil {
		return nil, err
	}
	g.commit("head", "2024-01-01T00:01:00Z")
	g.run("branch", HeadRef)
	// Pack the objects, as in a clone: head's blobs become deltas of
	// base's, which is what reading a real repository costs.
	g.run("repack", "-a", "-d", "-q")
	r := &Repo{Dir: dir, Changes: res.changes, Touched: res.touched}
	r.BaseSHA = g.run("rev-parse", BaseRef)
	r.HeadSHA = g.run("rev-parse", HeadRef)
	if g.err != nil {
		return nil, g.err
	}
	return r, nil
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

// gitRunner runs git commands in dir and keeps the first error.
type gitRunner struct {
	dir string
	env []string
	err error
}

var identity = []string{
	"-c", "user.name=benchgen", "-c", "user.email=benchgen@example.invalid",
	"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "gc.auto=0",
}

func (g *gitRunner) run(args ...string) string {
	return g.runEnv(nil, args...)
}

func (g *gitRunner) runEnv(extra []string, args ...string) string {
	if g.err != nil {
		return ""
	}
	cmd := exec.Command("git", append(append([]string(nil), identity...), args...)...)
	cmd.Dir = g.dir
	cmd.Env = append(append([]string(nil), g.env...), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		g.err = fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		return ""
	}
	return strings.TrimSpace(stdout.String())
}

func (g *gitRunner) commit(msg, date string) {
	g.run("add", "-A")
	g.runEnv([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "--no-verify", "-m", msg)
}
