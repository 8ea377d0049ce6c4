// Package par runs independent pieces of work on all cores with a
// bounded pool (golang.org/x/sync/errgroup). A panic in a worker becomes
// an error naming the piece instead of crashing the process, so the CLI
// can exit 3 with a message rather than leave a partial report.
package par

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"golang.org/x/sync/errgroup"
)

// Do calls fn(i) for every i in [0, n) on at most GOMAXPROCS goroutines
// and returns the first error (by completion).
func Do(n int, fn func(i int) error) error {
	if n == 0 {
		return nil
	}
	p := NewPool()
	for i := range n {
		p.Go(func() error { return fn(i) })
	}
	return p.Wait()
}

// Together calls fn(i) for every i in [0, n), each on its own goroutine
// whatever the number of cores, and returns the first error (by
// completion): for a few pieces that wait on one another (base's and
// head's scans), which a pool bounded by GOMAXPROCS could deadlock. A
// panic becomes the error, as in Do.
func Together(n int, fn func(i int) error) error {
	var p Pool // no limit
	for i := range n {
		p.Go(func() error { return fn(i) })
	}
	return p.Wait()
}

// Pool runs work handed to it one piece at a time (as it arrives, e.g.
// while a stream is read) on at most GOMAXPROCS goroutines.
type Pool struct{ g errgroup.Group }

// NewPool returns an empty pool.
func NewPool() *Pool {
	p := &Pool{}
	p.g.SetLimit(runtime.GOMAXPROCS(0))
	return p
}

// Go runs fn on the pool; it blocks while every goroutine is busy. A
// panic in fn becomes Wait's error.
func (p *Pool) Go(fn func() error) {
	p.g.Go(func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
		return fn()
	})
}

// Wait waits for the work handed to the pool and returns the first error
// (by completion).
func (p *Pool) Wait() error { return p.g.Wait() }

// PanicError is a panic recovered by Do or by another part of apicheck
// that must not crash (the rule engine): an internal error, which the CLI
// reports with its stack and exit code 3.
type PanicError struct {
	// In names what panicked ("rule NEW_FIELD_NOT_POINTER"), if known.
	In string
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	if e.In != "" {
		return fmt.Sprintf("internal error in %s: %v", e.In, e.Value)
	}
	return fmt.Sprintf("internal error: %v", e.Value)
}

// Map returns fn(i) for every i in [0, n), computed by Do.
func Map[T any](n int, fn func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	err := Do(n, func(i int) error {
		v, err := fn(i)
		out[i] = v
		return err
	})
	return out, err
}
