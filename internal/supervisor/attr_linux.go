package supervisor

import "syscall"

// workerAttr makes the kernel send the check process SIGTERM when the
// supervisor dies, even by SIGKILL: the check process then cancels its run
// as for any SIGTERM (its git processes killed, no report written) instead
// of running on as an orphan. (Go never ends the thread a process was
// started from, so the signal comes only when the supervisor dies.)
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
