package git

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Tag is a tag name and the commit it points at (peeled through annotated
// tags), with the tag's date.
type Tag struct {
	Name   string // e.g. "v1.2.0" (without refs/tags/)
	Commit string // full commit sha
	// Date is the tag's creator date: the tagger date of an annotated
	// tag, the committer date of a lightweight tag's commit. It is for
	// reports only; no decision depends on it.
	Date time.Time
}

// tagFormat makes for-each-ref print, per line: refname NUL type NUL oid NUL
// peeled-type NUL peeled-oid NUL creator date. Ref names cannot hold NUL or
// newline.
const tagFormat = "%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)%00%(creatordate:iso-strict)"

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
	return r.listTags(nil, args...)
}

// TagsMatching returns the tags whose names match accepts, as Tags
// returns them. Only those are kept (the others are read and dropped as
// git lists them), so memory follows the accepted tags, not the
// repository's.
func (r *Repo) TagsMatching(match func(name string) bool) ([]Tag, error) {
	return r.listTags(match, "for-each-ref", "--format="+tagFormat, "refs/tags")
}

// listTags runs for-each-ref with tagFormat and parses the result as git
// prints it, keeping the tags whose names keep accepts (nil: every tag).
// A tag of a tag (for-each-ref peels one level only) is peeled to its
// commit by one `git cat-file --batch` for all of them, never one process
// per tag.
func (r *Repo) listTags(keep func(name string) bool, args ...string) ([]Tag, error) {
	var tags []Tag
	var nested []int // tags of tags: Commit holds the inner tag's oid
	var bad error
	err := r.eachLine(args, func(b []byte) bool {
		if len(b) == 0 {
			return true
		}
		ref, _, _ := bytes.Cut(b, []byte{0})
		if keep != nil && !keep(strings.TrimPrefix(string(ref), "refs/tags/")) {
			return true
		}
		line := string(b)
		f := strings.Split(line, "\x00")
		if len(f) != 6 {
			bad = fmt.Errorf("unexpected git for-each-ref output %q", line)
			return false
		}
		t := Tag{Name: strings.TrimPrefix(f[0], "refs/tags/")}
		t.Date, _ = time.Parse(time.RFC3339, f[5]) // zero when git printed none
		switch {
		case f[1] == "commit":
			t.Commit = f[2]
		case f[1] == "tag" && f[3] == "commit":
			t.Commit = f[4]
		case f[1] == "tag" && f[3] == "tag":
			t.Commit = f[4]
			nested = append(nested, len(tags))
		default:
			return true // tag of a tree or blob
		}
		// Copies: the line (types, object ids, date) is not kept with them.
		t.Name, t.Commit = strings.Clone(t.Name), strings.Clone(t.Commit)
		tags = append(tags, t)
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	if len(nested) > 0 {
		names := make([]string, len(nested))
		for i, k := range nested {
			names[i] = tags[k].Commit + "^{commit}"
		}
		objs, err := r.getObjects(names)
		if err != nil {
			return nil, fmt.Errorf("list tags: %w", err)
		}
		for i, k := range nested {
			if objs[i].Missing || objs[i].Type != "commit" {
				tags[k].Commit = "" // ends at a tree or blob
				continue
			}
			tags[k].Commit = objs[i].OID
		}
		kept := tags[:0]
		for _, t := range tags {
			if t.Commit != "" {
				kept = append(kept, t)
			}
		}
		tags = kept
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Name < tags[j].Name })
	return tags, nil
}

// getObjects reads objects with a short-lived cat-file process.
func (r *Repo) getObjects(names []string) ([]Object, error) {
	o, err := r.NewObjectReader()
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.Get(names)
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

// VersionTagMerged returns a tag reachable from commit whose name holds a
// version (TagVersion), whatever the release tag pattern, or "" when no
// tag there does: one `git for-each-ref --merged`, stopped at the first
// such tag.
func (r *Repo) VersionTagMerged(commit string) (string, error) {
	c, err := r.ResolveCommit(commit)
	if err != nil {
		return "", err
	}
	found := ""
	err = r.eachLine([]string{"for-each-ref", "--merged=" + c, "--format=%(refname:strip=2)", "refs/tags"}, func(name []byte) bool {
		if _, ok := TagVersion(string(name)); ok {
			found = string(name)
			return false
		}
		return true
	})
	if err != nil {
		return "", fmt.Errorf("tags reachable from %s: %w", commit, err)
	}
	return found, nil
}

// TagVersion reads the semantic version in a tag name: the name itself or
// what follows a prefix that ends in a non-digit ("v1.2.3", "1.2.3",
// "api/v1.2.3", "kubernetes-1.30.2", "release-1.30" = v1.30.0; at least
// major.minor, so "docs-2024" has none). It returns
// the canonical form (golang.org/x/mod/semver: "v1.30.0", pre-release
// kept, build metadata dropped) and false when the name holds no version.
func TagVersion(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' || (i > 0 && (name[i-1] >= '0' && name[i-1] <= '9' || name[i-1] == '.')) {
			continue
		}
		// At least major.minor: a lone number ("docs-2024") is no version.
		if v := "v" + name[i:]; semver.IsValid(v) && strings.Contains(strings.SplitN(v, "-", 2)[0], ".") {
			return semver.Canonical(v), true
		}
	}
	return "", false
}

