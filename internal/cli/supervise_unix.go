//go:build unix

package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// crashFD is the child's file descriptor of the supervisor's pipe.
const crashFD = 3

// setCrashOutput makes the runtime copy a crash report to the
// supervisor's pipe, if file descriptor 3 is a pipe (it is not when
// APICHECK_SUPERVISED was set by hand).
func setCrashOutput() {
	var st syscall.Stat_t
	if syscall.Fstat(crashFD, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return
	}
	f := os.NewFile(crashFD, "crash-output")
	if debug.SetCrashOutput(f, debug.CrashOptions{}) == nil {
		f.Close() // the runtime keeps a duplicate
	}
}

// supervise runs the command line in a child process and returns its exit
// code, or ExitFailure with a message when the child crashed (see Main).
// When the child cannot be started, the command line runs in this
// process.
func supervise(args []string, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		return worker(args, stderr)
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return worker(args, stderr)
	}
	defer crashR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		crashW.Close()
		return worker(args, stderr)
	}
	defer errR.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(withoutEnv(os.Environ(), workerEnv), workerEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, errW
	cmd.ExtraFiles = []*os.File{crashW} // crashFD
	cmd.SysProcAttr = workerAttr()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		crashW.Close()
		errW.Close()
		signal.Stop(sigs)
		return worker(args, stderr)
	}
	crashW.Close()
	errW.Close()
	crashed := make(chan bool, 1)
	go func() {
		n, _ := io.Copy(io.Discard, crashR) // the child must never block on it
		crashed <- n > 0
	}()
	// The child's standard error passes through; the line of a crash
	// report that says what happened is remembered.
	headline := make(chan string, 1)
	go func() { headline <- copyStderr(stderr, errR) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	signalled := false
wait:
	for {
		select {
		case s := <-sigs:
			// The child cancels its run and exits 3; it handles SIGINT
			// and SIGTERM, so a hangup reaches it as SIGTERM.
			signalled = true
			if s == syscall.SIGHUP {
				s = syscall.SIGTERM
			}
			cmd.Process.Signal(s)
		case werr = <-done:
			break wait
		}
	}
	// A process the child started could keep the pipes open: wait briefly.
	what, crash := "", false
	timeout := time.After(2 * time.Second)
	for got := 0; got < 2; got++ {
		select {
		case what = <-headline:
		case crash = <-crashed:
		case <-timeout:
			got = 2
		}
	}
	state := cmd.ProcessState
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		io.WriteString(stderr, crashMessage("", "running the check process: "+werr.Error()))
		return ExitFailure
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if ws.Signal() == syscall.SIGPIPE {
			// Output went to a closed pipe (apicheck check | head): end the
			// same way, as a process without supervisor would.
			signal.Reset(syscall.SIGPIPE)
			syscall.Kill(os.Getpid(), syscall.SIGPIPE)
			return ExitFailure
		}
		if signalled && what == "" {
			// Killed while stopping on a signal this process forwarded:
			// an interruption, not a crash.
			io.WriteString(stderr, "apicheck: interrupted; no report was written\n")
			return ExitFailure
		}
		io.WriteString(stderr, crashMessage(what, "the check process was killed by signal "+strconv.Quote(ws.Signal().String())+" (out of memory?)"))
		return ExitFailure
	}
	if crash {
		io.WriteString(stderr, crashMessage(what, "the check process crashed (the Go runtime's report is above)"))
		return ExitFailure
	}
	return state.ExitCode()
}

// maxLine bounds the part of a line copyStderr looks at.
const maxLine = 4096

// copyStderr copies the child's standard error to w and returns the first
// line that says why a Go program crashed ("fatal error: ...", "panic:
// ..."), if any.
func copyStderr(w io.Writer, r io.Reader) string {
	br := bufio.NewReaderSize(r, maxLine)
	what := ""
	start := true // at the start of a line
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			w.Write(chunk)
			if l := strings.TrimSpace(string(chunk)); start && what == "" &&
				(strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:")) {
				what = l
			}
			start = chunk[len(chunk)-1] == '\n'
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return what
		}
	}
}

// withoutEnv drops a variable from an environment list.
func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '=' {
			continue
		}
		out = append(out, kv)
	}
	return out
}
