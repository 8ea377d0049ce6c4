package git

import "time"

// SetFileLimit lowers the ReadFiles size limit of r (MaxFileSize), so that
// tests need not make files of 8 MiB.
func SetFileLimit(r *Repo, n int64) { r.fileLimit = n }

// GraphReads is how many times rs read the commit graph.
func GraphReads(rs *ReleaseTags) int { return rs.graphReads }

// DateLines gives the tags of every release line of rs the date d (to
// make the dates mislead Before's first batch).
func DateLines(rs *ReleaseTags, d time.Time) {
	for _, l := range rs.lines {
		for i := range l.tags {
			l.tags[i].Date = d
		}
	}
}
