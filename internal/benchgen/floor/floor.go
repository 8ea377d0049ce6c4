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
// the Go files of the API packages of both models, sorted. Reads are the
// other objects the check read from git (List), in the order it first
// asked for them: the trees its listing walked, the generated files
// rules read, the release history's trees and files, the usage
// search's files; nil when not listed.
type Files struct {
	Base  []string `json:"base"`
	Head  []string `json:"head"`
	Reads []string `json:"reads,omitempty"`
}

// Count is the number of paths over both revisions.
func (f Files) Count() int { return len(f.Base) + len(f.Head) }

// List runs the check once, with the caches off (an audit of head with
// its history when audit is set), and returns the files its scan read
// and what else it read from git. It is the one step of the floor that
// runs the pipeline; time only Read.
func List(req check.Request, audit bool) (Files, error) {
	log := &git.ReadLog{}
	req.Reads = log
	// Everything a cold check reads: no cache answers for git.
	req.Lifecycle.CacheDir = "-"
	run := check.Run
	if audit {
		req.History = true
		run = check.Audit
	}
	res, err := run(req)
	if err != nil {
		return Files{}, err
	}
	defer res.Close()
	fs := FilesOf(res)
	if audit {
		fs.Base = nil // the floor of one revision
	}
	fs.Reads = otherReads(log.Names(), res, fs)
	return fs, nil
}

// otherReads are the names of reads except the blobs of the files the
// floor reads anyway.
func otherReads(reads []string, res *check.Result, fs Files) []string {
	files := map[string]bool{}
	for _, side := range []struct {
		snap  git.Snapshot
		paths []string
	}{{res.Base, fs.Base}, {res.Head, fs.Head}} {
		ids, ok := side.snap.(git.BlobIDs)
		if !ok {
			continue
		}
		for _, p := range side.paths {
			if oid, ok := ids.BlobID(p); ok {
				files[oid] = true
			}
		}
	}
	out := []string{}
	for _, n := range reads {
		if !files[n] {
			out = append(out, n)
		}
	}
	return out
}

// FilesOf lists the files the scan of a check's result read.
func FilesOf(res *check.Result) Files {
	return Files{Base: filesOf(res.Base, res.BaseModel), Head: filesOf(res.Head, res.HeadModel)}
}

func filesOf(s git.Snapshot, m *model.Model) []string {
	if s == nil || m == nil {
		return nil // audit reads one revision
	}
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
	Reads  int   // other objects read (withReads)
}

// Read opens the repository, snapshots base and head, reads each
// revision's files through one batch and parses the Go files with
// comments, both revisions at once and on all cores, as the scan does.
// withReads reads files.Reads as well, at the same time, split between
// two cat-file processes (as the release history reads), and nothing
// else is done with them: the floor of a check that also reads history.
func Read(dir, base, head string, files Files, withReads bool) (Stats, error) {
	repo, err := git.Open(dir)
	if err != nil {
		return Stats{}, err
	}
	var wg sync.WaitGroup
	var stats [2]Stats
	var errs [4]error
	for i, rev := range []struct {
		ref   string
		paths []string
	}{{base, files.Base}, {head, files.Head}} {
		if len(rev.paths) == 0 {
			continue // one revision's floor (audit): nothing to open
		}
		wg.Go(func() { stats[i], errs[i] = readRev(repo, rev.ref, rev.paths) })
	}
	var reads [2]int64
	if withReads {
		half := (len(files.Reads) + 1) / 2
		for k, names := range [][]string{files.Reads[:half], files.Reads[half:]} {
			wg.Go(func() { reads[k], errs[2+k] = readObjects(repo, names) })
		}
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return Stats{}, err
	}
	st := Stats{
		Files:  stats[0].Files + stats[1].Files,
		Parsed: stats[0].Parsed + stats[1].Parsed,
		Bytes:  stats[0].Bytes + stats[1].Bytes,
	}
	if withReads {
		st.Reads = len(files.Reads)
		st.Bytes += reads[0] + reads[1]
	}
	return st, nil
}

// readObjects reads the named objects through a cat-file process of its
// own and returns their bytes.
func readObjects(repo *git.Repo, names []string) (int64, error) {
	if len(names) == 0 {
		return 0, nil
	}
	o, err := repo.NewObjectReader()
	if err != nil {
		return 0, err
	}
	defer o.Close()
	var n int64
	err = o.Each(names, func(_ int, obj git.Object) { n += int64(len(obj.Data)) })
	return n, err
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
