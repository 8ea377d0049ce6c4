//go:build apicheck_crashtest

package cli

import (
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// A binary built with -tags apicheck_crashtest crashes as
// APICHECK_CRASHTEST says, for cmd/apicheck's crash tests; release builds
// do not contain this file.
func init() {
	mode := os.Getenv("APICHECK_CRASHTEST")
	switch mode {
	case "":
		return
	case "rule", "rule-goroutine":
		// A rule that panics while check runs, after the scan and before
		// any report is written: recovered by the engine, or (in a
		// goroutine of its own) not recoverable at all.
		crashRule = &rules.Rule{
			ID: "CRASH_TEST", Severity: finding.Error, Summary: "crashes",
			Check: func(*rules.Context) {
				if mode == "rule" {
					panic("crash test in a rule")
				}
				go func() { panic("crash test in a rule's goroutine") }()
				time.Sleep(time.Minute)
			},
		}
		return
	}
	crashTest = func() {
		switch mode {
		case "panic": // in the main goroutine: Execute recovers it
			panic("crash test")
		case "goroutine": // nobody recovers it: the runtime crashes
			go func() { panic("crash test in a goroutine") }()
			time.Sleep(time.Minute)
		case "oom": // the runtime cannot map memory: fatal error
			lim := syscall.Rlimit{Cur: 1 << 30, Max: 1 << 30}
			if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
				panic(err)
			}
			var keep [][]byte
			for {
				keep = append(keep, make([]byte, 64<<20))
				keep[len(keep)-1][0] = 1
			}
		case "stack": // fatal error: stack overflow
			debug.SetMaxStack(1 << 20)
			var recurse func(int) int
			recurse = func(n int) int { return recurse(n+1) + 1 }
			recurse(0)
		case "kill": // what the kernel's OOM killer does
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		}
	}
}
