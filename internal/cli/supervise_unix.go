//go:build unix

package cli

import (
	"bufio"
	"errors"
	"fmt"
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

// crashFD is the child's file descriptor of the supervisor's pipe for
// crash reports; handoffFD that of the pipe the child hands its report
// files over (handoff.go), which handoffEnv names.
const (
	crashFD    = 3
	handoffFD  = 4
	handoffEnv = "APICHECK_REPORTS_FD"
)

// supervised runs the command line in the child of a supervisor. The Go
// runtime writes its crash report to the supervisor's pipe
// (setCrashOutput), so that the supervisor can tell a crash from exit code
// 2. The report files go to the supervisor, which writes them: they are
// sent once the command ended with exit code 0 or 1, and only while the
// supervisor that started this process lives (a check process whose
// supervisor was killed writes nothing, wherever it got to).
func supervised(args []string, stderr io.Writer) int {
	setCrashOutput()
	pipe := openHandoff()
	if pipe == nil {
		return worker(args, stderr)
	}
	defer pipe.Close()
	h := newHandoff()
	h.parent = os.Getppid()
	handOff = h
	code := Execute(args, os.Stdout, stderr)
	handOff = nil
	if code != ExitOK && code != ExitFindings || len(h.files) == 0 {
		return code
	}
	if h.orphaned() {
		return ExitFailure // nobody to tell, or to write the reports
	}
	if _, err := pipe.Write(h.encode()); err != nil {
		return ExitFailure // the supervisor is gone
	}
	return code
}

// openHandoff returns the pipe to hand report files over, when the
// supervisor passed one (nil otherwise: then this process writes them).
// The processes this one starts (git) do not inherit it: the supervisor
// reads until the pipe closes.
func openHandoff() *os.File {
	if os.Getenv(handoffEnv) != strconv.Itoa(handoffFD) {
		return nil
	}
	os.Unsetenv(handoffEnv)
	var st syscall.Stat_t
	if syscall.Fstat(handoffFD, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(handoffFD)
	return os.NewFile(handoffFD, "report-handoff")
}

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
// It writes the report files the child hands over when the child exited
// with 0 or 1 and no signal came; after a signal it writes none and exits
// 3. When the child cannot be started, the command line runs in this
// process.
func supervise(args []string, stderr io.Writer) int {
	c := startChild(args, stderr)
	if c == nil {
		return worker(args, stderr)
	}
	defer c.close()
	return c.wait().code(stderr)
}

// child is the check process a supervisor started: the signals the
// supervisor forwards to it, and what it sends back.
type child struct {
	cmd   *exec.Cmd
	sigs  chan os.Signal
	reads []*os.File // the supervisor's ends of the pipes
	// crashed says whether the Go runtime wrote a crash report; headline
	// is the line of the child's standard error that says what happened;
	// handed holds the report files the child handed over (nil when the
	// pipe could not be read); done is cmd.Wait's result.
	crashed  chan bool
	headline chan string
	handed   chan []byte
	done     chan error
}

// startChild starts the command line in a child process, with pipes for
// its crash report, its standard error (copied to stderr) and its report
// files; nil when it cannot.
func startChild(args []string, stderr io.Writer) *child {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return nil
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		crashR.Close()
		crashW.Close()
		return nil
	}
	handR, handW, err := os.Pipe()
	if err != nil {
		crashR.Close()
		crashW.Close()
		errR.Close()
		errW.Close()
		return nil
	}
	c := &child{cmd: exec.Command(exe, args...), reads: []*os.File{crashR, errR, handR}}
	c.cmd.Env = append(withoutEnv(withoutEnv(os.Environ(), workerEnv), handoffEnv),
		workerEnv+"=1", handoffEnv+"="+strconv.Itoa(handoffFD))
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = os.Stdin, os.Stdout, errW
	c.cmd.ExtraFiles = []*os.File{crashW, handW} // crashFD, handoffFD
	c.cmd.SysProcAttr = workerAttr()
	c.sigs = make(chan os.Signal, 4)
	signal.Notify(c.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err = c.cmd.Start()
	crashW.Close()
	errW.Close()
	handW.Close()
	if err != nil {
		c.close()
		return nil
	}
	c.crashed = make(chan bool, 1)
	go func() {
		n, _ := io.Copy(io.Discard, crashR) // the child must never block on it
		c.crashed <- n > 0
	}()
	// The child's standard error passes through; the line of a crash
	// report that says what happened is remembered.
	c.headline = make(chan string, 1)
	go func() { c.headline <- copyStderr(stderr, errR) }()
	// The report files the child hands over when its command ended.
	c.handed = make(chan []byte, 1)
	go func() {
		b, err := io.ReadAll(handR)
		if err != nil {
			b = nil
		}
		c.handed <- b
	}()
	c.done = make(chan error, 1)
	go func() { c.done <- c.cmd.Wait() }()
	return c
}

// close stops forwarding signals and closes the supervisor's ends of the
// pipes.
func (c *child) close() {
	signal.Stop(c.sigs)
	for i := len(c.reads) - 1; i >= 0; i-- {
		c.reads[i].Close()
	}
}

// childEnd is how a child ended and what it sent.
type childEnd struct {
	state *os.ProcessState
	werr  error // cmd.Wait's
	// signalled: a signal came for the supervisor (and went on to the
	// child).
	signalled bool
	what      string // the crash report's headline
	crash     bool   // the runtime wrote a crash report
	reports   []byte // the report files handed over
	reportsIn bool   // the handoff pipe closed
}

// wait forwards signals to the child until it exits, then collects what
// it sent.
func (c *child) wait() childEnd {
	var e childEnd
wait:
	for {
		select {
		case s := <-c.sigs:
			// The child cancels its run and exits 3; it handles SIGINT
			// and SIGTERM, so a hangup reaches it as SIGTERM.
			e.signalled = true
			if s == syscall.SIGHUP {
				s = syscall.SIGTERM
			}
			c.cmd.Process.Signal(s)
		case e.werr = <-c.done:
			break wait
		}
	}
	// A process the child started could keep the pipes open: wait briefly.
	timeout := time.After(2 * time.Second)
	for got := 0; got < 3; got++ {
		select {
		case e.what = <-c.headline:
		case e.crash = <-c.crashed:
		case e.reports = <-c.handed:
			e.reportsIn = true
		case <-timeout:
			got = 3
		}
	}
	// A signal that came as the child ended counts too.
	select {
	case <-c.sigs:
		e.signalled = true
	default:
	}
	e.state = c.cmd.ProcessState
	return e
}

// code is the supervisor's exit code for how the child ended, after
// saying on stderr what went wrong and writing the report files the child
// handed over, if it is to.
func (e childEnd) code(stderr io.Writer) int {
	var ee *exec.ExitError
	if e.werr != nil && !errors.As(e.werr, &ee) {
		io.WriteString(stderr, crashMessage("", "running the check process: "+e.werr.Error()))
		return ExitFailure
	}
	if ws, ok := e.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if ws.Signal() == syscall.SIGPIPE {
			// Output went to a closed pipe (apicheck check | head): end the
			// same way, as a process without supervisor would.
			signal.Reset(syscall.SIGPIPE)
			syscall.Kill(os.Getpid(), syscall.SIGPIPE)
			return ExitFailure
		}
		if e.signalled && e.what == "" {
			// Killed while stopping on a signal this process forwarded:
			// an interruption, not a crash.
			io.WriteString(stderr, "apicheck: interrupted; no report was written\n")
			return ExitFailure
		}
		io.WriteString(stderr, crashMessage(e.what, "the check process was killed by signal "+strconv.Quote(ws.Signal().String())+" (out of memory?)"))
		return ExitFailure
	}
	if e.crash {
		io.WriteString(stderr, crashMessage(e.what, "the check process crashed (the Go runtime's report is above)"))
		return ExitFailure
	}
	code := e.state.ExitCode()
	if code != ExitOK && code != ExitFindings {
		return code // the child wrote no report, and said why
	}
	switch {
	case e.signalled && (len(e.reports) > 0 || !e.reportsIn):
		io.WriteString(stderr, "apicheck: interrupted; no report was written\n")
		return ExitFailure
	case !e.reportsIn:
		io.WriteString(stderr, crashMessage("", "the check process's report files did not arrive"))
		return ExitFailure
	case len(e.reports) == 0:
		return code // no report files
	}
	return commitReports(e.reports, code, stderr)
}

// commitReports writes the report files a child handed over and returns
// its exit code, or the code of what went wrong.
func commitReports(reports []byte, code int, stderr io.Writer) int {
	h, err := decodeHandoff(reports)
	if err != nil {
		io.WriteString(stderr, crashMessage("", "the report files the check process handed over are damaged: "+err.Error()))
		return ExitFailure
	}
	if err := h.commit(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			fmt.Fprintf(stderr, "apicheck: %v\n", err)
			return ee.code
		}
		io.WriteString(stderr, crashMessage("", err.Error()))
		return ExitFailure
	}
	return code
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
