// Package early supervises apicheck's command line while the program is
// initialised (supervisor.Begin), so that the supervising process does not
// initialise what only the check process needs: the YAML and Go type
// checker packages, cobra, apicheck's own. Go initialises a package after
// the packages it imports, and of those ready the one whose import path
// sorts first; this package is ready early as long as everything package
// supervisor imports is initialised early anyway. A package that sorts
// late and that the others do not need, such as runtime/debug, would
// make it wait for them all (so the check process's crash output is set
// up in package cli). cmd/apicheck's TestSupervisorInitialisesLittle
// keeps it so.
//
// cmd/apicheck imports it. Its test binary links it too, and Begin leaves
// test binaries alone; the test binaries that run cli.Main as apicheck
// (package cli's) supervise there.
package early

import "github.com/apicheck/apicheck/internal/supervisor"

func init() { supervisor.Begin() }
