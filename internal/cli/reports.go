package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/atomicfile"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/report"
)

// addReportFlag registers the repeatable --report FORMAT=PATH on check.
func addReportFlag(cmd *cobra.Command, specs *[]string) {
	cmd.Flags().StringArrayVar(specs, "report", nil, "also write the report in FORMAT to PATH, e.g. --report sarif=apicheck.sarif "+
		"(repeatable; formats: "+strings.Join(report.FormatNames(), "|")+")")
}

// addLinkBaseFlag registers --link-base, the repository's web address
// for links in the Markdown report.
func addLinkBaseFlag(cmd *cobra.Command, linkBase *string) {
	cmd.Flags().StringVar(linkBase, "link-base", "", "web address of the repository, e.g. https://github.com/org/repo: the markdown "+
		"report links positions to URL/blob/<commit>/<path>#L<line> (default in GitHub Actions: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY)")
}

// reportOptions are the writers' options: the link base from --link-base,
// else from GitHub Actions' environment (GITHUB_SERVER_URL and
// GITHUB_REPOSITORY), else none. A bad --link-base is a usage error; an
// unusable environment means no links.
func reportOptions(linkBase string, getenv func(string) string) (report.Options, error) {
	if linkBase != "" {
		b, err := report.ParseLinkBase(linkBase)
		if err != nil {
			return report.Options{}, usageErr("--link-base: %v", err)
		}
		return report.Options{LinkBase: b}, nil
	}
	server, repo := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY")
	if server == "" || repo == "" {
		return report.Options{}, nil
	}
	b, err := report.ParseLinkBase(strings.TrimRight(server, "/") + "/" + repo)
	if err != nil {
		return report.Options{}, nil
	}
	return report.Options{LinkBase: b}, nil
}

// reportSpec is one parsed --report FORMAT=PATH.
type reportSpec struct {
	format string
	path   string
	write  report.Writer
}

// parseReportSpecs validates every --report before anything runs: a known
// format, a non-empty path other than "-", and no file named twice (by
// two reports, or by a report and --output).
func parseReportSpecs(specs []string, output string) ([]reportSpec, error) {
	var out []reportSpec
	seen := map[string]string{}
	if output != "" && output != "-" {
		seen[filepath.Clean(output)] = "--output"
	}
	for _, s := range specs {
		format, path, ok := strings.Cut(s, "=")
		format = strings.ToLower(strings.TrimSpace(format))
		if !ok || format == "" {
			return nil, usageErr("--report %q: want FORMAT=PATH, e.g. sarif=apicheck.sarif (formats: %s)",
				s, strings.Join(report.FormatNames(), ", "))
		}
		w, known := report.Formats[format]
		if !known {
			return nil, usageErr("--report %q: format %q is not one of %s", s, format, strings.Join(report.FormatNames(), ", "))
		}
		if strings.TrimSpace(path) == "" {
			return nil, usageErr("--report %q: the path is empty", s)
		}
		if path == "-" {
			return nil, usageErr("--report %q: reports are written to files; use --format %s for standard output", s, format)
		}
		key := filepath.Clean(path)
		if prev, dup := seen[key]; dup {
			return nil, usageErr("--report %q: %s is already written by %s", s, path, prev)
		}
		seen[key] = "--report " + s
		out = append(out, reportSpec{format: format, path: path, write: w})
	}
	return out, nil
}

// outputPlan is where one run's reports go: the main report (--format to
// stdout or --output) and the extra --report files. Everything is
// rendered in memory first; only then are the files written, each with
// atomicfile.Write: a regular file atomically (whole or not at all), so
// a failed or interrupted run leaves no partial report and no temporary
// file behind; a FIFO or a device (/dev/stdout) in place, also through a
// symlink; a symlink to anything else is refused, never replaced.
type outputPlan struct {
	main    reportSpec // path "" means standard output
	reports []reportSpec
}

// configure applies writer options (links) to every report of the plan.
func (p *outputPlan) configure(o report.Options) {
	for _, s := range append([]*reportSpec{&p.main}, pointers(p.reports)...) {
		if w, ok := report.WriterFor(s.format, o); ok {
			s.write = w
		}
	}
}

func pointers(specs []reportSpec) []*reportSpec {
	out := make([]*reportSpec, len(specs))
	for i := range specs {
		out[i] = &specs[i]
	}
	return out
}

// planOutputs validates --format, --output and --report before anything
// runs: an unknown format or a missing directory fails (exit 2) first.
func planOutputs(format, output string, specs []string) (*outputPlan, error) {
	w, ok := report.Formats[format]
	if !ok {
		return nil, usageErr("--format %q is not one of %s", format, strings.Join(report.FormatNames(), ", "))
	}
	parsed, err := parseReportSpecs(specs, output)
	if err != nil {
		return nil, err
	}
	p := &outputPlan{main: reportSpec{format: format, write: w}, reports: parsed}
	if output != "" && output != "-" {
		p.main.path = output
		if err := checkDir(output); err != nil {
			return nil, usageErr("cannot write --output %s: %v", output, err)
		}
	}
	for _, s := range parsed {
		if err := checkDir(s.path); err != nil {
			return nil, usageErr("cannot write --report %s=%s: %v", s.format, s.path, err)
		}
	}
	return p, nil
}

// checkDir reports a destination whose directory does not exist.
func checkDir(path string) error {
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", filepath.Dir(path))
	}
	return nil
}

// write renders every report and then writes the files. When a renderer
// fails nothing is written; a file that cannot be written is a usage
// error naming it (reports already in place stay: each is complete).
func (p *outputPlan) write(stdout io.Writer, r *finding.Report) error {
	all := append([]reportSpec{p.main}, p.reports...)
	bufs := make([][]byte, len(all))
	for i, s := range all {
		var b bytes.Buffer
		if err := s.write(&b, r); err != nil {
			if s.path == "" {
				return fmt.Errorf("rendering the %s report: %w", s.format, err)
			}
			return fmt.Errorf("writing --report %s=%s: %w", s.format, s.path, err)
		}
		bufs[i] = b.Bytes()
	}
	for i, s := range all {
		if s.path == "" {
			if _, err := stdout.Write(bufs[i]); err != nil {
				return err
			}
			continue
		}
		if handOff != nil {
			// A check process under a supervisor hands its files over;
			// the supervisor writes them here once the run ended well
			// (handoff.go).
			handOff.keep(s.path, bufs[i])
			continue
		}
		if err := atomicfile.Write(s.path, bufs[i], 0o666); err != nil {
			flag := "--report " + s.format + "=" + s.path
			if i == 0 {
				flag = "--output " + s.path
			}
			return usageErr("cannot write %s: %v", flag, err)
		}
	}
	return nil
}
