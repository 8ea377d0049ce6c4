// Command mkrepo turns a txtar history (see internal/txtarrepo) into a git
// repository with one commit per step and one branch per step name, so
// that `apicheck check --base base --head head` can compare them. It is
// what `make run` uses to build the shipped example.
//
// Usage: go run ./examples/mkrepo ARCHIVE.txtar DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apicheck/apicheck/internal/txtarrepo"
)

// The example's commits are by one identity on one date, so that their
// shas are the same on every machine.
var (
	identity = txtarrepo.Identity{Name: "apicheck example", Email: "example@apicheck.invalid"}
	date     = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkrepo ARCHIVE.txtar DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mkrepo:", err)
		os.Exit(1)
	}
}

func run(archive, dir string) error {
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	steps, err := txtarrepo.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %v", archive, err)
	}
	if err := txtarrepo.Build(dir, steps, identity, date); err != nil {
		return err
	}
	abs, _ := filepath.Abs(dir)
	fmt.Println(abs)
	return nil
}
