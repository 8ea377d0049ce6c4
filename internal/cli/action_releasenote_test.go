package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionReleaseNote: on pull request events the check step passes
// the pull request's description from the event payload to
// --release-note (a file in the report directory); other events, the
// input none, or --release-note in args pass none of it; another value
// of the input is a file to pass.
func TestActionReleaseNote(t *testing.T) {
	t.Parallel()
	bash := lookBash(t)
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	checkStep, _ := actionSteps(t, loadAction(t))
	body := "**Release note**:\r\n```breaking user\r\n`spec.x` was removed.\r\n```\r\n"
	event := func(t *testing.T, dir string, pr any) string {
		p := filepath.Join(dir, "event.json")
		b, err := json.Marshal(map[string]any{"pull_request": pr})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		env  []string
		pr   any
		want string // the note file's content, "-" for no --release-note
	}{
		{"pull request", []string{"RELEASE_NOTE=auto"}, map[string]any{"body": body}, body + "\n"},
		{"pull_request_target", []string{"RELEASE_NOTE=auto", "EVENT_NAME=pull_request_target"}, map[string]any{"body": body}, body + "\n"},
		{"no description", []string{"RELEASE_NOTE=auto"}, map[string]any{"body": nil}, "\n"},
		{"push", []string{"RELEASE_NOTE=auto", "EVENT_NAME=push"}, map[string]any{"body": body}, "-"},
		{"none", []string{"RELEASE_NOTE=none"}, map[string]any{"body": body}, "-"},
		{"args win", []string{"RELEASE_NOTE=auto", "ARGS=--release-note=notes.md"}, map[string]any{"body": body}, "-"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newActionEnv(t, writeReports+"\nexit 0")
			path := event(t, env.runnerTemp, c.pr)
			env.run(t, bash, checkStep, append([]string{"GITHUB_EVENT_PATH=" + path}, c.env...)...)
			args := readArgs(t, env)
			i := indexOf(args, "--release-note")
			if c.want == "-" {
				if i >= 0 {
					t.Errorf("--release-note passed: %q", args)
				}
				return
			}
			if i < 0 || i+1 >= len(args) {
				t.Fatalf("no --release-note: %q", args)
			}
			p := args[i+1]
			if !strings.HasPrefix(p, env.runnerTemp+string(filepath.Separator)) {
				t.Errorf("the note %s is not under RUNNER_TEMP", p)
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != c.want {
				t.Errorf("note = %q, %v; want %q", got, err, c.want)
			}
		})
	}

	t.Run("file", func(t *testing.T) {
		t.Parallel()
		env := newActionEnv(t, writeReports+"\nexit 0")
		env.run(t, bash, checkStep, "RELEASE_NOTE=hack/release-note.md")
		args := readArgs(t, env)
		if i := indexOf(args, "--release-note"); i < 0 || i+1 >= len(args) || args[i+1] != "hack/release-note.md" {
			t.Errorf("args %q: want --release-note hack/release-note.md", args)
		}
	})
}

func readArgs(t *testing.T, env *actionEnv) []string {
	t.Helper()
	b, err := os.ReadFile(env.argsFile)
	if err != nil {
		t.Fatalf("apicheck did not run: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
