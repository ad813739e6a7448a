//go:build !unix

package workspace

import "io/fs"

// linkCount returns 1: this system's file information does not say.
func linkCount(fs.FileInfo) uint64 { return 1 }

// nonBlocking is 0: there are no named pipes to block on here.
const nonBlocking = 0
