package evalrun

import (
	"strings"
	"testing"
)

// TestReportTakesOneOutputOnStdout: report with two outputs on standard
// output is a usage error saying so.
func TestReportTakesOneOutputOnStdout(t *testing.T) {
	code, out, errOut := runCmd(t, "report", "--json", "-", "--html", "-", "r.json")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "evalrun report: only one of --json, --junit and --html may be - (standard output)") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 saying only one may be -", code, out, errOut)
	}
}
