//go:build linux && (amd64 || arm64)

package evalrun

import (
	"os"
	"syscall"
	"testing"
)

// evictPages drops the file at path from the page cache (written out
// first), so that a command run from it next reads its pages afresh. A
// binary's pages in the cache are mapped by whole folios, whose sizes
// depend on how the file came to be cached (written by the linker, read
// ahead by an earlier run): the same evalrun's peak RSS varied by 3-16 MB
// from run to run on a one-call replay, all of it the binary's pages.
// Read afresh, they are mapped alike every time.
func evictPages(t testing.TB, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); errno != 0 {
		t.Logf("posix_fadvise(%s, DONTNEED): %v: its pages stay cached", path, errno)
	}
}
