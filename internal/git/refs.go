package git

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// Ref is a ref with the commit it points at.
type Ref struct {
	// Name is the full ref name, e.g. "refs/remotes/upstream/main".
	Name string
	// Commit is the commit sha (peeled through annotated tags).
	Commit string
	// Time is the commit's committer date.
	Time time.Time
}

// Short is the ref name without refs/heads/, refs/remotes/ or refs/tags/:
// "upstream/main", "main", "v1.2.0".
func (r Ref) Short() string { return shortRef(r.Name) }

func shortRef(name string) string {
	for _, p := range []string{"refs/heads/", "refs/remotes/", "refs/tags/"} {
		if s, ok := strings.CutPrefix(name, p); ok {
			return s
		}
	}
	return name
}

// refFormat makes for-each-ref print, per line: refname NUL symref NUL
// commit (peeled) NUL committer date of the commit, unix.
const refFormat = "%(refname)%00%(symref)%00%(objectname)%00%(*objectname)%00%(committerdate:unix)%00%(*committerdate:unix)"

// forEachRef lists the refs under the given prefixes (e.g. "refs/remotes")
// that point at commits (directly or through annotated tags), in ref
// name order. symrefs maps a symbolic ref (refs/remotes/origin/HEAD) to
// its target.
func (r *Repo) forEachRef(prefixes ...string) (refs []Ref, symrefs map[string]string, err error) {
	out, err := r.run(append([]string{"for-each-ref", "--format=" + refFormat}, prefixes...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("list refs: %w", err)
	}
	symrefs = map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\x00")
		if len(f) != 6 {
			return nil, nil, fmt.Errorf("list refs: unexpected git for-each-ref output %q", line)
		}
		if f[1] != "" {
			symrefs[f[0]] = f[1]
		}
		commit, date := f[2], f[4]
		if f[3] != "" { // an annotated tag: its commit
			commit, date = f[3], f[5]
		}
		if commit == "" || date == "" {
			continue // a dangling symbolic ref, or a tag of a tree or blob
		}
		ts, err := strconv.ParseInt(date, 10, 64)
		if err != nil {
			continue // not a commit
		}
		refs = append(refs, Ref{Name: f[0], Commit: commit, Time: time.Unix(ts, 0).UTC()})
	}
	return refs, symrefs, nil
}

// RefNames lists the short names of the branches, remote-tracking
// branches and tags, for shell completion: "main", "origin/main",
// "v1.2.0". Symbolic refs such as origin/HEAD are listed too.
func (r *Repo) RefNames() ([]string, error) {
	out, err := r.run("for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes", "refs/tags")
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			names = append(names, shortRef(l))
		}
	}
	return names, nil
}

// RemoteBranch is a remote's default branch.
type RemoteBranch struct {
	// Remote is the remote's name, e.g. "upstream".
	Remote string
	Ref
}

// RemoteDefaultBranches returns, for every remote with remote-tracking
// branches, its default branch as this clone knows it: the target of
// refs/remotes/<remote>/HEAD, else <remote>/main, else <remote>/master.
// Remotes without any of these are left out. The result is sorted by
// remote name.
func (r *Repo) RemoteDefaultBranches() ([]RemoteBranch, error) {
	refs, symrefs, err := r.forEachRef("refs/remotes")
	if err != nil {
		return nil, err
	}
	byName := map[string]Ref{}
	remotes := map[string]bool{}
	for _, ref := range refs {
		byName[ref.Name] = ref
	}
	for name := range symrefs {
		byName[name] = Ref{Name: name} // placeholders: a dangling HEAD still names its remote
	}
	for name := range byName {
		rest := strings.TrimPrefix(name, "refs/remotes/")
		for _, b := range []string{"/HEAD", "/main", "/master"} {
			if remote, ok := strings.CutSuffix(rest, b); ok && remote != "" {
				remotes[remote] = true
			}
		}
	}
	var out []RemoteBranch
	for remote := range remotes {
		prefix := "refs/remotes/" + remote + "/"
		var chosen Ref
		if target, ok := symrefs[prefix+"HEAD"]; ok {
			chosen = byName[target]
		}
		for _, b := range []string{"main", "master"} {
			if chosen.Commit == "" {
				chosen = byName[prefix+b]
			}
		}
		if chosen.Commit != "" {
			out = append(out, RemoteBranch{Remote: remote, Ref: chosen})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Remote < out[j].Remote })
	return out, nil
}

// remoteOf returns the remote of a remote-tracking ref name
// ("refs/remotes/upstream/main" gives "upstream"), given the known
// remote names; "" for other refs.
func remoteOf(name string, remotes []string) string {
	rest, ok := strings.CutPrefix(name, "refs/remotes/")
	if !ok {
		return ""
	}
	best := ""
	for _, rm := range remotes {
		if strings.HasPrefix(rest, rm+"/") && len(rm) > len(best) {
			best = rm
		}
	}
	return best
}