// ReleaseTag is a release tag with its version.
type ReleaseTag struct {
	Tag
	// Version is the canonical semantic version (see TagVersion).
	Version string
}

// Line is the release line of the tag: its major and minor version
// ("v1.148"). Patch releases and pre-releases belong to their minor's
// line.
func (t ReleaseTag) Line() string { return semver.MajorMinor(t.Version) }

// ReleaseTags are the release tags of a repository, read once: the tags
// whose names a pattern accepts and that carry a semantic version,
// grouped into release lines (major.minor).
type ReleaseTags struct {
	repo *Repo
	memo Memo // may be nil
	// Tags are the release tags, highest version first (ties: by name).
	Tags []ReleaseTag
	// Total is how many tags the repository has; Matched how many the
	// pattern accepted; NotVersions are those among them without a
	// version (ignored), sorted: the first maxNotVersions by name of
	// them, for examples (Matched counts them all).
	Total, Matched int
	NotVersions    []string
	// Skipped is how many accepted tags with a version were left out:
	// beyond MaxReleaseTags, only the highest versions are kept (see
	// SkippedNote).
	Skipped int
	// versioned is how many accepted tags carry a version.
	versioned int
	// lines are the release lines, highest first; each line's tags are in
	// ascending version order, so tags[0] is the line's first release.
	lines []releaseLine
	// graphReads counts the reads of the commit graph (readGraph).
	graphReads int
}

type releaseLine struct {
	name string // "v1.148"
	tags []ReleaseTag
}

// MaxReleaseTags bounds the release tags a ReleaseTags holds: of more
// accepted tags with a version, the MaxReleaseTags highest versions are
// kept (ties: by name, as Tags orders them) and the others counted in
// Skipped. The rules need the releases before base and head and a
// history of a few hundred releases at most; a repository with more
// release tags than that (tags made by a bot on every build) costs
// memory and git reads for the kept ones only.
const MaxReleaseTags = 1000

// maxNotVersions bounds the names of accepted tags without a version that
// a ReleaseTags keeps (NotVersions): they are examples for a message.
const maxNotVersions = 10

// ReleaseTags lists the tags that match accepts (every tag when nil) and
// that carry a version, at most MaxReleaseTags of them (see Skipped).
// Two git processes read them whatever the number of tags:
// `git for-each-ref` lists the names (from packed refs, without reading
// any object), read as git prints them and dropped unless kept, and one
// `git cat-file --batch` reads the objects of the kept tags only
// (peeling annotated tags and tags of tags to their commit, and taking
// the tag's date).
func (r *Repo) ReleaseTags(match func(name string) bool) (*ReleaseTags, error) {
	return r.ReleaseTagsMemo(match, nil)
}

// Memo keeps, across runs, answers that are pure functions of their key
// (the key names every input: object ids, commit shas). Get returns nil
// on a miss; Put may drop the value. A Memo must be safe for concurrent
// use.
type Memo interface {
	Get(kind, key string) []byte
	Put(kind, key string, value []byte)
}

