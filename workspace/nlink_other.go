//go:build !unix

package workspace

import "io/fs"

// linkCount returns 1: this system's file information does not say.
func linkCount(fs.FileInfo) uint64 { return 1 }

// nonBlocking is 0: there are no named pipes to block on here.
const nonBlocking = 0

// sameFile reports false: with one link per file, no two names share one.
func sameFile(a, b fs.FileInfo) bool { return false }
