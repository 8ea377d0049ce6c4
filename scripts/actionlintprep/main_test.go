package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const doc = "# CI\n" + // 1
	"\n" + // 2
	"```yaml\n" + // 3
	"# a config, not a workflow\n" + // 4
	"groups: []\n" + // 5
	"```\n" + // 6
	"\n" + // 7
	"```yaml\n" + // 8
	"on: pull_request\n" + // 9
	"jobs:\n" + // 10
	"  a:\n" + // 11
	"    runs-on: ubuntu-latest\n" + // 12
	"    steps:\n" + // 13
	"      - id: apicheck\n" + // 14
	"        uses: apicheck/apicheck@main   # any ref\n" + // 15
	"```\n" + // 16
	"Later steps:\n" + // 17
	"```yaml\n" + // 18
	"      - run: echo ${{ steps.apicheck.outputs.markdown }}\n" + // 19
	"```\n" // 20

// lineOf returns the 1-based line of the first line of text that contains s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not in\n%s", s, text)
	return 0
}

func TestWorkflows(t *testing.T) {
	wfs := workflows([]byte(doc))
	if len(wfs) != 1 {
		t.Fatalf("got %d workflows, want 1 (the config block is none, the steps block continues the workflow)", len(wfs))
	}
	wf := string(wfs[0].text)
	if wfs[0].line != 9 {
		t.Errorf("line = %d, want 9", wfs[0].line)
	}
	// Every line is where it is in the Markdown file.
	for s, want := range map[string]int{"on: pull_request": 9, "- id: apicheck": 14, "uses: ./": 15, "- run: echo": 19} {
		if got := lineOf(t, wf, s); got != want {
			t.Errorf("%q on line %d, want %d", s, got, want)
		}
	}
	if strings.Contains(wf, "apicheck/apicheck@") {
		t.Errorf("uses of this action not rewritten to ./:\n%s", wf)
	}
	var parsed struct {
		Jobs map[string]struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(wfs[0].text, &parsed); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, wf)
	}
	if steps := parsed.Jobs["a"].Steps; len(steps) != 2 || steps[1]["run"] == nil {
		t.Errorf("steps = %v, want the workflow's step and the later one", steps)
	}

	// Steps without a workflow before them get a stand-in job.
	alone := "text\n\n\n\n\n\n```yaml\n      - uses: apicheck/apicheck@v1\n        with:\n          fail-on: error\n```\n"
	wfs = workflows([]byte(alone))
	if len(wfs) != 1 {
		t.Fatalf("steps alone: got %d workflows, want 1", len(wfs))
	}
	if got := lineOf(t, string(wfs[0].text), "- uses: ./"); got != 8 {
		t.Errorf("steps alone: step on line %d, want 8:\n%s", got, wfs[0].text)
	}
	var stub struct {
		Jobs map[string]struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(wfs[0].text, &stub); err != nil || len(stub.Jobs["steps"].Steps) != 1 {
		t.Errorf("steps alone: %v %v\n%s", err, stub, wfs[0].text)
	}
}

func TestStepsWorkflowKeepsLines(t *testing.T) {
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	wf, err := stepsWorkflow("action.yml", action)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		On struct {
			WorkflowCall struct {
				Inputs map[string]any `yaml:"inputs"`
			} `yaml:"workflow_call"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				ID   string `yaml:"id"`
				Name string `yaml:"name"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(wf, &parsed); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	var meta struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Steps []struct {
				ID   string `yaml:"id"`
				Name string `yaml:"name"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(action, &meta); err != nil {
		t.Fatal(err)
	}
	if len(parsed.On.WorkflowCall.Inputs) != len(meta.Inputs) || len(meta.Inputs) == 0 {
		t.Errorf("workflow inputs %v, action inputs %v", parsed.On.WorkflowCall.Inputs, meta.Inputs)
	}
	steps := parsed.Jobs["action"].Steps
	if len(steps) != len(meta.Runs.Steps) {
		t.Fatalf("%d steps, action.yml has %d", len(steps), len(meta.Runs.Steps))
	}
	// Each step's name is on the line it has in action.yml.
	wl, al := strings.Split(string(wf), "\n"), strings.Split(string(action), "\n")
	for _, s := range meta.Runs.Steps {
		line := lineOf(t, string(action), "- name: "+s.Name)
		if strings.TrimSpace(wl[line-1]) != strings.TrimSpace(al[line-1]) {
			t.Errorf("line %d: %q, action.yml has %q", line, wl[line-1], al[line-1])
		}
	}

	if _, err := stepsWorkflow("x.yml", []byte("runs:\n  using: node20\n  main: index.js\n")); err == nil {
		t.Error("a node action: no error")
	}
}

func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "docs", "ci.md")
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	files, err := prepare(out, "../../action.yml", []string{md})
	if err != nil {
		t.Fatal(err)
	}
	want := ".github/workflows/" + strings.ReplaceAll(filepath.ToSlash(md), "/", "__") + "-L9.yml"
	if len(files) != 2 || files[0] != want || files[1] != ".github/workflows/action.yml" {
		t.Errorf("files = %q, want [%s .github/workflows/action.yml]", files, want)
	}
	for _, f := range append(files, "action.yml", ".git") {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}

	// A documentation without workflows is an error, not a silent pass.
	empty := filepath.Join(dir, "empty.md")
	if err := os.WriteFile(empty, []byte("```yaml\ngroups: []\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prepare(filepath.Join(dir, "out2"), "../../action.yml", []string{empty}); err == nil || !strings.Contains(err.Error(), "no workflow") {
		t.Errorf("no workflows: err = %v", err)
	}
}
