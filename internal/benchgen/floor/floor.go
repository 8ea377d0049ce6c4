// Package floor is the read-and-parse floor apicheck's speed is measured
// against: read the files a check scans from git objects and parse the Go
// files with go/parser, nothing else. BenchmarkReadAndParse
// (internal/check) and the floor program (cmd/floor, used by
// scripts/bench.sh --repo) share it.
package floor

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"runtime"
	"sort"
	"sync"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
)

// Files are the paths a check reads per revision: the go.mod files and
// the Go files of the API packages of both models, sorted.
type Files struct {
	Base []string `json:"base"`
	Head []string `json:"head"`
}

// Count is the number of paths over both revisions.
func (f Files) Count() int { return len(f.Base) + len(f.Head) }

// List runs the check once and returns the files its scan read. It is
// the one step of the floor that runs the pipeline; time only Read.
func List(req check.Request) (Files, error) {
	res, err := check.Run(req)
	if err != nil {
		return Files{}, err
	}
	defer res.Close()
	return FilesOf(res), nil
}

// FilesOf lists the files the scan of a check's result read.
func FilesOf(res *check.Result) Files {
	return Files{Base: filesOf(res.Base, res.BaseModel), Head: filesOf(res.Head, res.HeadModel)}
}

func filesOf(s git.Snapshot, m *model.Model) []string {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, f := range s.Files() {
		if path.Base(f) == "go.mod" {
			add(f)
		}
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			for _, f := range p.Files {
				add(f)
			}
		}
	}
	sort.Strings(paths)
	return paths
}

// Stats is what one Read did.
type Stats struct {
	Files  int   // files read over both revisions
	Parsed int   // Go files parsed
	Bytes  int64 // bytes read
}

// Read opens the repository, snapshots base and head, reads each
// revision's files through one batch and parses the Go files with
// comments, both revisions at once and on all cores, as the scan does.
func Read(dir, base, head string, files Files) (Stats, error) {
	repo, err := git.Open(dir)
	if err != nil {
		return Stats{}, err
	}
	var wg sync.WaitGroup
	var stats [2]Stats
	var errs [2]error
	for i, rev := range []struct {
		ref   string
		paths []string
	}{{base, files.Base}, {head, files.Head}} {
		if len(rev.paths) == 0 {
			continue // one revision's floor (audit): nothing to open
		}
		wg.Go(func() { stats[i], errs[i] = readRev(repo, rev.ref, rev.paths) })
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return Stats{}, err
	}
	return Stats{
		Files:  stats[0].Files + stats[1].Files,
		Parsed: stats[0].Parsed + stats[1].Parsed,
		Bytes:  stats[0].Bytes + stats[1].Bytes,
	}, nil
}

func readRev(repo *git.Repo, ref string, paths []string) (Stats, error) {
	snap, err := repo.Snapshot(ref)
	if err != nil {
		return Stats{}, err
	}
	defer snap.Close()
	contents, err := snap.ReadFiles(paths)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Files: len(paths)}
	var goFiles []string
	for _, p := range paths {
		st.Bytes += int64(len(contents[p]))
		if path.Ext(p) == ".go" {
			goFiles = append(goFiles, p)
		}
	}
	st.Parsed = len(goFiles)
	work := make(chan string)
	errs := make(chan error, len(goFiles))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range work {
				if _, err := parser.ParseFile(token.NewFileSet(), p, contents[p], parser.ParseComments|parser.SkipObjectResolution); err != nil {
					errs <- fmt.Errorf("%s: %w", ref, err)
				}
			}
		})
	}
	for _, p := range goFiles {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	return st, <-errs
}
