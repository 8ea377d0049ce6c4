//go:build !unix

package git

// openNoFollow has no equivalent here; os.Root still keeps every open
// inside the repository, and the file type is checked after opening.
const openNoFollow = 0
