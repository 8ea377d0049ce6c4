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

// ShareTypesFrom sets how many types the second scan must build before it
// holds base's equal types (shareTypesFrom); the returned func restores it.
func ShareTypesFrom(n int) func() {
	old := shareTypesFrom
	shareTypesFrom = n
	return func() { shareTypesFrom = old }
}

// Early are the group directories the second scan built before the first
// was done (read it once both scans ended).
func (r *Reuse) Early() []string { return r.early }

// IndexBuilds is how many file-list indexes scans have built.
func IndexBuilds() int64 { return indexBuilds.Load() }

// IndexesKept is how many sources have their index kept.
func IndexesKept() int {
	indexes.Lock()
	defer indexes.Unlock()
	return len(indexes.m)
}

// MaxIndexes is the bound on IndexesKept.
const MaxIndexes = maxIndexes

// ModCacheReads is the number of module cache directories the pair's
// scans read and parsed through their shared cache.
func (r *Reuse) ModCacheReads() int { return int(r.modFiles.reads.Load()) }

// ExternalBuildsTaken is how many external packages the second scan of
// the pair took from the first instead of building them.
func (r *Reuse) ExternalBuildsTaken() int { return int(r.modFiles.taken.Load()) }
