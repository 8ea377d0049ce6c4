package git

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// MemoKey builds the key of a memo entry (Memo) whose answer depends on
// apicheck's own code: a SHA-256 of the kind, the running executable
// (BinaryID) and the words the caller adds, each length-prefixed, so
// that no two lists of words hash alike and another build never meets a
// stale answer.
type MemoKey struct{ h hash.Hash }

// NewMemoKey starts the key of an entry of kind; nil when the executable
// cannot be named (then nothing is memoised). A nil MemoKey takes words
// and gives "".
func NewMemoKey(kind string) *MemoKey {
	id := BinaryID()
	if id == "" {
		return nil
	}
	k := &MemoKey{h: sha256.New()}
	k.Word(kind)
	k.Word(id)
	return k
}

// Word adds a word to the key.
func (k *MemoKey) Word(s string) {
	if k == nil {
		return
	}
	k.h.Write(binary.AppendUvarint(nil, uint64(len(s))))
	k.h.Write([]byte(s))
}

// Words adds words to the key.
func (k *MemoKey) Words(ws ...string) {
	for _, w := range ws {
		k.Word(w)
	}
}

// String is the key, hex; "" for a nil MemoKey.
func (k *MemoKey) String() string {
	if k == nil {
		return ""
	}
	return hex.EncodeToString(k.h.Sum(nil))
}
