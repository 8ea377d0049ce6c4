//go:build !unix

package lifecycle

import "io/fs"

// ownerCheck: outside Unix the user cache directory is per user already
// (e.g. %LocalAppData% on Windows).
func ownerCheck(fs.FileInfo) error { return nil }
