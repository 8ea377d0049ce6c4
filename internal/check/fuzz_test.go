package check_test

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/fix"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/report"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// The fuzz targets run the whole in-process pipeline (scan → model →
// diff → rules → fixes → every report format) on a mutated copy of an
// API types file against the original. The seeds are types files in the
// styles of Gardener (protobuf tags, pointer optionals, tombstones),
// Kubernetes (list-map semantics, enums, feature gates, unions) and a
// kubebuilder CRD project (validation markers, omitzero, no protobuf).
//
// A failure is a panic (in any step, including a rule: the engine turns
// those into errors, which fail here), an error without a message, a
// finding that names no known rule or no file of the revisions, or output
// that differs between two identical runs. Parse errors on a mangled
// file are expected results, not failures.
//
// `go test` runs the seeds; `make fuzz` mutates for a bounded time.

var (
	//go:embed testdata/fuzzapi/gardener.go.txt
	gardenerTypes string
	//go:embed testdata/fuzzapi/kubernetes.go.txt
	kubernetesTypes string
	//go:embed testdata/fuzzapi/crd.go.txt
	crdTypes string
)

// fuzzSeed is an API revision: its files, the types file the fuzzer
// mutates, and the profile it is judged with.
type fuzzSeed struct {
	profile model.Profile
	types   string // path of the mutated file
	files   map[string]string
}

var fuzzSeeds = []fuzzSeed{
	{
		profile: "gardener",
		types:   "pkg/apis/core/v1beta1/types_shoot.go",
		files: map[string]string{
			"go.mod":                               "module example.com/api\n\ngo 1.24\n",
			"pkg/apis/core/doc.go":                 "// +groupName=core.gardener.cloud\npackage core\n",
			"pkg/apis/core/types_shoot.go":         strings.Replace(gardenerTypes, "package v1beta1", "package core", 1),
			"pkg/apis/core/v1beta1/doc.go":         "// +k8s:conversion-gen=example.com/api/pkg/apis/core\n// +groupName=core.gardener.cloud\npackage v1beta1\n",
			"pkg/apis/core/v1beta1/types_shoot.go": gardenerTypes,
		},
	},
	{
		profile: "kubernetes",
		types:   "apps/v1/types.go",
		files: map[string]string{
			"go.mod":           "module k8s.io/api\n\ngo 1.24\n",
			"apps/v1/doc.go":   "// +k8s:openapi-gen=true\n// +groupName=apps\npackage v1\n",
			"apps/v1/types.go": kubernetesTypes,
		},
	},
	{
		profile: "crd",
		types:   "api/v1alpha1/widget_types.go",
		files: map[string]string{
			"go.mod":                       "module example.com/widgets\n\ngo 1.24\n",
			"api/v1alpha1/widget_types.go": crdTypes,
		},
	},
}

// FuzzAPIFile mutates the bytes of a types file.
func FuzzAPIFile(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(uint8(i), []byte(s.files[s.types]))
	}
	f.Fuzz(func(t *testing.T, seed uint8, head []byte) {
		s := fuzzSeeds[int(seed)%len(fuzzSeeds)]
		checkPipeline(t, s, string(head))
	})
}

// FuzzAPIEdits applies line edits that keep the file mostly valid Go
// (delete, duplicate or swap lines; toggle omitempty, pointers and
// markers; renumber tags; rename JSON names), so mutations reach the
// rules rather than stopping at the parser.
func FuzzAPIEdits(f *testing.F) {
	for i := range fuzzSeeds {
		f.Add(uint8(i), []byte{})
		for op := range byte(12) {
			f.Add(uint8(i), []byte{op, 3 + 7*op, op + 1, 5 + 11*op})
		}
	}
	f.Fuzz(func(t *testing.T, seed uint8, ops []byte) {
		s := fuzzSeeds[int(seed)%len(fuzzSeeds)]
		if len(ops) > 64 {
			ops = ops[:64]
		}
		checkPipeline(t, s, applyEdits(s.files[s.types], ops))
	})
}

// TestFuzzSeedsReachTheRules keeps the seeds useful: each scans to its
// group, and the edit operations make many different rules fire, so
// mutations exercise the rules and not only the parser.
func TestFuzzSeedsReachTheRules(t *testing.T) {
	for i, s := range fuzzSeeds {
		fired := map[string]bool{}
		for op := range byte(12) {
			for arg := range byte(8) {
				r, err := judgeSeed(s, applyEdits(s.files[s.types], []byte{op, 5*arg + op}))
				if err != nil {
					t.Fatalf("seed %d (%s), edit %d/%d: %v", i, s.profile, op, arg, err)
				}
				for _, f := range r.Findings {
					fired[f.Rule] = true
				}
			}
		}
		if len(fired) < 8 {
			t.Errorf("seed %d (%s): the edits made only %d rules fire (%v); want at least 8", i, s.profile, len(fired), slices.Sorted(maps.Keys(fired)))
		}
	}
}

