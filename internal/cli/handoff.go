package cli

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/supervisor"
)

// Under a supervisor (see Main) the check process does not write the
// files of --output and --report: outputPlan.write hands them to handOff,
// and once the command has ended with exit code 0 or 1 the check process
// sends them over a pipe to the supervisor, which writes them when the
// check process has exited normally with that code and no signal came.
// So a run interrupted at any point, a crash, or a check process whose
// supervisor is gone (killed) writes no report file. Standard output is
// written by the check process, as before.

// handOff collects the report files in a check process under a
// supervisor; nil otherwise (the files are written in process).
var handOff *handoff

// handoff is what a check process hands over: where its reports go, as
// its command line says (the supervisor plans the destinations again,
// with planOutputs), and the rendered files by path.
type handoff struct {
	format, output string
	reports        []string // the --report values
	paths          []string // of files, in the order they were kept
	files          map[string][]byte
	// parent is the supervisor's process ID, in the check process.
	parent int
}

func newHandoff() *handoff { return &handoff{files: map[string][]byte{}} }

// errSupervisorGone ends a check process whose supervisor died: nobody
// would write its reports, and nobody waits for them.
var errSupervisorGone = errors.New("the supervising process is gone; no report was written")

// orphaned reports whether the supervisor that started this check
// process is gone (this process has another parent now).
func (h *handoff) orphaned() bool { return h.parent != 0 && os.Getppid() != h.parent }

// plan records the command line's destinations.
func (h *handoff) plan(format, output string, reports []string) {
	h.format, h.output, h.reports = format, output, reports
}

// keep takes one rendered file instead of writing it.
func (h *handoff) keep(path string, data []byte) {
	if _, dup := h.files[path]; !dup {
		h.paths = append(h.paths, path)
	}
	h.files[path] = data
}

// handoffMagic opens and handoffEnd closes an encoded handoff: a stream
// without its end was cut short.
const (
	handoffMagic = "apicheck reports 1\n"
	handoffEnd   = "end\n"
)

// encode frames the handoff: the destinations, then each file as path,
// length, bytes.
func (h *handoff) encode() []byte {
	b := []byte(handoffMagic)
	str := func(s []byte) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str([]byte(h.format))
	str([]byte(h.output))
	b = binary.AppendUvarint(b, uint64(len(h.reports)))
	for _, r := range h.reports {
		str([]byte(r))
	}
	b = binary.AppendUvarint(b, uint64(len(h.paths)))
	for _, p := range h.paths {
		str([]byte(p))
		str(h.files[p])
	}
	return append(b, handoffEnd...)
}

var errHandoffShort = errors.New("cut short")

// decodeHandoff reads what encode wrote.
func decodeHandoff(b []byte) (*handoff, error) {
	if len(b) < len(handoffMagic) || string(b[:len(handoffMagic)]) != handoffMagic {
		return nil, errors.New("not a report handoff")
	}
	b = b[len(handoffMagic):]
	num := func() (uint64, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, errHandoffShort
		}
		b = b[k:]
		return n, nil
	}
	str := func() ([]byte, error) {
		n, err := num()
		if err != nil || n > uint64(len(b)) {
			return nil, errHandoffShort
		}
		s := b[:n:n]
		b = b[n:]
		return s, nil
	}
	h := newHandoff()
	format, err := str()
	if err != nil {
		return nil, err
	}
	output, err := str()
	if err != nil {
		return nil, err
	}
	h.format, h.output = string(format), string(output)
	n, err := num()
	if err != nil || n > uint64(len(b)) {
		return nil, errHandoffShort
	}
	for range n {
		r, err := str()
		if err != nil {
			return nil, err
		}
		h.reports = append(h.reports, string(r))
	}
	if n, err = num(); err != nil || n > uint64(len(b)) {
		return nil, errHandoffShort
	}
	for range n {
		p, err := str()
		if err != nil {
			return nil, err
		}
		data, err := str()
		if err != nil {
			return nil, err
		}
		h.keep(string(p), data)
	}
	if string(b) != handoffEnd {
		return nil, errHandoffShort
	}
	return h, nil
}

// commit writes the files handed over to the destinations of the
// command line, as the check process would have (outputPlan.write).
// The main report on standard output was written by the check process.
func (h *handoff) commit() error {
	p, err := planOutputs(h.format, h.output, h.reports)
	if err != nil {
		return err
	}
	specs := append([]*reportSpec{&p.main}, pointers(p.reports)...)
	files := 0
	for _, s := range specs {
		if s.path == "" {
			s.write = func(io.Writer, *finding.Report) error { return nil }
			continue
		}
		data, ok := h.files[s.path]
		if !ok {
			return fmt.Errorf("the check process handed over no report for %s", s.path)
		}
		files++
		s.write = func(w io.Writer, _ *finding.Report) error {
			_, err := w.Write(data)
			return err
		}
	}
	if files != len(h.files) {
		return fmt.Errorf("the check process handed over %d report files for %d destinations", len(h.files), files)
	}
	return p.write(io.Discard, nil)
}

// commitReports writes the report files a child handed over and returns
// its exit code, or the code of what went wrong.
func commitReports(reports []byte, code int, stderr io.Writer) int {
	h, err := decodeHandoff(reports)
	if err != nil {
		io.WriteString(stderr, supervisor.CrashMessage("", "the report files the check process handed over are damaged: "+err.Error()))
		return ExitFailure
	}
	if err := h.commit(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			fmt.Fprintf(stderr, "apicheck: %v\n", err)
			return ee.code
		}
		io.WriteString(stderr, supervisor.CrashMessage("", err.Error()))
		return ExitFailure
	}
	return code
}
