package actionrun

import (
	"os"
	"strings"
	"testing"
)

func testContext(failed bool) *Context {
	return &Context{Failed: failed, Values: map[string]any{
		"inputs": map[string]any{"go-version": "", "upload-sarif": "true", "n": "3"},
		"github": map[string]any{
			"action_path": "/a", "repository": "o/r", "actor": "dependabot[bot]",
			"event":  map[string]any{"pull_request": map[string]any{"head": map[string]any{"repo": map[string]any{"full_name": "fork/r"}}}},
			"labels": []any{"api", "docs"},
		},
		"steps": map[string]any{"check": map[string]any{"outputs": map[string]any{"exit-code": "1"}, "outcome": "success"}},
		"env":   map[string]any{},
	}}
}

func TestEval(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		`inputs.go-version == '' && format('{0}/go.mod', github.action_path) || ''`: "/a/go.mod",
		`inputs.upload-sarif == 'true'`:                                             "true",
		`inputs.upload-sarif == 'TRUE'`:                                             "true", // strings compare ignoring case
		`steps.check.outputs.exit-code != '0'`:                                      "true",
		`steps.check.outputs.exit-code == 1`:                                        "true",  // a string and a number compare as numbers
		`steps.missing.outputs.exit-code != '0'`:                                    "false", // null is 0
		`github.event.pull_request.head.repo.full_name != github.repository`:        "true",
		`github.event.pull_request.base.sha`:                                        "",
		`github.event['pull_request'].head.repo['full_name']`:                       "fork/r",
		`github.actor == 'dependabot[bot]'`:                                         "true",
		`!(inputs.n > 2)`:                                                           "false",
		`inputs.n >= 3 && inputs.n < 4`:                                             "true",
		`contains(github.labels, 'API')`:                                            "true",
		`contains('hello', 'ELL')`:                                                  "true",
		`startsWith(github.repository, 'o/')`:                                       "true",
		`endsWith(github.repository, '/x')`:                                         "false",
		`format('{{{0}}} it''s {1}', 'a', 2)`:                                       "{a} it's 2",
		`null || 'x'`:                                                               "x",
		`'' && 'x'`:                                                                 "",
		`0x10 == 16`:                                                                "true",
		`github.labels[1]`:                                                          "docs",
	} {
		v, err := Eval(expr, testContext(false))
		if err != nil {
			t.Errorf("Eval(%s): %v", expr, err)
			continue
		}
		if got := ToString(v); got != want {
			t.Errorf("Eval(%s) = %q, want %q", expr, got, want)
		}
	}
	for _, bad := range []string{`nope.x`, `'unterminated`, `inputs.x ==`, `(true`, `format('{1}', 'a')`, `success(1)`, `a.b )`, `#`} {
		if _, err := Eval(bad, testContext(false)); err == nil {
			t.Errorf("Eval(%s) succeeded", bad)
		}
	}
}

func TestEvalIf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cond   string
		failed bool
		want   bool
	}{
		{"", false, true},
		{"", true, false},
		{"always()", true, true},
		{"failure()", true, true},
		{"${{ !cancelled() }}", true, true},
		{"steps.check.outcome == 'success'", true, false}, // implicit success()
		{"${{ steps.check.outcome == 'success' }}", false, true},
		{"inputs.upload-sarif == 'false'", false, false},
	} {
		got, err := EvalIf(c.cond, testContext(c.failed))
		if err != nil || got != c.want {
			t.Errorf("EvalIf(%q, failed=%v) = %v, %v; want %v", c.cond, c.failed, got, err, c.want)
		}
	}
}

func TestInterpolate(t *testing.T) {
	t.Parallel()
	got, err := Interpolate("${{ github.action_path }}/go.sum:${{ inputs.n }}${{ steps.check.outputs }}", testContext(false))
	if err != nil || !strings.HasPrefix(got, "/a/go.sum:3{") || !strings.Contains(got, `"exit-code": "1"`) {
		t.Errorf("Interpolate = %q, %v", got, err)
	}
	if _, err := Interpolate("${{ inputs.n", testContext(false)); err == nil {
		t.Error("unterminated ${{ accepted")
	}
}

func TestReadKeyValuesAndCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := dir + "/out"
	content := "a=1\nb=x=y\nmulti<<EOF\nline 1\nline 2\nEOF\na=2\n"
	if err := writeFile(p, content); err != nil {
		t.Fatal(err)
	}
	kv, err := readKeyValues(p)
	if err != nil || kv["a"] != "2" || kv["b"] != "x=y" || kv["multi"] != "line 1\nline 2" {
		t.Errorf("readKeyValues = %v, %v", kv, err)
	}
	if err := writeFile(p, "m<<EOF\nno end\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := readKeyValues(p); err == nil {
		t.Error("an unterminated block was accepted")
	}
	cmds := parseCommands("s", "plain\n::error file=a%2Cb.go,line=3,title=R%3A1::msg%0Ahint %25\n::debug::x\n::notice::n\n")
	if len(cmds) != 2 || cmds[0].Level != "error" || cmds[0].Props["file"] != "a,b.go" || cmds[0].Props["line"] != "3" ||
		cmds[0].Props["title"] != "R:1" || cmds[0].Message != "msg\nhint %" || cmds[1].Level != "notice" {
		t.Errorf("parseCommands = %+v", cmds)
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