// applyEdits interprets ops as (operation, field) pairs. Each edit
// targets a field line (a line with a json tag, tombstones included) and
// the comment lines above it, so the file stays valid Go and the change
// reaches the rules.
func applyEdits(src string, ops []byte) string {
	lines := strings.Split(src, "\n")
	for i := 0; i+1 < len(ops); i += 2 {
		var fields []int
		for n, l := range lines {
			if strings.Contains(l, "json:\"") {
				fields = append(fields, n)
			}
		}
		if len(fields) == 0 {
			break
		}
		n := fields[int(ops[i+1])%len(fields)]
		l := lines[n]
		live := !strings.HasPrefix(strings.TrimSpace(l), "//")
		switch ops[i] % 12 {
		case 0: // delete the field
			lines = slices.Delete(lines, n, n+1)
		case 1: // duplicate it under a new Go name
			lines = slices.Insert(lines, n, strings.Replace(l, "\t", "\tDup", 1))
		case 2: // move it to the end of the previous field
			if m := slices.Index(fields, n); m > 0 {
				p := fields[m-1]
				lines[p], lines[n] = l, lines[p]
			}
		case 3: // toggle omitempty
			if strings.Contains(l, ",omitempty") {
				lines[n] = strings.Replace(l, ",omitempty", "", 1)
			} else {
				lines[n] = strings.Replace(l, `json:"`+jsonName(l)+`"`, `json:"`+jsonName(l)+`,omitempty"`, 1)
			}
		case 4: // toggle +optional above it
			if n > 0 && strings.Contains(lines[n-1], "+optional") {
				lines = slices.Delete(lines, n-1, n)
			} else {
				lines = slices.Insert(lines, n, "\t// +optional")
			}
		case 5: // renumber its protobuf tag
			lines[n] = bumpNumber(l, "protobuf:\"")
		case 6: // rename its JSON name
			lines[n] = strings.Replace(l, `json:"`, `json:"x`, 1)
		case 7: // toggle a pointer
			if f := strings.Fields(l); live && len(f) >= 3 && !strings.HasPrefix(f[1], "`") {
				if strings.HasPrefix(f[1], "*") {
					lines[n] = strings.Replace(l, " "+f[1], " "+f[1][1:], 1)
				} else {
					lines[n] = strings.Replace(l, " "+f[1], " *"+f[1], 1)
				}
			}
		case 8: // comment it out (a tombstone) or back in
			if live {
				lines[n] = "\t// " + strings.TrimSpace(l)
			} else {
				lines[n] = "\t" + strings.TrimPrefix(strings.TrimSpace(l), "// ")
			}
		case 9: // change its patch strategy, list type or merge key
			for m := n; m >= 0 && m > n-8; m-- {
				if r := strings.NewReplacer(
					`patchStrategy:"merge"`, `patchStrategy:"replace"`,
					"+listType=map", "+listType=atomic",
					"+listType=atomic", "+listType=set",
					`patchMergeKey:"`, `patchMergeKey:"x`,
					"+listMapKey=", "+listMapKey=x",
					"+mapType=atomic", "+mapType=granular",
				).Replace(lines[m]); r != lines[m] {
					lines[m] = r
					break
				}
			}
		case 10: // change a default, bound or enum above it
			for m := n - 1; m >= 0 && m > n-8 && strings.HasPrefix(strings.TrimSpace(lines[m]), "//"); m-- {
				r := strings.NewReplacer(`="Always"`, `="Never"`, "=red;", "=red;pink;", "Enum=Allow;Deny", "Enum=Allow").Replace(lines[m])
				if r = bumpNumber(r, "="); r != lines[m] {
					lines[m] = r
					break
				}
			}
		case 11: // add a marker that changes maturity or optionality
			lines = slices.Insert(lines, n, []string{"\t// Deprecated: gone soon.", "\t// +featureGate=Fuzz", "\t// +required", "\t// +k8s:optional", "\t// +default=1", "\t// +k8s:maxLength=3"}[int(ops[i+1])%6])
		}
	}
	return strings.Join(lines, "\n")
}

// jsonName is the name in a line's json tag.
func jsonName(l string) string {
	i := strings.Index(l, `json:"`)
	if i < 0 {
		return ""
	}
	rest := l[i+len(`json:"`):]
	if j := strings.IndexAny(rest, `,"`); j >= 0 {
		return rest[:j]
	}
	return rest
}

