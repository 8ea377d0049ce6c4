package cli

import (
	"os"
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestMain keeps the tests away from the user's home and cache
// directories, and fails if one of them writes to the stand-in ones.
// With asApicheckEnv set, the test binary is apicheck (interrupt_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(asApicheckEnv) == "1" {
		os.Exit(asApicheck())
	}
	hermetic.Main(m)
}
