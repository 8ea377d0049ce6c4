//go:build !unix

package git

import (
	"os"
	"os/exec"
)

// configureProcess keeps exec's default: a done context kills git itself.
func configureProcess(*exec.Cmd, bool) {}

// killProcess kills p (there are no process groups to kill here).
func killProcess(p *os.Process, _ bool) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}

// ownGroup is always false here.
func ownGroup(*exec.Cmd) bool { return false }
