//go:build unix

package supervisor

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Child is a check process the supervisor started: the signals the
// supervisor forwards to it, and what it sends back.
//
// The supervisor keeps no thread busy while it waits: it learns that the
// child ended from SIGCHLD (and then reaps it without blocking), and reads
// the pipes through the runtime's poller. The child's standard input and
// output are the supervisor's; its standard error passes through a pipe,
// for the line that says why it crashed (the runtime writes "fatal error:
// ..." to standard error only, the rest of its report to the crash pipe
// too).
type Child struct {
	pid   int
	sigs  chan os.Signal // SIGINT, SIGTERM and SIGHUP, to forward
	chld  chan os.Signal // SIGCHLD
	reads []*os.File     // the supervisor's ends of the pipes
	// crashed says whether the Go runtime wrote a crash report; headline
	// is the line of the child's standard error that says what happened;
	// handed holds the report files the child handed over (nil when the
	// pipe could not be read).
	crashed  chan bool
	headline chan string
	handed   chan []byte
}

// Start starts the command line args in a child process, with pipes for
// its crash report, its standard error (copied to stderr) and its report
// files; nil when it cannot. From here on SIGINT, SIGTERM and SIGHUP no
// longer end this process: Wait forwards them, and they stay caught until
// the process exits, so that none ends it while it writes the report
// files.
func Start(args []string, stderr io.Writer) *Child {
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
	c := &Child{reads: []*os.File{crashR, errR, handR}}
	env := append(withoutEnv(withoutEnv(os.Environ(), WorkerEnv), HandoffEnv),
		WorkerEnv+"=1", HandoffEnv+"="+strconv.Itoa(HandoffFD))
	c.sigs = make(chan os.Signal, 4)
	signal.Notify(c.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// One pending notification is enough: each is followed by a reap
	// that does not wait, and a child that ends after it sends another.
	c.chld = make(chan os.Signal, 1)
	signal.Notify(c.chld, syscall.SIGCHLD)
	c.pid, err = syscall.ForkExec(exe, append([]string{exe}, args...), &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, errW.Fd(), crashW.Fd(), handW.Fd()}, // stdio, CrashFD, HandoffFD
		Sys:   workerAttr(),
	})
	crashW.Close()
	errW.Close()
	handW.Close()
	if err != nil {
		signal.Stop(c.sigs)
		signal.Stop(c.chld)
		for _, r := range c.reads {
			r.Close()
		}
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
	return c
}

// End is how a child ended and what it sent.
type End struct {
	status syscall.WaitStatus
	werr   error // the reaping's
	// signalled: a signal came for the supervisor (and went on to the
	// child).
	signalled bool
	what      string // the crash report's headline
	crash     bool   // the runtime wrote a crash report
	reports   []byte // the report files handed over
	reportsIn bool   // the handoff pipe closed
	sigs      chan os.Signal
}

// Wait forwards signals to the child until it exits, then collects what
// it sent.
func (c *Child) Wait() *End {
	e := &End{sigs: c.sigs}
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
			syscall.Kill(c.pid, s.(syscall.Signal)) // not reaped yet: the ID is the child's
		case <-c.chld:
			pid, err := syscall.Wait4(c.pid, &e.status, syscall.WNOHANG, nil)
			for err == syscall.EINTR {
				pid, err = syscall.Wait4(c.pid, &e.status, syscall.WNOHANG, nil)
			}
			if err != nil {
				e.werr = err
				break wait
			}
			if pid == c.pid {
				break wait
			} // else it has not ended (it stopped)
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
	for _, r := range c.reads {
		r.Close()
	}
	return e
}

// exited reports whether the child exited by itself with code 0 or 1:
// then the report files it handed over, if any, are to be written.
func (e *End) exited() bool {
	if e.werr != nil || e.status.Signaled() || e.crash {
		return false
	}
	code := e.status.ExitStatus()
	return code == exitOK || code == exitFindings
}

// HasReports reports whether the child handed over report files that
// Code would write.
func (e *End) HasReports() bool { return e.exited() && len(e.reports) > 0 }

// Code is the supervisor's exit code for how the child ended, after
// saying on stderr what went wrong and, with commit, writing the report
// files the child handed over, if it is to.
func (e *End) Code(stderr io.Writer, commit Commit) int {
	// A signal that came as the child ended, or since, counts too.
	select {
	case <-e.sigs:
		e.signalled = true
	default:
	}
	if e.werr != nil {
		io.WriteString(stderr, CrashMessage("", "running the check process: "+e.werr.Error()))
		return exitFailure
	}
	if ws := e.status; ws.Signaled() {
		if ws.Signal() == syscall.SIGPIPE {
			// Output went to a closed pipe (apicheck check | head): end the
			// same way, as a process without supervisor would.
			signal.Reset(syscall.SIGPIPE)
			syscall.Kill(os.Getpid(), syscall.SIGPIPE)
			return exitFailure
		}
		if e.signalled && e.what == "" {
			// Killed while stopping on a signal this process forwarded:
			// an interruption, not a crash.
			io.WriteString(stderr, "apicheck: interrupted; no report was written\n")
			return exitFailure
		}
		io.WriteString(stderr, CrashMessage(e.what, "the check process was killed by signal "+strconv.Quote(ws.Signal().String())+" (out of memory?)"))
		return exitFailure
	}
	if e.crash {
		io.WriteString(stderr, CrashMessage(e.what, "the check process crashed (the Go runtime's report is above)"))
		return exitFailure
	}
	code := e.status.ExitStatus()
	if code != exitOK && code != exitFindings {
		return code // the child wrote no report, and said why
	}
	switch {
	case e.signalled && (len(e.reports) > 0 || !e.reportsIn):
		io.WriteString(stderr, "apicheck: interrupted; no report was written\n")
		return exitFailure
	case !e.reportsIn:
		io.WriteString(stderr, CrashMessage("", "the check process's report files did not arrive"))
		return exitFailure
	case len(e.reports) == 0:
		return code // no report files
	}
	return commit(e.reports, code, stderr)
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

// early is what Begin did: begun when it supervised the command line;
// end, the child's end when report files are left to write (nil when the
// child could not be started).
var early struct {
	begun bool
	end   *End
}

// Begin supervises the command line of this process (os.Args) unless it
// is the child, during package initialisation (package early), before
// the packages that only the child needs are initialised. It exits with
// the child's outcome, unless the child could not be started or handed
// over report files to write: then it returns, and Begun tells the rest
// of the program, whose packages are then all initialised.
func Begin() {
	if os.Getenv(WorkerEnv) == "1" || testBinary(os.Args) {
		return
	}
	early.begun = true
	c := Start(os.Args[1:], os.Stderr)
	if c == nil {
		return
	}
	e := c.Wait()
	if e.HasReports() {
		early.end = e
		return
	}
	os.Exit(e.Code(os.Stderr, nil))
}

// testBinary reports whether args are those of a test binary: the tests
// of cmd/apicheck link package early too, and run their tests in the
// process go test starts. go test names the binary *.test and passes it
// -test. flags. (Were Begin to skip the real program, cli.Main would
// supervise its command line all the same.)
func testBinary(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if strings.HasSuffix(args[0], ".test") {
		return true
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-test.") {
			return true
		}
	}
	return false
}

// Begun reports whether Begin supervised this process's command line,
// and the child's end (nil: the child could not be started, and the
// command line is to run in this process).
func Begun() (end *End, begun bool) { return early.end, early.begun }
