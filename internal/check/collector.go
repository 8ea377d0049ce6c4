package check

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcFloor is the heap a small tree's check grows to before its first
// collection: a release pair of Gardener allocates about 50 MB in all.
const gcFloor = 128 << 20

// setCollector sets the garbage collector's percentage the request gives
// (Request.GCPercent) when the tree is small for sure, and lets the heap
// reach gcFloor before the first collection: the collector is off under
// a memory limit of gcFloor until it first runs, then the percentage
// applies with the limit there was before (a live heap above the floor
// is collected as usual, never against the limit). A tree that is not
// small for sure gets the request's heap limit instead (Request.HeapLimit).
func setCollector(res *Result, req Request) {
	if req.GCPercent <= 0 && req.HeapLimit <= 0 {
		return
	}
	if !res.smallTree(partSize(req)) {
		setHeapLimit(req.HeapLimit)
		return
	}
	if req.GCPercent <= 0 {
		return
	}
	limit := debug.SetMemoryLimit(-1) // reads it
	if limit < gcFloor {
		debug.SetGCPercent(req.GCPercent)
		return
	}
	debug.SetMemoryLimit(gcFloor)
	debug.SetGCPercent(-1)
	afterCollection(func() {
		debug.SetGCPercent(req.GCPercent)
		debug.SetMemoryLimit(limit)
	})
}

// heapLimit keeps a large tree's memory near what its live heap needs: a
// soft memory limit (debug.SetMemoryLimit) of 1.5 times the live heap of
// the last collection, never below floor, set again after every
// collection. Under the limit the runtime collects earlier than Go's
// default (twice the live heap) and returns the freed pages to the
// system, so a run judged part by part peaks near 1.5 times the live heap
// of its largest part; the limit always leaves the collector headroom
// above the live heap, so it never collects back to back against a limit
// the live heap has outgrown, as a fixed limit would.
type heapLimit struct {
	floor int64
	live  func() int64      // the live heap after the last collection
	set   func(int64) int64 // debug.SetMemoryLimit
	stop  atomic.Bool
}

// limitFor is the memory limit for a live heap of live bytes.
func (h *heapLimit) limitFor(live int64) int64 {
	return max(h.floor, live+live/2)
}

// apply sets the limit for the live heap of the last collection.
func (h *heapLimit) apply() { h.set(h.limitFor(h.live())) }

// arm applies the limit now and after every collection to come
// (afterCollection, re-armed each time), until stop is set.
func (h *heapLimit) arm() {
	h.apply()
	h.rearm()
}

func (h *heapLimit) rearm() {
	afterCollection(func() {
		if h.stop.Load() {
			return
		}
		h.apply()
		h.rearm()
	})
}

// afterCollection runs f once, on the finalizer goroutine, after the
// next collection: the finalizer of an object nothing refers to.
func afterCollection(f func()) {
	sentinel := new([16]byte) // 16 bytes: the tiny allocator would batch a smaller one
	runtime.SetFinalizer(sentinel, func(*[16]byte) { f() })
}

// liveHeap reads the live heap of the last collection (runtime/metrics).
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// armedLimit is the heapLimit in force; a later check's replaces it, so
// the checks of one process never stack their re-arming finalizers.
var armedLimit atomic.Pointer[heapLimit]

// setHeapLimit puts a tree that is not small for sure under a heapLimit
// of at least floor bytes, for the rest of the process (or until another
// check sets its own).
func setHeapLimit(floor int64) {
	if floor <= 0 {
		return
	}
	h := &heapLimit{floor: floor, live: liveHeap, set: debug.SetMemoryLimit}
	if old := armedLimit.Swap(h); old != nil {
		old.stop.Store(true)
	}
	h.arm()
}
