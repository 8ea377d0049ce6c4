package usage

// FilesRead is how many files the Finder's searches read from git.
func FilesRead(f *Finder) int { return int(f.files.read.Load()) }
