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
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = &PanicError{Value: p, Stack: debug.Stack()}
				}
			}()
			return fn(i)
		})
	}
	return g.Wait()
}

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
