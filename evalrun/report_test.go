package evalrun

import (
	"os"
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

// TestReportWantsOneResultAndAnOutput: report without an output flag, or
// without exactly one RESULT.json, is a usage error that says what it
// wants, then its usage, on stderr, writing nothing.
func TestReportWantsOneResultAndAnOutput(t *testing.T) {
	suite := filepath.Join("..", "report", "testdata", "suite.json")
	html := filepath.Join(t.TempDir(), "r.html")
	for _, args := range [][]string{{suite}, {"--html", html}, {"--html", html, suite, suite}} {
		code, out, errOut := runCmd(t, append([]string{"report"}, args...)...)
		want := "evalrun report: want one RESULT.json and --html FILE, --junit FILE or --json FILE\nusage: evalrun report "
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, want) {
			t.Errorf("report %q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and stderr starting:\n%s", args, code, out, errOut, want)
		}
		if _, err := os.Stat(html); err == nil {
			t.Errorf("report %q wrote %s", args, html)
		}
	}
}