// TagRefs lists the tags whose names match as "name oid" lines, sorted:
// the object each ref names (an annotated tag's tag object, a
// lightweight tag's commit), read from the refs alone. A list that is the
// same names the same tags, peeled to the same commits.
func (r *Repo) TagRefs(match func(name string) bool) ([]string, error) {
	var out []string
	err := r.eachLine([]string{"for-each-ref", "--format=%(refname) %(objectname)", "refs/tags"}, func(line []byte) bool {
		ref, oid, _ := bytes.Cut(line, []byte(" "))
		name, ok := bytes.CutPrefix(ref, []byte("refs/tags/"))
		if ok && len(name) > 0 && match(string(name)) {
			out = append(out, string(name)+" "+string(oid))
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// ReleaseTagsMemo is ReleaseTags with a memo: the kept tags' names and
// object ids (what for-each-ref prints from the refs, without reading
// any object) key their peeled commits and dates, and the release-line
// answers of Before, so a run whose tags did not change reads no tag
// object and no commit graph. memo may be nil.
func (r *Repo) ReleaseTagsMemo(match func(name string) bool, memo Memo) (*ReleaseTags, error) {
	rs := &ReleaseTags{repo: r, memo: memo}
	kept := &newestTags{}
	err := r.eachLine([]string{"for-each-ref", "--format=%(refname) %(objectname)", "refs/tags"}, func(line []byte) bool {
		ref, oid, _ := bytes.Cut(line, []byte(" "))
		name, ok := bytes.CutPrefix(ref, []byte("refs/tags/"))
		if !ok || len(name) == 0 {
			return true
		}
		rs.Total++
		if match != nil && !match(string(name)) {
			return true
		}
		rs.Matched++
		v, ok := TagVersion(string(name))
		if !ok {
			rs.notVersion(string(name))
			return true
		}
		rs.versioned++
		if kept.Len() == MaxReleaseTags {
			rs.Skipped++
			if !newer(v, string(name), kept.tags[0].version, kept.tags[0].name) {
				return true
			}
			heap.Pop(kept)
		}
		heap.Push(kept, namedTag{name: string(name), oid: string(oid), version: v})
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	// By name, as for-each-ref lists them: the memo key of the tags.
	slices.SortFunc(kept.tags, func(a, b namedTag) int { return strings.Compare(a.name, b.name) })
	names := make([]string, len(kept.tags))
	var key strings.Builder // the kept tags and their objects
	for i, t := range kept.tags {
		names[i] = t.name
		key.WriteString(t.name + " " + t.oid + "\n")
	}
	kept = nil
	tags, ok := decodeTags(memoGet(memo, memoTags, key.String()))
	if !ok {
		if tags, err = r.peelTags(names); err != nil {
			return nil, err
		}
		memoPut(memo, memoTags, key.String(), encodeTags(tags))
	}
	for _, t := range tags {
		v, _ := TagVersion(t.Name)
		rs.Tags = append(rs.Tags, ReleaseTag{Tag: t, Version: v})
	}
	sort.SliceStable(rs.Tags, func(i, j int) bool {
		return newer(rs.Tags[i].Version, rs.Tags[i].Name, rs.Tags[j].Version, rs.Tags[j].Name)
	})
	for i := len(rs.Tags) - 1; i >= 0; i-- { // ascending within a line
		t := rs.Tags[i]
		if n := len(rs.lines); n == 0 || rs.lines[n-1].name != t.Line() {
			rs.lines = append(rs.lines, releaseLine{name: t.Line()})
		}
		l := &rs.lines[len(rs.lines)-1]
		l.tags = append(l.tags, t)
	}
	// rs.lines is in ascending order now; highest first is wanted.
	for i, j := 0, len(rs.lines)-1; i < j; i, j = i+1, j-1 {
		rs.lines[i], rs.lines[j] = rs.lines[j], rs.lines[i]
	}
	return rs, nil
}

// SkippedNote says, for a report, that release tags were left out (see
// Skipped), naming the pattern that accepted them; "" when none was.
func (rs *ReleaseTags) SkippedNote(pattern string) string {
	if rs.Skipped == 0 {
		return ""
	}
	oldest := ""
	if o := rs.Oldest(); o.Name != "" {
		oldest = fmt.Sprintf(" (the oldest kept is %s)", o.Name)
	}
	return fmt.Sprintf("%d release tags match %s: the release history holds the %d highest versions%s; the %d older tags were not read, so a rule that looks further back (a protobuf number or a field of an older release) does not see them",
		rs.versioned, pattern, rs.versioned-rs.Skipped, oldest, rs.Skipped)
}

// notVersion counts an accepted tag without a version among NotVersions
// (the first maxNotVersions by name are kept).
func (rs *ReleaseTags) notVersion(name string) {
	i, _ := slices.BinarySearch(rs.NotVersions, name)
	if i == maxNotVersions {
		return
	}
	rs.NotVersions = slices.Insert(rs.NotVersions, i, name)
	if len(rs.NotVersions) > maxNotVersions {
		rs.NotVersions = rs.NotVersions[:maxNotVersions]
	}
}

// newer reports whether the tag (name a, version va) comes before tag b
// in the order of ReleaseTags.Tags: higher version first, equal versions
// by name.
func newer(va, a, vb, b string) bool {
	if c := semver.Compare(va, vb); c != 0 {
		return c > 0
	}
	return a < b
}

// namedTag is a tag as for-each-ref lists it, with its version.
type namedTag struct{ name, oid, version string }

// newestTags is a heap of tags whose root is the one that comes last in
// the order of ReleaseTags.Tags (the first to drop for a newer one).
type newestTags struct{ tags []namedTag }

func (h *newestTags) Len() int { return len(h.tags) }
func (h *newestTags) Less(i, j int) bool {
	a, b := h.tags[i], h.tags[j]
	return newer(b.version, b.name, a.version, a.name)
}
func (h *newestTags) Swap(i, j int) { h.tags[i], h.tags[j] = h.tags[j], h.tags[i] }
func (h *newestTags) Push(x any)    { h.tags = append(h.tags, x.(namedTag)) }
func (h *newestTags) Pop() any {
	t := h.tags[len(h.tags)-1]
	h.tags = h.tags[:len(h.tags)-1]
	return t
}

// eachLine runs git and calls f with each line of its stdout, without
// the newline, as git prints it: the output is never held whole, and a
// line is valid during the call only. When f returns false, git is
// stopped and the rest of its output is not read. Errors are those of
// run.
func (r *Repo) eachLine(args []string, f func(line []byte) bool) error {
	ctx := r.context()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	cmd := r.command(nil, args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return startError(err)
	}
	if err := cmd.Start(); err != nil {
		return startError(err)
	}
	br := bufio.NewReaderSize(out, 64<<10)
	var long []byte // a line longer than br's buffer, so far
	stopped := false
	var rerr error
	for !stopped {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if len(chunk) > 0 || len(long) > 0 {
			line := chunk
			if long != nil {
				line = append(long, chunk...)
				long = nil
			}
			stopped = !f(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	if stopped {
		_ = cmd.Process.Kill() // git has nothing left to say that is wanted
		_, _ = io.Copy(io.Discard, br)
	}
	werr := cmd.Wait()
	if cerr := ctx.Err(); cerr != nil && (werr != nil || rerr != nil) {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), cerr)
	}
	if stopped {
		return nil
	}
	if werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			return &execError{args: args, code: ee.ExitCode(), stderr: cleanStderr(stderr.Bytes())}
		}
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), werr)
	}
	if rerr != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), rerr)
	}
	return nil
}

