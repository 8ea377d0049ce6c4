//go:build unix && !linux

package git

import "syscall"

// setDeathSignal does nothing: only Linux has a parent-death signal. A git
// left behind by a killed apicheck sees its input pipe close and exits.
func setDeathSignal(*syscall.SysProcAttr) {}
