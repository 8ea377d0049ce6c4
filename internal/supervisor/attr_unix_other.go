//go:build unix && !linux

package supervisor

import "syscall"

// workerAttr: other Unix systems have no parent-death signal.
func workerAttr() *syscall.SysProcAttr { return nil }
