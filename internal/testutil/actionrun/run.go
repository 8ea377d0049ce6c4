package actionrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Config is the job an action runs in.
type Config struct {
	// ActionDir is the action's checkout (github.action_path).
	ActionDir string
	// Workspace is the repository checkout (github.workspace), where steps
	// run unless they set working-directory.
	Workspace string
	// RunnerTemp is RUNNER_TEMP; it is created if missing.
	RunnerTemp string
	// Inputs are the with: values of the workflow step using the action.
	Inputs map[string]string
	// GitHub is the github context (event_name, repository, actor,
	// action_ref, event, ...); action_path and workspace are added.
	GitHub map[string]any
	// Env is the job's environment (os.Environ() when nil).
	Env []string
	// Uses stands in for the steps that use another action: it gets the
	// step and its evaluated with: values and returns the step's outputs;
	// an error fails the step. Nil fails every such step.
	Uses func(s *Step, with map[string]string) (map[string]string, error)
	// Log receives the job log: each step's name and output.
	Log io.Writer
}

// Annotation is a workflow command a step printed (::error, ::warning,
// ::notice).
type Annotation struct {
	Step    string
	Level   string
	Props   map[string]string
	Message string
}

// StepResult is what one step did.
type StepResult struct {
	Step *Step
	// Outcome is success, failure or skipped; Conclusion is the outcome
	// after continue-on-error (a failure it allows concludes success).
	Outcome, Conclusion string
	Outputs             map[string]string
	// ExitCode is a run: step's exit code.
	ExitCode int
	// Output is what a run: step printed (stdout and stderr), or the
	// error of a uses: step.
	Output string
}

// Result is what the job did.
type Result struct {
	Steps []*StepResult
	// Outputs are the action's outputs.
	Outputs map[string]string
	// Summary is the job summary (every step's GITHUB_STEP_SUMMARY).
	Summary     string
	Annotations []Annotation
	// Failed is the job's status: a step concluded failure.
	Failed bool
}

// Step returns the result of the step with this id or name (nil if none).
func (r *Result) Step(idOrName string) *StepResult {
	for _, s := range r.Steps {
		if s.Step.ID == idOrName || s.Step.Name == idOrName {
			return s
		}
	}
	return nil
}

// Annotated returns the annotations of a level ("error", "warning",
// "notice").
func (r *Result) Annotated(level string) []Annotation {
	var out []Annotation
	for _, a := range r.Annotations {
		if a.Level == level {
			out = append(out, a)
		}
	}
	return out
}

// job is the state of one run of an action: its configuration, the
// expression context and environment the steps share, and the result.
type job struct {
	a    *Action
	cfg  Config
	work string // the scratch directory for step scripts and files
	logw io.Writer
	// jobEnv is the environment of every run: step, with what steps
	// add through GITHUB_ENV; envCtx is the env context of those.
	jobEnv   map[string]string
	envCtx   map[string]any
	steps    map[string]any // the steps context
	ctx      *Context
	res      *Result
	pathAdds []string // GITHUB_PATH entries, newest first
}

// Run runs the action's steps in order, as the runner does.
func Run(a *Action, cfg Config) (*Result, error) {
	if a.Runs.Using != "composite" {
		return nil, fmt.Errorf("%s: runs.using is %q; only composite actions run here", a.Path, a.Runs.Using)
	}
	if err := os.MkdirAll(cfg.RunnerTemp, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(cfg.RunnerTemp, "_actionrun")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	j := newJob(a, cfg, work)
	if err := j.resolveInputs(); err != nil {
		return nil, err
	}
	for i, s := range a.Runs.Steps {
		if err := j.runStep(i, s); err != nil {
			return nil, err
		}
	}
	j.res.Outputs = map[string]string{}
	for name, o := range a.Outputs {
		v, err := Interpolate(o.Value, j.ctx)
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", name, err)
		}
		j.res.Outputs[name] = v
	}
	return j.res, nil
}

// newJob sets up the job's github, steps, env and runner contexts and
// the environment the runner gives every run: step.
func newJob(a *Action, cfg Config, work string) *job {
	j := &job{a: a, cfg: cfg, work: work, logw: cfg.Log, res: &Result{}}
	if j.logw == nil {
		j.logw = io.Discard
	}
	github := map[string]any{}
	for k, v := range cfg.GitHub {
		github[k] = v
	}
	github["action_path"] = cfg.ActionDir
	github["workspace"] = cfg.Workspace
	j.jobEnv = envMap(cfg.Env)
	for k, v := range map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_TEMP": cfg.RunnerTemp,
		"GITHUB_WORKSPACE": cfg.Workspace, "GITHUB_ACTION_PATH": cfg.ActionDir,
		"GITHUB_EVENT_NAME": ToString(github["event_name"]), "GITHUB_REPOSITORY": ToString(github["repository"]),
		"GITHUB_ACTOR": ToString(github["actor"]), "GITHUB_SHA": ToString(github["sha"]),
		"RUNNER_OS": RunnerOS(runtime.GOOS), "RUNNER_ARCH": RunnerArch(runtime.GOARCH),
	} {
		j.jobEnv[k] = v
	}
	j.envCtx = map[string]any{}
	j.steps = map[string]any{}
	j.ctx = &Context{Values: map[string]any{
		"github": github,
		"steps":  j.steps,
		"env":    j.envCtx,
		"runner": map[string]any{"temp": cfg.RunnerTemp, "os": RunnerOS(runtime.GOOS), "arch": RunnerArch(runtime.GOARCH)},
	}}
	return j
}

