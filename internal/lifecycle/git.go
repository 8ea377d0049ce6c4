package lifecycle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The lifecycle analysis needs a few read-only git queries that
// internal/git does not offer (object lookups by "<rev>:<dir>", tag
// reachability lists, a diff against the working tree). They run with the
// same hermetic environment: no optional locks, C locale, no prompts, and
// none of the variables that would redirect git to another repository.

func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
			"GIT_NAMESPACE", "GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT", "GIT_LITERAL_PATHSPECS",
			"GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS", "LC_ALL", "LANG", "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "LANG=C", "GIT_TERMINAL_PROMPT=0")
}

// gitOut runs git in root and returns stdout.
func gitOut(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return stdout.Bytes(), nil
}

// object is one answer of `git cat-file --batch`.
type object struct {
	oid, typ string
	data     []byte
	missing  bool
}

// catFile answers batches of object requests through one long-lived
// `git cat-file --batch` process.
type catFile struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	broken error
}

func newCatFile(root string) (*catFile, error) {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = root
	cmd.Env = gitEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10)}, nil
}

// get asks for every name ("<oid>" or "<rev>:<path>") and returns the
// answers in order. Requests are written from a goroutine while answers are
// read, so large batches cannot deadlock on full pipes.
func (c *catFile) get(names []string) ([]object, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	for _, n := range names {
		if strings.ContainsAny(n, "\n") {
			return nil, fmt.Errorf("cat-file: object name %q contains a newline", n)
		}
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.stdin, 32<<10)
		for _, n := range names {
			if _, err := io.WriteString(w, n+"\n"); err != nil {
				werr <- err
				return
			}
		}
		werr <- w.Flush()
	}()
	out := make([]object, len(names))
	for i := range names {
		o, err := c.read()
		if err != nil {
			c.broken = err
			c.close()
			<-werr
			return nil, err
		}
		out[i] = o
	}
	if err := <-werr; err != nil {
		c.broken = err
		return nil, err
	}
	return out, nil
}

func (c *catFile) read() (object, error) {
	header, err := c.stdout.ReadString('\n')
	if err != nil {
		return object{}, fmt.Errorf("git cat-file stopped answering: %w", err)
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return object{missing: true}, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return object{}, fmt.Errorf("unexpected git cat-file answer %q", header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return object{}, fmt.Errorf("unexpected git cat-file answer %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(c.stdout, data); err != nil {
		return object{}, fmt.Errorf("git cat-file answer for %s cut short: %w", f[0], err)
	}
	return object{oid: f[0], typ: f[1], data: data[:size:size]}, nil
}

func (c *catFile) close() {
	if c.cmd == nil {
		return
	}
	c.stdin.Close()
	_ = c.cmd.Wait()
	c.cmd = nil
}

// treeEntry is one entry of a git tree object.
type treeEntry struct {
	mode, name, oid string
}

// parseTree decodes a binary tree object: repeated
// "<mode> SP <name> NUL <20 or 32 byte oid>".
func parseTree(data []byte, oidLen int) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+1+oidLen > len(data) {
			return nil, errors.New("malformed tree object")
		}
		out = append(out, treeEntry{
			mode: string(data[:sp]),
			name: string(data[sp+1 : nul]),
			oid:  fmt.Sprintf("%x", data[nul+1:nul+1+oidLen]),
		})
		data = data[nul+1+oidLen:]
	}
	return out, nil
}
