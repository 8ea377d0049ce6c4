// Command benchgen writes the benchmark repository: a generated API tree
// committed as branch "base", a realistic change set on top committed as
// branch "head".
//
//	go run ./internal/benchgen/cmd/benchgen [-groups N] [-seed S] [-other-files N] DIR
//
// It prints key=value statistics on stdout (see scripts/bench.sh).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/benchgen"
)

func main() {
	var opts benchgen.Options
	flag.IntVar(&opts.Groups, "groups", benchgen.DefaultGroups, "number of API groups")
	flag.IntVar(&opts.TypesFiles, "types-files", benchgen.DefaultTypesFiles, "types_*.go files per package")
	flag.IntVar(&opts.OtherFiles, "other-files", 0, "files outside the API packages (docs, charts, assets, controllers)")
	flag.Int64Var(&opts.Seed, "base-seed", 1, "seed of the base tree")
	seed := flag.Int64("seed", 1, "seed of the head change set")
	verbose := flag.Bool("v", false, "list the changes on stderr")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: benchgen [flags] DIR\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	repo, err := benchgen.BuildRepo(flag.Arg(0), opts, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
	violations := 0
	for _, c := range repo.Changes {
		if c.Violation {
			violations++
		}
		if *verbose {
			fmt.Fprintln(os.Stderr, c)
		}
	}
	for _, ref := range []string{benchgen.BaseRef, benchgen.HeadRef} {
		st, err := treeStats(repo.Dir, ref)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchgen:", err)
			os.Exit(1)
		}
		fmt.Printf("%s_files=%d\n%s_bytes=%d\n%s_go_files=%d\n%s_scanned_files=%d\n%s_scanned_bytes=%d\n",
			ref, st.files, ref, st.bytes, ref, st.goFiles, ref, st.scanned, ref, st.scannedBytes)
	}
	fmt.Printf("changes=%d\nviolations=%d\ntouched_files=%d\n", len(repo.Changes), violations, len(repo.Touched))
}

type stats struct {
	files, goFiles, scanned int
	bytes, scannedBytes     int64
}

// treeStats sums the blobs of a revision with git ls-tree -r -l. "Scanned"
// are the Go files apicheck parses: non-test, non-generated Go files
// (the generated tree has nothing else the scanner would skip).
func treeStats(dir, ref string) (stats, error) {
	cmd := exec.Command("git", "ls-tree", "-r", "-l", "-z", ref)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return stats{}, fmt.Errorf("git ls-tree %s: %w", ref, err)
	}
	var st stats
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := strings.Cut(string(rec), "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 || f[1] != "blob" {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		st.files++
		st.bytes += size
		base := path.Base(p)
		if strings.HasSuffix(base, ".go") {
			st.goFiles++
			if !strings.HasSuffix(base, "_test.go") && !strings.HasPrefix(base, "zz_generated") {
				st.scanned++
				st.scannedBytes += size
			}
		}
	}
	return st, nil
}
