package git

import "testing"

// Words hash apart wherever they are split, and a key is stable.
func TestMemoKey(t *testing.T) {
	if BinaryID() == "" {
		t.Fatal("BinaryID names no executable: nothing would be memoised")
	}
	key := func(kind string, ws ...string) string {
		k := NewMemoKey(kind)
		k.Words(ws...)
		return k.String()
	}
	a, b := key("k", "ab", "c"), key("k", "a", "bc")
	if a == "" || a == b || a != key("k", "ab", "c") || a == key("other", "ab", "c") {
		t.Errorf("keys %s, %s: want distinct, stable, non-empty keys", a, b)
	}
	var none *MemoKey
	none.Word("x")
	if none.String() != "" {
		t.Error("a nil MemoKey gave a key")
	}
}
