package usage

// FilesRead is how many files the Finder's searches read from git.
func FilesRead(f *Finder) int { return int(f.files.read.Load()) }

// SetBatches sets how many files a search reads at a time and how many
// bytes of files that are not candidates it keeps, until restore.
func SetBatches(files, keep int) (restore func()) {
	was, wasKeep := readBatch, keepBytes
	readBatch, keepBytes = files, keep
	return func() { readBatch, keepBytes = was, wasKeep }
}
