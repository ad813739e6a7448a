package evalrun

import (
	"path/filepath"
	"strings"
	"testing"
)

// Tests here close mutants that scripts/mutation found alive in evalrun.

// compare --detect takes a drop in pass rate from 0 (no sizing lines) to 1
// inclusive; outside that it is a usage error.
func TestCompareDetectBounds(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "openai/gpt-x", map[string][2]int{"one": {3, 5}})
	writeRun(t, b, "openai/gpt-x", map[string][2]int{"one": {2, 4}})
	for _, tc := range []struct {
		detect string
		code   int
	}{{"0", exitOK}, {"1", exitOK}, {"-0.01", exitUsage}, {"1.01", exitUsage}} {
		code, out, errOut := runCmd(t, "compare", "--detect", tc.detect, a, b)
		if code != tc.code {
			t.Errorf("--detect %s: exit %d, want %d\n%s%s", tc.detect, code, tc.code, out, errOut)
		}
		if tc.code == exitUsage && !strings.Contains(errOut, "want a drop in pass rate from 0 to 1") {
			t.Errorf("--detect %s: stderr %q does not say the range", tc.detect, errOut)
		}
	}
}
