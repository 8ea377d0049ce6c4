// Command actionlintprep lays out a directory that actionlint
// (github.com/rhysd/actionlint) can lint, for `make action-lint`:
//
//   - every workflow in the Markdown files given (a ```yaml block with
//     top-level `on:` and `jobs:` keys) as .github/workflows/<file>-L<line>.yml,
//     padded with blank lines so that a line number actionlint reports is
//     the line in the Markdown file. A step that uses this repository's
//     action (`uses: apicheck/apicheck@REF`) is rewritten to `uses: ./`,
//     so actionlint checks its `with:` inputs against action.yml;
//   - action.yml itself, at the root, which actionlint reads for every
//     `uses: ./` (it does not lint action metadata given on its command
//     line, rhysd/actionlint#46, but it checks the metadata of a local
//     action a workflow uses: name, description, branding, runs, inputs);
//   - the action's composite steps as the job of a workflow,
//     .github/workflows/action.yml (its inputs become workflow_call
//     inputs), padded so that its line numbers are action.yml's: actionlint
//     then checks the steps' expressions, step IDs and outputs, and the
//     inputs of the actions they use.
//
// Usage: actionlintprep -out DIR -action action.yml FILE.md...
// It prints the workflow files it wrote, relative to DIR, one per line.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

func main() {
	out := flag.String("out", "", "directory to lay out (created; must not exist or be empty)")
	action := flag.String("action", "action.yml", "the action metadata file")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "actionlintprep: -out is required")
		os.Exit(2)
	}
	files, err := prepare(*out, *action, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "actionlintprep:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(f)
	}
}

// prepare writes the layout and returns the workflow files, relative to
// out, in a stable order.
func prepare(out, actionPath string, docs []string) ([]string, error) {
	wfDir := filepath.Join(out, ".github", "workflows")
	// actionlint finds the project (and so resolves `uses: ./`) by a .git
	// directory next to .github.
	for _, d := range []string{wfDir, filepath.Join(out, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	action, err := os.ReadFile(actionPath)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, "action.yml"), action, 0o644); err != nil {
		return nil, err
	}
	steps, err := stepsWorkflow(actionPath, action)
	if err != nil {
		return nil, err
	}
	written := map[string][]byte{"action.yml": steps}
	found := 0
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			return nil, err
		}
		for _, wf := range workflows(src) {
			// docs/ci.md → docs__ci.md-L28.yml (make action-lint maps the
			// names back to the Markdown file).
			name := fmt.Sprintf("%s-L%d.yml", strings.ReplaceAll(filepath.ToSlash(filepath.Clean(doc)), "/", "__"), wf.line)
			written[name] = wf.text
			found++
		}
	}
	if found == 0 {
		return nil, errors.New("no workflow (a ```yaml block with on: and jobs:) in " + strings.Join(docs, ", "))
	}
	var names []string
	for name, data := range written {
		if err := os.WriteFile(filepath.Join(wfDir, name), data, 0o644); err != nil {
			return nil, err
		}
		names = append(names, filepath.ToSlash(filepath.Join(".github", "workflows", name)))
	}
	sort.Strings(names)
	return names, nil
}

type workflow struct {
	line int    // line of the block's first YAML line in the Markdown file
	text []byte // the workflow, with line-preserving padding
}

var (
	fenceOpen  = regexp.MustCompile("^```ya?ml\\s*$")
	topLevelOn = regexp.MustCompile(`(?m)^(on|"on"|'on'):`)
	topLevel   = regexp.MustCompile(`(?m)^jobs:`)
	// A step using this repository's action, at any ref.
	usesThis = regexp.MustCompile(`(?m)^(\s*(?:-\s+)?uses:\s*)apicheck/apicheck@\S+`)
	// A block of steps: its first line that is neither blank nor a
	// comment is an indented list item of a step key.
	stepsBlock = regexp.MustCompile(`^(?:\s*(?:#.*)?\n)*\s+- (?:uses|name|id|run|if):`)
)

