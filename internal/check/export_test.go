package check

import (
	"math"
	"runtime"
	"runtime/debug"
	"time"
)

// StopHeapLimit stops the heap limit a check armed (Request.HeapLimit),
// removes the memory limit and returns the one that was in force.
func StopHeapLimit() int64 {
	limit := debug.SetMemoryLimit(-1)
	if h := armedLimit.Swap(nil); h != nil {
		h.stop.Store(true)
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // a finalizer already running may still set once
	}
	debug.SetMemoryLimit(math.MaxInt64)
	return limit
}