// bumpNumber increments the first digit after marker.
func bumpNumber(l, marker string) string {
	i := strings.Index(l, marker)
	if i < 0 {
		return l
	}
	for j := i + len(marker); j < len(l); j++ {
		if c := l[j]; c >= '0' && c <= '9' {
			return l[:j] + string('0'+(c-'0'+1)%10) + l[j+1:]
		}
	}
	return l
}

// checkPipeline runs the pipeline twice on the same input and checks the
// invariants and that both runs rendered the same bytes.
func checkPipeline(t *testing.T, s fuzzSeed, head string) {
	t.Helper()
	first, err := runPipeline(s, head)
	if err != nil {
		var p *par.PanicError
		if errors.As(err, &p) {
			t.Fatalf("panic: %v\n%s", p.Value, p.Stack)
		}
		if err.Error() == "" {
			t.Fatalf("error without a message: %#v", err)
		}
		return
	}
	second, err := runPipeline(s, head)
	if err != nil {
		t.Fatalf("second run failed, first did not: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("two identical runs differ:\n--- first\n%s\n--- second\n%s", first, second)
	}
}

// runPipeline judges head's version of the seed's types file against the
// seed and renders the report in every format.
func runPipeline(s fuzzSeed, headTypes string) ([]byte, error) {
	r, err := judgeSeed(s, headTypes)
	if err != nil {
		return nil, err
	}
	if err := invariants(r, s.files, headTypes, s.types); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, name := range report.FormatNames() {
		w, _ := report.WriterFor(name, report.Options{LinkBase: "https://github.com/example/api"})
		fmt.Fprintf(&buf, "=== %s\n", name)
		if err := w(&buf, r); err != nil {
			return nil, fmt.Errorf("%s report: %w", name, err)
		}
	}
	return buf.Bytes(), nil
}

// judgeSeed scans, compares and judges, and computes the fixes.
func judgeSeed(s fuzzSeed, headTypes string) (*finding.Report, error) {
	base := memRev{files: s.files, commit: "base"}
	headFiles := maps.Clone(s.files)
	headFiles[s.types] = headTypes
	head := memRev{files: headFiles, commit: "head"}
	opts := scan.Options{Profile: s.profile}
	bm, err := scan.Scan(base, opts)
	if err != nil {
		return nil, fmt.Errorf("the unmutated seed does not scan: %w", err)
	}
	hm, err := scan.Scan(head, opts)
	if err != nil {
		return nil, err
	}
	d := model.Compare(bm, hm)
	all := catalog.All()
	out, err := rules.Run(d, all, rules.Options{})
	if err != nil {
		return nil, err
	}
	r := &finding.Report{
		Tool:     finding.Tool{Name: "apicheck", Version: "fuzz"},
		Base:     finding.Rev{Ref: "base", Commit: base.commit},
		Head:     finding.Rev{Ref: "head", Commit: head.commit},
		Findings: out.Findings,
		Notes:    append(out.Notes, hm.Notes...),
		Rules:    rules.Docs(all),
	}
	r.Finalize()
	fix.New(fix.Input{Findings: r.Findings, Diff: d, Head: head})
	return r, nil
}

// invariants are what every report must satisfy.
func invariants(r *finding.Report, files map[string]string, headTypes, typesPath string) error {
	all := catalog.All()
	for _, f := range r.Findings {
		if rules.Lookup(all, f.Rule) == nil {
			return &par.PanicError{In: "invariants", Value: "finding of unknown rule " + f.Rule}
		}
		if f.Severity < finding.Info || f.Severity > finding.Error {
			return &par.PanicError{In: "invariants", Value: fmt.Sprintf("%s: invalid severity %d", f.Rule, f.Severity)}
		}
		if f.Message == "" {
			return &par.PanicError{In: "invariants", Value: f.Rule + ": empty message"}
		}
		if f.Path != "" {
			content, ok := files[f.Path]
			if f.Path == typesPath {
				content = headTypes
			}
			if !ok || f.Line < 1 || f.Line > strings.Count(content, "\n")+1 {
				return &par.PanicError{In: "invariants", Value: fmt.Sprintf("%s: position %s:%d is in no file of head", f.Rule, f.Path, f.Line)}
			}
		}
	}
	return nil
}

// memRev is a revision held in memory (a git.Snapshot).
type memRev struct {
	files  map[string]string
	commit string
}

func (m memRev) Ref() string    { return m.commit }
func (m memRev) Commit() string { return m.commit }
func (m memRev) Close() error   { return nil }

func (m memRev) Files() []string {
	out := make([]string, 0, len(m.files))
	for k := range m.files {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (m memRev) IsSymlink(string) bool { return false }

func (m memRev) ReadFiles(paths []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(paths))
	for _, p := range paths {
		v, ok := m.files[p]
		if !ok {
			return nil, errors.New("no file " + p)
		}
		out[p] = []byte(v)
	}
	return out, nil
}
