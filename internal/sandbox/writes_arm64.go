//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture seccomp names this one by.
const auditArch = unix.AUDIT_ARCH_AARCH64

// writeCalls are the system calls of arm64 that change the file system
// (the ones Landlock refuses outside the writable directories); arm64
// has only the *at forms.
var writeCalls = []writeCall{
	{nr: unix.SYS_OPENAT, verb: "write", paths: [][2]int{{0, 1}}, flags: 2, how: -1},
	{nr: unix.SYS_OPENAT2, verb: "write", paths: [][2]int{{0, 1}}, flags: -1, how: 2},
	{nr: unix.SYS_TRUNCATE, verb: "truncate", paths: [][2]int{{-1, 0}}, flags: -1, how: -1},
	{nr: unix.SYS_MKDIRAT, verb: "mkdir", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_MKNODAT, verb: "create", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_UNLINKAT, verb: "remove", paths: [][2]int{{0, 1}}, flags: -1, how: -1},
	{nr: unix.SYS_RENAMEAT, verb: "rename", paths: [][2]int{{0, 1}, {2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_RENAMEAT2, verb: "rename", paths: [][2]int{{0, 1}, {2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_LINKAT, verb: "link", paths: [][2]int{{2, 3}}, flags: -1, how: -1},
	{nr: unix.SYS_SYMLINKAT, verb: "symlink", paths: [][2]int{{1, 2}}, flags: -1, how: -1},
}
