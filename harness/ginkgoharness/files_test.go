package ginkgoharness

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestMatchGoldenFailureNamesAStrangeFile checks that the matcher refuses a
// golden that is a named pipe, and that its message says why.
func TestMatchGoldenFailureNamesAStrangeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s"+scenario.GoldenSuffix)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	if ok, err := MatchGolden(p).Match(&harness.Outcome{Name: "s"}); ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Match over a named pipe = %v, %v; want a refusal", ok, err)
	}
	msg := MatchGolden(p).FailureMessage(&harness.Outcome{Name: "s"})
	if !strings.Contains(msg, p+": not a regular file (a named pipe)") {
		t.Errorf("message %q does not say the golden is a named pipe", msg)
	}
}
