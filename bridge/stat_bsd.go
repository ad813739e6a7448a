//go:build darwin || freebsd

package bridge

import (
	"io/fs"
	"syscall"
)

// changeOf returns a file's status change time (ns) and inode number, as
// on Linux (stat_unix.go); these systems name the field Ctimespec.
func changeOf(fi fs.FileInfo) (ctime int64, ino uint64, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, 0, false
	}
	return st.Ctimespec.Nano(), uint64(st.Ino), true
}