// peelTags reads the named tags' objects with one cat-file process and
// returns, for each tag that ends at a commit, the commit and the date
// (tagger date of an annotated tag, committer date of a lightweight one).
// Tags of a tree or blob are left out.
func (r *Repo) peelTags(names []string) ([]Tag, error) {
	if len(names) == 0 {
		return nil, nil
	}
	o, err := r.NewObjectReader()
	if err != nil {
		return nil, err
	}
	defer o.Close()
	tags := make([]Tag, len(names))
	pending := make([]int, len(names)) // tags whose object to read next
	req := make([]string, len(names))
	for i, n := range names {
		tags[i].Name = n
		pending[i] = i
		req[i] = "refs/tags/" + n
	}
	for depth := 0; len(pending) > 0; depth++ {
		if depth == 10 {
			return nil, fmt.Errorf("list tags: tags of tags nested more than 10 deep")
		}
		objs, err := o.Get(req)
		if err != nil {
			return nil, fmt.Errorf("list tags: %w", err)
		}
		var next []int
		var nextReq []string
		for k, i := range pending {
			obj := objs[k]
			switch {
			case obj.Missing:
			case obj.Type == "commit":
				tags[i].Commit = obj.OID
				if tags[i].Date.IsZero() {
					tags[i].Date = identDate(obj.Data, "committer ")
				}
			case obj.Type == "tag":
				target := headerValue(obj.Data, "object ")
				if tags[i].Date.IsZero() {
					tags[i].Date = identDate(obj.Data, "tagger ")
				}
				if target != "" {
					next = append(next, i)
					nextReq = append(nextReq, target)
				}
			}
		}
		pending, req = next, nextReq
	}
	out := tags[:0]
	for _, t := range tags {
		if t.Commit != "" {
			out = append(out, t)
		}
	}
	return out, nil
}

