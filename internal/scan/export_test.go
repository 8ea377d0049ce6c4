package scan

// Len is the number of distinct files parsed through the cache.
func (c *Parses) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
