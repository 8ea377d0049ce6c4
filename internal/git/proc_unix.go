//go:build unix

package git

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// configureProcess makes git die with apicheck. On Linux git gets SIGKILL
// when apicheck dies, however it dies (see setDeathSignal). With a
// cancellable context (ownGroup) git also runs in its own process group,
// which cancelling the context kills as a whole: git and anything it
// started. Without one git stays in apicheck's process group, so that a
// Ctrl-C at the terminal reaches it as before.
func configureProcess(cmd *exec.Cmd, ownGroup bool) {
	attr := &syscall.SysProcAttr{Setpgid: ownGroup}
	setDeathSignal(attr)
	cmd.SysProcAttr = attr
	if ownGroup {
		cmd.Cancel = func() error { return killProcess(cmd.Process, true) }
	}
}

// killProcess kills p, and its process group when group is set (p then
// leads the group: Setpgid made its pgid its pid).
func killProcess(p *os.Process, group bool) error {
	if p == nil {
		return nil
	}
	if !group {
		return p.Kill()
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// ownGroup reports whether cmd was started in its own process group.
func ownGroup(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid
}