// headerValue returns the value of the first header line of a commit or
// tag object that starts with key ("object ", "tagger ").
func headerValue(obj []byte, key string) string {
	for _, l := range strings.Split(string(obj), "\n") {
		if l == "" {
			return "" // end of the header
		}
		if v, ok := strings.CutPrefix(l, key); ok {
			return v
		}
	}
	return ""
}

// identDate reads the date of an ident header line ("tagger Name <mail>
// 1700000000 +0100"), in its own time zone; zero when absent.
func identDate(obj []byte, key string) time.Time {
	f := strings.Fields(headerValue(obj, key))
	if len(f) < 2 {
		return time.Time{}
	}
	secs, err := strconv.ParseInt(f[len(f)-2], 10, 64)
	tz := f[len(f)-1]
	if err != nil || len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return time.Time{}
	}
	hh, err1 := strconv.Atoi(tz[1:3])
	mm, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	off := hh*3600 + mm*60
	if tz[0] == '-' {
		off = -off
	}
	return time.Unix(secs, 0).In(time.FixedZone(tz, off))
}

// Oldest returns the first release of the lowest line (zero when none),
// among the tags kept (see Skipped).
func (rs *ReleaseTags) Oldest() ReleaseTag {
	if len(rs.lines) == 0 {
		return ReleaseTag{}
	}
	return rs.lines[len(rs.lines)-1].tags[0]
}

// UpTo returns the release tags at or below t, highest version first:
// every tag of a lower line, and the tags of t's own line up to t.
func (rs *ReleaseTags) UpTo(t ReleaseTag) []ReleaseTag {
	var out []ReleaseTag
	for _, x := range rs.Tags {
		if semver.Compare(x.Version, t.Version) < 0 || x.Name == t.Name {
			out = append(out, x)
		}
	}
	return out
}

// Between returns the release tags above lo and at or below hi, highest
// first: the releases a comparison from lo's cycle to hi's spans. A zero lo
// means "from the beginning".
func (rs *ReleaseTags) Between(lo, hi ReleaseTag) []ReleaseTag {
	var out []ReleaseTag
	for _, x := range rs.UpTo(hi) {
		if lo.Version == "" || semver.Compare(x.Line(), lo.Line()) > 0 {
			out = append(out, x)
		}
	}
	return out
}

