package lifecycle

import (
	"os"
	"path/filepath"
)

// GitReads is how many trees and blobs the struct history of h read from
// git (0 when it read none).
func GitReads(h *History) int {
	if h.structs == nil {
		return 0
	}
	return h.structs.reads
}

// StructsLoaded reports whether h read the release trees of some struct
// (from git or the cache), not only memoised histories.
func StructsLoaded(h *History) bool { return h.structs != nil }

// CacheEntries returns the entries the cache under root holds, by name,
// as a run reads them (the newest pack's entry of a name).
func CacheEntries(root string) map[string][]byte {
	c := openBlobCache(root, "/nonexistent-repository")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	return c.entries
}

// ReplaceCache removes every pack of the cache under root and writes
// entries as one pack, in the order of names, framed as written
// (damaged content included), followed by tail (damage to the framing).
func ReplaceCache(root string, names []string, entries map[string][]byte, tail []byte) error {
	c := openBlobCache(root, "/nonexistent-repository")
	for _, p := range c.listPacks() {
		if err := os.Remove(filepath.Join(c.dir, p)); err != nil {
			return err
		}
	}
	var records []packRecord
	for _, n := range names {
		records = append(records, packRecord{n, entries[n]})
	}
	return os.WriteFile(filepath.Join(c.dir, newPackName()), append(encodePack(records), tail...), 0o600)
}

// SetSplitAt sets the smallest batch the release reads split between
// their cat-file processes, and returns the previous value.
func SetSplitAt(n int) int {
	old := splitAt
	splitAt = n
	return old
}
