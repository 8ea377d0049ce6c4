package git

// SetFileLimit lowers the ReadFiles size limit of r (MaxFileSize), so that
// tests need not make files of 8 MiB.
func SetFileLimit(r *Repo, n int64) { r.fileLimit = n }

// GraphReads is how many times rs read the commit graph.
func GraphReads(rs *ReleaseTags) int { return rs.graphReads }
