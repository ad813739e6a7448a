package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay's outputs read its results back from a spool file in the
// temporary folder; when the replay is done that file is neither left on
// disk nor held open (a long-lived process replaying again and again
// would run out of file descriptors).
func TestReplaySpoolClosedAndRemoved(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to count open files (%v)", err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "r.json")
	if code, out, errOut := runCmd(t, "replay", "--json", file, dir); code != exitOK {
		t.Fatalf("replay --json: exit %d\n%s%s", code, out, errOut)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the replay left %d files in the temporary folder: %v", len(left), left)
	}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, tmp) {
			t.Errorf("file descriptor %s is still open on %s", fd.Name(), target)
		}
	}
}
