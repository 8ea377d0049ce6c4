// Command apicheck keeps Kubernetes-style Go APIs backwards compatible.
package main

import (
	"os"

	"github.com/apicheck/apicheck/internal/cli"
	// On Unix the command line runs in a supervised child process, which
	// this package starts before the packages only the child needs are
	// initialised.
	_ "github.com/apicheck/apicheck/internal/supervisor/early"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stderr))
}
