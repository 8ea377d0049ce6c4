package actionrun

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const testAction = `
name: t
description: t
inputs:
  who:
    description: who
    default: ${{ github.actor }}
  fail:
    description: fail the middle step
    default: "false"
outputs:
  greeting:
    description: greeting
    value: ${{ steps.hello.outputs.greeting }}
  multi:
    description: multi
    value: ${{ steps.hello.outputs.multi }}
runs:
  using: composite
  steps:
    - id: hello
      shell: bash
      working-directory: sub
      env:
        WHO: ${{ inputs.who }}
      run: |
        echo "greeting=hello $WHO from $(basename "$PWD")" >> "$GITHUB_OUTPUT"
        { echo "multi<<EOF"; echo a; echo b; echo EOF; } >> "$GITHUB_OUTPUT"
        echo "FROM_ENV=set" >> "$GITHUB_ENV"
        mkdir -p "$RUNNER_TEMP/tools" && printf '#!/bin/sh\necho tool ran\n' > "$RUNNER_TEMP/tools/mytool" && chmod +x "$RUNNER_TEMP/tools/mytool"
        echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
        echo "## summary" >> "$GITHUB_STEP_SUMMARY"
        echo "::warning file=a.go,line=1::careful"
    - id: use
      uses: example/thing@0123456789abcdef0123456789abcdef01234567 # v1.0.0
      continue-on-error: true
      with:
        greeting: ${{ steps.hello.outputs.greeting }}
    - id: middle
      shell: bash
      env:
        FAIL: ${{ inputs.fail }}
      run: |
        test "$FROM_ENV" = set
        mytool
        if [ "$FAIL" = true ]; then exit 7; fi
    - id: after
      shell: bash
      run: echo "after=ran" >> "$GITHUB_OUTPUT"
    - id: always
      if: always() && steps.use.outcome == 'failure'
      shell: bash
      run: echo "::notice::use failed"
`

func runTestAction(t *testing.T, inputs map[string]string) (*Result, []map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	a, err := Parse("test.yml", []byte(testAction))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var withs []map[string]string
	res, err := Run(a, Config{
		ActionDir: dir, Workspace: ws, RunnerTemp: filepath.Join(dir, "tmp"), Inputs: inputs,
		GitHub: map[string]any{"actor": "octocat"},
		Uses: func(s *Step, with map[string]string) (map[string]string, error) {
			withs = append(withs, with)
			return nil, errors.New("stand-in fails")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, withs
}

func TestRun(t *testing.T) {
	t.Parallel()
	res, withs := runTestAction(t, nil)
	if res.Failed {
		t.Errorf("the job failed: %+v", res.Steps)
	}
	if res.Outputs["greeting"] != "hello octocat from sub" || res.Outputs["multi"] != "a\nb" {
		t.Errorf("outputs %q", res.Outputs)
	}
	if len(withs) != 1 || withs[0]["greeting"] != "hello octocat from sub" {
		t.Errorf("uses got %v", withs)
	}
	if u := res.Step("use"); u.Outcome != "failure" || u.Conclusion != "success" {
		t.Errorf("continue-on-error step: %s/%s", u.Outcome, u.Conclusion)
	}
	if m := res.Step("middle"); m.Outcome != "success" || !strings.Contains(m.Output, "tool ran") {
		t.Errorf("GITHUB_ENV and GITHUB_PATH reach later steps: %s %q", m.Outcome, m.Output)
	}
	if res.Summary != "## summary\n" {
		t.Errorf("summary %q", res.Summary)
	}
	if w := res.Annotated("warning"); len(w) != 1 || w[0].Props["file"] != "a.go" || w[0].Message != "careful" {
		t.Errorf("warnings %+v", w)
	}
	if n := res.Annotated("notice"); len(n) != 1 || n[0].Step != "always" {
		t.Errorf("notices %+v", n)
	}
}

func TestRunStopsAfterAFailure(t *testing.T) {
	t.Parallel()
	res, _ := runTestAction(t, map[string]string{"fail": "true", "who": "me"})
	if !res.Failed || res.Outputs["greeting"] != "hello me from sub" {
		t.Errorf("failed %v, outputs %v", res.Failed, res.Outputs)
	}
	if m := res.Step("middle"); m.Outcome != "failure" || m.ExitCode != 7 {
		t.Errorf("middle: %s %d", m.Outcome, m.ExitCode)
	}
	if a := res.Step("after"); a.Outcome != "skipped" {
		t.Errorf("a step after a failure ran: %s", a.Outcome)
	}
	if a := res.Step("always"); a.Outcome != "success" {
		t.Errorf("always() step: %s", a.Outcome)
	}
}

func TestRunRejectsUnknownInputs(t *testing.T) {
	t.Parallel()
	a, err := Parse("test.yml", []byte(testAction))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(a, Config{RunnerTemp: t.TempDir(), Inputs: map[string]string{"whom": "x"}})
	if err == nil || !strings.Contains(err.Error(), `unexpected input "whom"`) {
		t.Errorf("error = %v", err)
	}
}

func TestRunnerNames(t *testing.T) {
	t.Parallel()
	for _, c := range [][3]string{
		{"linux", "amd64", "Linux/X64"}, {"darwin", "arm64", "macOS/ARM64"}, {"windows", "amd64", "Windows/X64"},
		{"linux", "386", "Linux/X86"}, {"linux", "arm", "Linux/ARM"}, {"freebsd", "riscv64", "freebsd/riscv64"},
	} {
		if got := RunnerOS(c[0]) + "/" + RunnerArch(c[1]); got != c[2] {
			t.Errorf("%s/%s: runner %s, want %s", c[0], c[1], got, c[2])
		}
	}
}