// resolveInputs sets the inputs context: the given inputs, else their
// defaults (which may read github). An input the action does not
// declare, or a required one not given, is an error.
func (j *job) resolveInputs() error {
	a, cfg := j.a, j.cfg
	inputs := map[string]any{}
	for name := range cfg.Inputs {
		if _, ok := a.Inputs[name]; !ok {
			return fmt.Errorf("unexpected input %q (the action's inputs are %s)", name, strings.Join(a.InputOrder, ", "))
		}
	}
	for name, in := range a.Inputs {
		if v, ok := cfg.Inputs[name]; ok {
			inputs[name] = v
			continue
		}
		if in.Required && in.Default == "" {
			return fmt.Errorf("input %q is required", name)
		}
		v, err := Interpolate(in.Default, j.ctx)
		if err != nil {
			return fmt.Errorf("default of input %q: %w", name, err)
		}
		inputs[name] = v
	}
	j.ctx.Values["inputs"] = inputs
	return nil
}

// runStep runs step i unless its if: is false, concludes it (a failure
// continue-on-error allows concludes success; any other failure fails
// the job) and, when it has an id, adds it to the steps context.
func (j *job) runStep(i int, s *Step) error {
	sr := &StepResult{Step: s, Outputs: map[string]string{}}
	j.res.Steps = append(j.res.Steps, sr)
	run, err := EvalIf(s.If, j.ctx)
	if err != nil {
		return fmt.Errorf("step %q: if: %w", s.Label(), err)
	}
	if !run {
		sr.Outcome, sr.Conclusion = "skipped", "skipped"
		fmt.Fprintf(j.logw, "::: %s (skipped)\n", s.Label())
	} else {
		fmt.Fprintf(j.logw, "::: %s\n", s.Label())
		env := map[string]string{}
		for k, v := range s.Env {
			if env[k], err = Interpolate(v, j.ctx); err != nil {
				return fmt.Errorf("step %q: env %s: %w", s.Label(), k, err)
			}
		}
		switch {
		case s.Uses != "":
			if err := j.runUses(s, sr); err != nil {
				return err
			}
		case s.Run != "":
			if err := j.runScript(i, s, sr, env); err != nil {
				return err
			}
		default:
			return fmt.Errorf("step %q has neither run nor uses", s.Label())
		}
		sr.Conclusion = sr.Outcome
		if sr.Outcome == "failure" && s.ContinueOnError {
			sr.Conclusion = "success"
		}
		if sr.Conclusion == "failure" {
			j.ctx.Failed, j.res.Failed = true, true
		}
	}
	if s.ID != "" {
		outs := map[string]any{}
		for k, v := range sr.Outputs {
			outs[k] = v
		}
		j.steps[s.ID] = map[string]any{"outputs": outs, "outcome": sr.Outcome, "conclusion": sr.Conclusion}
	}
	return nil
}

// runUses runs a uses: step through Config.Uses with its evaluated
// with: values; without a stand-in, or when it errs, the step fails.
func (j *job) runUses(s *Step, sr *StepResult) error {
	with := map[string]string{}
	for k, v := range s.With {
		var err error
		if with[k], err = Interpolate(v, j.ctx); err != nil {
			return fmt.Errorf("step %q: with %s: %w", s.Label(), k, err)
		}
	}
	var out map[string]string
	uerr := errors.New("no stand-in for uses: " + s.Uses)
	if j.cfg.Uses != nil {
		out, uerr = j.cfg.Uses(s, with)
	}
	sr.Outcome = "success"
	if uerr != nil {
		sr.Outcome, sr.Output = "failure", uerr.Error()
		fmt.Fprintf(j.logw, "%s\n", uerr)
	}
	for k, v := range out {
		sr.Outputs[k] = v
	}
	return nil
}

