package gitfixture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Init makes a repository with `git init -q -b main <initArgs>` in a new
// temporary directory, for the repositories New does not write: bare
// ("--bare"; Dir is then the repository itself), SHA-256
// ("--object-format=sha256"), or with git's own templates (a hooks
// directory). None of New's configuration is written; git runs with the
// same hermetic environment.
func Init(t testing.TB, initArgs ...string) *Fixture {
	t.Helper()
	f := newFixture(t)
	f.Git(append(append([]string{"init", "-q", "-b", "main"}, initArgs...), f.Dir)...)
	if _, err := os.Stat(f.gitDir); err != nil {
		f.gitDir = f.Dir // bare
	}
	return f
}

// ImportTrees commits trees on main with one `git fast-import`, each
// commit's tree exactly its map (path -> content; "link:T" is a symbolic
// link to T, "gitlink:SHA" a submodule entry; names as Import takes them,
// any byte but NUL and backslash), and points each ref of refs (refs/heads/... or refs/tags/..., a
// lightweight tag) at the commit of that index. It returns the commits'
// shas, in order. The steps are named tree<N>, N counting the fixture's
// steps.
func (f *Fixture) ImportTrees(trees []map[string]string, refs map[string]int) []string {
	f.t.Helper()
	commits := make([]Commit, len(trees))
	for i, tree := range trees {
		c := Commit{Step: fmt.Sprintf("tree%d", len(f.Steps)+i), Files: map[string]string{}, Modes: map[string]string{}, Tree: true}
		for p, content := range tree {
			switch {
			case strings.HasPrefix(content, "gitlink:"):
				c.Files[p], c.Modes[p] = strings.TrimPrefix(content, "gitlink:"), "160000"
			case strings.HasPrefix(content, "link:"):
				c.Files[p], c.Modes[p] = strings.TrimPrefix(content, "link:"), "120000"
			default:
				c.Files[p] = content
			}
		}
		commits[i] = c
	}
	for ref, i := range refs {
		if i < 0 || i >= len(trees) {
			f.t.Fatalf("gitfixture: ref %s at tree %d of %d", ref, i, len(trees))
		}
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			commits[i].Branches = append(commits[i].Branches, name)
		} else if name, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
			commits[i].Tags = append(commits[i].Tags, name)
		} else {
			f.t.Fatalf("gitfixture: ref %s is no branch or tag", ref)
		}
	}
	f.Import(commits...)
	shas := make([]string, len(commits))
	for i, c := range commits {
		shas[i] = f.Commits[c.Step]
	}
	if len(trees) > 0 {
		f.tree = trees[len(trees)-1]
	}
	return shas
}

// CheckoutFiles writes the tree ImportTrees committed last into the work
// tree by hand (regular files, symbolic links; a submodule is an empty
// directory) and makes it the index with `git read-tree HEAD`. The
// index's stat data does not match the files, as after a fresh clone
// before any `git status`.
func (f *Fixture) CheckoutFiles() {
	f.t.Helper()
	if f.tree == nil {
		f.t.Fatalf("gitfixture: CheckoutFiles without ImportTrees")
	}
	f.Git("read-tree", "HEAD")
	for p, content := range f.tree {
		full := f.Path(p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(content, "gitlink:"):
			err = os.Mkdir(full, 0o755)
		case strings.HasPrefix(content, "link:"):
			err = os.Symlink(strings.TrimPrefix(content, "link:"), full)
		default:
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			f.t.Fatal(err)
		}
	}
}

// AppendConfig appends text to the repository's config file, written by
// hand (no git runs).
func (f *Fixture) AppendConfig(text string) {
	f.t.Helper()
	cf, err := os.OpenFile(filepath.Join(f.gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	_, err = cf.WriteString(text)
	if cerr := cf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

// TreeState records every entry under dir (mode, size, modification
// time), to prove that nothing changed.
func TreeState(t testing.TB, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		state[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}
