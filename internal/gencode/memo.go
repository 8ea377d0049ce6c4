package gencode

import (
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
)

// The answers about a generated file (a message, a DeepCopyInto, the
// autoConvert functions of a type, an OpenAPI schema) are functions of
// its text: with a memo (UseMemo) they are kept under a key that hashes
// the file's git blob, the question and the apicheck executable
// (git.BinaryID), so that a later run that asks the same about the same
// file does not read it (Gardener's OpenAPI definitions are megabytes, at
// both revisions). A revision that does not name its files by blob (the
// working tree) is not memoised.

// memoKind names the memo entries.
const memoKind = "gencode 1"

// UseMemo makes f keep its answers in memo (nil: none).
func (f *Files) UseMemo(memo git.Memo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.memo = memo
}

// answerKey is the memo key of a question about file p; "" when it is not
// memoised.
func (f *Files) answerKey(p string, question ...string) string {
	if f.memo == nil {
		return ""
	}
	ids, ok := f.src.(git.BlobIDs)
	if !ok {
		return ""
	}
	oid, ok := ids.BlobID(p)
	if !ok {
		return ""
	}
	k := git.NewMemoKey(memoKind)
	k.Word(oid)
	k.Words(question...)
	return k.String()
}

// recall returns the blocks memoised for key.
func (f *Files) recall(key string) (blocks []Block, found, ok bool) {
	if key == "" {
		return nil, false, false
	}
	return decodeBlocks(f.memo.Get(memoKind, key))
}

func (f *Files) remember(key string, blocks []Block, found bool) {
	if key != "" {
		f.memo.Put(memoKind, key, encodeBlocks(blocks, found))
	}
}

// encodeBlocks writes an answer: "found" or "absent", then per block its
// line and the length of its text, and the text.
func encodeBlocks(blocks []Block, found bool) []byte {
	var b strings.Builder
	if found {
		b.WriteString("found")
	} else {
		b.WriteString("absent")
	}
	for _, bl := range blocks {
		b.WriteString("\n" + strconv.Itoa(bl.Line) + " " + strconv.Itoa(len(bl.Text)) + "\n" + bl.Text)
	}
	return []byte(b.String())
}

// decodeBlocks reads what encodeBlocks wrote; ok is false for anything
// else (nil: a miss).
func decodeBlocks(data []byte) (blocks []Block, found, ok bool) {
	if data == nil {
		return nil, false, false
	}
	s := string(data)
	head, rest, more := strings.Cut(s, "\n")
	switch head {
	case "found":
		found = true
	case "absent":
	default:
		return nil, false, false
	}
	for more {
		l, text, hasText := strings.Cut(rest, "\n")
		ls, ns, sp := strings.Cut(l, " ")
		line, err1 := strconv.Atoi(ls)
		n, err2 := strconv.Atoi(ns)
		if !hasText || !sp || err1 != nil || err2 != nil || n < 0 || n > len(text) {
			return nil, false, false
		}
		blocks = append(blocks, Block{Text: text[:n], Line: line})
		rest = text[n:]
		switch {
		case rest == "":
			more = false
		case rest[0] == '\n':
			rest = rest[1:]
		default:
			return nil, false, false
		}
	}
	return blocks, found, true
}

// oneBlock is the answer of a question about one block.
func oneBlock(blocks []Block, found bool) (Block, bool) {
	if !found || len(blocks) != 1 {
		return Block{}, false
	}
	return blocks[0], true
}

// Readable returns the error reading generated file p gives (nil when it
// reads); a file read before (memoised) is not read again.
func (f *Files) Readable(p string) error {
	if f.readBefore(p) {
		return nil
	}
	_, err := f.Read(p)
	return err
}

// readBefore reports whether an earlier run read file p (its answers are
// likely memoised: Prefetch leaves it to the questions).
func (f *Files) readBefore(p string) bool {
	_, _, ok := f.recall(f.answerKey(p, "read"))
	return ok
}
