package evalrun

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReportTakesOneOutputOnStdout: report with two outputs on standard
// output is a usage error saying so, and writes neither.
func TestReportTakesOneOutputOnStdout(t *testing.T) {
	code, out, errOut := runCmd(t, "report", "--json", "-", "--html", "-", filepath.Join("..", "report", "testdata", "suite.json"))
	if code != exitUsage || out != "" || !strings.Contains(errOut, "evalrun report: only one of --json, --junit and --html may be - (standard output)") {
		t.Errorf("exit %d, %d bytes on stdout, stderr %q; want exit 2 saying only one may be -, and nothing written", code, len(out), errOut)
	}
}
