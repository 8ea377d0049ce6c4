package par

import (
	"errors"
	"strings"
	"testing"
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
