package scan

// ParsedOnce is the number of distinct files the pair's scans parsed
// through their shared cache.
func (r *Reuse) ParsedOnce() int { return int(r.parses.parsed.Load()) }

// Held is the number of parsed files the shared cache still holds.
func (r *Reuse) Held() int {
	r.parses.mu.Lock()
	defer r.parses.mu.Unlock()
	return len(r.parses.m)
}
