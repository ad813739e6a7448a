//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fixedPaths gives the calling thread (locked, never returned to the
// scheduler) a root of its own: a new mount namespace, private to it,
// whose root is a tmpfs at root (an empty directory of the host) holding
// every entry of the host's root, bound, and /tapeloop/work and
// /tapeloop/home bound to work and home. The thread is moved into that
// root (chroot) and WorkDir.
func fixedPaths(root, work, home string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=755"); err != nil {
		return fmt.Errorf("a tmpfs for the root: %w", err)
	}
	entries, err := os.ReadDir("/")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "tapeloop" {
			continue
		}
		from, to := "/"+e.Name(), filepath.Join(root, e.Name())
		switch t := e.Type(); {
		case t&os.ModeSymlink != 0:
			target, err := os.Readlink(from)
			if err == nil {
				err = os.Symlink(target, to)
			}
			if err != nil {
				return err
			}
		case t.IsDir():
			if err := os.Mkdir(to, 0o755); err != nil {
				return err
			}
			if err := unix.Mount(from, to, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("binding %s: %w", from, err)
			}
		case t.IsRegular():
			if err := os.WriteFile(to, nil, 0o644); err != nil {
				return err
			}
			if err := unix.Mount(from, to, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("binding %s: %w", from, err)
			}
		}
	}
	// Binding the directory that holds root copied root's own tmpfs into
	// itself, as it was then; that copy goes.
	_ = unix.Unmount(filepath.Join(root, root), unix.MNT_DETACH)
	for _, b := range []struct{ from, to string }{{work, WorkDir}, {home, HomeDir}} {
		to := filepath.Join(root, b.to)
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(b.from, to, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s: %w", b.to, err)
		}
	}
	if err := unix.Chroot(root); err != nil {
		return fmt.Errorf("chroot: %w", err)
	}
	return unix.Chdir(WorkDir)
}

// landlockABI is the Landlock version of the kernel, 0 when it has none
// (or it is off).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// writeAccess is every Landlock right that changes the file system, for
// the kernel's version abi.
func writeAccess(abi int) uint64 {
	a := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		a |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		a |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return a
}

// refuseWrites restricts the calling thread (and what it starts) with
// Landlock: it may change files only beneath the directories of writable,
// and write to the existing device files beneath /dev (/dev/null, a
// terminal); reading is not restricted.
func refuseWrites(writable ...string) error {
	abi := landlockABI()
	if abi < 1 {
		return errors.New("the kernel has no Landlock")
	}
	handled := writeAccess(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	allow := func(path string, access uint64) error {
		dir, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening %s: %w", path, err)
		}
		defer unix.Close(dir)
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(dir)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
		}
		return nil
	}
	for _, w := range writable {
		if err := allow(w, handled); err != nil {
			return err
		}
	}
	devWrite := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	if abi >= 3 {
		devWrite |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if err := allow("/dev", devWrite); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
