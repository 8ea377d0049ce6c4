// Command actionrun runs a composite action's steps on this machine the
// way a GitHub runner runs them (see internal/testutil/actionrun), for a pull
// request event (or the -event given: a push carries -before, a merge
// queue -base-sha), and prints what happened as "key=value" lines that a
// script can check with grep; the job log goes to standard error.
// actions/setup-go is stood in for by the go command on PATH,
// actions/cache/restore by links to this machine's Go caches, and
// github/codeql-action/upload-sarif by a check that the SARIF file exists
// (or, with -token read-only, by the failure GitHub gives a read-only
// token). The action's release downloads read APICHECK_RELEASE_BASE_URL
// from the environment, which scripts/action-test.sh, its user, points
// at a directory of releases on this machine; its pull request comment
// runs APICHECK_GH, which the script points at a stand-in for gh.
//
// Usage:
//
//	actionrun -workspace DIR -base-sha SHA -head-sha SHA [-input k=v]... [-summary FILE] [flags]
//	actionrun -lint [-action action.yml]
//
// Output lines: job=success|failure; step.ID=outcome/conclusion for
// every step (ID, else name); output.NAME=value; annotations.LEVEL=N;
// notice=MESSAGE for every notice; error=MESSAGE for every error that is
// not a finding; summary.bytes=N; summary.heading=FIRST HEADING; uploads=N.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/testutil/actionrun"
)

type inputs map[string]string

func (i inputs) String() string { return fmt.Sprint(map[string]string(i)) }
func (i inputs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want NAME=VALUE")
	}
	i[k] = v
	return nil
}

