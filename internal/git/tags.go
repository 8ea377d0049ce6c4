package git

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Tag is a tag name and the commit it points at (peeled through annotated
// tags).
type Tag struct {
	Name   string // e.g. "v1.2.0" (without refs/tags/)
	Commit string // full commit sha
}

// tagFormat makes for-each-ref print, per line: refname NUL type NUL oid NUL
// peeled-type NUL peeled-oid. Ref names cannot hold NUL or newline.
const tagFormat = "%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)"

// Tags returns the tags whose names match the glob pattern, with the commit
// each one points at, sorted by name. The pattern is matched by
// `git for-each-ref refs/tags/<pattern>`: "*" does not cross "/", and a
// plain prefix matches whole path components ("release" matches
// "release/v1"). An empty pattern lists every tag. Tags that do not point
// at a commit (e.g. a tag of a tree) are left out.
func (r *Repo) Tags(pattern string) ([]Tag, error) {
	args := []string{"for-each-ref", "--format=" + tagFormat}
	if pattern == "" {
		args = append(args, "refs/tags")
	} else {
		args = append(args, "refs/tags/"+pattern)
	}
	return r.listTags(args...)
}

// listTags runs for-each-ref with tagFormat and parses the result.
func (r *Repo) listTags(args ...string) ([]Tag, error) {
	out, err := r.run(args...)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	var tags []Tag
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\x00")
		if len(f) != 5 {
			return nil, fmt.Errorf("list tags: unexpected git for-each-ref output %q", line)
		}
		name := strings.TrimPrefix(f[0], "refs/tags/")
		var commit string
		switch {
		case f[1] == "commit":
			commit = f[2]
		case f[1] == "tag" && f[3] == "commit":
			commit = f[4]
		case f[1] == "tag" && f[3] == "tag":
			// A tag of a tag: for-each-ref peels one level only.
			c, err := r.ResolveCommit(f[0])
			if err != nil {
				continue // ends at a tree or blob
			}
			commit = c
		default:
			continue // tag of a tree or blob
		}
		tags = append(tags, Tag{Name: name, Commit: commit})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Name < tags[j].Name })
	return tags, nil
}

// IsAncestor reports `git merge-base --is-ancestor a b`: whether a is b or
// an ancestor of b.
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	ca, err := r.ResolveCommit(a)
	if err != nil {
		return false, err
	}
	cb, err := r.ResolveCommit(b)
	if err != nil {
		return false, err
	}
	_, err = r.run("merge-base", "--is-ancestor", ca, cb)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, fmt.Errorf("is %s an ancestor of %s: %w", a, b, err)
}

// TagsReachable lists the tags reachable from commit (commit itself
// included) whose names match match (all when nil), highest version first
// (see tagAfter). Tags of tags are followed to their commit.
func (r *Repo) TagsReachable(commit string, match *regexp.Regexp) ([]Tag, error) {
	sha, err := r.ResolveCommit(commit)
	if err != nil {
		return nil, err
	}
	all, err := r.listTags("for-each-ref", "--format="+tagFormat, "--merged="+sha, "refs/tags")
	if err != nil {
		return nil, err
	}
	var out []Tag
	for _, t := range all {
		if match == nil || match.MatchString(t.Name) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return tagAfter(out[i].Name, out[j].Name) })
	return out, nil
}

