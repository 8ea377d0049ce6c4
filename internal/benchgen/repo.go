package benchgen

import (
	"fmt"
	"os"
	"time"

	"github.com/apicheck/apicheck/internal/txtarrepo"
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
	if err := Generate(dir, opts); err != nil {
		return nil, err
	}
	g, err := txtarrepo.Init(dir, identity)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	r := &Repo{Dir: dir}
	err = commit(g, "base", epoch, BaseRef)
	if err == nil {
		var res *mutateResult
		if res, err = mutate(dir, seed); err == nil {
			r.Changes, r.Touched = res.changes, res.touched
			err = commit(g, "head", epoch.Add(time.Minute), HeadRef)
		}
	}
	if err == nil {
		// Pack the objects, as in a clone: head's blobs become deltas of
		// base's, which is what reading a real repository costs.
		_, err = g.Git("repack", "-a", "-d", "-q")
	}
	if err == nil {
		r.BaseSHA, err = g.Git("rev-parse", BaseRef)
	}
	if err == nil {
		r.HeadSHA, err = g.Git("rev-parse", HeadRef)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// The identity and first date of the commits.
var (
	identity = txtarrepo.Identity{Name: "benchgen", Email: "benchgen@example.invalid"}
	epoch    = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
)

// commit commits the work tree as it is and points branch at it.
func commit(g *txtarrepo.Repo, msg string, date time.Time, branch string) error {
	if err := g.Commit(msg, date); err != nil {
		return err
	}
	_, err := g.Git("branch", branch)
	return err
}