// workflows returns the workflows among the ```yaml blocks of a Markdown
// file. Blocks inside lists (indented fences) are never workflows. A block
// of steps (every line indented, the first one a list item) continues the
// workflow before it in the file, as the docs mean it ("later steps"), on
// its own lines; without a workflow before it, it becomes the steps of a
// stand-in pull-request job.
func workflows(md []byte) []workflow {
	lines := strings.Split(string(md), "\n")
	var out []workflow
	for i := 0; i < len(lines); i++ {
		if !fenceOpen.MatchString(lines[i]) {
			continue
		}
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		block := strings.Join(lines[start:end], "\n") + "\n"
		i = end
		block = usesThis.ReplaceAllString(block, "${1}./")
		switch {
		case topLevelOn.MatchString(block) && topLevel.MatchString(block):
			// Line start+1 (1-based) of the Markdown file is line 1 of
			// the block: pad with start blank lines.
			out = append(out, workflow{line: start + 1, text: []byte(strings.Repeat("\n", start) + block)})
		case stepsBlock.MatchString(block):
			if n := len(out); n > 0 {
				prev := &out[n-1]
				pad := start - bytes.Count(prev.text, []byte("\n"))
				prev.text = append(prev.text, []byte(strings.Repeat("\n", pad)+block)...)
				continue
			}
			const stub = "on: pull_request\njobs:\n  steps:\n    runs-on: ubuntu-latest\n    steps:\n"
			if pad := start - strings.Count(stub, "\n"); pad >= 0 {
				out = append(out, workflow{line: start + 1, text: []byte(stub + strings.Repeat("\n", pad) + block)})
			}
		}
	}
	return out
}

// stepsWorkflow turns a composite action into a workflow whose one job
// runs the action's steps, with the steps on the lines they have in
// action.yml.
func stepsWorkflow(path string, action []byte) ([]byte, error) {
	var meta struct {
		Inputs yaml.Node `yaml:"inputs"`
		Runs   struct {
			Using string    `yaml:"using"`
			Steps yaml.Node `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(action, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if meta.Runs.Using != "composite" || meta.Runs.Steps.Kind != yaml.SequenceNode || len(meta.Runs.Steps.Content) == 0 {
		return nil, fmt.Errorf("%s: not a composite action with steps", path)
	}
	var inputs []string
	if meta.Inputs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(meta.Inputs.Content); i += 2 {
			inputs = append(inputs, meta.Inputs.Content[i].Value)
		}
	}
	var head bytes.Buffer
	head.WriteString("# The steps of action.yml as a workflow job (scripts/actionlintprep); line numbers are action.yml's.\n")
	head.WriteString("name: action.yml steps\non:\n  workflow_call:\n")
	if len(inputs) > 0 {
		head.WriteString("    inputs:\n")
		for _, in := range inputs {
			fmt.Fprintf(&head, "      %s:\n        type: string\n        required: false\n", in)
		}
	}
	head.WriteString("jobs:\n  action:\n    runs-on: ubuntu-latest\n    steps:\n")

	// The steps keep their lines: everything before the first step's line
	// is the header and padding; each step line gets two more spaces of
	// indentation (steps sit under jobs.action.steps instead of
	// runs.steps; block scalars stay block scalars).
	lines := strings.Split(string(action), "\n")
	first := meta.Runs.Steps.Content[0].Line - 1 // 0-based line of the first "- " item
	if first <= 0 || first >= len(lines) {
		return nil, fmt.Errorf("%s: cannot find the steps", path)
	}
	headLines := strings.Count(head.String(), "\n")
	if headLines > first {
		return nil, fmt.Errorf("%s: the workflow header (%d lines) does not fit before the first step (line %d)", path, headLines, first+1)
	}
	var b bytes.Buffer
	b.Write(head.Bytes())
	b.WriteString(strings.Repeat("\n", first-headLines))
	for _, l := range lines[first:] {
		if strings.TrimSpace(l) != "" {
			l = "  " + l
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
