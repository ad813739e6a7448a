//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// linkCount returns how many hard links the file has (1 when unknown).
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// nonBlocking is the open flag that keeps opening a named pipe from waiting
// for the other end.
const nonBlocking = syscall.O_NONBLOCK

// sameFile reports whether a and b, from Lstat or a listing, describe the
// same file: the same device and inode.
func sameFile(a, b fs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
