package lifecycle

// GitReads is how many trees and blobs the struct history of h read from
// git (0 when it read none).
func GitReads(h *History) int {
	if h.structs == nil {
		return 0
	}
	return h.structs.reads
}
