package actionrun

import (
	"strings"
	"testing"
)

// TestRepositoryActionLints checks the repository's action.yml.
func TestRepositoryActionLints(t *testing.T) {
	t.Parallel()
	a, err := Load("../../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Lint(a) {
		t.Error(p)
	}
}

// Every check of Lint fires on an action that breaks it.
func TestLintFindsProblems(t *testing.T) {
	t.Parallel()
	const bad = `
name: bad
description: bad
inputs:
  used:
    description: used
  nodesc:
    default: x
outputs:
  out:
    description: out
    value: ${{ steps.later.outputs.x }}
  missing:
    description: missing
    value: ${{ steps.first.outputs.never }}
  plain:
    description: plain
    value: constant
runs:
  using: composite
  steps:
    - id: first
      shell: bash
      env:
        X: ${{ inputs.used }}
      run: echo "x=1" >> "$GITHUB_OUTPUT"
    - name: injection
      run: echo "${{ inputs.used }}"
    - name: unpinned
      uses: actions/setup-go@v6
    - name: no comment
      uses: actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16
    - name: bad refs
      if: steps.later.outputs.x == 'y' && inputs.nope
      shell: bash
      run: "true"
    - id: later
      shell: bash
      run: echo "x=2" >> "$GITHUB_OUTPUT"
    - id: later
      name: both
      shell: bash
      uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
      run: "true"
    - name: shell on uses
      shell: bash
      uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
    - name: syntax
      if: inputs.used == (
      shell: bash
      run: "true"
`
	a, err := Parse("bad.yml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Lint(a), "\n")
	for _, want := range []string{
		"input nodesc has no description",
		`step "injection": a run step of a composite action needs shell`,
		`step "injection": the run script holds a ${{ }} expression`,
		`step "unpinned": uses "actions/setup-go@v6" is not pinned to a full commit SHA`,
		`step "no comment": uses "actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16" has no version comment`,
		`step "bad refs" if: steps.later is not a step before this one`,
		`step "bad refs" if: inputs.nope is not an input of the action`,
		`step "both": id "later" is used twice`,
		`step "both": has both run and uses`,
		`step "shell on uses": shell and working-directory are for run steps`,
		`step "syntax" if: expression`,
		`output missing: steps.first.outputs.never: step "first" never writes never to GITHUB_OUTPUT`,
		`output plain: value "constant" reads no step output`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Lint lacks %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "output out:") {
		t.Errorf("output out reads an existing step:\n%s", got)
	}
	if _, err := Parse("typo.yml", []byte("name: x\ndescription: x\nruns:\n  using: composite\n  steps:\n    - name: a\n      shel: bash\n      run: 'true'\n")); err == nil || !strings.Contains(err.Error(), "shel") {
		t.Errorf("a misspelt key: error = %v", err)
	}
}
