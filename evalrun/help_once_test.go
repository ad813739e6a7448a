package evalrun

import (
	"strings"
	"testing"
)

// TestHelpPrintsOnce: --help prints the usage once, on standard output,
// and nothing on standard error; a bad flag prints it on standard error
// only (issue 39, minor list).
func TestHelpPrintsOnce(t *testing.T) {
	for _, cmd := range []string{"replay", "compare", "rebase"} {
		code, out, errOut := runCmd(t, cmd, "--help")
		if code != exitOK || strings.Count(out, "usage: evalrun "+cmd) != 1 || errOut != "" {
			t.Errorf("%s --help: exit %d, stdout %d usages, stderr %q", cmd, code, strings.Count(out, "usage: evalrun "+cmd), errOut)
		}
		code, out, errOut = runCmd(t, cmd, "--no-such-flag")
		if code != exitUsage || out != "" || strings.Count(errOut, "usage: evalrun "+cmd) != 1 {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %d usages", cmd, code, out, strings.Count(errOut, "usage: evalrun "+cmd))
		}
	}
}
