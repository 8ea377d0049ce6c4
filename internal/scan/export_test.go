package scan

// Len is the number of distinct files parsed through the cache.
func (c *Parses) Len() int { return int(c.parsed.Load()) }

// Held is the number of parsed files the cache still holds.
func (c *Parses) Held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