// Remotes returns the names of the configured remotes (`git remote`).
func (r *Repo) Remotes() ([]string, error) {
	out, err := r.run("remote")
	if err != nil {
		return nil, fmt.Errorf("list remotes: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// Upstream returns the full name of the ref HEAD's branch tracks
// (`@{upstream}`, e.g. "refs/remotes/origin/main"), or "" when HEAD is
// detached or its branch has no upstream (or its upstream was never
// fetched).
func (r *Repo) Upstream() (string, error) {
	out, err := r.runLine("rev-parse", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		if exitCode(err) > 0 {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// HeadBranch returns the short name of the branch HEAD is on, or "" when
// HEAD is detached.
func (r *Repo) HeadBranch() (string, error) {
	out, err := r.runLine("symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		if exitCode(err) > 0 {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// CountCommits returns how many commits are reachable from the commit
// to but not from the commit from (`git rev-list --count to ^from`).
func (r *Repo) CountCommits(from, to string) (int, error) {
	cf, err := r.ResolveCommit(from)
	if err != nil {
		return 0, err
	}
	ct, err := r.ResolveCommit(to)
	if err != nil {
		return 0, err
	}
	out, err := r.runLine("rev-list", "--count", ct, "^"+cf)
	if err != nil {
		return 0, fmt.Errorf("count commits %s..%s: %w", from, to, err)
	}
	return strconv.Atoi(out)
}

// CommitTime returns the committer date of a commit.
func (r *Repo) CommitTime(ref string) (time.Time, error) {
	sha, err := r.ResolveCommit(ref)
	if err != nil {
		return time.Time{}, err
	}
	// --timestamp prints "<committer date> <sha>".
	out, err := r.runLine("rev-list", "--no-walk", "--timestamp", sha)
	if err != nil {
		return time.Time{}, fmt.Errorf("commit date of %s: %w", ref, err)
	}
	ts, _, _ := strings.Cut(out, " ")
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("commit date of %s: unexpected git rev-list output %q", ref, out)
	}
	return time.Unix(n, 0).UTC(), nil
}

// commitTimes returns the committer dates of commits (full ids), in no
// particular order, with one git call.
func (r *Repo) commitTimes(shas []string) ([]time.Time, error) {
	args := append([]string{"rev-list", "--no-walk", "--timestamp"}, shas...)
	out, err := r.run(args...)
	if err != nil {
		return nil, fmt.Errorf("commit dates: %w", err)
	}
	var dates []time.Time
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ts, _, _ := strings.Cut(l, " ")
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("commit dates: unexpected git rev-list output %q", l)
		}
		dates = append(dates, time.Unix(n, 0).UTC())
	}
	return dates, nil
}

// Base is the comparison base apicheck chooses when none is given.
type Base struct {
	// Upstream is what HEAD is compared with, short: "origin/main",
	// "upstream/master", or a local branch.
	Upstream string
	// Commit is the merge-base of HEAD and Upstream.
	Commit string
	// Why says in words why Upstream was chosen, e.g. "upstream/main is
	// the default branch of the remote upstream, and branch feature has
	// no upstream".
	Why string
	// Fresher is the freshest default branch among the remotes (by commit
	// date) when the base is far behind it (see StaleCommits, StaleAge);
	// nil otherwise.
	Fresher *Ref
	// Behind is how many commits of Fresher the base lacks, and Older
	// how much older the base's commit is than Fresher's (both only with
	// Fresher).
	Behind int
	Older  time.Duration
}

// The base is "far behind" the freshest default branch of the remotes
// when that branch has more than StaleCommits commits the base lacks, or
// its commit is more than StaleAge newer than the base's.
const (
	StaleCommits = 50
	StaleAge     = 30 * 24 * time.Hour
)

// DefaultBase chooses the comparison base when the user gave none: the
// merge-base of HEAD and
//
//  1. the upstream of HEAD's branch (`@{upstream}`), else
//  2. the default branch of the remote "upstream" (the usual name of the
//     repository a fork's pull requests go to), else
//  3. the default branch of the remote "origin",
//
// where a remote's default branch is refs/remotes/<remote>/HEAD's target,
// else <remote>/main, else <remote>/master. It also says when that base is
// far behind the freshest default branch among all remotes (a stale fork
// checked out from origin while upstream moved on).
func (r *Repo) DefaultBase() (*Base, error) {
	head, err := r.HeadCommit()
	if err != nil {
		return nil, err
	}
	branch, err := r.HeadBranch()
	if err != nil {
		return nil, err
	}
	defaults, err := r.RemoteDefaultBranches()
	if err != nil {
		return nil, err
	}
	b := &Base{}
	var upstreamCommit string
	up, err := r.Upstream()
	if err != nil {
		return nil, err
	}
	if up != "" {
		sha, err := r.ResolveCommit(up)
		if err != nil {
			return nil, fmt.Errorf("the upstream of branch %s: %w", branch, err)
		}
		b.Upstream, upstreamCommit = shortRef(up), sha
		b.Why = fmt.Sprintf("%s is the upstream of branch %s (@{upstream})", b.Upstream, branch)
	} else {
		noUpstream := fmt.Sprintf("branch %s has no upstream", branch)
		if branch == "" {
			noUpstream = "HEAD is detached"
		}
	choose:
		for _, want := range []string{"upstream", "origin"} {
			for _, d := range defaults {
				if d.Remote != want {
					continue
				}
				b.Upstream, upstreamCommit = d.Short(), d.Commit
				b.Why = fmt.Sprintf("%s is the default branch of the remote %s, and %s", b.Upstream, want, noUpstream)
				if want == "origin" {
					b.Why = fmt.Sprintf("%s is the default branch of the remote origin, %s and there is no remote upstream", b.Upstream, noUpstream)
				}
				break choose
			}
		}
	}
	if b.Upstream == "" {
		what := fmt.Sprintf("branch %s has no upstream (@{upstream})", branch)
		if branch == "" {
			what = "HEAD is detached"
		}
		return nil, fmt.Errorf("no base to compare with: %s, and neither the remote upstream nor origin has a default branch here (HEAD, main or master); pass --base REF", what)
	}
	if head == "" {
		return nil, fmt.Errorf("HEAD has no commits yet, so there is no merge base with %s; pass --base REF", b.Upstream)
	}
	if b.Commit, err = r.mergeBase(head, upstreamCommit, "HEAD", b.Upstream); err != nil {
		return nil, err
	}
	if err := r.staleness(b, defaults); err != nil {
		return nil, err
	}
	return b, nil
}

// staleness fills b.Fresher, Behind and Older when the base is far
// behind the freshest default branch among the remotes.
func (r *Repo) staleness(b *Base, defaults []RemoteBranch) error {
	var fresh *Ref
	for i := range defaults {
		if fresh == nil || defaults[i].Time.After(fresh.Time) {
			fresh = &defaults[i].Ref
		}
	}
	if fresh == nil || fresh.Commit == b.Commit {
		return nil
	}
	behind, err := r.CountCommits(b.Commit, fresh.Commit)
	if err != nil {
		return err
	}
	at, err := r.CommitTime(b.Commit)
	if err != nil {
		return err
	}
	older := fresh.Time.Sub(at)
	if behind > StaleCommits || older > StaleAge {
		b.Fresher, b.Behind, b.Older = fresh, behind, older
	}
	return nil
}

// fetchable matches what `git fetch <remote> <ref>` can name: a branch,
// tag or commit, not an expression such as HEAD~2.
var fetchable = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9._/-]*$`)

// RefHints says what may help when ref names no commit: a
// remote-tracking branch of that name, a shallow clone that lacks
// history, and the git fetch that brings the ref. It runs only git
// commands that read the repository.
func (r *Repo) RefHints(ref string) []string {
	if ref == "" || ref == WorktreeRef || strings.HasPrefix(ref, "-") {
		return nil
	}
	var hints []string
	// The configured remotes, and the remotes that only remote-tracking
	// branches name.
	remotes, _ := r.Remotes()
	refs, _, _ := r.forEachRef("refs/remotes")
	for _, rf := range refs {
		if remoteOf(rf.Name, remotes) == "" {
			first, _, _ := strings.Cut(strings.TrimPrefix(rf.Name, "refs/remotes/"), "/")
			remotes = append(remotes, first)
		}
	}
	// A branch that exists only as a remote-tracking branch.
	name := strings.TrimPrefix(ref, "refs/heads/")
	var similar []string
	for _, rf := range refs {
		if rm := remoteOf(rf.Name, remotes); rm != "" && strings.TrimPrefix(rf.Name, "refs/remotes/"+rm+"/") == name {
			similar = append(similar, rf.Short())
		}
	}
	if len(similar) > 0 {
		hints = append(hints, fmt.Sprintf("%s exists: did you mean %s?", strings.Join(similar, ", "), similar[0]))
	}
	if shallow, err := r.IsShallow(); err == nil && shallow {
		hints = append(hints, "this is a shallow clone (.git/shallow): the commit may be outside the fetched history; "+
			"run `git fetch --unshallow`, or check out with `fetch-depth: 0` (actions/checkout)")
	}
	if len(similar) == 0 && len(remotes) > 0 && fetchable.MatchString(ref) && !strings.Contains(ref, "..") {
		// "upstream/feature" is branch feature of the remote upstream;
		// anything else is fetched from origin (or the only remote).
		remote, branch := "origin", ref
		if !slices.Contains(remotes, "origin") {
			remote = remotes[0]
		}
		if rm := remoteOf("refs/remotes/"+ref, remotes); rm != "" {
			remote, branch = rm, strings.TrimPrefix(ref, rm+"/")
		}
		hints = append(hints, fmt.Sprintf("if %s exists on the remote, fetch it: `git fetch %s %s`", branch, remote, branch))
	}
	return hints
}