// Before returns the release before each commit (a zero ReleaseTag when
// none), in the order given. The release before a commit C is found per
// release line (major.minor), highest line first; the first line that
// qualifies gives the answer. A line L qualifies when
//
//  1. C contains one of L's tags (a tag on C's own history: tags on
//     master, or C on L's release branch); the answer is then the highest
//     such tag; or
//  2. L's first release F (its lowest version, normally vX.Y.0) is not a
//     descendant of C (it was not cut after C), and L branched off C's
//     history between its neighbours: the branch point merge-base(F, C)
//     is not an ancestor of the next lower line's first release (else L
//     left C's history before that line was cut, so C is on an older
//     line: a commit on release-v1.148 never takes v1.149.0), and F and
//     the next higher line's first release have no common ancestor
//     outside C's history (else both lines went on together after C
//     left them, as when C is on a feature branch). The answer is F.
//
// So patch releases count as their minor's release: on master after
// release-v1.148 was branched, v1.148.0 is the release before, whether
// or not v1.148.4 exists (it may have been cut after C; its API is the
// line's). The check of the next higher line cannot be made for the
// highest line; for a commit on a branch that left master before the
// newest release line was branched, that line is taken (one line too
// new). Commit dates play no part.
//
// The commit graph is read with two git calls per batch of release
// lines (`git merge-base --octopus` for a floor under every commit
// involved, `git rev-list --parents` above it), highest lines first,
// stopping when every commit has its answer: never one process per tag.
// In a shallow clone the graph ends early and the answer may be wrong;
// callers refuse shallow clones.
func (rs *ReleaseTags) Before(commits ...string) ([]ReleaseTag, error) {
	out := make([]ReleaseTag, len(commits))
	shas := make([]string, len(commits))
	for i, c := range commits {
		sha, err := rs.repo.ResolveCommit(c)
		if err != nil {
			return nil, err
		}
		shas[i] = sha
	}
	// The answers depend on the commits and on the tags (names, commits)
	// only: the graph below them never changes.
	var key strings.Builder
	key.WriteString(strings.Join(shas, " ") + "\n")
	for _, t := range rs.Tags {
		key.WriteString(t.Name + " " + t.Commit + "\n")
	}
	if ans, ok := rs.decodeBefore(memoGet(rs.memo, memoBefore, key.String()), len(shas)); ok {
		return ans, nil
	}
	if err := rs.before(shas, out); err != nil {
		return nil, err
	}
	var val strings.Builder
	for _, t := range out {
		val.WriteString(t.Name + "\n")
	}
	memoPut(rs.memo, memoBefore, key.String(), []byte(val.String()))
	return out, nil
}

// before fills out with the answers of Before for the commits shas.
func (rs *ReleaseTags) before(shas []string, out []ReleaseTag) error {
	open := make([]int, len(shas)) // commits without an answer yet
	for i := range open {
		open[i] = i
	}
	// Batches of 8, 64, 512 ... lines: most commits find their release
	// among the few highest lines, whose graph region is small. The first
	// batch reaches down to where the answer likely is, so that one read
	// of the graph answers it: to the line that tagged a commit (a
	// comparison from a release has its answer at that line or above),
	// and, for a commit no release tagged, to the line the commit dates
	// suggest (firstBatch, one git call). Each read
	// walks from the floor under its lines up to the commits, so a batch
	// that stops short of the answer costs a read of about the same size
	// again. (Batches only bound how much of the graph is read at once:
	// lines are judged highest first whatever the split, so a wrong
	// guess costs time, never a different answer.)
	first := 8
	tagged := map[string]bool{} // the commits a release tagged
	for l, line := range rs.lines {
		for _, t := range line.tags {
			if slices.Contains(shas, t.Commit) {
				first = max(first, l+1)
				tagged[t.Commit] = true
			}
		}
	}
	if len(tagged) < len(shas) {
		first = max(first, rs.firstBatch(shas))
	}
	for lo, size := 0, first; lo < len(rs.lines) && len(open) > 0; lo, size = lo+size, size*8 {
		hi := min(lo+size, len(rs.lines))
		var targets []string
		for _, i := range open {
			targets = append(targets, shas[i])
		}
		answers, err := rs.beforeIn(lo, hi, targets)
		if err != nil {
			return err
		}
		var still []int
		for k, i := range open {
			if answers[k].Name != "" {
				out[i] = answers[k]
			} else {
				still = append(still, i)
			}
		}
		open = still
	}
	return nil
}

// firstBatch is how many of the highest release lines the commit dates
// suggest the first batch of before needs: down to one line below the
// highest line whose first release is dated before the oldest of the
// commits (tags and commits carry dates, which may be skewed: a guess,
// see before). 0 when git cannot tell the commits' dates.
func (rs *ReleaseTags) firstBatch(shas []string) int {
	dates, err := rs.repo.commitTimes(shas)
	if err != nil || len(dates) == 0 {
		return 0
	}
	oldest := slices.MinFunc(dates, time.Time.Compare)
	for l, line := range rs.lines {
		if d := line.tags[0].Date; !d.IsZero() && !d.After(oldest) {
			return min(l+2, len(rs.lines))
		}
	}
	return len(rs.lines)
}

