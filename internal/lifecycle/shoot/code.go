package shoot

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/scan"
)

// Stage names a Shoot deprecation stage whose code the rules read.
type Stage string

const (
	StageWarnings    Stage = "warnings"
	StageValidation  Stage = "validation"
	StageStrategy    Stage = "strategy"
	StageMaintenance Stage = "maintenance"
	StageDefaults    Stage = "defaults"
)

// Stages reads the code of the Shoot deprecation stages at the revisions
// of a comparison's release history, each (revision, stage) once, and
// knows which fields the Shoot kind reaches.
type Stages struct {
	hist     *lifecycle.History
	code     map[string]*StageCode
	pathMemo map[*model.Package]map[string]string

	// failed is the first error reading code the memo said parses (see
	// Err).
	failMu sync.Mutex
	failed error

	versDone bool
	vers     []Version
	versProb string

	relDone bool
	relTag  string
	relProb string
	relAll  []string // every release tag name
}

// NewStages prepares the stage reader; nothing is read yet.
func NewStages(h *lifecycle.History) *Stages {
	return &Stages{hist: h, code: map[string]*StageCode{}, pathMemo: map[*model.Package]map[string]string{}}
}

// StageCode is the parsed code of one stage at one revision.
type StageCode struct {
	// Files are the parsed files; when the memo says the files parse
	// (readStage), they are read and parsed only when a question the
	// memo does not answer needs them (files).
	Files []*File
	// Problem says why the code could not be read (a configured file
	// that does not exist, a file that does not parse, no release); the
	// stage must then not be judged.
	Problem string

	// stage is the stage the code is of; key names its files by blob
	// for the memo of Hits ("": not memoised).
	stage Stage
	key   string
	memo  git.Memo
	// load reads and parses Files (nil: they are read); once runs it;
	// stages records its failure.
	load   func() ([]*File, error)
	once   sync.Once
	stages *Stages
}

// files returns the parsed files, reading them on first use when they
// were left unread. A failure (an object missing since the files were
// parsed) is the Stages' error (Err); the code then has no files.
func (sc *StageCode) files() []*File {
	if sc.load != nil {
		sc.once.Do(func() {
			fs, err := sc.load()
			if err != nil {
				sc.stages.fail(err)
				return
			}
			sc.Files = fs
		})
	}
	return sc.Files
}

func (e *Stages) fail(err error) {
	e.failMu.Lock()
	defer e.failMu.Unlock()
	if e.failed == nil {
		e.failed = err
	}
}

// Err returns the first error reading stage code that the memo said
// parses (its files read lazily): what was judged without it is not a
// report, and the run must fail with it.
func (e *Stages) Err() error {
	e.failMu.Lock()
	defer e.failMu.Unlock()
	return e.failed
}

// Stage returns the code of a stage at a revision. For StageDefaults,
// versionDir is the field's version package: without configured defaults
// files, its defaults*.go files are read.
func (e *Stages) Stage(rev lifecycle.Rev, st Stage, versionDir string) *StageCode {
	key := string(rev) + "\x00" + string(st) + "\x00" + versionDir
	if sc, ok := e.code[key]; ok {
		return sc
	}
	sc := e.readStage(rev, st, versionDir)
	e.code[key] = sc
	return sc
}

