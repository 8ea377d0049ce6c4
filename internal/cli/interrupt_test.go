package cli

import (
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/rules"
)

// The test binary of this package runs as apicheck when asApicheckEnv is
// set (TestMain): its tests start it as a user starts apicheck, with a
// supervisor and a check process, and interrupt it in the middle of a
// check. holdEnv then adds a rule to the catalogue that holds the check
// in the middle of the rules:
//
//   - "signal": until the check process gets SIGINT or SIGTERM (from the
//     supervisor, which forwards them, or from the kernel when the
//     supervisor dies);
//   - "orphan": the check process ignores SIGINT and SIGTERM, and the
//     rule holds until the supervisor is gone; then the run goes on to
//     its end.
//
// The rule writes its process ID to the file readyEnv names when it
// starts holding, and writes that file's name plus ".done" when it lets
// the run go on.
const (
	asApicheckEnv = "APICHECK_TEST_AS_APICHECK"
	holdEnv       = "APICHECK_TEST_HOLD"
	readyEnv      = "APICHECK_TEST_READY"
)

// asApicheck is the test binary run as apicheck.
func asApicheck() int {
	if mode := os.Getenv(holdEnv); mode != "" {
		crashRule = holdRule(mode, os.Getenv(readyEnv))
	}
	return Main(os.Args[1:], os.Stderr)
}

// holdRule is the rule of holdEnv.
func holdRule(mode, ready string) *rules.Rule {
	return &rules.Rule{
		ID: "HOLD_TEST", Severity: finding.Error, Summary: "holds the check until it is interrupted",
		Check: func(*rules.Context) {
			sigs := make(chan os.Signal, 1)
			parent := os.Getppid()
			switch mode {
			case "signal":
				signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
				defer signal.Stop(sigs)
			case "orphan":
				signal.Ignore(os.Interrupt, syscall.SIGTERM)
			}
			writeMarker(ready, strconv.Itoa(os.Getpid()))
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
				select {
				case <-sigs:
					writeMarker(ready+".done", "signal")
					return
				case <-time.After(10 * time.Millisecond):
				}
				if mode == "orphan" && os.Getppid() != parent {
					writeMarker(ready+".done", "orphan")
					return
				}
			}
		},
	}
}

// writeMarker writes a file whole (renamed into place), for a test that
// polls for it.
func writeMarker(path, content string) {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if os.WriteFile(tmp, []byte(content), 0o644) == nil {
		os.Rename(tmp, path)
	}
}
