// Command benchtime runs a command several times and reports its wall time
// and peak resident set size, for scripts/bench.sh. It needs nothing but Go:
// the peak RSS is the kernel's ru_maxrss of the child (what GNU time -v
// prints as "Maximum resident set size"), read from wait4's rusage.
//
//	benchtime [-n RUNS] [-warmup K] [-ok 0,1] [-stdout FILE] [-diff] -- CMD ARGS... [::: CMD2 ARGS...]...
//
// Several commands, separated by ":::", run interleaved: round i runs
// each of them once, in order, so that a change in the machine's load
// touches all of them alike (their ratio is the figure to trust on a
// shared machine). -stdout and -ok apply to every command; -stdout keeps
// the first command's output.
//
// Output (stdout), one key=value a line: runs, best_ms, median_ms,
// worst_ms (wall time), best_cpu_ms, median_cpu_ms (user + system time of
// the command and of the processes it waited for, such as git), max_rss_kb
// (0 where the platform does not report it). With several commands every
// key but runs is printed per command, prefixed "cN_" (c1_median_ms,
// c2_median_ms, ...). -diff with two commands adds diff_median_ms and
// diff_median_cpu_ms: the median of the first command's time minus the
// second's, round by round.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sep separates the commands on the command line.
const sep = ":::"

// result collects one command's runs.
type result struct {
	times, cpus []time.Duration
	maxRSS      int64
}

func main() {
	runs := flag.Int("n", 5, "timed runs (rounds, with several commands)")
	warmup := flag.Int("warmup", 1, "untimed runs first (page cache, git object store)")
	okCodes := flag.String("ok", "0", "comma-separated exit codes that count as success")
	stdout := flag.String("stdout", "", "write the first command's stdout of the last run to this file (default: discard)")
	diff := flag.Bool("diff", false, "with two commands, also the median of the first's time minus the second's, round by round")
	flag.Parse()
	cmds := split(flag.Args())
	if len(cmds) == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchtime [-n RUNS] [-warmup K] [-ok 0,1] [-stdout FILE] [-diff] -- CMD ARGS... [::: CMD2 ARGS...]...")
		os.Exit(2)
	}
	ok := map[int]bool{}
	for _, s := range strings.Split(*okCodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchtime: bad -ok %q\n", *okCodes)
			os.Exit(2)
		}
		ok[n] = true
	}
	results := make([]result, len(cmds))
	for i := 0; i < *warmup+*runs; i++ {
		for c, argv := range cmds {
			var out io.Writer = io.Discard
			if c == 0 && i == *warmup+*runs-1 && *stdout != "" {
				f, err := os.Create(*stdout)
				if err != nil {
					fmt.Fprintln(os.Stderr, "benchtime:", err)
					os.Exit(1)
				}
				defer f.Close()
				out = f
			}
			elapsed, ps := run(argv, out, ok)
			if i < *warmup {
				continue
			}
			r := &results[c]
			r.times = append(r.times, elapsed)
			r.cpus = append(r.cpus, ps.UserTime()+ps.SystemTime())
			r.maxRSS = max(r.maxRSS, maxRSSKB(ps))
		}
	}
	fmt.Printf("runs=%d\n", *runs)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	if *diff && len(results) == 2 {
		fmt.Printf("diff_median_ms=%s\n", ms(medianDiff(results[0].times, results[1].times)))
		fmt.Printf("diff_median_cpu_ms=%s\n", ms(medianDiff(results[0].cpus, results[1].cpus)))
	}
	for c, r := range results {
		prefix := ""
		if len(results) > 1 {
			prefix = fmt.Sprintf("c%d_", c+1)
		}
		slices.Sort(r.times)
		slices.Sort(r.cpus)
		for _, kv := range [][2]string{
			{"best_ms", ms(r.times[0])}, {"median_ms", ms(r.times[len(r.times)/2])}, {"worst_ms", ms(r.times[len(r.times)-1])},
			{"best_cpu_ms", ms(r.cpus[0])}, {"median_cpu_ms", ms(r.cpus[len(r.cpus)/2])}, {"max_rss_kb", strconv.FormatInt(r.maxRSS, 10)},
		} {
			fmt.Printf("%s%s=%s\n", prefix, kv[0], kv[1])
		}
	}
}

// medianDiff is the median of a[i] - b[i], the rounds' differences (a
// round's two runs saw the same load).
func medianDiff(a, b []time.Duration) time.Duration {
	d := make([]time.Duration, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// split cuts the arguments into commands at each ":::"; nil when there
// are none or one of them is empty.
func split(args []string) [][]string {
	if len(args) == 0 {
		return nil
	}
	var cmds [][]string
	for {
		i := slices.Index(args, sep)
		if i < 0 {
			i = len(args)
		}
		if i == 0 {
			return nil
		}
		cmds = append(cmds, args[:i])
		if i == len(args) {
			return cmds
		}
		args = args[i+1:]
	}
}

// run runs one command and exits benchtime if it fails.
func run(argv []string, out io.Writer, ok map[int]bool) (time.Duration, *os.ProcessState) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "benchtime:", err)
		os.Exit(1)
	}
	if code := cmd.ProcessState.ExitCode(); !ok[code] {
		fmt.Fprintf(os.Stderr, "benchtime: %s exited with %d\n", argv[0], code)
		os.Exit(1)
	}
	return elapsed, cmd.ProcessState
}
