package par

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMap(t *testing.T) {
	got, err := Map(100, func(i int) (int, error) { return i * i, nil })
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i*i {
			t.Fatalf("got[%d] = %d", i, v)
		}
	}
	if _, err := Map(10, func(i int) (int, error) {
		if i == 7 {
			return 0, errors.New("seven")
		}
		return i, nil
	}); err == nil || err.Error() != "seven" {
		t.Errorf("err = %v, want seven", err)
	}
}

func TestPanicBecomesError(t *testing.T) {
	err := Do(4, func(i int) error {
		var s []int
		if i == 2 {
			_ = s[i] // a runtime panic, not a panic call
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "internal error: ") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("err = %v, want an internal error with the panic", err)
	}
	if !strings.Contains(string(pe.Stack), "par.TestPanicBecomesError") {
		t.Errorf("stack does not reach the panicking function:\n%s", pe.Stack)
	}
}

// TestPool: work handed over one piece at a time all runs, a panic is
// Wait's error, and the pool bounds the goroutines to GOMAXPROCS.
func TestPool(t *testing.T) {
	p := NewPool()
	var mu sync.Mutex
	running, most, done := 0, 0, 0
	for range 50 {
		p.Go(func() error {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			done++
			mu.Unlock()
			return nil
		})
	}
	if err := p.Wait(); err != nil || done != 50 {
		t.Fatalf("Wait = %v after %d of 50 pieces", err, done)
	}
	if most > runtime.GOMAXPROCS(0) {
		t.Errorf("%d pieces ran at once, more than GOMAXPROCS %d", most, runtime.GOMAXPROCS(0))
	}
	p = NewPool()
	p.Go(func() error { panic("boom") })
	p.Go(func() error { return nil })
	var pe *PanicError
	if err := p.Wait(); !errors.As(err, &pe) || pe.Value != "boom" {
		t.Errorf("Wait = %v, want the panic as a PanicError", err)
	}
}

// TestTogether: pieces that wait on one another all run at once, even on
// one core (a pool bounded by GOMAXPROCS would deadlock), and a panic is
// the error.
func TestTogether(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	first, second := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Together(2, func(i int) error {
			if i == 0 {
				close(first)
				<-second
			} else {
				<-first
				close(second)
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the two pieces did not run side by side on one core (deadlock)")
	}
	var pe *PanicError
	if err := Together(2, func(i int) error {
		if i == 1 {
			panic("boom")
		}
		return nil
	}); !errors.As(err, &pe) || pe.Value != "boom" {
		t.Errorf("Together = %v, want the panic as a PanicError", err)
	}
}
