// Command apicheck keeps Kubernetes-style Go APIs backwards compatible.
package main

import (
	"os"

	"github.com/apicheck/apicheck/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stderr))
}
