// Command benchtime runs a command several times and reports its wall time
// and peak resident set size, for scripts/bench.sh. It needs nothing but Go:
// the peak RSS is the kernel's ru_maxrss of the child (what GNU time -v
// prints as "Maximum resident set size"), read from wait4's rusage.
//
//	benchtime [-n RUNS] [-warmup K] [-ok 0,1] [-stdout FILE] -- CMD ARGS...
//
// Output (stdout), one key=value a line: runs, best_ms, median_ms,
// worst_ms (wall time), best_cpu_ms, median_cpu_ms (user + system time of
// the command and of the processes it waited for, such as git), max_rss_kb
// (0 where the platform does not report it).
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

func main() {
	runs := flag.Int("n", 5, "timed runs")
	warmup := flag.Int("warmup", 1, "untimed runs first (page cache, git object store)")
	okCodes := flag.String("ok", "0", "comma-separated exit codes that count as success")
	stdout := flag.String("stdout", "", "write the command's stdout of the last run to this file (default: discard)")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchtime [-n RUNS] [-warmup K] [-ok 0,1] [-stdout FILE] -- CMD ARGS...")
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
	var times, cpus []time.Duration
	var maxRSS int64
	for i := 0; i < *warmup+*runs; i++ {
		var out io.Writer = io.Discard
		last := i == *warmup+*runs-1
		if last && *stdout != "" {
			f, err := os.Create(*stdout)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchtime:", err)
				os.Exit(1)
			}
			defer f.Close()
			out = f
		}
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stdout, cmd.Stderr = out, os.Stderr
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		if cmd.ProcessState == nil {
			fmt.Fprintln(os.Stderr, "benchtime:", err)
			os.Exit(1)
		}
		if code := cmd.ProcessState.ExitCode(); !ok[code] {
			fmt.Fprintf(os.Stderr, "benchtime: %s exited with %d\n", flag.Arg(0), code)
			os.Exit(1)
		}
		if i < *warmup {
			continue
		}
		times = append(times, elapsed)
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		maxRSS = max(maxRSS, maxRSSKB(cmd.ProcessState))
	}
	slices.Sort(times)
	slices.Sort(cpus)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	fmt.Printf("runs=%d\nbest_ms=%s\nmedian_ms=%s\nworst_ms=%s\nbest_cpu_ms=%s\nmedian_cpu_ms=%s\nmax_rss_kb=%d\n",
		len(times), ms(times[0]), ms(times[len(times)/2]), ms(times[len(times)-1]),
		ms(cpus[0]), ms(cpus[len(cpus)/2]), maxRSS)
}
