// Package actionrun runs the steps of a composite GitHub Action (an
// action.yml) on this machine the way a GitHub runner runs them: inputs
// with their defaults, ${{ }} expressions in if:, env:, with: and outputs,
// bash run: steps with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV and
// GITHUB_PATH files, continue-on-error, and the job failing on the first
// failed step. Steps that use other actions are handed to a callback
// that stands in for them. It also checks action.yml for the mistakes
// the runner would only find on GitHub (see Lint).
//
// apicheck's tests and scripts/action-test.sh use it to run the
// repository's action.yml offline against a fixture repository.
package actionrun

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Action is a parsed action.yml.
type Action struct {
	Name        string             `yaml:"name"`
	Description string             `yaml:"description"`
	Author      string             `yaml:"author"`
	Branding    map[string]string  `yaml:"branding"`
	Inputs      map[string]*Input  `yaml:"inputs"`
	Outputs     map[string]*Output `yaml:"outputs"`
	Runs        Runs               `yaml:"runs"`

	// Path is the file the action was read from.
	Path string `yaml:"-"`
	// Root is the document's node tree, with comments.
	Root *yaml.Node `yaml:"-"`
	// InputOrder and OutputOrder are the names in file order.
	InputOrder, OutputOrder []string `yaml:"-"`
}

// Input is one of the action's inputs.
type Input struct {
	Description        string `yaml:"description"`
	Required           bool   `yaml:"required"`
	Default            string `yaml:"default"`
	DeprecationMessage string `yaml:"deprecationMessage"`
}

// Output is one of the action's outputs.
type Output struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

// Runs is the runs: section of a composite action.
type Runs struct {
	Using string  `yaml:"using"`
	Steps []*Step `yaml:"steps"`
}

// Step is one step of a composite action.
type Step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	ContinueOnError  bool              `yaml:"continue-on-error"`

	// UsesComment is the comment on the uses: line ("# v6.5.0").
	UsesComment string `yaml:"-"`
	// Line is the step's line in the file.
	Line int `yaml:"-"`
}

// Label names a step in messages: its name, else its id, else its line.
func (s *Step) Label() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.ID != "":
		return s.ID
	}
	return fmt.Sprintf("step at line %d", s.Line)
}

// Load reads and decodes an action.yml strictly: unknown keys are errors.
func Load(path string) (*Action, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes an action.yml's content (path is for messages).
func Parse(path string, data []byte) (*Action, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var a Action
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.Path, a.Root = path, &root
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	a.InputOrder = keys(mapValue(doc, "inputs"))
	a.OutputOrder = keys(mapValue(doc, "outputs"))
	if steps := mapValue(mapValue(doc, "runs"), "steps"); steps != nil {
		for i, n := range steps.Content {
			if i >= len(a.Runs.Steps) {
				break
			}
			s := a.Runs.Steps[i]
			s.Line = n.Line
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == "uses" {
					s.UsesComment = n.Content[j+1].LineComment
					if s.UsesComment == "" {
						s.UsesComment = n.Content[j].LineComment
					}
				}
			}
		}
	}
	return &a, nil
}

// mapValue returns the value node of key in a mapping node (nil if none).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// keys returns the keys of a mapping node in order.
func keys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}
