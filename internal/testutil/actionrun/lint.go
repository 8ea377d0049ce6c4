package actionrun

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Lint checks an action for what GitHub would only reject when the
// action runs, and for unsafe patterns:
//
//   - runs.using is composite; every input and output has a description;
//   - step ids are unique and well-formed; a step has run: or uses:, not both;
//   - every run: step says its shell, and no run: script holds a ${{ }}
//     expression (an input or event field interpolated into a script is
//     a script injection: pass it through env: instead);
//   - every uses: is pinned to a full 40-hex commit SHA with the version
//     in a comment ("# v6.5.0"); no local or docker actions;
//   - every expression parses; inputs.X names an input; steps.X names a
//     step with that id before the expression's step (any step for the
//     action's outputs); steps.X.outputs.Y of a run: step is written by
//     its script.
//
// The messages name the step or field.
func Lint(a *Action) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if a.Runs.Using != "composite" {
		add("runs.using is %q, want composite", a.Runs.Using)
	}
	for _, name := range a.InputOrder {
		if strings.TrimSpace(a.Inputs[name].Description) == "" {
			add("input %s has no description", name)
		}
	}
	for _, name := range a.OutputOrder {
		if strings.TrimSpace(a.Outputs[name].Description) == "" {
			add("output %s has no description", name)
		}
	}

	ids := map[string]*Step{}
	var earlier []string // ids of the steps before the current one
	checkExpr := func(where, text string, isIf bool, visible []string) {
		for _, e := range expressions(text, isIf) {
			if _, err := Eval(e, lintContext()); err != nil {
				add("%s: %v", where, err)
			}
			for _, m := range inputRefRE.FindAllStringSubmatch(e, -1) {
				if _, ok := a.Inputs[m[1]]; !ok {
					add("%s: inputs.%s is not an input of the action", where, m[1])
				}
			}
			for _, m := range stepRefRE.FindAllStringSubmatch(e, -1) {
				id, output := m[1], m[3]
				s, ok := ids[id]
				if !ok || !slices.Contains(visible, id) {
					add("%s: steps.%s is not a step before this one", where, id)
					continue
				}
				if output != "" && s.Run != "" && !writesOutput(s.Run, output) {
					add("%s: steps.%s.outputs.%s: step %q never writes %s to GITHUB_OUTPUT", where, id, output, s.Label(), output)
				}
			}
		}
	}
	for name, in := range a.Inputs {
		checkExpr("input "+name+" default", in.Default, false, nil)
	}
	for _, s := range a.Runs.Steps {
		where := fmt.Sprintf("step %q", s.Label())
		if s.ID != "" {
			if !stepIDRE.MatchString(s.ID) {
				add("%s: id %q is not a valid step id", where, s.ID)
			}
			if _, dup := ids[s.ID]; dup {
				add("%s: id %q is used twice", where, s.ID)
			}
		}
		switch {
		case s.Run != "" && s.Uses != "":
			add("%s: has both run and uses", where)
		case s.Run == "" && s.Uses == "":
			add("%s: has neither run nor uses", where)
		case s.Run != "":
			if s.Shell == "" {
				add("%s: a run step of a composite action needs shell", where)
			}
			if strings.Contains(s.Run, "${{") {
				add("%s: the run script holds a ${{ }} expression; pass the value through env: (script injection)", where)
			}
		case s.Uses != "":
			if !pinnedRE.MatchString(s.Uses) {
				add("%s: uses %q is not pinned to a full commit SHA (owner/repo@<40 hex>)", where, s.Uses)
			}
			if !versionCommentRE.MatchString(s.UsesComment) {
				add("%s: uses %q has no version comment such as \"# v6.5.0\" (got %q)", where, s.Uses, s.UsesComment)
			}
			if s.Shell != "" || s.WorkingDirectory != "" {
				add("%s: shell and working-directory are for run steps, not uses steps", where)
			}
		}
		checkExpr(where+" if", s.If, true, earlier)
		checkExpr(where+" working-directory", s.WorkingDirectory, false, earlier)
		for k, v := range s.Env {
			checkExpr(where+" env "+k, v, false, earlier)
		}
		for k, v := range s.With {
			checkExpr(where+" with "+k, v, false, earlier)
		}
		if _, dup := ids[s.ID]; s.ID != "" && !dup {
			ids[s.ID] = s
			earlier = append(earlier, s.ID)
		}
	}
	for _, name := range a.OutputOrder {
		o := a.Outputs[name]
		if !strings.Contains(o.Value, "${{") {
			add("output %s: value %q reads no step output", name, o.Value)
		}
		checkExpr("output "+name, o.Value, false, earlier)
	}
	return problems
}

var (
	inputRefRE = regexp.MustCompile(`\binputs\.([A-Za-z_][A-Za-z0-9_-]*)`)
	stepRefRE  = regexp.MustCompile(`\bsteps\.([A-Za-z_][A-Za-z0-9_-]*)(\.outputs\.([A-Za-z_][A-Za-z0-9_-]*))?`)
	stepIDRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	// pinnedRE is owner/repo[/path]@<full commit SHA>.
	pinnedRE         = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}$`)
	versionCommentRE = regexp.MustCompile(`^#\s*v\d+(\.\d+){0,2}(\s|$)`)
)

// expressions returns the ${{ }} expressions in a value; an if: value
// without ${{ }} is one expression.
func expressions(text string, isIf bool) []string {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil
	}
	if isIf && !strings.Contains(t, "${{") {
		return []string{t}
	}
	var out []string
	for {
		i := strings.Index(t, "${{")
		if i < 0 {
			return out
		}
		j := strings.Index(t[i:], "}}")
		if j < 0 {
			return append(out, t[i+3:])
		}
		out = append(out, t[i+3:i+j])
		t = t[i+j+2:]
	}
}

// lintContext has every context a composite action may read, empty.
func lintContext() *Context {
	v := map[string]any{}
	for _, c := range []string{"github", "inputs", "steps", "env", "runner", "job", "strategy", "matrix"} {
		v[c] = map[string]any{}
	}
	return &Context{Values: v}
}

// writesOutput reports whether a script writes name to GITHUB_OUTPUT:
// a line with "name=" or "name<<" next to GITHUB_OUTPUT.
func writesOutput(script, name string) bool {
	for _, l := range strings.Split(script, "\n") {
		if strings.Contains(l, "GITHUB_OUTPUT") && (strings.Contains(l, name+"=") || strings.Contains(l, name+"<<")) {
			return true
		}
	}
	return false
}
