package check

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestHeapLimitFor(t *testing.T) {
	h := &heapLimit{floor: 100}
	for _, c := range []struct{ live, want int64 }{
		{0, 100},
		{50, 100},  // 75 < floor
		{66, 100},  // 99 < floor
		{80, 120},  // 1.5x
		{400, 600}, // always above the live heap
	} {
		if got := h.limitFor(c.live); got != c.want {
			t.Errorf("limitFor(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// TestHeapLimitRearms: the limit is set when armed and again after each
// collection, from the live heap then, and no more once stopped.
func TestHeapLimitRearms(t *testing.T) {
	var live atomic.Int64
	live.Store(1000)
	sets := make(chan int64, 64)
	h := &heapLimit{floor: 10, live: live.Load, set: func(v int64) int64 {
		select {
		case sets <- v:
		default:
		}
		return 0
	}}
	h.arm()
	if got := <-sets; got != 1500 {
		t.Fatalf("armed: limit %d, want 1500", got)
	}
	next := func() (int64, bool) {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			runtime.GC()
			select {
			case v := <-sets:
				return v, true
			case <-time.After(5 * time.Millisecond):
			}
		}
		return 0, false
	}
	live.Store(2000)
	if got, ok := next(); !ok || got != 3000 {
		t.Fatalf("after a collection: limit %d (set: %v), want 3000", got, ok)
	}
	live.Store(4)
	if got, ok := next(); !ok || got != 10 {
		t.Fatalf("after another: limit %d (set: %v), want the floor 10", got, ok)
	}
	h.stop.Store(true)
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // a finalizer already running may still set once
	for len(sets) > 0 {
		<-sets
	}
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(sets); n != 0 {
		t.Errorf("stopped, yet the limit was set %d more times", n)
	}
}
