//go:build unix

package check_test

// Benchmarks of the whole pipeline on a large generated API tree (see
// internal/benchgen), against the floor of merely reading the same files
// from git objects and parsing them.
//
//	go test -run '^$' -bench 'BenchmarkReadAndParse|BenchmarkCheck' -benchtime 5x ./internal/check/
//
// The repository is generated once per test binary in a temporary
// directory (removed by TestMain). APICHECK_BENCH_REPO=DIR benchmarks an
// existing repository instead (scripts/bench.sh passes the one it timed),
// comparing APICHECK_BENCH_BASE and APICHECK_BENCH_HEAD (default "base"
// and "head"), which may be any repository with API groups.
// APICHECK_BENCH_CACHE=off runs every check with the caches off (the
// cold cost without the memo writes); by default the first run fills a
// cache the others use (warm).
//
// Both report "cpu-ms/op", the CPU time (user + system, of this process
// and of the git processes it ran) per run: on a shared machine it moves
// much less than wall time. BenchmarkCheck reports "ratio", its wall time
// per run divided by BenchmarkReadAndParse's, and "cpu-ratio", the same
// for CPU time (the floor is measured on the spot if BenchmarkReadAndParse
// did not run first in this process). The target is ratio <= 3.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apicheck/apicheck/internal/benchgen"
	"github.com/apicheck/apicheck/internal/benchgen/floor"
	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestMain keeps the benchmarks away from the user's home and cache
// (check.Run's protobuf history cache defaults to the user cache
// directory) and removes the benchmark repository at the end. If another
// test file of this package needs a TestMain, merge this one into it.
func TestMain(m *testing.M) {
	done := hermetic.Setup()
	code := m.Run()
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
	os.Exit(done(code))
}

// benchEnv is the repository every benchmark of the process uses.
type benchEnv struct {
	dir        string
	base, head string
	cache      string // the history cache directory
	// files are the paths the scan of each revision reads (go.mod files
	// and the Go files of the API packages), taken from a first run.
	files  floor.Files
	nFiles int
	bytes  int64
	// verifyErr is set when the pipeline did not report exactly the
	// violations benchgen planted (generated repositories only).
	verifyErr error
}

var (
	benchOnce sync.Once
	bench     benchEnv
	benchErr  error
	benchTmp  string // temporary directory to remove, if any

	// baseline is BenchmarkReadAndParse's last result in this process,
	// for BenchmarkCheck's ratios.
	baselineMu sync.Mutex
	baseline   perOp
)

// perOp is the cost of one iteration.
type perOp struct{ wallNs, cpuNs float64 }

// cpuTime returns the CPU time used so far by this process and by its
// terminated children (the git processes).
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// measure runs loop (which runs b.Loop) and returns the cost per iteration.
func measure(b *testing.B, loop func()) perOp {
	cpu0 := cpuTime()
	loop()
	cpu := cpuTime() - cpu0
	op := perOp{
		wallNs: float64(b.Elapsed().Nanoseconds()) / float64(b.N),
		cpuNs:  float64(cpu.Nanoseconds()) / float64(b.N),
	}
	b.ReportMetric(op.cpuNs/1e6, "cpu-ms/op")
	return op
}

