//go:build !unix

package main

import "os"

// maxRSSKB is not available on this platform.
func maxRSSKB(*os.ProcessState) int64 { return 0 }