func (e *Stages) readStage(rev lifecycle.Rev, st Stage, versionDir string) *StageCode {
	snap, revName, err := e.hist.Snapshot(rev)
	if err != nil {
		return &StageCode{Problem: err.Error()}
	}
	entries, setting := e.stageEntries(st, versionDir)
	var want, missing []string
	for _, en := range entries {
		got, err := expandEntry(snap, en, st == StageStrategy || st == StageValidation)
		if err != nil {
			return &StageCode{Problem: fmt.Sprintf("cannot list %s code at %s: %v", st, revName, err)}
		}
		if len(got) == 0 {
			missing = append(missing, en)
		}
		want = append(want, got...)
	}
	if len(missing) > 0 && st == StageDefaults && e.hist.Options().Shoot.Defaults == nil {
		missing = nil // no defaults*.go file: the version package has no defaulting
	}
	if len(missing) > 0 {
		found, err := e.located(snap, st, missing)
		if err != nil {
			return &StageCode{Problem: fmt.Sprintf("cannot search %s code at %s: %v", st, revName, err)}
		}
		if len(found) == 0 {
			what := ""
			if l, ok := lookFor[st]; ok {
				what = ", and no Go file below a path mentioning shoot has " + l
			}
			return &StageCode{Problem: fmt.Sprintf("%s code not found at %s: %s %s%s (set %s in .apicheck.yaml)",
				st, revName, strings.Join(missing, ", "), doesNotExist(len(missing)), what, setting)}
		}
		want = append(want, found...)
	}
	if len(want) == 0 {
		return &StageCode{}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	sc := &StageCode{stage: st, key: filesKey(snap, want), memo: e.hist.Memo(), stages: e}
	if sc.key == "" || sc.memo == nil {
		sc.key = ""
	} else if v := sc.memo.Get(parseMemoKind, sc.key); v != nil {
		// Whether the files parse is known: they are read when a
		// question the memo does not answer needs them.
		if msg, bad := strings.CutPrefix(string(v), "error "); bad {
			return &StageCode{Problem: fmt.Sprintf("%s code at %s: %s", st, revName, msg)}
		}
		if string(v) == "ok" {
			sc.load = func() ([]*File, error) {
				contents, err := snap.ReadFiles(want)
				if err != nil {
					return nil, fmt.Errorf("cannot read %s code at %s: %w", st, revName, err)
				}
				return Parse(contents)
			}
			return sc
		}
	}
	contents, err := snap.ReadFiles(want)
	if err != nil {
		return &StageCode{Problem: fmt.Sprintf("cannot read %s code at %s: %v", st, revName, err)}
	}
	parsed, err := Parse(contents)
	if err != nil {
		if sc.key != "" {
			sc.memo.Put(parseMemoKind, sc.key, []byte("error "+err.Error()))
		}
		return &StageCode{Problem: fmt.Sprintf("%s code at %s: %v", st, revName, err)}
	}
	if sc.key != "" {
		sc.memo.Put(parseMemoKind, sc.key, []byte("ok"))
	}
	sc.Files = parsed
	return sc
}

// located is locate over the revision's candidate files, memoised for a
// commit: the files that hold a stage's code are a function of the
// commit's tree (and of the entries that are missing, which name where
// the code was expected).
func (e *Stages) located(snap git.Snapshot, st Stage, missing []string) ([]string, error) {
	memo, key := e.hist.Memo(), ""
	if memo != nil && snap.Ref() != git.WorktreeRef && snap.Commit() != "" {
		k := git.NewMemoKey(locateMemoKind)
		k.Words(snap.Commit(), string(st))
		k.Words(missing...)
		key = k.String()
	}
	if key != "" {
		if v := memo.Get(locateMemoKind, key); v != nil {
			if len(v) == 0 {
				return nil, nil
			}
			return strings.Split(string(v), "\n"), nil
		}
	}
	files, err := git.Select(snap, locateSelection)
	if err != nil {
		return nil, err
	}
	found, err := locate(st, files, snap.ReadFiles)
	if err != nil {
		return nil, err
	}
	if key != "" && !slices.ContainsFunc(found, func(f string) bool { return strings.Contains(f, "\n") }) {
		memo.Put(locateMemoKind, key, []byte(strings.Join(found, "\n")))
	}
	return found, nil
}

// locateMemoKind names the memo entries of located: the files found, a
// line each.
const locateMemoKind = "shoot locate 1"

func doesNotExist(n int) string {
	if n == 1 {
		return "does not exist"
	}
	return "do not exist"
}

// stageEntries returns the configured entries of a stage and the name of
// their configuration setting.
func (e *Stages) stageEntries(st Stage, versionDir string) ([]string, string) {
	s := e.hist.Options().Shoot
	switch st {
	case StageWarnings:
		return s.Warnings, "shoot.warnings"
	case StageValidation:
		return s.Validation, "shoot.validation"
	case StageStrategy:
		return s.Strategy, "shoot.strategy"
	case StageMaintenance:
		return s.Maintenance, "shoot.maintenance"
	}
	if s.Defaults != nil {
		return s.Defaults, "shoot.defaults"
	}
	return []string{versionDir + "/defaults*.go"}, "shoot.defaults"
}

// expandEntry lists the Go files an entry stands for: a directory entry
// ("dir/") its non-test, non-generated Go files below it, a file itself
// (for the strategy and the validation: every such file of its package,
// whose helpers they call), and "dir/prefix*.go" the matching files of
// dir.
func expandEntry(snap git.Snapshot, entry string, wholePackage bool) ([]string, error) {
	var files []string
	var err error
	switch {
	case strings.HasSuffix(entry, "/"):
		if dir := strings.TrimSuffix(entry, "/"); dir != "" {
			files, err = git.FilesUnder(snap, dir)
		}
	case strings.Contains(entry, "*"):
		if dir := path.Dir(entry); !strings.ContainsAny(dir, `*?[\`) {
			files, err = git.DirFiles(snap, dir) // the pattern matches files of dir only
		} else {
			files = snap.Files()
		}
		files = slices.DeleteFunc(files, func(f string) bool {
			ok, _ := path.Match(entry, f)
			return !ok
		})
	default:
		found, ferr := git.HasFile(snap, entry)
		if ferr != nil || !found {
			return nil, ferr
		}
		if !wholePackage {
			return []string{entry}, nil
		}
		files, err = git.DirFiles(snap, path.Dir(entry))
	}
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(files, func(f string) bool { return !scan.Scannable(f) }), nil
}

// HeadRelease says whether the comparison crosses a release: it returns
// the newest release tag (by the configured tag pattern) that points at
// head or at a commit reachable from head but not from base, "" when there
// is none (the working tree is never a release), or a problem saying why
// it cannot tell.
func (e *Stages) HeadRelease() (tag, problem string) {
	if e.relDone {
		return e.relTag, e.relProb
	}
	e.relDone = true
	e.relTag, e.relProb = e.headRelease()
	return e.relTag, e.relProb
}

func (e *Stages) headRelease() (string, string) {
	in := e.hist.Input()
	if in.Repo == nil || in.Head == nil || in.Base == nil || in.Head.Ref() == git.WorktreeRef || in.Head.Commit() == "" {
		return "", ""
	}
	re, err := config.CompileTagPattern(e.hist.TagPattern())
	if err != nil {
		return "", err.Error()
	}
	// The answer is a function of base, head and the tags (their refs
	// name the objects): memoised, it saves peeling every tag and
	// listing base..head.
	memo, key := e.hist.Memo(), ""
	if memo != nil {
		if refs, err := in.Repo.TagRefs(re.MatchString); err == nil {
			k := git.NewMemoKey(headReleaseMemoKind)
			k.Words(in.Base.Commit(), in.Head.Commit())
			k.Words(refs...)
			key = k.String()
		}
	}
	if key != "" {
		if v := memo.Get(headReleaseMemoKind, key); v != nil {
			if best, all, ok := strings.Cut(string(v), "\n"); ok {
				if all != "" {
					e.relAll = strings.Split(all, "\n")
				}
				return best, ""
			}
		}
	}
	best, prob := e.headReleaseOf(in, re.MatchString)
	if key != "" && prob == "" {
		memo.Put(headReleaseMemoKind, key, []byte(best+"\n"+strings.Join(e.relAll, "\n")))
	}
	return best, prob
}

// headReleaseMemoKind names the memo entries of headRelease: the tag,
// then every release tag name, a line each.
const headReleaseMemoKind = "shoot head release 1"

// headReleaseOf is headRelease read from git.
func (e *Stages) headReleaseOf(in lifecycle.Input, match func(string) bool) (string, string) {
	tags, err := in.Repo.TagsMatching(match)
	if err != nil {
		return "", fmt.Sprintf("cannot read release tags: %v", err)
	}
	byCommit := map[string][]string{}
	for _, t := range tags {
		byCommit[t.Commit] = append(byCommit[t.Commit], t.Name)
		e.relAll = append(e.relAll, t.Name)
	}
	if len(byCommit) == 0 {
		return "", ""
	}
	head, base := in.Head.Commit(), in.Base.Commit()
	rng := head
	if base != "" {
		rng = base + ".." + head
	}
	out, err := in.Repo.Output("rev-list", rng)
	if err != nil {
		return "", fmt.Sprintf("cannot list the commits of base..head: %v", err)
	}
	best := ""
	for _, c := range strings.Fields(string(out)) {
		for _, t := range byCommit[c] {
			if best == "" || tagNewer(t, best) {
				best = t
			}
		}
	}
	return best, ""
}

// ReleasesBetween lists the release tags whose version lies strictly
// between release from (the newest release before base) and the release
// head is or contains (HeadRelease), oldest first: the releases a
// comparison spans without seeing them. It is empty when head crosses no
// release.
func (e *Stages) ReleasesBetween(from string) []string {
	head, _ := e.HeadRelease()
	if head == "" || from == "" {
		return nil
	}
	var out []string
	for _, t := range e.relAll {
		if tagNewer(t, from) && tagNewer(head, t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return tagNewer(out[j], out[i]) })
	return out
}

var tagNumbers = lazyre.New(`\d+`)

// tagNewer orders release tags by their numbers, then by name.
func tagNewer(a, b string) bool {
	na, nb := tagNumbers.FindAllString(a, -1), tagNumbers.FindAllString(b, -1)
	for i := 0; i < len(na) && i < len(nb); i++ {
		x, _ := strconv.Atoi(na[i])
		y, _ := strconv.Atoi(nb[i])
		if x != y {
			return x > y
		}
	}
	if len(na) != len(nb) {
		return len(na) > len(nb)
	}
	return a > b
}

// SupportedVersionsFile is the file listing the supported Kubernetes
// versions.
func (e *Stages) SupportedVersionsFile() string { return e.hist.Options().Shoot.SupportedVersions }

// SupportedVersions reads the supported Kubernetes versions at head; the
// problem says why they cannot be used.
func (e *Stages) SupportedVersions() ([]Version, string) {
	if e.versDone {
		return e.vers, e.versProb
	}
	e.versDone = true
	p := e.hist.Options().Shoot.SupportedVersions
	head := e.hist.Input().Head
	found, err := git.HasFile(head, p)
	if err != nil {
		e.versProb = fmt.Sprintf("cannot read %s: %v", p, err)
		return nil, e.versProb
	}
	if !found {
		e.versProb = fmt.Sprintf("%s not found at head (set shoot.supportedVersions in .apicheck.yaml)", p)
		return nil, e.versProb
	}
	data, err := head.ReadFiles([]string{p})
	if err != nil {
		e.versProb = fmt.Sprintf("cannot read %s: %v", p, err)
		return nil, e.versProb
	}
	e.vers, err = SupportedVersions(data[p])
	if err != nil {
		e.versProb = fmt.Sprintf("cannot parse %s at head: %v", p, err)
	}
	return e.vers, e.versProb
}

// NewField describes a field of the Shoot API for the stage detectors.
// apiPath is its JSON path from the root kind ("Shoot.spec.x.y"); pkg is
// the package the field's struct lives in (for the parents).
func NewField(f *model.Field, owner string, apiPath string, pkg *model.Package) Field {
	sf := Field{GoName: f.Name, JSONName: f.WireName(), Path: strings.TrimPrefix(apiPath, "Shoot.")}
	if pkg != nil {
		seen := map[string]bool{}
		for _, t := range pkg.Types {
			for _, pf := range t.Fields {
				if model.LocalTypeName(pf.Type) == owner && !seen[pf.Name] {
					seen[pf.Name] = true
					sf.Parents = append(sf.Parents, pf.Name)
				}
			}
		}
		sort.Strings(sf.Parents)
	}
	return sf
}

// Path returns the JSON path of a field from the Shoot root kind of
// its version package ("Shoot.spec.x.y") when the Shoot reaches the
// field's struct. Unlike a finding's API path (where the first root kind
// in name order wins), a struct the Shoot shares with another kind counts
// too.
func (e *Stages) Path(fd *model.FieldDiff) (string, bool) {
	pd := fd.Type.Pkg
	if !pd.External() {
		return "", false
	}
	pkg, typ, f := pd.Head, fd.Type.Name(), fd.Head
	if f == nil {
		pkg, typ, f = pd.Base, fd.Type.Base.Name, fd.Base
	}
	if pkg == nil {
		return "", false
	}
	p, ok := e.paths(pkg)[typ]
	if !ok {
		return "", false
	}
	if w := f.WireName(); w != "" && w != "-" && !f.Inline() {
		p += "." + w
	}
	return p, true
}

// paths maps every struct type the package's Shoot root kind reaches
// to its shortest JSON path from it (breadth-first, as model.APIPaths).
func (e *Stages) paths(p *model.Package) map[string]string {
	if m, ok := e.pathMemo[p]; ok {
		return m
	}
	paths := map[string]string{}
	e.pathMemo[p] = paths
	root := p.Type("Shoot")
	if root == nil || !root.RootKind {
		return paths
	}
	paths[root.Name] = root.Name
	queue := []*model.Type{root}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, f := range t.Fields {
			ft := p.Type(model.LocalTypeName(f.Type))
			if ft == nil || ft.Kind != model.KindStruct {
				continue
			}
			if _, seen := paths[ft.Name]; seen {
				continue
			}
			path := paths[t.Name]
			if w := f.WireName(); w != "" && !f.Inline() {
				path += "." + w
			}
			paths[ft.Name] = path
			queue = append(queue, ft)
		}
	}
	return paths
}
