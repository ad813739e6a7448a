//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture seccomp names this one by.
const auditArch = unix.AUDIT_ARCH_X86_64

// writeCalls are the system calls of amd64 that change the file system
// (the ones Landlock refuses outside the writable directories).
var writeCalls = []writeCall{
	{nr: unix.SYS_OPEN, verb: "write", paths: [][2]int{{-1, 0}}, flags: 1, how: -1},
	{nr: unix.SYS_OPENAT, verb: "write", paths: [][2]int{{0, 1}}, flags: 2, how: -1},
	{nr: unix.SYS_OPENAT2, verb: "write", paths: [][2]int{{0, 1}}, flags: -1, how: 2},
	{nr: unix.SYS_CREAT, verb: "create", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_TRUNCATE, verb: "truncate", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_MKDIR, verb: "mkdir", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_MKDIRAT, verb: "mkdir", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_MKNOD, verb: "create", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_MKNODAT, verb: "create", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_RMDIR, verb: "remove", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_UNLINK, verb: "remove", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_UNLINKAT, verb: "remove", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_RENAME, verb: "rename", paths: [][2]int{{-1, 0}, {-1, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_RENAMEAT, verb: "rename", paths: [][2]int{{0, 1}, {2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_RENAMEAT2, verb: "rename", paths: [][2]int{{0, 1}, {2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_LINK, verb: "link", paths: [][2]int{{-1, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_LINKAT, verb: "link", paths: [][2]int{{2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_SYMLINK, verb: "symlink", paths: [][2]int{{-1, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_SYMLINKAT, verb: "symlink", paths: [][2]int{{1, 2}}, flags: -1, how: -1},
}
