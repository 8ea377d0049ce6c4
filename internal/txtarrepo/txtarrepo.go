// Package txtarrepo builds real git repositories for programs: from a
// txtar archive that describes a history (Parse, Build; `make run` builds
// the example history with it, through examples/mkrepo), or commit by
// commit from a directory a program writes (Init, Repo.Commit; the
// benchmark generator internal/benchgen). Tests build theirs with
// internal/testutil/gitfixture, which reads the same archives (Parse) and
// writes whole histories with one git fast-import.
//
// Each file name is "<step>/<path>"; steps are taken in order of first
// appearance, and each step's tree is the previous step's tree overlaid
// with that step's files. A file whose content is exactly "(deleted)"
// (with or without a final newline) removes that path. A step name may
// carry lightweight tags after "@" ("rel1@v1.1.0"). An entry named just
// "<step>/" declares a step with no file changes. The step named
// "worktree" must come last and is written to disk without a commit.
package txtarrepo

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/txtar"
)

// WorktreeStep is the step name that is written to disk but not committed.
const WorktreeStep = "worktree"

// Step is one step of a history.
type Step struct {
	Name  string
	Tags  []string
	Files map[string]string
}

// Parse reads the steps of an archive.
func Parse(archive []byte) ([]*Step, error) {
	var steps []*Step
	byName := map[string]*Step{}
	for _, file := range txtar.Parse(archive).Files {
		head, rel, ok := strings.Cut(file.Name, "/")
		if !ok || head == "" {
			return nil, fmt.Errorf("archive file %q: name must be <step>/<path>", file.Name)
		}
		parts := strings.Split(head, "@")
		name, tags := parts[0], parts[1:]
		if name == "" {
			return nil, fmt.Errorf("archive file %q: empty step name", file.Name)
		}
		for _, tag := range tags {
			if tag == "" {
				return nil, fmt.Errorf("archive file %q: empty tag name", file.Name)
			}
		}
		s := byName[name]
		if s == nil {
			s = &Step{Name: name, Files: map[string]string{}}
			steps = append(steps, s)
			byName[name] = s
		}
		for _, tag := range tags {
			if !slices.Contains(s.Tags, tag) {
				s.Tags = append(s.Tags, tag)
			}
		}
		if rel == "" {
			if len(bytes.TrimSpace(file.Data)) != 0 {
				return nil, fmt.Errorf("archive file %q: a step declaration has no content", file.Name)
			}
			continue
		}
		if _, dup := s.Files[rel]; dup {
			return nil, fmt.Errorf("archive has %s twice in step %q", rel, name)
		}
		s.Files[rel] = string(file.Data)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("archive has no files")
	}
	for i, s := range steps {
		if s.Name == WorktreeStep && (i != len(steps)-1 || len(s.Tags) > 0) {
			return nil, fmt.Errorf("step %q must be the last one and cannot be tagged (it is not committed)", WorktreeStep)
		}
	}
	return steps, nil
}

// Overlay writes files into the work tree at dir ("(deleted)" removes a
// file) and returns the touched paths, sorted.
func Overlay(dir string, files map[string]string) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			return nil, err
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		content := files[p]
		if content == "(deleted)" || content == "(deleted)\n" {
			if err := os.Remove(full); err != nil {
				return nil, fmt.Errorf("cannot delete %s: %v", p, err)
			}
			removeEmptyParents(dir, filepath.Dir(full))
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// CheckPath rejects paths that would escape the repo or touch .git.
func CheckPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != p {
		return fmt.Errorf("bad path %q: want a clean relative slash path", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("bad path %q: no '..' or '.git' components", p)
		}
	}
	return nil
}

// removeEmptyParents removes dir and its parents up to (not including) root
// while they are empty, as git does when the last file of a directory goes.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