// decodeBefore reads Before's memoised answers: one tag name (or an
// empty line) per commit, each a name among rs.Tags.
func (rs *ReleaseTags) decodeBefore(val []byte, n int) ([]ReleaseTag, bool) {
	if val == nil {
		return nil, false
	}
	names := strings.Split(string(val), "\n")
	if len(names) != n+1 || names[n] != "" {
		return nil, false
	}
	out := make([]ReleaseTag, n)
	for i, name := range names[:n] {
		if name == "" {
			continue
		}
		k := slices.IndexFunc(rs.Tags, func(t ReleaseTag) bool { return t.Name == name })
		if k < 0 {
			return nil, false
		}
		out[i] = rs.Tags[k]
	}
	return out, true
}

// Kinds of memo entries.
const (
	memoTags   = "release-tags" // accepted tags and objects -> peeled tags
	memoBefore = "release-before"
)

func memoGet(m Memo, kind, key string) []byte {
	if m == nil {
		return nil
	}
	return m.Get(kind, key)
}

func memoPut(m Memo, kind, key string, val []byte) {
	if m != nil {
		m.Put(kind, key, val)
	}
}

// encodeTags renders peeled tags, a line each: name, commit, date
// (RFC 3339, "-" when none).
func encodeTags(tags []Tag) []byte {
	var b strings.Builder
	for _, t := range tags {
		d := "-"
		if !t.Date.IsZero() {
			d = t.Date.Format(time.RFC3339)
		}
		b.WriteString(t.Name + " " + t.Commit + " " + d + "\n")
	}
	return []byte(b.String())
}

// decodeTags reads encodeTags' output; any flaw is a miss.
func decodeTags(val []byte) ([]Tag, bool) {
	if val == nil {
		return nil, false
	}
	lines := strings.Split(string(val), "\n")
	if lines[len(lines)-1] != "" {
		return nil, false
	}
	tags := make([]Tag, 0, len(lines)-1)
	for _, l := range lines[:len(lines)-1] {
		f := strings.Split(l, " ")
		if len(f) != 3 || f[0] == "" || !isFullSHA(f[1]) {
			return nil, false
		}
		t := Tag{Name: f[0], Commit: f[1]}
		if f[2] != "-" {
			d, err := time.Parse(time.RFC3339, f[2])
			if err != nil {
				return nil, false
			}
			t.Date = d
		}
		tags = append(tags, t)
	}
	return tags, true
}

// beforeIn judges release lines lo..hi-1 (highest first) for each target
// commit and returns the first qualifying line's tag per target (zero
// when none of these lines qualifies).
func (rs *ReleaseTags) beforeIn(lo, hi int, targets []string) ([]ReleaseTag, error) {
	var tips []string
	seen := map[string]bool{}
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			tips = append(tips, c)
		}
	}
	for _, t := range targets {
		add(t)
	}
	for l := lo; l < hi; l++ {
		for _, t := range rs.lines[l].tags {
			add(t.Commit)
		}
	}
	if lo > 0 {
		add(rs.lines[lo-1].tags[0].Commit)
	}
	if hi < len(rs.lines) {
		add(rs.lines[hi].tags[0].Commit)
	}
	g, err := rs.repo.readGraph(tips)
	if err != nil {
		return nil, err
	}
	rs.graphReads++

	answers := make([]ReleaseTag, len(targets))
	for k, target := range targets {
		h := g.history(target)
		for l := lo; l < hi; l++ {
			if t, ok := rs.qualifies(g, l, target, h); ok {
				answers[k] = t
				break
			}
		}
	}
	return answers, nil
}