func benchSetup(b *testing.B) *benchEnv {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	benchOnce.Do(func() { benchErr = bench.init() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return &bench
}

// request is the check the benchmarks run.
func (e *benchEnv) request() check.Request {
	return check.Request{Dir: e.dir, Base: e.base, Head: e.head, Lifecycle: lifecycle.Options{CacheDir: e.cache}}
}

func (e *benchEnv) init() error {
	e.base, e.head = benchgen.BaseRef, benchgen.HeadRef
	var planted []benchgen.Change
	tmp, err := os.MkdirTemp("", "apicheck-bench-")
	if err != nil {
		return err
	}
	benchTmp = tmp
	// The history cache lives with the repository, never in the
	// (hermetic) home; the first run fills it, the benchmarks run warm.
	e.cache = filepath.Join(tmp, "cache")
	if err := os.Mkdir(e.cache, 0o700); err != nil {
		return err
	}
	// APICHECK_BENCH_CACHE=off runs every iteration with the caches off,
	// as the GitHub Action does: the cold cost, without the memo writes.
	if os.Getenv("APICHECK_BENCH_CACHE") == "off" {
		e.cache = "-"
	}
	if dir := os.Getenv("APICHECK_BENCH_REPO"); dir != "" {
		e.dir = dir
		if v := os.Getenv("APICHECK_BENCH_BASE"); v != "" {
			e.base = v
		}
		if v := os.Getenv("APICHECK_BENCH_HEAD"); v != "" {
			e.head = v
		}
	} else {
		start := time.Now()
		repo, err := benchgen.BuildRepo(filepath.Join(tmp, "repo"), benchgen.Options{}, 1)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "bench: generated %s in %v\n", repo.Dir, time.Since(start).Round(time.Millisecond))
		e.dir = repo.Dir
		planted = repo.Changes
	}

	// One run tells which files the scan reads and whether the pipeline
	// finds what was planted.
	res, err := check.Run(e.request())
	if err != nil {
		return fmt.Errorf("first check.Run: %w", err)
	}
	defer res.Close()
	e.files = floor.FilesOf(res)
	e.nFiles = e.files.Count()
	st, err := floor.Read(e.dir, e.base, e.head, e.files, false)
	if err != nil {
		return err
	}
	e.bytes = st.Bytes
	if planted != nil {
		e.verifyErr = verifyFindings(res, planted)
	}
	return nil
}

// verifyFindings checks that the report holds exactly one finding per
// planted violation, of the expected rule, and nothing else.
func verifyFindings(res *check.Result, planted []benchgen.Change) error {
	ruleOf := map[string]string{
		"non-pointer-field":    "NEW_FIELD_NOT_POINTER",
		"proto-number-changed": "PROTO_NUMBER_CHANGED",
		"field-removed":        "FIELD_REMOVED_WITHOUT_TOMBSTONE",
	}
	want := map[string]int{}
	for _, c := range planted {
		if c.Violation {
			want[ruleOf[c.Kind]]++
		}
	}
	got := map[string]int{}
	for _, f := range res.Report.Findings {
		got[f.Rule]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("findings by rule = %v, want %v (the planted violations)", got, want)
	}
	return nil
}

// readAndParse is the floor the pipeline is measured against (package
// floor): read exactly the files the scan reads, one batch per revision,
// and parse the Go files with comments, both revisions at once and on all
// cores, as the scan does.
func readAndParse(e *benchEnv) error {
	_, err := floor.Read(e.dir, e.base, e.head, e.files, false)
	return err
}

func BenchmarkReadAndParse(b *testing.B) {
	e := benchSetup(b)
	b.ReportAllocs()
	b.SetBytes(e.bytes)
	op := measure(b, func() {
		for b.Loop() {
			if err := readAndParse(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	baselineMu.Lock()
	baseline = op
	baselineMu.Unlock()
	b.ReportMetric(float64(e.nFiles), "files/op")
}

func BenchmarkCheck(b *testing.B) {
	e := benchSetup(b)
	if e.verifyErr != nil {
		b.Fatal(e.verifyErr)
	}
	b.ReportAllocs()
	b.SetBytes(e.bytes)
	op := measure(b, func() {
		for b.Loop() {
			res, err := check.Run(e.request())
			if err != nil {
				b.Fatal(err)
			}
			res.Close()
		}
	})
	b.ReportMetric(float64(e.nFiles), "files/op")

	baselineMu.Lock()
	base := baseline
	baselineMu.Unlock()
	if base.wallNs == 0 {
		// BenchmarkReadAndParse did not run first: measure the floor now
		// (the timer is stopped once b.Loop is done), best of five.
		for range 5 {
			start, cpu0 := time.Now(), cpuTime()
			if err := readAndParse(e); err != nil {
				b.Fatal(err)
			}
			wall, cpu := float64(time.Since(start).Nanoseconds()), float64((cpuTime() - cpu0).Nanoseconds())
			if base.wallNs == 0 || wall < base.wallNs {
				base.wallNs = wall
			}
			if base.cpuNs == 0 || cpu < base.cpuNs {
				base.cpuNs = cpu
			}
		}
	}
	b.ReportMetric(op.wallNs/base.wallNs, "ratio")
	if base.cpuNs > 0 {
		b.ReportMetric(op.cpuNs/base.cpuNs, "cpu-ratio")
	}
}
