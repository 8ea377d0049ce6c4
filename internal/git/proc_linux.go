package git

import "syscall"

// setDeathSignal asks the kernel to SIGKILL git when the thread that
// started it dies, i.e. when apicheck dies: no git outlives a killed run.
// (Go never ends the threads it starts processes from, except threads
// locked with runtime.LockOSThread, which this package does not use.)
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
