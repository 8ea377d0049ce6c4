package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// How git runs
//
// The repository apicheck reads is untrusted: in pull-request CI its
// content, and possibly its .git/config, come from anyone. Every git
// process therefore runs with a fixed environment (gitEnv) and fixed
// command-line configuration (globalArgs), so that neither the caller's
// environment nor the repository can make git start another program, reach
// the network, read another repository or write to this one:
//
//   - every inherited GIT_* variable is dropped (GIT_DIR, GIT_WORK_TREE,
//     GIT_OBJECT_DIRECTORY, GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH, ...), as
//     are the variables git reads for its global configuration (HOME,
//     XDG_CONFIG_HOME) and for programs it may start (PAGER, EDITOR, ...);
//   - no system or global configuration is read. The one global setting
//     apicheck honours is safe.directory, passed on as -c (see Open);
//   - no hooks, no fsmonitor, no pager, no credential helper, no ssh, no
//     transport at all (GIT_ALLOW_PROTOCOL is empty, which beats any
//     protocol.<name>.allow of the repository), and no lazy fetch in a
//     partial clone (GIT_NO_LAZY_FETCH);
//   - commands that could run diff machinery get --no-ext-diff and
//     --no-textconv, and every filter driver the repository configures is
//     switched off for them (see Repo.Output);
//   - GIT_OPTIONAL_LOCKS=0 (the index is never refreshed), no replace refs,
//     LC_ALL=C (stable messages).
//
// The git subcommands the package itself runs (rev-parse, ls-tree,
// ls-files, cat-file --batch, for-each-ref, merge-base, rev-list) never
// read working-tree content through git, so no filter could apply to them.

// droppedEnv reports whether an inherited environment variable is left out
// of git's environment.
func droppedEnv(name string) bool {
	n := strings.ToUpper(name) // Windows names are case-insensitive
	if strings.HasPrefix(n, "GIT_") || strings.HasPrefix(n, "LC_") {
		return true
	}
	switch n {
	case "HOME", "XDG_CONFIG_HOME", // global configuration, "~" in paths
		"LANG", "LANGUAGE",
		"PAGER", "LESS", "LV", "EDITOR", "VISUAL", // programs git may start
		"SSH_ASKPASS", "SSH_AUTH_SOCK", "EMAIL":
		return true
	}
	return false
}

// fixedEnv is added to the environment of every git process.
var fixedEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=" + os.DevNull,
	"GIT_ATTR_NOSYSTEM=1",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_NO_LAZY_FETCH=1",
	"GIT_ALLOW_PROTOCOL=", // no transport is allowed, whatever the config says
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_NO_REPLACE_OBJECTS=1",
	"LC_ALL=C",
	"LANG=C",
}

// gitEnv returns the environment every git process runs with, given the
// caller's environment (os.Environ()).
func gitEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+len(fixedEnv))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !droppedEnv(k) {
			env = append(env, kv)
		}
	}
	return append(env, fixedEnv...)
}

// globalArgs come before the subcommand of every git invocation. Command
// line configuration beats the repository's .git/config.
var globalArgs = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.untrackedCache=false",
	"-c", "core.quotePath=off",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=",
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "diff.external=",
	"-c", "log.showSignature=false",
}

// waitDelay bounds how long Wait waits for git's output pipes after git
// exited or was killed (a grandchild could hold them open).
const waitDelay = 2 * time.Second

// context returns the repository's context (Background for a Repo not
// made by Open or OpenContext).
func (r *Repo) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// command builds (but does not start) git with args in the repository,
// with the fixed environment plus extraEnv. It is killed, with everything
// it started, when the repository's context is done.
func (r *Repo) command(extraEnv []string, args ...string) *exec.Cmd {
	ctx := r.context()
	full := make([]string, 0, len(globalArgs)+2*len(r.safeDirs)+len(args))
	full = append(full, globalArgs...)
	for _, d := range r.safeDirs {
		full = append(full, "-c", "safe.directory="+d)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = r.Root
	cmd.Env = append(gitEnv(os.Environ()), extraEnv...)
	cmd.WaitDelay = waitDelay
	configureProcess(cmd, ctx.Done() != nil)
	return cmd
}

// execError is a git process that ran and failed.
type execError struct {
	args   []string
	code   int
	stderr string
}

func (e *execError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// cleanStderr turns git's stderr into one readable line: hints dropped,
// lines joined with "; ".
func cleanStderr(b []byte) string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

// startError explains why git could not even be started.
func startError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return errors.New("git executable not found in PATH: apicheck needs git installed")
	}
	return fmt.Errorf("cannot run git: %w", err)
}

