package cli

import (
	"os"
	"testing"
)

// TestCollectorSettings: the small tree's percentage and the large tree's
// heap limit apply unless the user set GOGC or GOMEMLIMIT, which then
// stand.
func TestCollectorSettings(t *testing.T) {
	for _, c := range []struct {
		name          string
		env           map[string]string
		wantPercent   int
		wantHeapLimit int64
	}{
		{"neither set", nil, 400, 176 << 20},
		{"GOGC set", map[string]string{"GOGC": "100"}, 0, 0},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 400, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
				t.Setenv(v, "") // restored after the test
				if val, ok := c.env[v]; ok {
					os.Setenv(v, val)
				} else {
					os.Unsetenv(v)
				}
			}
			if got := gcPercent(); got != c.wantPercent {
				t.Errorf("gcPercent() = %d, want %d", got, c.wantPercent)
			}
			if got := heapLimit(); got != c.wantHeapLimit {
				t.Errorf("heapLimit() = %d, want %d", got, c.wantHeapLimit)
			}
		})
	}
}