// runScript runs a run: step's script with bash, as the runner does, in
// its working directory and with the job's environment, the step's env
// and its command files; then reads back what the script wrote to them.
func (j *job) runScript(i int, s *Step, sr *StepResult, env map[string]string) error {
	dir := j.cfg.Workspace
	if s.WorkingDirectory != "" {
		wd, err := Interpolate(s.WorkingDirectory, j.ctx)
		if err != nil {
			return fmt.Errorf("step %q: working-directory: %w", s.Label(), err)
		}
		if !filepath.IsAbs(wd) {
			wd = filepath.Join(j.cfg.Workspace, wd)
		}
		dir = wd
	}
	files, err := stepFiles(j.work, i)
	if err != nil {
		return err
	}
	full := map[string]string{}
	for k, v := range j.jobEnv {
		full[k] = v
	}
	for k, v := range env {
		full[k] = v
	}
	for k, v := range files {
		full[k] = v
	}
	if len(j.pathAdds) > 0 {
		full["PATH"] = strings.Join(append(append([]string(nil), j.pathAdds...), full["PATH"]), string(os.PathListSeparator))
	}
	script := filepath.Join(j.work, fmt.Sprintf("step-%d.sh", i))
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		return err
	}
	if s.Shell != "bash" {
		return fmt.Errorf("step %q: shell %q: only bash runs here", s.Label(), s.Shell)
	}
	// What the runner runs for shell: bash.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = envList(full)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, j.logw)
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	sr.Output = out.String()
	sr.Outcome = "success"
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("step %q: %w", s.Label(), err)
		}
		sr.Outcome, sr.ExitCode = "failure", ee.ExitCode()
	}
	return j.readStepFiles(s, sr, files)
}

// readStepFiles takes in what a run: step wrote to its command files
// (outputs, env, path and summary) and the workflow commands it printed.
func (j *job) readStepFiles(s *Step, sr *StepResult, files map[string]string) error {
	var err error
	if sr.Outputs, err = readKeyValues(files["GITHUB_OUTPUT"]); err != nil {
		return fmt.Errorf("step %q: GITHUB_OUTPUT: %w", s.Label(), err)
	}
	added, err := readKeyValues(files["GITHUB_ENV"])
	if err != nil {
		return fmt.Errorf("step %q: GITHUB_ENV: %w", s.Label(), err)
	}
	for k, v := range added {
		j.jobEnv[k], j.envCtx[k] = v, v
	}
	if p, err := os.ReadFile(files["GITHUB_PATH"]); err == nil {
		for _, l := range strings.Split(string(p), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				j.pathAdds = append([]string{l}, j.pathAdds...)
			}
		}
	}
	if b, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"]); err == nil {
		j.res.Summary += string(b)
	}
	j.res.Annotations = append(j.res.Annotations, parseCommands(s.Label(), sr.Output)...)
	return nil
}

// RunnerOS is runner.os for a GOOS: Linux, macOS or Windows (the GOOS
// itself for any other).
func RunnerOS(goos string) string {
	switch goos {
	case "linux":
		return "Linux"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return goos
}

// RunnerArch is runner.arch for a GOARCH: X64, ARM64, X86 or ARM (the
// GOARCH itself for any other).
func RunnerArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "X64"
	case "arm64":
		return "ARM64"
	case "386":
		return "X86"
	case "arm":
		return "ARM"
	}
	return goarch
}

// stepFiles creates the empty command files of one step.
func stepFiles(dir string, i int) (map[string]string, error) {
	files := map[string]string{}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"} {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d", strings.ToLower(name), i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return nil, err
		}
		files[name] = p
	}
	return files, nil
}

// readKeyValues reads a GITHUB_OUTPUT or GITHUB_ENV file: "name=value"
// lines and "name<<DELIMITER" blocks. A name set twice keeps the last
// value, as on GitHub.
func readKeyValues(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		eq := strings.Index(l, "=")
		heredoc := strings.Index(l, "<<")
		switch {
		case heredoc > 0 && (eq < 0 || heredoc < eq):
			name, delim := l[:heredoc], l[heredoc+2:]
			var val []string
			closed := false
			for i++; i < len(lines); i++ {
				if lines[i] == delim {
					closed = true
					break
				}
				val = append(val, lines[i])
			}
			if !closed {
				return nil, fmt.Errorf("%s: no closing %s", name, delim)
			}
			out[name] = strings.Join(val, "\n")
		case eq > 0:
			out[l[:eq]] = l[eq+1:]
		default:
			return nil, fmt.Errorf("malformed line %q", l)
		}
	}
	return out, nil
}

// parseCommands finds the annotation workflow commands in a step's output.
func parseCommands(step, output string) []Annotation {
	var out []Annotation
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSuffix(l, "\r")
		rest, ok := strings.CutPrefix(l, "::")
		if !ok {
			continue
		}
		head, msg, ok := strings.Cut(rest, "::")
		if !ok {
			continue
		}
		cmd, props, _ := strings.Cut(head, " ")
		switch cmd {
		case "error", "warning", "notice":
		default:
			continue
		}
		a := Annotation{Step: step, Level: cmd, Props: map[string]string{}, Message: unescapeData(msg)}
		if props != "" {
			for _, kv := range strings.Split(props, ",") {
				k, v, _ := strings.Cut(kv, "=")
				a.Props[strings.TrimSpace(k)] = unescapeProperty(v)
			}
		}
		out = append(out, a)
	}
	return out
}

var (
	dataUnescaper     = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	propertyUnescaper = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
)

func unescapeData(s string) string     { return dataUnescaper.Replace(s) }
func unescapeProperty(s string) string { return propertyUnescaper.Replace(s) }

func envMap(env []string) map[string]string {
	if env == nil {
		env = os.Environ()
	}
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