// qualifies judges release line l for the target commit whose history is
// h (see Before).
func (rs *ReleaseTags) qualifies(g *graph, l int, target string, h bitset) (ReleaseTag, bool) {
	line := rs.lines[l].tags
	for i := len(line) - 1; i >= 0; i-- { // 1: a tag in the target's history
		if g.in(h, line[i].Commit) {
			return line[i], true
		}
	}
	first := line[0]
	fh := g.history(first.Commit)
	if g.in(fh, target) { // cut after the target
		return ReleaseTag{}, false
	}
	common := fh.and(h)
	if g.floor == "" && common.empty() {
		return ReleaseTag{}, false // unrelated histories
	}
	if l+1 < len(rs.lines) { // the lower neighbour
		lower := g.history(rs.lines[l+1].tags[0].Commit)
		for _, m := range g.maximal(common) {
			if m < 0 || lower.has(m) {
				return ReleaseTag{}, false
			}
		}
	}
	if l > 0 { // the higher neighbour
		higher := g.history(rs.lines[l-1].tags[0].Commit)
		if !fh.and(higher).subsetOf(h) {
			return ReleaseTag{}, false
		}
	}
	return first, true
}

// graph is the part of the commit graph above a floor commit that every
// commit of interest descends from: nodes are the commits reachable from
// the tips and not from the floor; a parent outside this region is
// "bottom" (-1), which is at or below the floor and so an ancestor of
// every tip. Without a floor (the tips share no history) the region is
// everything reachable from the tips.
type graph struct {
	floor   string
	index   map[string]int32
	parents [][]int32
	hist    map[string]bitset // memoised history
}

// readGraph reads the graph above the tips' common floor with two git
// calls: `git merge-base --octopus` and `git rev-list --parents`, whose
// revisions go through stdin.
func (r *Repo) readGraph(tips []string) (*graph, error) {
	g := &graph{index: map[string]int32{}, hist: map[string]bitset{}}
	out, err := r.run(append([]string{"merge-base", "--octopus"}, tips...)...)
	switch {
	case err == nil:
		g.floor = strings.TrimSpace(string(out))
	case exitCode(err) != 1: // 1: no common ancestor
		return nil, fmt.Errorf("release tags: %w", err)
	}
	var in bytes.Buffer
	for _, t := range tips {
		in.WriteString(t + "\n")
	}
	if g.floor != "" {
		in.WriteString("^" + g.floor + "\n")
	}
	out, err = r.runInput(in.Bytes(), "rev-list", "--parents", "--stdin")
	if err != nil {
		return nil, fmt.Errorf("release tags: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	for _, l := range lines {
		c, _, _ := strings.Cut(l, " ")
		g.index[c] = int32(len(g.index))
	}
	g.parents = make([][]int32, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		ps := make([]int32, 0, len(f)-1)
		for _, p := range f[1:] {
			if k, ok := g.index[p]; ok {
				ps = append(ps, k)
			} else {
				ps = append(ps, -1)
			}
		}
		g.parents[i] = ps
	}
	return g, nil
}

// bitset is a set of graph nodes.
type bitset []uint64

func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }

func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] & o[i]
	}
	return out
}

func (b bitset) subsetOf(o bitset) bool {
	for i := range b {
		if b[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// history returns the region nodes that are c or its ancestors (empty
// when c lies at or below the floor).
func (g *graph) history(c string) bitset {
	if b, ok := g.hist[c]; ok {
		return b
	}
	b := make(bitset, (len(g.parents)+63)/64)
	g.hist[c] = b
	start, ok := g.index[c]
	if !ok {
		return b
	}
	stack := []int32{start}
	b.set(start)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.parents[n] {
			if p >= 0 && !b.has(p) {
				b.set(p)
				stack = append(stack, p)
			}
		}
	}
	return b
}

// in reports whether commit c belongs to history h of some commit x: a
// commit outside the region is at or below the floor, hence in every
// history of a tip.
func (g *graph) in(h bitset, c string) bool {
	k, ok := g.index[c]
	if !ok {
		return g.floor != ""
	}
	return h.has(k)
}

// maximal returns the nodes of s that are not an ancestor of another node
// of s (the merge bases, when s is a set of common ancestors); -1 stands
// for the bottom when s is empty.
func (g *graph) maximal(s bitset) []int32 {
	below := make(bitset, len(s))
	for i := range g.parents {
		if s.has(int32(i)) {
			for _, p := range g.parents[i] {
				if p >= 0 {
					below.set(p)
				}
			}
		}
	}
	var out []int32
	for i := range g.parents {
		if s.has(int32(i)) && !below.has(int32(i)) {
			out = append(out, int32(i))
		}
	}
	if len(out) == 0 && g.floor != "" {
		out = []int32{-1}
	}
	return out
}