func main() {
	in := inputs{}
	actionPath := flag.String("action", "action.yml", "the action.yml to run")
	lint := flag.Bool("lint", false, "only check the action (actionrun.Lint) and exit")
	workspace := flag.String("workspace", "", "the pull request's checkout")
	runnerTemp := flag.String("runner-temp", "", "RUNNER_TEMP (default: a new temporary directory)")
	repository := flag.String("repository", "example/api", "github.repository")
	headRepo := flag.String("head-repo", "", "the pull request's head repository (default: -repository; another one is a fork)")
	actor := flag.String("actor", "contributor", "github.actor")
	baseSHA := flag.String("base-sha", "", "the pull request's base commit")
	headSHA := flag.String("head-sha", "", "the pull request's head commit")
	actionRef := flag.String("action-ref", "local", "github.action_ref")
	actionRepository := flag.String("action-repository", "apicheck/apicheck", "github.action_repository")
	serverURL := flag.String("server-url", "https://github.com", "github.server_url")
	event := flag.String("event", "pull_request", "github.event_name (pull_request and pull_request_target carry the pull request)")
	before := flag.String("before", "", "a push event's commit before the push (all zeros: the push created the branch)")
	defaultBranch := flag.String("default-branch", "main", "the repository's default branch (github.event.repository.default_branch)")
	prNumber := flag.Int("pr-number", 7, "the pull request's number")
	summaryFile := flag.String("summary", "", "a file to write the job summary to")
	token := flag.String("token", "write", "the token's permission for upload-sarif: write or read-only")
	flag.Var(in, "input", "an input of the action, NAME=VALUE (repeatable)")
	flag.Parse()

	a, err := actionrun.Load(*actionPath)
	if err != nil {
		fail(err)
	}
	if *lint {
		problems := actionrun.Lint(a)
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", *actionPath, p)
		}
		if len(problems) > 0 {
			os.Exit(1)
		}
		return
	}
	if *workspace == "" {
		fail(errors.New("-workspace is required"))
	}
	actionDir, err := filepath.Abs(filepath.Dir(*actionPath))
	if err != nil {
		fail(err)
	}
	if *runnerTemp == "" {
		d, err := os.MkdirTemp("", "actionrun")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		*runnerTemp = d
	}
	if *headRepo == "" {
		*headRepo = *repository
	}
	payload := map[string]any{"repository": map[string]any{"full_name": *repository, "default_branch": *defaultBranch}}
	switch *event {
	case "pull_request", "pull_request_target":
		payload["pull_request"] = map[string]any{
			"number": *prNumber,
			"base":   map[string]any{"sha": *baseSHA},
			"head":   map[string]any{"sha": *headSHA, "repo": map[string]any{"full_name": *headRepo}},
		}
	case "merge_group":
		payload["merge_group"] = map[string]any{"base_sha": *baseSHA, "head_sha": *headSHA}
	case "push":
		payload["before"], payload["after"] = *before, *headSHA
	}
	uploads := 0
	res, err := actionrun.Run(a, actionrun.Config{
		ActionDir:  actionDir,
		Workspace:  *workspace,
		RunnerTemp: *runnerTemp,
		Inputs:     in,
		GitHub: map[string]any{
			"event_name":        *event,
			"repository":        *repository,
			"actor":             *actor,
			"action_ref":        *actionRef,
			"action_repository": *actionRepository,
			"server_url":        *serverURL,
			"sha":               *headSHA,
			"token":             "local-token",
			"event":             payload,
		},
		Log: os.Stderr,
		Uses: func(s *actionrun.Step, with map[string]string) (map[string]string, error) {
			switch {
			case strings.HasPrefix(s.Uses, "actions/setup-go@"):
				out, err := exec.Command("go", "env", "GOVERSION").Output()
				if err != nil {
					return nil, fmt.Errorf("setup-go stand-in: no go on PATH: %v", err)
				}
				return map[string]string{"go-version": strings.TrimSpace(strings.TrimPrefix(string(out), "go"))}, nil
			case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
				return restoreCache(with["path"])
			case strings.HasPrefix(s.Uses, "actions/cache/save@"):
				return nil, nil
			case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
				uploads++
				if *token != "write" {
					return nil, errors.New("upload-sarif stand-in: Resource not accessible by integration")
				}
				if fi, err := os.Lstat(with["sarif_file"]); err != nil || !fi.Mode().IsRegular() {
					return nil, fmt.Errorf("upload-sarif stand-in: no SARIF file at %q", with["sarif_file"])
				}
				return map[string]string{"sarif-id": "local"}, nil
			}
			return nil, fmt.Errorf("no stand-in for %s", s.Uses)
		},
	})
	if err != nil {
		fail(err)
	}
	if *summaryFile != "" {
		if err := os.WriteFile(*summaryFile, []byte(res.Summary), 0o644); err != nil {
			fail(err)
		}
	}

	job := "success"
	if res.Failed {
		job = "failure"
	}
	fmt.Printf("job=%s\n", job)
	for _, s := range res.Steps {
		id := s.Step.ID
		if id == "" {
			id = s.Step.Name
		}
		fmt.Printf("step.%s=%s/%s\n", id, s.Outcome, s.Conclusion)
	}
	var names []string
	for k := range res.Outputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("output.%s=%s\n", k, res.Outputs[k])
	}
	for _, level := range []string{"error", "warning", "notice"} {
		fmt.Printf("annotations.%s=%d\n", level, len(res.Annotated(level)))
	}
	for _, n := range res.Annotated("notice") {
		fmt.Printf("notice=%s\n", oneLine(n.Message))
	}
	for _, e := range res.Annotated("error") {
		if e.Props["title"] == "" {
			fmt.Printf("error=%s\n", oneLine(e.Message))
		}
	}
	heading := ""
	for _, l := range strings.Split(res.Summary, "\n") {
		if strings.HasPrefix(l, "#") {
			heading = l
			break
		}
	}
	fmt.Printf("summary.bytes=%d\nsummary.heading=%s\nuploads=%d\n", len(res.Summary), heading, uploads)
}

// restoreCache stands in for actions/cache/restore of apicheck's build
// cache: the directory's build and mod entries become links to this
// machine's Go build and module caches, so that the build needs no
// network; it is a cache hit, so the save step is skipped.
func restoreCache(dir string) (map[string]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("cache stand-in: go env: %v", err)
	}
	paths := strings.Fields(string(out))
	if len(paths) != 2 {
		return nil, fmt.Errorf("cache stand-in: go env printed %q", out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i, name := range []string{"build", "mod"} {
		if err := os.Symlink(paths[i], filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	return map[string]string{"cache-hit": "true", "cache-matched-key": "local"}, nil
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "actionrun:", err)
	os.Exit(2)
}