// runEnv runs git in the repository and returns its stdout. A failing git
// gives an *execError carrying the exit code and cleaned stderr; a git
// stopped because the context is done gives an error wrapping ctx.Err().
func (r *Repo) runEnv(extraEnv []string, args ...string) ([]byte, error) {
	return r.runStdin(nil, extraEnv, args...)
}

// runStdin is runEnv with stdin (nil: none).
func (r *Repo) runStdin(stdin []byte, extraEnv []string, args ...string) ([]byte, error) {
	ctx := r.context()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	cmd := r.command(extraEnv, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout bytes.Buffer
	stderr := &lockedBuffer{}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), cerr)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &execError{args: args, code: ee.ExitCode(), stderr: cleanStderr(stderr.Bytes())}
		}
		return nil, startError(err)
	}
	return stdout.Bytes(), nil
}

func (r *Repo) run(args ...string) ([]byte, error) {
	return r.runEnv(nil, args...)
}

// runInput runs git with stdin and returns its stdout, like run.
func (r *Repo) runInput(stdin []byte, args ...string) ([]byte, error) {
	return r.runStdin(stdin, nil, args...)
}

// runLine runs git and returns its stdout with surrounding white space trimmed.
func (r *Repo) runLine(args ...string) (string, error) {
	out, err := r.run(args...)
	return strings.TrimSpace(string(out)), err
}

// exitCode returns the exit code of a failed git run, or -1 if err is not
// such a failure (e.g. git could not be started).
func exitCode(err error) int {
	var ee *execError
	if errors.As(err, &ee) {
		return ee.code
	}
	return -1
}

// diffCommands may run diff machinery: Output gives them --no-ext-diff
// and --no-textconv.
var diffCommands = map[string]bool{
	"diff": true, "diff-files": true, "diff-index": true, "diff-tree": true,
	"log": true, "show": true, "whatchanged": true, "format-patch": true,
}

// hardenArgs adds --no-ext-diff --no-textconv right after a diff-family
// subcommand.
func hardenArgs(args []string) []string {
	if len(args) == 0 || !diffCommands[args[0]] {
		return args
	}
	return slices.Concat(args[:1], []string{"--no-ext-diff", "--no-textconv"}, args[1:])
}

// driverOverrides returns environment variables (GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n: command-line scope, and safe for
// any subsection name) that switch off every filter driver the
// repository's configuration defines: git would run its clean command
// when it compares a working-tree file (git diff), and its smudge command
// when it writes one. It is computed once per Repo.
func (r *Repo) driverOverrides() ([]string, error) {
	r.driversOnce.Do(func() {
		out, err := r.run("config", "--list", "--name-only", "-z")
		if err != nil {
			r.driversErr = fmt.Errorf("read the repository's git configuration: %w", err)
			return
		}
		r.drivers = filterOverrides(out)
	})
	return r.drivers, r.driversErr
}

// filterOverrides turns `git config --list --name-only -z` output into
// the variables of driverOverrides.
func filterOverrides(list []byte) []string {
	var keys []string
	seen := map[string]bool{}
	for _, name := range strings.Split(string(list), "\x00") {
		section, rest, ok := strings.Cut(name, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i < 0 || !strings.EqualFold(section, "filter") {
			continue
		}
		sub := rest[:i]
		if seen[sub] {
			continue
		}
		seen[sub] = true
		keys = append(keys, "filter."+sub+".clean", "filter."+sub+".smudge", "filter."+sub+".process", "filter."+sub+".required")
	}
	if len(keys) == 0 {
		return nil
	}
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(keys))}
	for i, k := range keys {
		v := ""
		if strings.HasSuffix(k, ".required") {
			v = "false"
		}
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, v))
	}
	return env
}
