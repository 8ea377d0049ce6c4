// Command floor is the read-and-parse floor of scripts/bench.sh --repo:
// it reads the files apicheck's scan reads at two revisions from git
// objects and parses the Go files, nothing else.
//
//	floor -repo DIR -base A -head B -list FILE    # once: run the check, write the file list (JSON)
//	floor -repo DIR -base A -head B -files FILE   # timed: read and parse the listed files
//	floor -repo DIR -base A -head B -files FILE -reads   # the same, and read everything else the check read
//	floor -repo DIR -base R -head R -one -list FILE   # audit --history of revision R: its files only
//
// The list also holds the other objects the check read from git (the
// trees its listing walked, generated files, the release history, the
// usage search's files); -reads reads them too, at the same time as the
// files, and does nothing else with them: the floor of a check that
// needs that history.
//
// The timed form prints files=, parsed=, reads= and bytes= on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/apicheck/apicheck/internal/benchgen/floor"
	"github.com/apicheck/apicheck/internal/check"
)

func main() {
	repo := flag.String("repo", ".", "the repository (any directory inside it, or a bare git directory)")
	base := flag.String("base", "", "base revision")
	head := flag.String("head", "", "head revision")
	list := flag.String("list", "", "run apicheck's check once and write the files its scan read to this file")
	files := flag.String("files", "", "read and parse the files listed in this file (written by -list)")
	one := flag.Bool("one", false, "with -list: run apicheck audit --history of head instead, and list head's files only (the floor of one revision)")
	reads := flag.Bool("reads", false, "with -files: also read the other objects the check read")
	flag.Parse()
	if *base == "" || *head == "" || (*list == "") == (*files == "") || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: floor -repo DIR -base A -head B (-list FILE | -files FILE)")
		os.Exit(2)
	}
	if *one && *list == "" {
		fmt.Fprintln(os.Stderr, "floor: -one goes with -list")
		os.Exit(2)
	}
	if *reads && *files == "" {
		fmt.Fprintln(os.Stderr, "floor: -reads goes with -files")
		os.Exit(2)
	}
	if err := run(*repo, *base, *head, *list, *files, *one, *reads); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(repo, base, head, list, files string, one, reads bool) error {
	if list != "" {
		fs, err := floor.List(check.Request{Dir: repo, Base: base, Head: head}, one)
		if err != nil {
			return err
		}
		data, err := json.Marshal(fs)
		if err != nil {
			return err
		}
		return os.WriteFile(list, data, 0o644)
	}
	data, err := os.ReadFile(files)
	if err != nil {
		return err
	}
	var fs floor.Files
	if err := json.Unmarshal(data, &fs); err != nil {
		return fmt.Errorf("%s: %w", files, err)
	}
	st, err := floor.Read(repo, base, head, fs, reads)
	if err != nil {
		return err
	}
	fmt.Printf("files=%d\nparsed=%d\nreads=%d\nbytes=%d\n", st.Files, st.Parsed, st.Reads, st.Bytes)
	return nil
}
