package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/report"
)

// addReportFlag registers the repeatable --report FORMAT=PATH on check.
func addReportFlag(cmd *cobra.Command, specs *[]string) {
	cmd.Flags().StringArrayVar(specs, "report", nil, "also write the report in FORMAT to PATH, e.g. --report sarif=apicheck.sarif "+
		"(repeatable; formats: "+strings.Join(report.FormatNames(), "|")+")")
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

// reportFiles are the extra reports of one run. Each is written to a
// temporary file beside its destination and renamed into place only when
// complete, so a report appears whole or not at all. The methods accept a
// nil receiver (no --report given).
type reportFiles struct {
	files []*reportFile
}

type reportFile struct {
	spec reportSpec
	tmp  *os.File
	done bool
}

// openReports validates the --report flags and creates their temporary
// files, so that an unknown format or an unwritable path fails (exit 2)
// before the comparison runs.
func openReports(specs []string, output string) (*reportFiles, error) {
	parsed, err := parseReportSpecs(specs, output)
	if err != nil || len(parsed) == 0 {
		return nil, err
	}
	rs := &reportFiles{}
	for _, s := range parsed {
		tmp, err := os.CreateTemp(filepath.Dir(s.path), "."+filepath.Base(s.path)+".tmp*")
		if err != nil {
			rs.Abort()
			return nil, usageErr("cannot write --report %s=%s: %v", s.format, s.path, err)
		}
		rs.files = append(rs.files, &reportFile{spec: s, tmp: tmp})
	}
	return rs, nil
}

// Finish renders every report and moves the files into place. When any
// report fails, none that is not yet in place is left behind.
func (rs *reportFiles) Finish(r *finding.Report) error {
	if rs == nil {
		return nil
	}
	for _, f := range rs.files {
		if err := f.spec.write(f.tmp, r); err != nil {
			rs.Abort()
			return fmt.Errorf("writing --report %s=%s: %w", f.spec.format, f.spec.path, err)
		}
	}
	for _, f := range rs.files {
		if err := f.tmp.Close(); err != nil {
			rs.Abort()
			return usageErr("cannot write --report %s=%s: %v", f.spec.format, f.spec.path, err)
		}
	}
	for _, f := range rs.files {
		if err := os.Rename(f.tmp.Name(), f.spec.path); err != nil {
			rs.Abort()
			return usageErr("cannot write --report %s=%s: %v", f.spec.format, f.spec.path, err)
		}
		f.done = true
	}
	return nil
}

// Abort removes the temporary files of reports not yet in place.
func (rs *reportFiles) Abort() {
	if rs == nil {
		return
	}
	for _, f := range rs.files {
		if !f.done {
			f.tmp.Close()
			os.Remove(f.tmp.Name())
			f.done = true
		}
	}
}
