//go:build linux

package bridge

import (
	"io/fs"
	"syscall"
)

// changeOf returns a file's status change time (ns) and inode number; ok
// is false when fi does not carry them. A write, a truncation, a chmod and
// setting the times back all move the change time, which nothing but the
// clock sets.
func changeOf(fi fs.FileInfo) (ctime int64, ino uint64, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, 0, false
	}
	return st.Ctim.Nano(), uint64(st.Ino), true
}
