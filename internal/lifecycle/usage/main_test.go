package usage_test

import (
	"testing"

	"github.com/apicheck/apicheck/internal/testutil/hermetic"
)

// TestMain keeps the tests away from the user's home and cache
// directories (the searches memoise their answers in the lifecycle
// cache), and fails if one of them writes to the stand-in ones.
func TestMain(m *testing.M) { hermetic.Main(m) }
