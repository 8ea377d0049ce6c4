// Command apicheck keeps Kubernetes-style Go APIs backwards compatible.
package main

import (
	"os"

	"github.com/apicheck/apicheck/internal/cli"
)

func main() {
	code := cli.Execute(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(code)
}