// NewestTagReachable returns the tag nearest to commit along the commit
// graph among the tags whose names match match (all tags when match is nil)
// and that are reachable from commit (commit itself included). "Nearest"
// means the smallest `git rev-list --count tag..commit`; ties go to the
// higher version, then the greater name. Commit dates play no part. It
// returns the zero Tag and a nil error when no tag qualifies.
func (r *Repo) NewestTagReachable(commit string, match *regexp.Regexp) (Tag, error) {
	sha, err := r.ResolveCommit(commit)
	if err != nil {
		return Tag{}, err
	}
	// One call lists exactly the tags reachable from commit.
	reachable, err := r.listTags("for-each-ref", "--format="+tagFormat, "--merged="+sha, "refs/tags")
	if err != nil {
		return Tag{}, err
	}
	byCommit := map[string][]Tag{}
	for _, t := range reachable {
		if match == nil || match.MatchString(t.Name) {
			byCommit[t.Commit] = append(byCommit[t.Commit], t)
		}
	}
	if len(byCommit) == 0 {
		return Tag{}, nil
	}

	// A tagged commit that is an ancestor of another tagged commit is always
	// farther from commit, so only the "independent" ones (those no other
	// candidate reaches) need their distance counted: usually one or two,
	// however many tags there are.
	commits := sortedKeys(byCommit)
	if len(commits) > 1 {
		out, err := r.run(append([]string{"merge-base", "--independent"}, commits...)...)
		if err != nil {
			return Tag{}, fmt.Errorf("nearest tag of %s: %w", commit, err)
		}
		commits = strings.Fields(string(out))
	}

	var best Tag
	bestDist := int64(-1)
	for _, c := range commits {
		var dist int64
		if c != sha {
			s, err := r.runLine("rev-list", "--count", c+".."+sha)
			if err != nil {
				return Tag{}, fmt.Errorf("nearest tag of %s: %w", commit, err)
			}
			dist, err = strconv.ParseInt(s, 10, 64)
			if err != nil {
				return Tag{}, fmt.Errorf("nearest tag of %s: unexpected git rev-list --count output %q", commit, s)
			}
		}
		for _, t := range byCommit[c] {
			if bestDist < 0 || dist < bestDist || (dist == bestDist && tagAfter(t.Name, best.Name)) {
				best, bestDist = t, dist
			}
		}
	}
	return best, nil
}

// tagAfter reports whether tag name a sorts after b: by version when both
// look like versions and differ as versions, else by name.
func tagAfter(a, b string) bool {
	if c := compareVersions(a, b); c != 0 {
		return c > 0
	}
	return a > b
}

// version is a loosely parsed semantic version.
type version struct {
	nums []int64
	pre  string // pre-release, without "-"; "" for a release
}

// parseVersion reads a version from a tag name: anything up to the first
// digit is a prefix ("v", "release-", "api/v"), then dotted numbers, then an
// optional "-prerelease" and "+build". ok is false when there are no numbers.
func parseVersion(name string) (v version, ok bool) {
	i := strings.IndexAny(name, "0123456789")
	if i < 0 {
		return version{}, false
	}
	s := name[i:]
	if j := strings.IndexByte(s, '+'); j >= 0 {
		s = s[:j]
	}
	core, pre, _ := strings.Cut(s, "-")
	for _, part := range strings.Split(core, ".") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return version{}, false
		}
		v.nums = append(v.nums, n)
	}
	v.pre = pre
	return v, true
}

// compareVersions compares tag names as versions: -1, 0 or +1; 0 also when
// either is not a version.
func compareVersions(a, b string) int {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	if !okA || !okB {
		return 0
	}
	for i := 0; i < max(len(va.nums), len(vb.nums)); i++ {
		var x, y int64
		if i < len(va.nums) {
			x = va.nums[i]
		}
		if i < len(vb.nums) {
			y = vb.nums[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case va.pre == vb.pre:
		return 0
	case va.pre == "": // a release is after its pre-releases
		return 1
	case vb.pre == "":
		return -1
	}
	return comparePrerelease(va.pre, vb.pre)
}

// comparePrerelease compares dot-separated pre-release identifiers the
// semver way: numbers numerically and before words.
func comparePrerelease(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errX := strconv.ParseInt(pa[i], 10, 64)
		y, errY := strconv.ParseInt(pb[i], 10, 64)
		switch {
		case errX == nil && errY == nil:
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		case errX == nil:
			return -1
		case errY == nil:
			return 1
		default:
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}
